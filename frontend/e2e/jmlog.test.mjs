// End-to-end check of what Flink's JobManager log adds, in English and
// Chinese: checkpoints that came from the log (marked in the table, a badge
// and their own wording in the views), a failure's root cause and declining
// task, the log reader's state in the job header, the "Read the JobManager
// log" request when the log is too large for the automatic reads, and the
// cluster form's JobManager log setting (Flink only).
//
// A capture cannot show the log's live states or take the read request, so
// this suite runs against dev/serve-fake.mjs, which serves the built dist/
// with dev/fake-bridge.js as the backend (its clickstream-sessionize job on
// prod-flink has checkpoints from the log; window.__ceReadJobManagerLog
// records the calls). It starts that server itself and needs only dist/
// (`make frontend`). Screenshots go to test-results/jmlog-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const JOB = 'ffee00112233445566778899aabbccdd'; // clickstream-sessionize
const SAMPLE = 'sample';
const SAMPLE_JOB = '469237c073b0c1ea872fc0403694fc68';
const LOG_IDS = [1, 2, 3, 4, 7]; // from the JobManager log
const CAUSE = 'java.lang.RuntimeException: Snapshot Thrower: snapshot of checkpoint 3 thrown on purpose';
const TASK = 'Snapshot Thrower (1/2)#0';
const REASON = "the JobManager log is 45 MiB, over the 16 MiB cap: read it on demand, or set the cluster's JobManager log to on";


describe('the JobManager log in the UI (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, go, text, shot, setLang, waitText, openClusters } = fakeSuite('jmlog', (p) => (page = p));
  const enc = encodeURIComponent;

  it('the job header says what the log added and its state, in both languages', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}`);
    await page.getByTestId('reconciliation').waitFor();
    await waitText('reconciliation', 'earlier');
    const r = await page.evaluate(([c, j]) => window.go.app.App.JobReconciliation(c, j), [CLUSTER, JOB]);
    assert.deepEqual([r.from_log, r.earlier, r.log.state], [1, 4, 'too_large']);
    assert.equal(
      await page.locator('[data-testid="reconciliation"] .recontext').innerText(),
      `Engine counted ${r.engine_counted} · stored ${r.stored} · 1 gap id filled from the log · none missed · 4 earlier from the JobManager log`,
    );
    const tip = await page.getByTestId('reconciliation').getAttribute('title');
    assert.match(tip, /Gap ids filled from the log: /);
    assert.match(tip, new RegExp(`Earlier from the JobManager log: checkpoints before #${r.first_id},`));
    const state = page.getByTestId('jmlog-state');
    assert.equal(await state.getAttribute('data-state'), 'too_large');
    assert.equal((await state.innerText()).trim(), '· JobManager log too large (45.2 MiB): read on demand');
    const stateTip = await state.getAttribute('title');
    assert.match(stateTip, /over the 16 MiB cap of the automatic reads/);
    assert.ok(stateTip.includes(REASON), 'the backend’s reason is in the tooltip');
    await page.getByTestId('jobhead').screenshot({ path: `${resultsDir}jmlog-job-header.png` });

    await setLang('zh');
    await waitText('reconciliation', '更早');
    assert.equal(
      await page.locator('[data-testid="reconciliation"] .recontext').innerText(),
      `引擎计数 ${r.engine_counted} · 已缓存 ${r.stored} · 1 个缺口 id 由日志补全 · 无缺失 · 另有 4 个更早的来自 JobManager 日志`,
    );
    assert.equal((await state.innerText()).trim(), '· JobManager 日志过大（45.2 MiB）：需手动读取');
    await page.getByTestId('jobhead').screenshot({ path: `${resultsDir}jmlog-zh-job-header.png` });
    await setLang('en');
  });

  it('the checkpoint table tags the rows that came from the log, in both languages', async () => {
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="checkpoint-row"]').length === 12);
    const tagged = await page.locator('[data-testid="checkpoint-row"]:has([data-testid="log-tag"])').evaluateAll((rows) => rows.map((r) => Number(r.dataset.id)));
    assert.deepEqual(tagged.sort((a, b) => a - b), LOG_IDS);
    const tag = page.locator('[data-testid="checkpoint-row"][data-id="7"] [data-testid="log-tag"]');
    assert.equal((await tag.innerText()).trim(), en.jmlog.tag);
    assert.equal(await tag.getAttribute('title'), en.jmlog.tagTitle);
    await setLang('zh');
    await page.waitForFunction((w) => document.querySelector('[data-testid="log-tag"]')?.textContent.trim() === w, zh.jmlog.tag);
    assert.equal(await tag.getAttribute('title'), zh.jmlog.tagTitle);
    await setLang('en');
  });

  it('the side panel of a failed checkpoint from the log gives its badge, cause and declining task, in both languages', async () => {
    await page.locator('[data-testid="checkpoint-row"][data-id="3"]').click();
    const panel = page.getByTestId('checkpoint-detail');
    await panel.getByTestId('failure-cause').waitFor();
    assert.equal((await panel.getByTestId('log-origin-badge').innerText()).trim(), 'JobManager log');
    assert.equal((await panel.getByTestId('log-origin').innerText()).trim(), en.jmlog.origin);
    assert.equal((await panel.getByTestId('failure-cause').innerText()).trim(), `Cause: ${CAUSE}`);
    assert.equal((await panel.getByTestId('failure-declined').innerText()).trim(), `Declined by ${TASK}`);
    assert.match(await panel.getByTestId('failure-declined').getAttribute('title'), /^Vertex Enrich → Filter → Map, subtask 0, attempt 0\n/);
    await shot('side-panel');
    await setLang('zh');
    await page.waitForFunction((w) => document.querySelector('[data-testid="checkpoint-detail"] [data-testid="failure-cause"]')?.textContent.trim() === w, `原因：${CAUSE}`);
    assert.equal((await panel.getByTestId('failure-declined').innerText()).trim(), `由 ${TASK} 拒绝`);
    assert.equal((await panel.getByTestId('log-origin').innerText()).trim(), zh.jmlog.origin);
    await setLang('en');
  });

  it('a checkpoint from the log has its badge and says what it has instead of "no per-subtask stats", in both languages', async () => {
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=2`);
    await page.getByTestId('log-origin-badge').waitFor();
    assert.equal((await text('log-origin-badge')), en.jmlog.badge);
    assert.equal(await page.getByTestId('log-origin-badge').getAttribute('title'), en.jmlog.badgeTitle);
    assert.equal(await text('bottleneck'), en.jmlog.origin);
    assert.doesNotMatch(await text('bottleneck'), /reported no per-subtask stats/);
    // The log gave its finalize time: no note on why it is missing.
    assert.match(await page.locator('[data-testid="critical-phases"] [data-phase="finalize"]').innerText(), /22\s*ms/);
    assert.equal(await page.getByTestId('finalize-note').count(), 0);
    // The analysis notes say how many came from the log.
    await waitText('checkpoint-notes', 'come from the JobManager log alone');
    assert.match(await text('checkpoint-notes'), /5 checkpoint\(s\) come from the JobManager log alone/);
    await shot('log-checkpoint');
    await setLang('zh');
    await waitText('bottleneck', '来自 JobManager 日志');
    assert.equal(await text('log-origin-badge'), zh.jmlog.badge);
    assert.equal(await text('bottleneck'), zh.jmlog.origin);
    assert.match(await text('checkpoint-notes'), /有 5 个 checkpoint 仅来自 JobManager 日志/);
    await shot('zh-log-checkpoint');
    await setLang('en');
  });

  it('a failed checkpoint shows its root cause and the task that declined it, in both languages', async () => {
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=3`);
    await page.getByTestId('failure-cause').waitFor();
    await waitText('failure-cause', 'thrown on purpose');
    assert.equal(await text('failure-cause'), CAUSE);
    assert.equal(await text('failure-declined'), TASK);
    const labels = await page.locator('[data-testid="failure"] dt').allInnerTexts();
    assert.ok(labels.includes(en.jmlog.causeLabel) && labels.includes(en.jmlog.declinedLabel), labels.join('|'));
    await shot('failed-checkpoint');
    await setLang('zh');
    await page.waitForFunction((w) => [...document.querySelectorAll('[data-testid="failure"] dt')].some((d) => d.textContent.trim() === w), zh.jmlog.causeLabel);
    assert.ok((await page.locator('[data-testid="failure"] dt').allInnerTexts()).includes(zh.jmlog.declinedLabel));
    assert.equal(await text('failure-declined'), TASK);
    await setLang('en');

    // A decline without a task name names the vertex and subtask.
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=10`);
    await waitText('failure-cause', 'No space left');
    assert.equal(await text('failure-cause'), 'java.io.IOException: No space left on device');
    assert.equal(await text('failure-declined'), 'Enrich → Filter → Map subtask 1');
    await setLang('zh');
    await waitText('failure-declined', '子任务');
    assert.equal(await text('failure-declined'), 'Enrich → Filter → Map 子任务 1');
    await setLang('en');
  });

  it('too large a log: why finalize is missing, and "Read the JobManager log" asks for it once, in both languages', async () => {
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=5`);
    const note = page.getByTestId('finalize-note');
    await note.waitFor();
    assert.equal(await note.getAttribute('data-state'), 'too_large');
    assert.match(await note.innerText(), new RegExp(`^${en.jmlog.finalize.too_large.replace(/[.()]/g, '\\$&')}`));
    assert.equal(await text('finalize-reason'), REASON);
    const button = page.getByTestId('read-jmlog');
    assert.equal((await button.innerText()).trim(), 'Read the JobManager log');
    assert.equal(await button.isEnabled(), true);
    await setLang('zh');
    await page.waitForFunction((w) => document.querySelector('[data-testid="read-jmlog"]')?.textContent.trim() === w, zh.jmlog.read);
    assert.ok((await note.innerText()).startsWith(zh.jmlog.finalize.too_large));
    await shot('zh-too-large');
    await setLang('en');

    assert.deepEqual(await page.evaluate(() => window.__ceReadJobManagerLog), []);
    await button.click();
    await page.getByTestId('jmlog-reading').waitFor();
    assert.deepEqual(await page.evaluate(() => window.__ceReadJobManagerLog), [CLUSTER]);
    assert.equal(await text('jmlog-reading'), 'Reading at the next poll…');
    assert.equal(await page.getByTestId('read-jmlog').count(), 0);
    await shot('too-large-reading');
    await setLang('zh');
    await waitText('jmlog-reading', '下次轮询');
    assert.equal(await text('jmlog-reading'), zh.jmlog.reading);
    await setLang('en');
  });

  it('a capture cannot be asked to read its log: the button is disabled', async () => {
    await go(`#/checkpoint?cluster=${enc(SAMPLE)}&job=${SAMPLE_JOB}&id=3`);
    await page.getByTestId('read-jmlog').waitFor();
    assert.equal(await page.getByTestId('read-jmlog').isDisabled(), true);
    assert.equal(await page.getByTestId('read-jmlog').getAttribute('title'), en.jmlog.readOnly);
    assert.equal((await page.evaluate(() => window.__ceReadJobManagerLog)).length, 1, 'no further call');
  });

  it('insights: a failure cluster shows its cause and declining task, in both languages', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}`);
    await page.getByTestId('insights-toggle').waitFor();
    if ((await page.getByTestId('insights-toggle').getAttribute('aria-expanded')) !== 'true') await page.getByTestId('insights-toggle').click();
    await page.getByTestId('failure-cluster-task').first().waitFor();
    const causes = await page.getByTestId('failure-cluster-cause').allInnerTexts();
    assert.ok(causes.some((c) => c.includes(`Cause: ${CAUSE}`) && c.includes(`Declined by ${TASK}`)), causes.join('\n'));
    assert.ok(causes.some((c) => c.trim() === 'Cause: java.io.IOException: No space left on device'), causes.join('\n'));
    await setLang('zh');
    await waitText('failure-cluster-task', '拒绝');
    assert.equal(await text('failure-cluster-task'), `由 ${TASK} 拒绝`);
    assert.ok((await page.getByTestId('failure-cluster-cause').allInnerTexts()).some((c) => c.includes(`原因：${CAUSE}`)));
    await shot('zh-insights');
    await setLang('en');
    await page.getByTestId('insights-toggle').click();
  });

  it('cluster form: the JobManager log setting is there for Flink only, and round-trips, in both languages', async () => {
    const dialog = page.getByTestId('cluster-dialog');
    const select = dialog.getByTestId('cluster-jmlog');
    const options = () => select.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()]));
    for (const [lang, msgs] of Object.entries({ zh, en })) {
      await openClusters(lang);
      // Adding: Flink by default, automatic by default.
      assert.equal(await select.inputValue(), 'auto');
      assert.equal((await dialog.locator('label[for="cl-jmlog"]').innerText()).trim(), msgs.clusters.jmLog);
      assert.deepEqual(await options(), [
        ['auto', msgs.clusters.jmLogMode.auto],
        ['on', msgs.clusters.jmLogMode.on],
        ['off', msgs.clusters.jmLogMode.off],
      ]);
      assert.equal((await dialog.locator('#cl-jmlog-help').innerText()).trim(), msgs.clusters.jmLogHelp);
      await dialog.locator('#cl-engine').selectOption('seatunnel');
      assert.equal(await select.count(), 0, 'SeaTunnel has no JobManager log');
      await dialog.locator('#cl-engine').selectOption('flink');
      assert.equal(await select.count(), 1);
      if (lang === 'zh') {
        await shot('zh-cluster-form');
        await dialog.locator('button.close').click();
        await dialog.waitFor({ state: 'hidden' });
      }
    }
    assert.deepEqual(await options(), [
      ['auto', 'Automatic (default)'],
      ['on', 'On: whatever its size'],
      ['off', 'Off'],
    ]);

    // Editing a Flink cluster shows its setting; Off is saved and shown again; Automatic clears it.
    await dialog.locator('li', { hasText: CLUSTER }).locator('button.item').click();
    assert.equal(await select.inputValue(), 'auto');
    await select.selectOption('off');
    await shot('cluster-form');
    await dialog.locator('button[type="submit"]').click();
    await page.waitForFunction(async (n) => (await window.go.app.App.ListClusters()).find((c) => c.name === n)?.jobmanager_log === 'off', CLUSTER);
    // Saving ends once the form has reloaded the list (the submit button is enabled again).
    await page.waitForFunction(() => !document.querySelector('[data-testid="cluster-dialog"] button[type="submit"]')?.disabled, null, { timeout: 5000 });
    await dialog.locator('button.add').click();
    await dialog.locator('li', { hasText: CLUSTER }).locator('button.item').click();
    // The form fills in from the saved cluster once the list has reloaded.
    await page.waitForFunction(() => document.querySelector('#cl-jmlog')?.value === 'off', null, { timeout: 5000 });
    assert.equal(await select.inputValue(), 'off');
    await select.selectOption('auto');
    await dialog.locator('button[type="submit"]').click();
    await page.waitForFunction(async (n) => {
      const c = (await window.go.app.App.ListClusters()).find((x) => x.name === n);
      return c && !('jobmanager_log' in c);
    }, CLUSTER);
    // A SeaTunnel cluster has none.
    await dialog.locator('li', { hasText: 'zeta-staging' }).locator('button.item').click();
    assert.equal(await dialog.locator('#cl-engine').inputValue(), 'seatunnel');
    assert.equal(await select.count(), 0);
    await dialog.locator('button.close').click();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
