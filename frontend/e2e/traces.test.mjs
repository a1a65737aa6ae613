// End-to-end check of what a Flink cluster's traces (Flink's checkpoint spans
// in Jaeger) add to the UI: the cluster form's traces URL and service name
// (Flink only, checked, saved trimmed and shown again), the job header's "Read
// history from traces" and what it says, the "Open from traces" dialog (jobs
// the traces hold, a job id typed and checked, Escape closes it) opening a job
// Flink no longer lists, and the "traces" tag and badge of its checkpoints.
//
// Runs against dev/serve-fake.mjs (the built dist/ with dev/fake-bridge.js as
// the backend): prod-flink has traces; BackfillTraces on orders-enrichment
// adds the 31 checkpoints of its gap and fills 3 checkpoints' details, then
// finds nothing missing; TraceJobs lists nightly-compaction, not cached, which
// OpenTracesJob caches with 48 checkpoints from traces. Needs only dist/
// (`make frontend`). Screenshots go to test-results/traces-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const ORDERS = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'; // orders-enrichment
const CLICKS = 'ffee00112233445566778899aabbccdd'; // clickstream-sessionize
const NIGHTLY = '0123456789abcdef0123456789abcdef'; // nightly-compaction, in the traces only
const TRACES_URL = 'http://127.0.0.1:16686';

describe('traces in the UI (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, go, call, text, shot, setLang, openClusters } = fakeSuite('traces', (p) => (page = p));
  const enc = encodeURIComponent;
  const stored = async () => {
    const c = (await call('ListClusters')).find((x) => x.name === CLUSTER);
    return [c.traces_url, c.traces_service];
  };

  it('cluster form: traces URL and service for Flink only, checked, saved trimmed and shown again', async () => {
    const dialog = page.getByTestId('cluster-dialog');
    const url = dialog.getByTestId('cluster-traces-url');
    const svc = dialog.getByTestId('cluster-traces-service');
    const submit = dialog.locator('button[type="submit"]');
    const editProd = async () => {
      await dialog.locator('button.add').click();
      await dialog.locator('li', { hasText: CLUSTER }).locator('button.item').click();
    };
    const saved = async (want) => {
      await page.waitForFunction(
        async ([n, w]) => {
          const c = (await window.go.app.App.ListClusters()).find((x) => x.name === n);
          return JSON.stringify([c?.traces_url, c?.traces_service]) === w;
        },
        [CLUSTER, JSON.stringify(want)],
      );
      await page.waitForFunction(() => !document.querySelector('[data-testid="cluster-dialog"] button[type="submit"]')?.disabled);
    };

    await openClusters('zh');
    assert.equal((await dialog.locator('label[for="cl-traces"]').innerText()).trim(), zh.clusters.tracesUrl);
    assert.equal((await dialog.locator('label[for="cl-traces-svc"]').innerText()).trim(), zh.clusters.tracesService);
    assert.equal((await dialog.locator('#cl-traces-help').innerText()).trim(), zh.clusters.tracesHelp);
    await editProd();
    await svc.fill('');
    await submit.click();
    assert.equal(await text('cluster-traces-service-error', dialog), zh.clusters.err.tracesServiceRequired);
    await shot('zh-cluster-form');
    await dialog.locator('button.close').click();
    await dialog.waitFor({ state: 'hidden' });
    await openClusters('en');
    assert.equal((await dialog.locator('label[for="cl-traces"]').innerText()).trim(), 'Traces (Jaeger query URL)');
    assert.equal(await url.getAttribute('placeholder'), 'http://localhost:16686');
    assert.equal(await svc.getAttribute('placeholder'), 'flink');
    // SeaTunnel has no traces fields.
    await dialog.locator('#cl-engine').selectOption('seatunnel');
    assert.equal(await url.count(), 0, 'SeaTunnel has no traces URL');
    assert.equal(await svc.count(), 0);
    await dialog.locator('#cl-engine').selectOption('flink');

    // Editing prod-flink shows its traces.
    await editProd();
    assert.equal(await url.inputValue(), TRACES_URL);
    assert.equal(await svc.inputValue(), 'flink');

    // Caught before sending: a URL that is not http(s), a service left out, a service without a URL.
    await url.fill('localhost:16686');
    await submit.click();
    assert.equal(await text('cluster-traces-url-error', dialog), en.clusters.err.tracesUrlInvalid);
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    await url.fill(TRACES_URL);
    await svc.fill('  ');
    await submit.click();
    assert.equal(await dialog.getByTestId('cluster-traces-url-error').count(), 0);
    assert.equal(await text('cluster-traces-service-error', dialog), en.clusters.err.tracesServiceRequired);
    await url.fill('');
    await svc.fill('flink');
    await submit.click();
    assert.equal(await text('cluster-traces-url-error', dialog), en.clusters.err.tracesUrlRequired);
    assert.deepEqual(await stored(), [TRACES_URL, 'flink'], 'nothing was saved');

    // The connection test says what Jaeger has.
    await url.fill('  http://jaeger.example:16686  ');
    await svc.fill(' flink-prod ');
    await dialog.getByRole('button', { name: en.clusters.test }).click();
    await dialog.getByTestId('test-result').waitFor();
    assert.match(await text('test-result', dialog), /Jaeger has spans of "flink-prod"/);

    // Saved trimmed, shown again; then put back.
    await submit.click();
    await saved(['http://jaeger.example:16686', 'flink-prod']);
    await editProd();
    await page.waitForFunction(() => document.querySelector('#cl-traces')?.value === 'http://jaeger.example:16686');
    assert.equal(await svc.inputValue(), 'flink-prod');
    await shot('cluster-form');
    await url.fill(TRACES_URL);
    await svc.fill('flink');
    await submit.click();
    await saved([TRACES_URL, 'flink']);
    await dialog.locator('button.close').click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('the job header reads the job’s history from traces and says what it did', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${ORDERS}`);
    const button = page.getByTestId('backfill-traces');
    await button.waitFor();
    assert.equal((await button.innerText()).trim(), en.traces.backfill);
    assert.equal(await button.getAttribute('title'), en.traces.backfillTitle);
    // orders-enrichment has a gap (#1200–#1230) the traces hold.
    const item = page.locator(`[data-testid="job-item"][data-job-id="${ORDERS}"]`);
    await item.locator('.c-gap').waitFor();

    await button.click();
    await page.getByTestId('traces-result').waitFor();
    assert.equal(
      (await page.locator('[data-testid="traces-result"] > span').first().innerText()).trim(),
      '31 checkpoints added from traces, 3 gained subtask details (5 requests)',
    );
    assert.equal(await page.getByTestId('traces-result').getAttribute('data-changed'), 'true');
    // The backend's checkpoints event refreshes what is shown: the gap is gone from the job list.
    await page.waitForFunction((id) => !document.querySelector(`[data-testid="job-item"][data-job-id="${id}"] .c-gap`), ORDERS, { timeout: 5000 });
    await page.getByTestId('jobhead').screenshot({ path: `${resultsDir}traces-job-header.png` });

    // A second read finds nothing missing.
    await button.click();
    await page.waitForFunction(
      (w) => document.querySelector('[data-testid="traces-result"] > span')?.textContent.trim() === w,
      'Nothing missing: the traces hold no checkpoint the cache lacks (2 requests)',
      { timeout: 5000 },
    );
    assert.equal(await page.getByTestId('traces-result').getAttribute('data-changed'), 'false');

    // In Chinese.
    await setLang('zh');
    assert.equal((await button.innerText()).trim(), zh.traces.backfill);
    await button.click();
    await page.waitForFunction(
      (w) => document.querySelector('[data-testid="traces-result"] > span')?.textContent.trim() === w,
      '没有缺失：链路追踪中没有缓存缺少的检查点（2 次请求）',
      { timeout: 5000 },
    );
    await setLang('en');

    // A cluster without traces, and the sample, offer neither action.
    await go(`#/job?cluster=zeta-staging&job=870213338743619585`);
    await page.getByTestId('jobhead').waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="source-current"]')?.textContent === 'zeta-staging');
    assert.equal(await button.count(), 0);
    assert.equal(await page.getByTestId('open-traces').count(), 0);
    await go(`#/job?cluster=sample&job=469237c073b0c1ea872fc0403694fc68`);
    await page.waitForFunction(() => document.querySelector('[data-testid="source-current"]')?.textContent === 'sample');
    assert.equal(await button.count(), 0);
    assert.equal(await page.getByTestId('open-traces').count(), 0);
  });

  it('opens a job from traces: the list, a typed id checked, Escape closes, Open selects it', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${CLICKS}`);
    const opener = page.getByTestId('open-traces');
    await opener.waitFor();
    assert.equal((await opener.innerText()).trim(), en.traces.open);
    const dialog = page.getByTestId('traces-dialog');

    // By keyboard: Enter opens it, Escape closes it.
    await opener.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByTestId('trace-job').first().waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    await opener.click();
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByTestId('trace-job').first().waitFor();
    const listed = await dialog.getByTestId('trace-job').evaluateAll((rows) =>
      rows.map((r) => [r.dataset.jobId, r.querySelector('[data-testid="trace-job-name"]').textContent.trim(), !!r.querySelector('[data-testid="trace-job-cached"]')]),
    );
    assert.deepEqual(
      listed.sort((a, b) => a[0].localeCompare(b[0])),
      [
        [NIGHTLY, 'nightly-compaction', false],
        [ORDERS, 'orders-enrichment', true],
        [CLICKS, 'clickstream-sessionize', true],
      ].sort((a, b) => a[0].localeCompare(b[0])),
    );
    const nightly = dialog.locator(`[data-testid="trace-job"][data-job-id="${NIGHTLY}"]`);
    const cells = await nightly.locator('td').allInnerTexts();
    assert.equal(cells[1].trim(), '48');
    // The latest checkpoint's time, in the page's locale (en-US) as the app writes dates.
    const latest = (await call('TraceJobs', CLUSTER)).find((j) => j.id === NIGHTLY).latest_trigger_ms;
    const want = await page.evaluate(
      (ms) =>
        new Intl.DateTimeFormat('en-US', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hourCycle: 'h23' }).format(ms),
      latest,
    );
    assert.equal(cells[2].trim(), want);
    assert.equal(await dialog.locator('[data-testid="trace-job-cached"]').first().getAttribute('title'), en.traces.cachedTitle);

    // A typed id is checked before it is sent; the backend's own error is shown.
    const idField = dialog.getByTestId('traces-job-id');
    const openId = dialog.getByTestId('traces-open-id');
    await openId.click();
    assert.equal(await text('traces-job-id-error', dialog), en.traces.err.jobIdRequired);
    await idField.fill('not-a-job-id');
    await idField.press('Enter');
    assert.equal(await text('traces-job-id-error', dialog), en.traces.err.jobId);
    assert.equal(await idField.getAttribute('aria-invalid'), 'true');
    await idField.fill('00000000000000000000000000000000');
    await openId.click();
    await dialog.getByTestId('traces-open-error').waitFor();
    assert.equal(await dialog.getByTestId('traces-job-id-error').count(), 0);
    assert.match(await text('traces-open-error', dialog), /^Could not open 00000000000000000000000000000000 from traces: bad request: the traces at http:\/\/127\.0\.0\.1:16686 hold no checkpoint of job/);
    await shot('open-dialog');

    // Open: cached, selected, said.
    await nightly.getByTestId('trace-job-open').click();
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForFunction((id) => location.hash.includes(`job=${id}`), NIGHTLY);
    const item = page.locator(`[data-testid="job-item"][data-job-id="${NIGHTLY}"]`);
    await item.waitFor();
    assert.equal(await item.getAttribute('aria-current'), 'true');
    assert.match(await item.innerText(), /nightly-compaction[\s\S]*UNKNOWN/);
    assert.equal((await page.locator('[data-testid="toast"] > span').innerText()).trim(), 'Opened nightly-compaction: 48 checkpoints added from traces (3 requests)');
    assert.ok((await call('ListJobs', CLUSTER)).some((j) => j.id === NIGHTLY && j.state === 'UNKNOWN'));
  });

  it('tags the checkpoints read from traces in the table, with a badge in the detail, in both languages', async () => {
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="checkpoint-row"]').length === 48, null, { timeout: 10_000 });
    assert.equal(await page.locator('[data-testid="checkpoint-row"]:has([data-testid="traces-tag"])').count(), 48);
    assert.equal(await page.locator('[data-testid="checkpoint-row"] [data-testid="log-tag"]').count(), 0);
    const tag = page.locator('[data-testid="checkpoint-row"][data-id="31"] [data-testid="traces-tag"]');
    assert.equal((await tag.innerText()).trim(), en.traces.tag);
    assert.equal(await tag.getAttribute('title'), en.traces.tagTitle);

    await page.locator('[data-testid="checkpoint-row"][data-id="31"]').click();
    const badge = page.getByTestId('traces-origin-badge');
    await badge.waitFor();
    assert.equal((await badge.innerText()).trim(), en.traces.badge);
    assert.equal(await badge.getAttribute('title'), en.traces.badgeTitle);
    await shot('table');

    await setLang('zh');
    await page.waitForFunction((w) => document.querySelector('[data-testid="traces-tag"]')?.textContent.trim() === w, zh.traces.tag);
    assert.equal(await tag.getAttribute('title'), zh.traces.tagTitle);
    assert.equal((await badge.innerText()).trim(), '来自链路追踪');
    await shot('zh-table');
    await setLang('en');

    // The other jobs' REST checkpoints carry no tag.
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${CLICKS}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="checkpoint-row"]').length === 12, null, { timeout: 10_000 });
    assert.equal(await page.locator('[data-testid="traces-tag"]').count(), 0);
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
