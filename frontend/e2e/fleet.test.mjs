// End-to-end check of the fleet (every job of every cluster ranked by checkpoint health) against
// dev/serve-fake.mjs (the built dist/ with dev/fake-bridge.js): three sources, both engines, four
// jobs whose canned rows come in the backend's order — clickstream-sessionize failing on top.
// It is the first screen with several jobs; filters by text, cluster, engine and attention; sorts
// by a column; ↓ + Enter opens a job, J comes back with the selection kept; rows follow the
// checkpoints stored (at most once a second) keeping the selection and the scroll position; in
// English with en-GB dates and in Chinese; the last run's rows (a start's first answer) say so
// and are asked for again until the answer is of now. Needs only dist/ (`make frontend`); screenshots go to
// test-results/fleet-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakePage, pageHelpers, skip, zh } from './fakepage.mjs';

const CLICKS = 'ffee00112233445566778899aabbccdd'; // clickstream-sessionize on prod-flink: failing
const DORIS = '870213338743619585'; // mysql-to-doris on zeta-staging (SeaTunnel): slow
const SAMPLE_JOB = '469237c073b0c1ea872fc0403694fc68'; // the sample: healthy
const fill = (s, v) => s.replace(/{{(\w+)}}/g, (_, k) => v[k]);

describe('the fleet (fake bridge)', { skip }, () => {
  let page;
  let stop;
  const pageErrors = [];
  const { text, shot, call, setLang } = pageHelpers(() => page, 'fleet');

  before(async () => {
    // A British English browser in UTC: dates read "5 Dec 2026 10:00:00".
    ({ page, stop } = await fakePage({ viewport: { width: 1440, height: 900 }, pageErrors, locale: 'en-GB', timezoneId: 'UTC' }));
  });
  after(async () => {
    await stop?.();
  });

  /** The rows shown, top to bottom, as "cluster/job id". */
  const rows = () => page.locator('[data-testid="fleet-row"]').evaluateAll((els) => els.map((e) => `${e.dataset.cluster}/${e.dataset.jobId}`));
  const names = () => page.locator('[data-testid="fleet-job"]').allInnerTexts();
  const waitRows = (n) => page.waitForFunction((k) => document.querySelectorAll('[data-testid="fleet-row"]').length === k, n);
  const selected = () => page.locator('[data-testid="fleet-row"][aria-selected="true"]').evaluateAll((els) => els.map((e) => `${e.dataset.cluster}/${e.dataset.jobId}`));
  const row = (cluster, job) => page.locator(`[data-testid="fleet-row"][data-cluster="${cluster}"][data-job-id="${job}"]`);

  it('is the first screen with several jobs known: every job, the failing one first', async () => {
    await page.getByTestId('fleet-view').waitFor();
    await waitRows(4);
    assert.match(await page.evaluate(() => location.hash), /^#\/fleet\b/);
    // The job list makes way for the table.
    assert.equal(await page.getByTestId('job-list').count(), 0);
    assert.equal(await page.getByTestId('open-fleet').getAttribute('aria-pressed'), 'true');
    // The backend's order, as the fake answers it.
    const want = (await call('Fleet', { window_ms: 3_600_000, cluster: '' })).jobs.map((j) => `${j.cluster}/${j.job_id}`);
    assert.deepEqual(await rows(), want);
    assert.equal((await rows())[0], `prod-flink/${CLICKS}`);
    const attention = await page.getByTestId('fleet-attention').allInnerTexts();
    assert.deepEqual(attention.map((s) => s.trim()), ['Failing', 'Slow', 'Slower than usual', 'Healthy'], 'each badge says its state in words');
    // Several clusters, both engines.
    const top = row('prod-flink', CLICKS);
    assert.match(await top.innerText(), /Apache Flink/);
    assert.match(await row('zeta-staging', DORIS).innerText(), /Apache SeaTunnel/);
    assert.equal(await text('fleet-count'), '4 of 4 jobs');
  });

  it('shows counts, p90 beside the usual p90, the newest failure and since when (en-GB)', async () => {
    const top = row('prod-flink', CLICKS);
    assert.equal((await top.locator('[data-col="failed"]').innerText()).trim(), '3');
    assert.equal((await top.locator('[data-col="p50"]').innerText()).trim(), '1.35 secs');
    assert.equal((await top.locator('[data-col="p90"]').innerText()).replace(/\s+/g, ' ').trim(), '1.9 secs (usually 1.1 secs)');
    assert.match(await top.locator('[data-col="failure"]').getAttribute('title'), /Asynchronous task checkpoint failed/);
    const fleet = await call('Fleet', { window_ms: 3_600_000, cluster: '' });
    const since = fleet.jobs.find((j) => j.job_id === CLICKS).since_ms;
    // en-GB: the day before the month, a 24-hour clock.
    const d = new Date(since);
    const at = new RegExp(`\\n${d.getUTCDate()} [A-Z][a-z]{2,3} ${d.getUTCFullYear()} ${d.toISOString().slice(11, 19)}$`);
    const sinceCell = (await top.locator('[data-col="since"]').innerText()).trim();
    assert.match(sinceCell, /^10 mins ago/);
    assert.match(sinceCell, at);
    // A job without trouble has no "since".
    assert.equal((await row('sample', SAMPLE_JOB).locator('[data-col="since"]').innerText()).trim(), '—');
    assert.ok((await page.getByTestId('sparkline').count()) >= 4, 'a sparkline per row');
    await shot('en');
  });

  it('filters by text ("/" focuses the box, Esc clears it), cluster, engine and attention', async () => {
    await page.mouse.click(700, 700); // nothing focused
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'fleet-filter');
    await page.keyboard.type('DORIS');
    await waitRows(1);
    assert.deepEqual(await rows(), [`zeta-staging/${DORIS}`]);
    assert.equal(await text('fleet-count'), '1 of 4 jobs');
    await page.keyboard.press('Escape');
    await waitRows(4);
    assert.equal(await page.getByTestId('fleet-filter').inputValue(), '');
    // By id and by cluster name.
    await page.getByTestId('fleet-filter').fill('ffee0011');
    await waitRows(1);
    await page.getByTestId('fleet-filter').fill('prod');
    await waitRows(2);
    await page.getByTestId('fleet-clear').click();
    await waitRows(4);

    await page.getByTestId('fleet-attention-filter').selectOption('needs');
    await waitRows(3);
    assert.ok(!(await rows()).includes(`sample/${SAMPLE_JOB}`), 'the healthy job is left out');
    await page.getByTestId('fleet-attention-filter').selectOption('healthy');
    await waitRows(1);
    assert.deepEqual(await rows(), [`sample/${SAMPLE_JOB}`]);
    await page.getByTestId('fleet-attention-filter').selectOption('');
    await page.getByTestId('fleet-engine').selectOption('seatunnel');
    await waitRows(1);
    await page.getByTestId('fleet-engine').selectOption('');
    await page.getByTestId('fleet-cluster').selectOption('prod-flink');
    await waitRows(2);
    await shot('filtered');
    await page.getByTestId('fleet-cluster').selectOption('');
    await waitRows(4);
  });

  it('sorts by a column: ascending, descending, then the needs-attention order again', async () => {
    const before = await rows();
    const sortName = page.getByTestId('fleet-sort-name');
    await sortName.click();
    assert.deepEqual(await names(), ['clickstream-sessionize', 'mysql-cdc-to-iceberg', 'mysql-to-doris', 'orders-enrichment']);
    assert.equal(await page.locator('th', { has: sortName }).getAttribute('aria-sort'), 'ascending');
    await sortName.click();
    assert.deepEqual(await names(), ['orders-enrichment', 'mysql-to-doris', 'mysql-cdc-to-iceberg', 'clickstream-sessionize']);
    assert.equal(await page.locator('th', { has: sortName }).getAttribute('aria-sort'), 'descending');
    // The slowest p90 first, a click further.
    const sortP90 = page.getByTestId('fleet-sort-p90');
    await sortP90.click();
    await sortP90.click();
    assert.deepEqual(await names(), ['mysql-cdc-to-iceberg', 'orders-enrichment', 'mysql-to-doris', 'clickstream-sessionize']);
    await sortP90.click();
    assert.deepEqual(await rows(), before);
    assert.equal(await page.locator('th', { has: sortP90 }).getAttribute('aria-sort'), null);
  });

  it('↓ selects, Enter opens the job; J comes back to the fleet with the selection kept', async () => {
    await page.mouse.click(700, 700);
    await page.keyboard.press('ArrowDown');
    assert.deepEqual(await selected(), [`prod-flink/${CLICKS}`]);
    await page.keyboard.press('ArrowDown');
    assert.deepEqual(await selected(), [`zeta-staging/${DORIS}`]);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForFunction((id) => location.hash.startsWith('#/job?') && location.hash.includes(`job=${id}`), DORIS);
    assert.match(await page.evaluate(() => location.hash), /cluster=zeta-staging/);
    await page.waitForFunction(() => document.querySelector('[data-testid="source-current"]')?.textContent === 'zeta-staging');
    await page.locator(`[data-testid="job-item"][data-job-id="${DORIS}"][aria-current="true"]`).waitFor();

    await page.keyboard.press('j');
    await page.getByTestId('fleet-view').waitFor();
    await waitRows(4);
    assert.deepEqual(await selected(), [`zeta-staging/${DORIS}`], 'the row the job was opened from is still selected');
    // Opening with a click, too.
    await page.getByTestId('fleet-job').first().click();
    await page.waitForFunction((id) => location.hash.includes(`job=${id}`), CLICKS);
    await page.getByTestId('open-fleet').click();
    await page.getByTestId('fleet-view').waitFor();
    await waitRows(4);
  });

  it('follows the checkpoints stored, at most once a second, keeping the selection, the scroll and the rows meanwhile', async () => {
    await page.setViewportSize({ width: 1440, height: 330 });
    await page.keyboard.press('ArrowDown'); // from clickstream-sessionize, opened last
    const keep = await selected();
    assert.deepEqual(keep, [`zeta-staging/${DORIS}`]);
    await page.evaluate(() => (document.querySelector('main').scrollTop = 60));
    const scrollBefore = await page.evaluate(() => document.querySelector('main').scrollTop);
    assert.ok(scrollBefore > 0, 'the table scrolls in a short window');
    // Watch the rows while the refresh happens: never gone, never a spinner.
    await page.evaluate(() => {
      window.__fewest = Infinity;
      window.__spinner = false;
      const look = () => {
        window.__fewest = Math.min(window.__fewest, document.querySelectorAll('[data-testid="fleet-row"]').length);
        if (document.querySelector('[data-testid="fleet-view"] .view-loading')) window.__spinner = true;
        window.__watch = requestAnimationFrame(look);
      };
      look();
    });
    const callsBefore = await page.evaluate(() => window.__ceFleetCalls);
    // The sample starts failing, earlier than the others: it goes to the top.
    await page.evaluate((job) => {
      window.__ceFleetSet('sample', job, { attention: 'failing', failed: 2, since_ms: Date.now() - 50 * 60_000, latest_failure: 'Checkpoint expired before completing.' });
      // A burst of stored checkpoints: one refresh.
      for (let i = 0; i < 10; i++) window.__ceFakeEmit('checkpoints', { cluster: 'sample', job });
    }, SAMPLE_JOB);
    await page.waitForFunction((k) => document.querySelector('[data-testid="fleet-row"]')?.dataset.jobId === k, SAMPLE_JOB, { timeout: 5000 });
    assert.equal((await page.locator('[data-testid="fleet-row"]').first().getAttribute('data-attention')), 'failing');
    await page.waitForTimeout(1500);
    const calls = (await page.evaluate(() => window.__ceFleetCalls)) - callsBefore;
    assert.ok(calls >= 1 && calls <= 2, `one refresh for a burst of events (${calls} calls)`);
    assert.deepEqual(await selected(), keep, 'the selection follows its job, not its place');
    assert.equal(await page.evaluate(() => document.querySelector('main').scrollTop), scrollBefore, 'the scroll position stays');
    const watched = await page.evaluate(() => {
      cancelAnimationFrame(window.__watch);
      return { fewest: window.__fewest, spinner: window.__spinner };
    });
    assert.deepEqual(watched, { fewest: 4, spinner: false }, 'the old rows stayed until the new ones came');
    await page.evaluate((job) => {
      window.__ceFleetSet('sample', job, { attention: 'healthy', failed: 0, since_ms: null, latest_failure: '' });
      window.__ceFakeEmit('checkpoints', { cluster: 'sample', job });
    }, SAMPLE_JOB);
    await page.waitForFunction((k) => document.querySelector('[data-testid="fleet-row"]')?.dataset.jobId === k, CLICKS, { timeout: 5000 });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('remembers the window chosen', async () => {
    await page.getByTestId('fleet-window').selectOption(String(6 * 3_600_000));
    assert.equal(await page.evaluate(() => localStorage.getItem('ce.fleetWindow')), String(6 * 3_600_000));
    await page.reload();
    await page.getByTestId('fleet-view').waitFor();
    assert.equal(await page.getByTestId('fleet-window').inputValue(), String(6 * 3_600_000));
    await page.getByTestId('fleet-window').selectOption(String(3_600_000));
  });

  it("says when its rows are the last run's, and asks again until they are of now", async () => {
    const asOf = Date.UTC(2026, 11, 5, 9, 30, 0);
    const callsBefore = await page.evaluate((ms) => {
      window.__ceFleetAsOf = { ms, answers: 2 };
      return window.__ceFleetCalls;
    }, asOf);
    // A window chosen asks at once: the answer is the last run's.
    await page.getByTestId('fleet-window').selectOption(String(6 * 3_600_000));
    const note = page.getByTestId('fleet-as-of');
    await note.waitFor();
    assert.equal((await note.innerText()).trim(), 'As of 5 Dec 2026 09:30:00 (the last run); reading again…');
    await shot('as-of');
    // No event comes, yet the view asks again (every 2 s) until the answer is of now.
    await note.waitFor({ state: 'detached', timeout: 15_000 });
    const calls = (await page.evaluate(() => window.__ceFleetCalls)) - callsBefore;
    assert.ok(calls >= 3, `${calls} asks: the stale answers and the fresh one`);
    await waitRows(4);
    await page.getByTestId('fleet-window').selectOption(String(3_600_000));
  });

  it('is in Chinese, with zh-CN dates, its keys in the shortcut list', async () => {
    await setLang('zh');
    await waitRows(4);
    const heads = await page.locator('[data-testid="fleet-table"] th').allInnerTexts();
    assert.deepEqual(heads.slice(0, 4).map((h) => h.trim()), [zh.fleet.col.attention, zh.fleet.col.cluster, zh.fleet.col.engine, zh.fleet.col.name]);
    const attention = await page.getByTestId('fleet-attention').allInnerTexts();
    assert.deepEqual(attention.map((s) => s.trim()), ['failing', 'slow', 'slower_than_usual', 'healthy'].map((a) => zh.fleet.attention[a]));
    const top = row('prod-flink', CLICKS);
    assert.equal((await top.locator('[data-col="p90"]').innerText()).replace(/\s+/g, ' ').trim(), `1.9秒 (${fill(zh.fleet.usually, { ms: '1.1秒' })})`);
    const sinceCell = (await top.locator('[data-col="since"]').innerText()).trim();
    assert.match(sinceCell, /^10分钟前/);
    assert.match(sinceCell, /\d{4}年\d{1,2}月\d{1,2}日 \d\d:\d\d:\d\d$/);
    assert.equal(await text('fleet-count'), '4 / 共 4 个作业');
    assert.equal(await text('open-fleet'), zh.views.fleet);
    await shot('zh');
    await page.getByTestId('open-shortcuts').click();
    const keys = await page.getByTestId('shortcuts').innerText();
    for (const k of ['fleet', 'fleetGroup', 'fleetMove', 'fleetOpen', 'fleetFilter', 'fleetClear']) assert.ok(keys.includes(zh.keys[k]), `the shortcut list says ${zh.keys[k]}`);
    await page.keyboard.press('Escape');
    await setLang('en');
    await page.getByTestId('open-shortcuts').click();
    assert.ok((await page.getByTestId('shortcuts').innerText()).includes(en.keys.fleetOpen));
    await page.keyboard.press('Escape');
  });

  it('is in the quick switcher', async () => {
    await page.getByTestId('fleet-job').first().click();
    await page.waitForFunction(() => location.hash.startsWith('#/job?'));
    await page.keyboard.press('Control+k');
    await page.getByTestId('switcher-input').fill('flee');
    await page.keyboard.press('Enter');
    await page.getByTestId('fleet-view').waitFor();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
