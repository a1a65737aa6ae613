// The fleet end to end on real clusters (#31), run by app/serve's TestFleetOnRealClusters, which
// starts `serve` over Flink 2.3, Flink 1.20 and a SeaTunnel node plus a capture and passes:
//   CE_URL           the app's URL with its token
//   CE_FLEET_PREFIX  the names of this run's jobs begin with it (the shared clusters carry others')
//   CE_FLEET_JOBS    {healthy, failing, resubmitted, zeta, capture}: {cluster, id, name, first?}
//   CE_FLINK23_URL   Flink 2.3's REST API, where the failing job runs
//   CE_FAIL_DIR      that job's checkpoint directory
// In English (en-GB dates, UTC), then in Chinese: the fleet is the first screen, with the rows of
// every cluster and the capture, Flink and SeaTunnel side by side; the resubmitted 1.20 job is one
// row of two runs, split from its runs menu into two rows and joined again; once the page is open
// the failing job's checkpoints begin to fail (a file where Flink makes each checkpoint's
// directory: the checkpoint fails at its trigger, "IO-problem detected") and its row rises to the
// top within one poll (measured from the poll that stored the failure; the delays after Flink's
// first failed checkpoint logged); filters, a sort, ↓ + Enter; the resubmitted job's view lists its
// two runs and opens the earlier one. Screenshots:
// test-results/fleet-real-*.png.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { en, launchChromium, pageHelpers, zh } from '../e2e/fakepage.mjs';

const { CE_URL, CE_FLEET_PREFIX: PREFIX, CE_FLINK23_URL: FLINK, CE_FAIL_DIR: FAIL_DIR } = process.env;
const JOBS = JSON.parse(process.env.CE_FLEET_JOBS ?? '{}');
const skip = CE_URL && PREFIX && FLINK && FAIL_DIR && JOBS.failing ? false : 'run by TestFleetOnRealClusters (go test ./app/serve/ -run TestFleetOnRealClusters)';

/** How long a step may wait on a loaded machine: the live page, the collector, Flink. */
const WAIT = 120_000;
/**
 * Within one poll: once the collector's poll has stored the failure, the view refreshes within a
 * second and the fleet's answer takes its time on a busy machine (an answer asked just before the
 * store, then the next): under the 30 s the view refreshes anyway. The poll itself comes on the
 * collector's cadence (a third of the history's span, 3.3 s for these jobs, on an idle machine;
 * 12–17 s late at a load of 20, which the collector's own tests are about), so it is measured and
 * logged apart, bounded by WAIT.
 */
const ONE_POLL_MS = 20_000;
const key = (j) => `${j.cluster}/${j.id}`;
/** enGBStamp is the time ms with milliseconds as en-GB writes it in UTC: "05/12/2026, 10:20:49.898". */
const enGBStamp = (ms) => {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}, ${iso.slice(11, 23)}`;
};
/** enGB is a pattern of the time ms as en-GB writes it in UTC: "5 Dec 2026 10:11:46" (the day first, a 24-hour clock). */
const enGB = (ms) => {
  const d = new Date(ms);
  return `${d.getUTCDate()} [A-Z][a-z]{2,3} ${d.getUTCFullYear()} ${d.toISOString().slice(11, 19)}`;
};

describe('the fleet on real clusters', { skip }, () => {
  let browser;
  let page;
  const pageErrors = [];
  const { text, shot, call, setLang } = pageHelpers(() => page, 'fleet-real');
  /** Flink's first failed checkpoint of the failing job: {id, trigger_timestamp, failure_timestamp}. */
  let firstFailure;

  before(async () => {
    browser = await launchChromium();
    // A British English browser in UTC: dates read "5 Dec 2026 10:00:00".
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: 'UTC', colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(CE_URL);
  });
  after(async () => {
    await browser?.close();
  });

  /** The rows in the page, top to bottom, as "cluster/job id". */
  const rows = () => page.locator('[data-testid="fleet-row"]').evaluateAll((els) => els.map((e) => `${e.dataset.cluster}/${e.dataset.jobId}`));
  const names = () => page.locator('[data-testid="fleet-job"]').allInnerTexts();
  const selected = () => page.locator('[data-testid="fleet-row"][aria-selected="true"]').evaluateAll((els) => els.map((e) => `${e.dataset.cluster}/${e.dataset.jobId}`));
  const row = (j) => page.locator(`[data-testid="fleet-row"][data-cluster="${j.cluster}"][data-job-id="${j.id}"]`);
  /** waitRows waits until the rows shown are exactly want (in any order). */
  const waitRows = (want) =>
    page.waitForFunction(
      (w) => {
        const got = [...document.querySelectorAll('[data-testid="fleet-row"]')].map((e) => `${e.dataset.cluster}/${e.dataset.jobId}`);
        return got.length === w.length && w.every((k) => got.includes(k));
      },
      want,
      { timeout: WAIT },
    );
  /** The fleet as the backend answers it now. */
  const fleet = () => call('Fleet', { window_ms: 3_600_000, cluster: '' });
  const flink = async (path) => {
    const res = await fetch(FLINK + path);
    assert.ok(res.ok, `${path}: HTTP ${res.status}`);
    return res.json();
  };
  const ours = ['failing', 'healthy', 'resubmitted', 'zeta'].map((k) => key(JOBS[k]));

  it('is the first screen: the jobs of three clusters and the capture, Flink and SeaTunnel side by side', async () => {
    await page.getByTestId('fleet-view').waitFor();
    assert.match(await page.evaluate(() => location.hash), /^#\/fleet\b/);
    assert.equal(await page.getByTestId('job-list').count(), 0);
    assert.equal(await page.getByTestId('open-fleet').getAttribute('aria-pressed'), 'true');
    // Every row in the page at once (it renders those in view): other tests' jobs share the clusters.
    const n = (await fleet()).jobs.length;
    await page.setViewportSize({ width: 1440, height: Math.max(900, 300 + 45 * n) });
    for (const k of ['healthy', 'failing', 'resubmitted', 'zeta', 'capture']) await row(JOBS[k]).waitFor();
    const engines = Object.fromEntries(
      await Promise.all(['healthy', 'resubmitted', 'zeta', 'capture'].map(async (k) => [k, (await row(JOBS[k]).locator('td.engine').innerText()).trim()])),
    );
    assert.deepEqual(engines, { healthy: en.engine.flink, resubmitted: en.engine.flink, zeta: en.engine.seatunnel, capture: en.engine.flink });
    const clusters = await page.getByTestId('fleet-cluster').locator('option').evaluateAll((os) => os.map((o) => o.value));
    for (const c of ['flink-2.3', 'flink-1.20', 'seatunnel', JOBS.capture.cluster]) assert.ok(clusters.includes(c), `the cluster filter offers ${c}`);
    assert.match(await text('fleet-count'), /^(\d+) of \1 jobs$/);
    const all = await rows();
    console.log(`# ${all.length} rows on the first screen:\n#   ${all.join('\n#   ')}`);
    await shot('en');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('shows the resubmitted 1.20 job as one row of two runs', async () => {
    const r = row(JOBS.resubmitted);
    assert.equal(await row({ cluster: JOBS.resubmitted.cluster, id: JOBS.resubmitted.first }).count(), 0, 'the first run has no row of its own');
    assert.equal((await r.getByTestId('fleet-job').innerText()).trim(), JOBS.resubmitted.name);
    // The badge says how many runs; its tooltip lists each with its start and end, en-GB.
    const runs = (await fleet()).jobs.find((j) => j.job_id === JOBS.resubmitted.id).runs;
    assert.deepEqual(runs.map((x) => x.job_id), [JOBS.resubmitted.first, JOBS.resubmitted.id]);
    const badge = r.getByTestId('fleet-runs');
    const title = (await badge.getAttribute('title')) ?? '';
    assert.deepEqual(
      {
        badge: (await badge.innerText()).trim(),
        heading: title.startsWith(en.fleet.runsTitle),
        ids: runs.filter((x) => title.includes(x.job_id)).length,
        times: [runs[0].start_ms, runs[0].end_ms, runs[1].start_ms].filter((ms) => title.includes(enGBStamp(ms))).length,
      },
      { badge: '2 runs', heading: true, ids: 2, times: 3 },
      `the runs badge and its tooltip ${JSON.stringify(title)}`,
    );
  });

  it('splits a wrong match from the runs menu, and joins it again', async () => {
    const j = JOBS.resubmitted;
    const first = { cluster: j.cluster, id: j.first };
    const r = row(j);
    await r.getByTestId('fleet-runs').click();
    const split = r.locator(`[data-testid="fleet-split"][data-job-id="${j.id}"]`);
    assert.match((await split.innerText()).trim(), /^Not the same job: split /);
    await split.click();
    // Two rows now: the first run's of its own, and the newer run's saying the user split it.
    await row(first).waitFor();
    await row(j).getByTestId('fleet-join').waitFor();
    const mine = (await fleet()).jobs
      .filter((x) => x.cluster === j.cluster && (x.job_id === j.id || x.job_id === j.first))
      .map((x) => ({ id: x.job_id, split: x.split_job_id ?? '', runs: (x.runs ?? []).length }));
    assert.deepEqual(
      mine.sort((a, b) => a.id.localeCompare(b.id)),
      [
        { id: j.first, split: '', runs: 0 },
        { id: j.id, split: j.id, runs: 0 },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    assert.equal(await row(j).getByTestId('fleet-runs').count(), 0);
    await shot('split');
    // Joined again: one row of two runs, as before.
    await row(j).getByTestId('fleet-join').click();
    await page.waitForFunction(
      ({ cluster, id }) => !document.querySelector(`[data-testid="fleet-row"][data-cluster="${cluster}"][data-job-id="${id}"]`),
      first,
    );
    const joined = (await fleet()).jobs.find((x) => x.job_id === j.id);
    assert.deepEqual({ runs: joined.runs.length, split: joined.split_job_id ?? '' }, { runs: 2, split: '' });
    assert.equal((await row(j).getByTestId('fleet-runs').innerText()).trim(), '2 runs');
  });

  it('raises a job to the top within one poll of its first failed checkpoint', async () => {
    const f = JOBS.failing;
    await page.evaluate(() => (document.querySelector('main').scrollTop = 0));
    const attentionBefore = await row(f).getAttribute('data-attention');
    assert.notEqual(attentionBefore, 'failing');
    const indexBefore = (await rows()).indexOf(key(f));
    assert.ok(indexBefore > 0, `the job to fail is row ${indexBefore} before its checkpoints fail, below the others`);
    // The time the row is first at the top (below other failing jobs only: other tests' jobs
    // fail too), and every fleet the view asks for meanwhile.
    await page.evaluate(({ cluster, id }) => {
      window.__risen = null;
      window.__fleetAsks = [];
      const bridge = window.go.app.App;
      const ask = bridge.Fleet;
      bridge.Fleet = (...args) => {
        const a = { asked: Date.now() };
        window.__fleetAsks.push(a);
        const answer = ask(...args);
        answer.then((f) => Object.assign(a, { answered: Date.now(), failing: f.jobs.some((j) => j.job_id === id && j.attention === 'failing') }));
        return answer;
      };
      const look = () => {
        const els = [...document.querySelectorAll('[data-testid="fleet-row"]')];
        const i = els.findIndex((e) => e.dataset.cluster === cluster && e.dataset.jobId === id);
        if (i >= 0 && els[i].dataset.attention === 'failing' && els.slice(0, i).every((e) => e.dataset.attention === 'failing')) {
          window.__risen = { at: Date.now(), index: i };
          watch.disconnect();
        }
      };
      const watch = new MutationObserver(look);
      watch.observe(document.querySelector('[data-testid="fleet-view"]'), { subtree: true, childList: true, attributes: true });
    }, f);

    // Every checkpoint from a few ids on fails at its trigger: Flink cannot make its directory.
    // 300 of them: five minutes at one a second, and the job stays failing long after (at least
    // 3 failed and 10 % of the hour's checkpoints).
    const cps = await flink(`/jobs/${f.id}/checkpoints`);
    const from = Math.max(cps.counts.total, ...cps.history.map((h) => h.id)) + 3;
    const writing = Date.now();
    // Flink's answer may be a few seconds old on a loaded machine: an id whose directory Flink
    // made meanwhile is that checkpoint's, and it goes on; the failures begin after it.
    let made = 0;
    for (let id = from; id < from + 300; id++) {
      try {
        writeFileSync(join(FAIL_DIR, `chk-${id}`), '', { flag: 'wx' });
      } catch (e) {
        if (e.code !== 'EEXIST' && e.code !== 'EISDIR') throw e;
        made++;
      }
    }
    console.log(
      `# checkpoints of ${f.name} fail from id ${from} on (${made} of those ids Flink had made already): ` +
        `files written from ${new Date(writing).toISOString()} in ${Date.now() - writing} ms ` +
        `(Flink's counts before: ${JSON.stringify(cps.counts)})`,
    );
    // When the collector's poll stored the failure, as the app's cache says.
    let storedAt = null;
    const watchStored = (async () => {
      for (const until = Date.now() + WAIT; storedAt === null && Date.now() < until; await sleep(250)) {
        const cps = await call('Checkpoints', f.cluster, f.id, 0, 0);
        if (cps.some((c) => c.status === 'FAILED' && c.id >= from)) storedAt = Date.now();
      }
    })();
    const deadline = Date.now() + WAIT;
    for (;;) {
      const h = (await flink(`/jobs/${f.id}/checkpoints`)).history.filter((c) => c.status === 'FAILED' && c.id >= from);
      if (h.length > 0) {
        firstFailure = h.reduce((a, b) => (a.id < b.id ? a : b));
        firstFailure.seen = Date.now();
        break;
      }
      assert.ok(Date.now() < deadline, `no failed checkpoint from id ${from} in Flink's history after ${WAIT} ms`);
      await sleep(200);
    }
    await page.waitForFunction(() => window.__risen, null, { timeout: WAIT, polling: 200 });
    const risen = await page.evaluate(() => window.__risen);
    await watchStored;
    assert.ok(storedAt !== null, `the failed checkpoint from id ${from} was not in the app's cache ${WAIT} ms after it was written`);
    // Where the time went: the view's asks for the fleet since the failure, the first whose answer has the job failing.
    const t0 = firstFailure.failure_timestamp;
    const asks = (await page.evaluate(() => window.__fleetAsks)).filter((a) => a.asked >= t0 || a.answered >= t0);
    const told = asks.find((a) => a.failing);
    const delay = risen.at - t0;
    console.log(
      `# checkpoint ${firstFailure.id} failed at ${new Date(t0).toISOString()} (${firstFailure.failure_message}); ` +
        `Flink's REST showed it to the script after ${firstFailure.seen - t0} ms, the app's cache after ${storedAt - t0} ms; ` +
        `the row rose from ${indexBefore} to ${risen.index} after ${delay} ms, ${risen.at - storedAt} ms after the poll stored it. ` +
        `The view's asks for the fleet meanwhile (asked → answered, ms after the failure): ` +
        asks.map((a) => `${a.asked - t0} → ${a.answered === undefined ? '…' : a.answered - t0}${a.failing ? ' failing' : ''}`).join(', ') +
        (told ? `; the first answer with the job failing was asked for ${told.asked - t0} ms after the failure` : ''),
    );
    assert.ok(
      risen.at - storedAt <= ONE_POLL_MS,
      `the row rose ${risen.at - storedAt} ms after the poll stored the failure (${delay} ms after Flink's first failed checkpoint), want within ${ONE_POLL_MS} ms`,
    );

    // The row says since when: the first failed checkpoint's trigger, en-GB.
    const top = row(f);
    assert.equal(await top.getAttribute('data-attention'), 'failing');
    assert.equal((await top.getByTestId('fleet-attention').innerText()).trim(), en.fleet.attention.failing);
    const since = (await fleet()).jobs.find((j) => j.job_id === f.id).since_ms;
    assert.equal(since, firstFailure.trigger_timestamp, "since is the trigger of Flink's first failed checkpoint");
    const sinceCell = (await top.locator('[data-col="since"]').innerText()).trim();
    assert.match(sinceCell, new RegExp(`\\n${enGB(since)}$`));
    assert.match(await top.locator('[data-col="failure"]').getAttribute('title'), /triggering the checkpoint/);
    assert.ok(Number((await top.locator('[data-col="failed"]').innerText()).trim()) >= 1);
    await shot('failing');
  });

  it('filters by text and by cluster', async () => {
    const filter = page.getByTestId('fleet-filter');
    await filter.fill(PREFIX);
    await waitRows(ours);
    assert.match(await text('fleet-count'), /^4 of \d+ jobs$/);
    await filter.fill(JOBS.failing.id.slice(0, 12));
    await waitRows([key(JOBS.failing)]);
    await filter.fill('');
    await page.getByTestId('fleet-cluster').selectOption('seatunnel');
    const zeta = (await fleet()).jobs.filter((j) => j.cluster === 'seatunnel').map((j) => `${j.cluster}/${j.job_id}`);
    assert.ok(zeta.includes(key(JOBS.zeta)));
    await waitRows(zeta);
    await page.getByTestId('fleet-cluster').selectOption(JOBS.capture.cluster);
    await waitRows([key(JOBS.capture)]);
    // Both: this run's jobs of the 2.3 cluster.
    await page.getByTestId('fleet-cluster').selectOption('flink-2.3');
    await filter.fill(PREFIX);
    await waitRows([key(JOBS.failing), key(JOBS.healthy)]);
    await shot('filtered');
    await page.getByTestId('fleet-clear').click();
    assert.equal(await filter.inputValue(), '');
    assert.equal(await page.getByTestId('fleet-cluster').inputValue(), '');
  });

  it('sorts by a column: ascending, descending, then the needs-attention order again', async () => {
    await page.getByTestId('fleet-filter').fill(PREFIX);
    await waitRows(ours);
    const sortName = page.getByTestId('fleet-sort-name');
    const th = page.locator('th', { has: sortName });
    const want = ['failing', 'healthy', 'resubmitted', 'zeta'].map((k) => `${PREFIX}-${k}`);
    await sortName.click();
    assert.deepEqual(await names(), want);
    assert.equal(await th.getAttribute('aria-sort'), 'ascending');
    await sortName.click();
    assert.deepEqual(await names(), [...want].reverse());
    assert.equal(await th.getAttribute('aria-sort'), 'descending');
    await sortName.click();
    assert.equal(await th.getAttribute('aria-sort'), null);
    assert.equal((await rows())[0], key(JOBS.failing), 'the failing job first again');
  });

  it('↓ selects, Enter opens the selected job; J comes back with the selection kept', async () => {
    await page.mouse.click(700, 800); // below the four rows: nothing focused
    await page.keyboard.press('ArrowDown');
    assert.deepEqual(await selected(), [key(JOBS.failing)]);
    await page.keyboard.press('ArrowDown');
    const [open] = await selected();
    assert.ok(open && open !== key(JOBS.failing) && ours.includes(open), `the second row is selected (${open})`);
    const [cluster, id] = [open.slice(0, open.lastIndexOf('/')), open.slice(open.lastIndexOf('/') + 1)];
    await page.keyboard.press('Enter');
    await page.waitForFunction((i) => location.hash.startsWith('#/job?') && location.hash.includes(`job=${i}`), id);
    await page.waitForFunction((c) => document.querySelector('[data-testid="source-current"]')?.textContent === c, cluster);
    await page.locator(`[data-testid="job-item"][data-job-id="${id}"][aria-current="true"]`).waitFor();
    await shot('job');
    await page.keyboard.press('j');
    await page.getByTestId('fleet-view').waitFor();
    await waitRows(ours);
    assert.deepEqual(await selected(), [open], 'the row the job was opened from is still selected');
  });

  it("opens the resubmitted job: its view lists both runs, and the earlier run opens from there", async () => {
    const j = JOBS.resubmitted;
    await row(j).getByTestId('fleet-job').click();
    await page.waitForFunction((i) => location.hash.includes(`job=${i}`), j.id);
    const nav = page.getByTestId('job-runs');
    await nav.waitFor();
    const chips = () =>
      nav.getByTestId('job-run').evaluateAll((els) => els.map((e) => ({ id: e.dataset.jobId, current: e.getAttribute('aria-current') === 'true' })));
    assert.deepEqual(await chips(), [
      { id: j.first, current: false },
      { id: j.id, current: true },
    ]);
    assert.match(await nav.innerText(), /^Runs \(2\):/);
    // Each chip's tooltip is the run as the fleet's badge lists it: its id, start and end, en-GB.
    const title = (await nav.locator(`[data-job-id="${j.first}"]`).getAttribute('title')) ?? '';
    assert.ok(title.startsWith('Open this run: ') && title.includes(j.first), `the earlier run's tooltip ${JSON.stringify(title)}`);
    await shot('job-runs');
    await nav.locator(`[data-testid="job-run"][data-job-id="${j.first}"]`).click();
    await page.waitForFunction((i) => location.hash.includes(`job=${i}`), j.first);
    await page.locator(`[data-testid="job-runs"] [data-job-id="${j.first}"][aria-current="true"]`).waitFor();
    await page.keyboard.press('j');
    await page.getByTestId('fleet-view').waitFor();
  });

  it('is in Chinese, with zh-CN dates', async () => {
    await setLang('zh');
    await waitRows(ours);
    const heads = await page.locator('[data-testid="fleet-table"] th').allInnerTexts();
    assert.deepEqual(heads.slice(0, 4).map((h) => h.trim()), [zh.fleet.col.attention, zh.fleet.col.cluster, zh.fleet.col.engine, zh.fleet.col.name]);
    const top = row(JOBS.failing);
    assert.equal((await top.getByTestId('fleet-attention').innerText()).trim(), zh.fleet.attention.failing);
    assert.match((await top.locator('[data-col="since"]').innerText()).trim(), /\d{4}年\d{1,2}月\d{1,2}日 \d\d:\d\d:\d\d$/);
    assert.equal((await row(JOBS.zeta).locator('td.engine').innerText()).trim(), zh.engine.seatunnel);
    assert.match(await text('fleet-count'), /^4 \/ 共 \d+ 个作业$/);
    await shot('zh');
    assert.equal((await row(JOBS.resubmitted).getByTestId('fleet-runs').innerText()).trim(), '2 次运行');
    await page.getByTestId('fleet-clear').click();
    await setLang('en');
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
