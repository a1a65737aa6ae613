// End-to-end check of every view against a running `checkpoint-explorer
// serve` (CE_URL with ?token=). The data goes in the way a user's does: a
// capture file through the page's own upload input (frontend/testdata/
// gen-capture.mjs writes it: a Flink job with a backpressure episode, expired
// and async failures, a gap and a savepoint; a SeaTunnel job without subtask
// stats; a chain whose barriers queue at one input). Expected values are read
// back from the facade, never hard-coded analysis (the barrier chain's are
// also checked against the values worked out by hand for the generator).
// Screenshots of each view go to test-results/views-*.png.
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { CE_URL, describeServe, en, i18nKeys, pageHelpers, resultsDir, withServePage } from './fakepage.mjs';
import { CHAIN_JOB, CHAIN_STORY, captureBytes, ENDED_UNSEEN, generate, MISSED_DETAILS, PARTIAL_DETAILS } from '../testdata/gen-capture.mjs';

const enKeys = i18nKeys(en);
/**
 * How long one step of a view may take to show: seconds on a machine the other suites load (5 s
 * timed out there, and the zoom it left narrowed the next test's range).
 */
const STEP = 30_000;
const FLINK = 'capture: prod-flink';
const SEATUNNEL = 'capture: etl-seatunnel';

describeServe('views', () => {
  let browser;
  let page;
  let flinkJob = '';
  const pageErrors = [];

  const hashParams = async () => Object.fromEntries(new URLSearchParams((await page.evaluate(() => location.hash)).split('?')[1] ?? ''));
  const { call, shot, go, colourPixels } = pageHelpers(() => page, 'views');
  const enc = encodeURIComponent;

  /**
   * leave remembers where the suite is (a checkpoint view: the tests after go on from there)
   * and returns comeBack, which goes back there and waits for its Gantt chart.
   */
  const leave = async () => {
    const back = await page.evaluate(() => location.hash);
    return async function comeBack() {
      await go(back);
      await page.getByTestId('gantt-canvas').waitFor({ timeout: 10_000 });
    };
  };
  /**
   * leaveForArchive leaves where the suite is (leave) for checkpoint id of the capture's
   * clickstream-archive job: that job's id, the facade's view of the checkpoint, and comeBack.
   */
  const leaveForArchive = async (id) => {
    const archive = (await call('ListJobs', FLINK)).find((j) => j.name === 'clickstream-archive').id;
    return { archive, view: await call('CheckpointView', FLINK, archive, 0, id), comeBack: await leave() };
  };

  /** rawKeys lists i18n keys that appear verbatim in the page's text. */
  const rawKeys = async () => {
    const text = await page.locator('body').innerText();
    return enKeys.filter((k) => k.includes('.') && text.includes(k));
  };

  const prepare = async (ctx, p) => {
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(CE_URL).origin });
    p.setDefaultTimeout(10_000);
  };
  withServePage({ pageErrors, prepare }, (p) => ({ browser, page } = p));
  before(async () => {
    await page.getByTestId('source-current').waitFor({ timeout: 15_000 });
  });

  it('opens a capture through the page upload', async () => {
    const file = captureBytes(generate());
    await page.getByTestId('capture-file-input').setInputFiles({ name: 'demo.ckpt.gz', mimeType: 'application/gzip', buffer: file });
    // The first cluster the file declares is opened.
    await page.waitForFunction(
      (name) => document.querySelector('[data-testid="source-current"]')?.textContent?.trim() === name,
      FLINK,
      { timeout: 20_000 },
    );
    // The file declares two clusters; both are listed as read-only captures.
    await page.getByTestId('source-picker').click();
    const names = await page.locator('[data-testid="source-option"][data-kind="capture"]').evaluateAll((els) => els.map((e) => e.dataset.name));
    assert.deepEqual(names.sort(), [SEATUNNEL, FLINK].sort());
    await page.locator(`[data-testid="source-option"][data-name="${FLINK}"]`).click();
    const jobs = await call('ListJobs', FLINK);
    flinkJob = jobs.find((j) => j.name === 'orders-enrichment').id;
    await page.locator(`[data-testid="job-item"][data-job-id="${flinkJob}"]`).click();
    await page.getByTestId('timeline-canvas').waitFor({ timeout: 10_000 });
  });

  it('timeline: bars, failures and lanes on one axis; zoom changes the range, which other views keep', async () => {
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="checkpoint-row"]').length > 100, null, { timeout: 10_000 });
    await page.waitForTimeout(300);
    assert.ok((await colourPixels('[data-testid="timeline-canvas"]', '--status-completed')) > 2000, 'completed bars painted');
    assert.ok((await colourPixels('[data-testid="timeline-canvas"]', '--status-failed')) > 200, 'failed bars and failure ticks painted');
    assert.ok((await colourPixels('[data-testid="timeline-canvas"]', '--lane-bp')) > 100, 'backpressure lane painted');
    await shot('timeline');

    const label = page.getByTestId('range-label');
    const before = (await label.textContent()).trim();
    const box = await page.getByTestId('timeline-canvas').boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + 100);
    await page.mouse.wheel(0, -500);
    await page.waitForFunction((prev) => document.querySelector('[data-testid="range-label"]')?.textContent.trim() !== prev, before, {
      timeout: STEP,
    });
    const zoomed = (await label.textContent()).trim();
    await page.waitForFunction(() => location.hash.includes('from='), null, { timeout: STEP });
    const { from, to } = await hashParams();
    assert.ok(Number(to) - Number(from) > 0, 'the chosen range is in the address');
    // Fewer checkpoints are listed once zoomed in.
    const all = (await call('Checkpoints', FLINK, flinkJob, 0, 0)).length;
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="checkpoint-row"]').length < n, all, { timeout: STEP });

    // Shift+drag brushes a narrower range.
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + box.width * 0.4, box.y + 100);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + 100, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.waitForFunction((prev) => document.querySelector('[data-testid="range-label"]')?.textContent.trim() !== prev, zoomed, {
      timeout: STEP,
    });
    await page.waitForFunction((f) => new URLSearchParams(location.hash.split('?')[1]).get('from') !== f, from, { timeout: STEP });
    const brushed = await hashParams();
    assert.ok(Number(brushed.to) - Number(brushed.from) < Number(to) - Number(from), 'the brush narrowed the range');

    // H opens the heatmaps with the same range; T comes back to it.
    await page.keyboard.press('h');
    await page.getByTestId('heatmap-view').waitFor();
    const hm = await hashParams();
    assert.equal(hm.from, brushed.from);
    assert.equal(hm.to, brushed.to);
    assert.match(await page.getByTestId('range-info').innerText(), /Range:/);
    await page.keyboard.press('t');
    await page.getByTestId('job-view').waitFor();
    await page.waitForFunction((f) => new URLSearchParams(location.hash.split('?')[1]).get('from') === f, brushed.from, { timeout: STEP });

    // F fits the whole job again and forgets the chosen range. Back from the heatmaps, the
    // timeline's keys are bound once it has mounted: on a loaded machine a first F can come before
    // (a full run waited 30 s for it), so F is pressed again until the range is forgotten.
    for (const until = Date.now() + STEP; ; ) {
      await page.keyboard.press('f');
      try {
        await page.waitForFunction(() => !location.hash.includes('from='), null, { timeout: 2000 });
        break;
      } catch (e) {
        if (Date.now() > until) throw e;
      }
    }
    await page.waitForFunction((prev) => document.querySelector('[data-testid="range-label"]')?.textContent.trim() === prev, before, {
      timeout: STEP,
    });
  });

  it('insights: the verdict and its reason, failure clusters and slow phases from the report', async () => {
    const report = await call('Report', FLINK, flinkJob, 0, 0);
    await page.getByTestId('insights').waitFor();
    await page.getByTestId('insights-toggle').click();
    await page.getByTestId('verdict-reason').waitFor();
    assert.equal((await page.getByTestId('verdict-reason').innerText()).trim(), report.correlation.reason);
    assert.equal(await page.locator('[data-testid="failure-clusters"] > li').count(), Math.min(6, report.failures.length));
    assert.ok(report.failures.length > 0 && report.slow_phases.length > 0);
    await shot('insights');
    await page.getByTestId('insights-toggle').click();
  });

  it('failure heatmap: a cell opens exactly its checkpoints, and one of them its detail', async () => {
    await go(`#/heatmap?cluster=${enc(FLINK)}&job=${flinkJob}&kind=failure`);
    await page.getByTestId('heatmap-chart').waitFor();
    await page.waitForFunction(() => {
      const c = document.querySelector('[data-testid="heatmap-chart"]')?.__chart;
      return c && (c.getOption().series?.[0]?.data?.length ?? 0) > 0;
    }, null, { timeout: 10_000 });
    await shot('heatmap-failure');
    // The cell of the most frequent failure signature (the backend sorts rows by count).
    const cell = await page.evaluate(() => {
      const el = document.querySelector('[data-testid="heatmap-chart"]');
      const c = el.__chart;
      const data = c.getOption().series[0].data.filter((d) => d[1] === 0);
      const d = data[0];
      const [x, y] = c.convertToPixel({ seriesIndex: 0 }, [d[0], d[1]]);
      const r = el.getBoundingClientRect();
      return { x: r.left + x, y: r.top + y, bucket: d[0], row: d[1], index: d[3] };
    });
    const hm = await call('Heatmap', { cluster: FLINK, job: flinkJob, kind: 'failure', from_ms: 0, to_ms: 0, buckets: 0 });
    assert.ok(hm.failure.rows.length >= 2, 'several failure signatures');
    await page.mouse.click(cell.x, cell.y);
    await page.getByTestId('cell-checkpoints').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="cell-checkpoint"]').length > 0, null, { timeout: 10_000 });
    const shown = await page.locator('[data-testid="cell-checkpoint"]').evaluateAll((els) => els.map((e) => Number(e.dataset.id)));
    // Map the clicked bucket back to the API's cell (bucket counts can differ with the chart width).
    const buckets = await page.evaluate(() => {
      const c = document.querySelector('[data-testid="heatmap-chart"]').__chart;
      return c.getOption().xAxis[0].data.length;
    });
    const hm2 = await call('Heatmap', { cluster: FLINK, job: flinkJob, kind: 'failure', from_ms: 0, to_ms: 0, buckets });
    const want = hm2.failure.rows[cell.row].cells[cell.index].checkpoint_ids;
    assert.deepEqual([...shown].sort((a, b) => a - b), [...want].sort((a, b) => a - b));
    await shot('heatmap-cell');

    await page.locator('[data-testid="cell-checkpoint"]').first().click();
    await page.getByTestId('checkpoint-view').waitFor();
    await page.getByTestId('failure').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('checkpoint-title').innerText(), new RegExp(`#${shown[0]}\\b`));
    assert.match(await page.getByTestId('failure').innerText(), new RegExp(hm2.failure.rows[cell.row].signature.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    // Esc goes back to the heatmap.
    await page.keyboard.press('Escape');
    await page.getByTestId('heatmap-view').waitFor({ timeout: STEP });
  });

  it('phase and operator heatmaps render, the phase is selectable', async () => {
    await page.getByTestId('heatmap-kind-phase').click();
    await page.waitForFunction(() => location.hash.includes('kind=phase'));
    await page.waitForFunction(() => (document.querySelector('[data-testid="heatmap-chart"]')?.__chart?.getOption().yAxis?.[0]?.data?.length ?? 0) >= 5);
    await shot('heatmap-phase');
    await page.getByTestId('heatmap-kind-vertex').click();
    await page.getByTestId('heatmap-phase').selectOption('async');
    await page.waitForFunction(() => location.hash.includes('phase=async'));
    await page.waitForFunction(() => (document.querySelector('[data-testid="heatmap-chart"]')?.__chart?.getOption().yAxis?.[0]?.data?.length ?? 0) === 4);
    await page.waitForTimeout(300);
    await shot('heatmap-vertex');
  });

  it('checkpoint detail: bottleneck sentence, Gantt with the critical path, ack curve, copy summary', async () => {
    const report = await call('Report', FLINK, flinkJob, 0, 0);
    const slowest = report.summary.slowest[0];
    const analysis = report.checkpoints.find((c) => c.id === slowest);
    await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${flinkJob}&id=${slowest}`);
    await page.getByTestId('gantt-canvas').waitFor({ timeout: 10_000 });
    const b = analysis.bottleneck;
    const sentence = await page.getByTestId('bottleneck').innerText();
    // The causes along the barrier path lead (origin first: the alignment in the window, waiting for the source);
    // the largest phase of the last subtask to acknowledge follows under the list.
    assert.ok(analysis.causes?.length > 0 && b.origin, 'the slowest checkpoint has causes and an origin');
    assert.match(sentence.trim(), new RegExp(`^Bottleneck: [\\d.,]+ sec: ${b.phase.replace('_', ' ')} in Window\\(.*subtask ${b.subtask}, waiting for Source: orders \\(Kafka\\)'s barrier`));
    assert.match(await page.getByTestId('bottleneck-critical').innerText(), new RegExp(`${b.phase.replace('_', ' ')} in Window\\(.*subtask ${b.subtask}:`));
    const view = await call('CheckpointView', FLINK, flinkJob, 0, slowest);
    const vertices = new Set(view.subtasks.map((s) => s.vertex_id)).size;
    assert.equal(Number(await page.getByTestId('gantt-canvas').getAttribute('data-rows')), vertices);
    await page.getByTestId('expand-all').click();
    assert.equal(Number(await page.getByTestId('gantt-canvas').getAttribute('data-rows')), vertices + view.subtasks.length);
    assert.ok((await colourPixels('[data-testid="gantt-canvas"]', '--phase-alignment')) > 500, 'alignment dominates the Gantt');
    assert.ok((await colourPixels('[data-testid="gantt-canvas"]', '--critical')) > 50, 'the critical path is outlined');
    // Phases the engine does not report are said to be not observable, not 0.
    assert.match(await page.locator('[data-testid="critical-phases"] [data-phase="finalize"]').innerText(), /not observable/);
    await page.getByTestId('ack-curve').waitFor();
    assert.equal(await page.locator('[data-testid="ack-curve"] canvas').count() > 0, true);
    assert.match(await page.getByTestId('ack-marks').innerText(), /50%[\s\S]*90%[\s\S]*100%/);
    await page.getByTestId('ack-curve').scrollIntoViewIfNeeded();
    await shot('checkpoint-lower');
    await page.evaluate(() => document.querySelector('main').scrollTo(0, 0));
    await shot('checkpoint');

    await page.getByTestId('copy-summary').click();
    await page.getByTestId('toast').waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied.split('\n')[0], new RegExp(`^Checkpoint #${slowest} of orders-enrichment on ${FLINK}$`));
    assert.ok(copied.includes('Bottleneck: '), copied);
  });

  it('the barrier path: where barriers queued is named first, listed with the other causes and marked on the Gantt, in both languages', async () => {
    const chain = (await call('ListJobs', FLINK)).find((j) => j.name === CHAIN_JOB).id;
    const comeBack = await leave();
    const view = await call('CheckpointView', FLINK, chain, 0, CHAIN_STORY);
    const o = view.analysis.bottleneck.origin;
    const [first, second] = view.analysis.causes;
    // The generator's story, worked by hand: 890 ms queued at Slow Map's input behind the source, then Slow Snapshot's sync.
    assert.deepEqual(
      [o.vertex_name, o.upstream_vertex_name, first.phase, first.vertex_id, first.upstream_vertex_id, first.ms, second.phase, second.vertex_name, second.ms],
      ['Slow Map', 'Source: Numbers', 'start_delay', o.vertex_id, o.upstream_vertex_id, 890, 'sync', 'Slow Snapshot', 302],
    );
    assert.equal(view.analysis.bottleneck.vertex_name, 'Slow Snapshot', 'the bottleneck itself is downstream of the origin');
    await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${chain}&id=${CHAIN_STORY}`);
    await page.getByTestId('causes').waitFor({ timeout: 10_000 });
    const en = `${first.ms} ms: barriers queued at the input of ${o.vertex_name} (behind ${o.upstream_vertex_name}); ${second.ms} ms: sync in ${second.vertex_name} subtask 0`;
    assert.equal((await page.getByTestId('bottleneck').innerText()).trim(), `Bottleneck: ${en}`);
    const items = await page.locator('[data-testid="cause"]').evaluateAll((els) =>
      els.map((e) => [
        e.dataset.phase,
        e.querySelector('.ms').textContent.trim(),
        e.querySelector('.pct').textContent.trim(),
        e.querySelector('.what').childNodes[0].textContent.trim(),
        !!e.querySelector('[data-testid="cause-origin"]'),
      ]),
    );
    assert.deepEqual(items, [
      ['start_delay', '890 ms', '72%', 'barriers queued at the input of Slow Map (behind Source: Numbers)', true],
      ['sync', '302 ms', '24%', 'sync in Slow Snapshot subtask 0', false],
    ]);
    assert.match(await page.getByTestId('bottleneck-critical').innerText(), /start delay in Slow Snapshot subtask 0: 930 ms of 1\.24 sec/);
    // The Gantt marks Slow Map's row (the second) with the tag and the edge it queued behind.
    const canvas = page.getByTestId('gantt-canvas');
    assert.equal(await canvas.getAttribute('data-origin'), o.vertex_id);
    assert.equal(await canvas.getAttribute('data-origin-rows'), '1');
    await page.waitForFunction(() => document.querySelector('[data-testid="gantt-canvas"]')?.dataset.originLabel, null, { timeout: STEP });
    assert.equal(await canvas.getAttribute('data-origin-label'), 'barriers queued here ← behind Source: Numbers');
    await page.getByTestId('gantt-origin-legend').waitFor();
    // The advice that cites this checkpoint sits above the Gantt: hover where it is.
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + 120, box.y + 24 + 22 + 11);
    assert.equal((await page.getByTestId('gantt-origin-tip').innerText()).trim(), '890 ms: barriers queued at the input of Slow Map (behind Source: Numbers)');
    await page.mouse.move(box.x + box.width / 2, box.y - 40);
    await page.evaluate(() => document.querySelector('main').scrollTo(0, 0));
    // The copy-summary toast of the test before is not part of this view.
    if (await page.getByTestId('toast').isVisible()) await page.getByTestId('toast').getByRole('button').click();
    await shot('checkpoint-causes');

    await page.getByTestId('lang-zh').click();
    const zh = '890毫秒：barrier 在 Slow Map 的输入端排队（排在 Source: Numbers 的数据之后）；302毫秒：Slow Snapshot 子任务 0 的同步';
    await page.waitForFunction((want) => document.querySelector('[data-testid="bottleneck"]')?.textContent.includes(want), zh, { timeout: STEP });
    assert.equal((await page.getByTestId('bottleneck').innerText()).trim(), `瓶颈: ${zh}`);
    await page.waitForFunction(() => document.querySelector('[data-testid="gantt-canvas"]')?.dataset.originLabel?.startsWith('barrier'), null, { timeout: STEP });
    assert.equal(await canvas.getAttribute('data-origin-label'), 'barrier 在此排队 ← 排在 Source: Numbers 之后');
    assert.deepEqual(await rawKeys(), []);
    await shot('zh-checkpoint-causes');
    await page.getByTestId('lang-en').click();

    // The job view's side panel and a comparison side say it the same way, origin first.
    await go(`#/job?cluster=${enc(FLINK)}&job=${chain}`);
    await page.locator(`[data-testid="checkpoint-row"][data-id="${CHAIN_STORY}"]`).click();
    await page.getByTestId('detail-bottleneck').waitFor({ timeout: 10_000 });
    assert.equal((await page.getByTestId('detail-bottleneck').innerText()).trim(), en);
    await go(`#/compare?cluster=${enc(FLINK)}&job=${chain}&b=${CHAIN_STORY}`);
    await page.getByTestId('compare-phases').waitFor({ timeout: 10_000 });
    await page.waitForFunction((id) => document.querySelector('[data-testid="compare-phases"] thead')?.textContent.includes(`B #${id}`), CHAIN_STORY);
    const cmp = await call('DefaultCompare', FLINK, chain, 0, 0);
    const shown = (await page.getByTestId('compare-bottleneck-b').innerText()).trim();
    // A comparison side carries the bottleneck and its origin; with causes too (when the backend sends them) the same words.
    if ([cmp.a, cmp.b].some((x) => x.causes)) assert.equal(shown, en);
    else assert.match(shown, /^barriers queued at the input of Slow Map \(behind Source: Numbers\), which shows as start delay in Slow Snapshot subtask 0: 930 ms of 1\.24 sec$/);
    await comeBack();
  });

  it('a checkpoint whose details were missed says so instead of blaming the engine, in both languages', async () => {
    const { archive, comeBack } = await leaveForArchive(MISSED_DETAILS);
    await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${archive}&id=${MISSED_DETAILS}`);
    await page.waitForFunction(() => /history/.test(document.querySelector('[data-testid="bottleneck"]')?.textContent ?? ''), null, { timeout: 10_000 });
    assert.match(await page.getByTestId('bottleneck').innerText(), /left the engine's history before its details could be fetched/);
    await page.getByTestId('lang-zh').click();
    await page.waitForFunction(() => /离开引擎的历史/.test(document.querySelector('[data-testid="bottleneck"]')?.textContent ?? ''), null, { timeout: STEP });
    await page.getByTestId('lang-en').click();
    await comeBack();
  });

  it('a checkpoint stored in progress that later ones ended says it ended unseen, in both languages', async () => {
    const { archive, view, comeBack } = await leaveForArchive(ENDED_UNSEEN);
    assert.equal(view.checkpoint.status, 'IN_PROGRESS');
    assert.equal(view.analysis.ended_unseen, true, 'checkpoints after it completed: Flink ended it');
    const report = await call('Report', FLINK, archive, 0, 0);
    assert.equal(report.summary.ended_unseen, 1);
    assert.equal(report.summary.in_progress, 0);
    await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${archive}&id=${ENDED_UNSEEN}`);
    const badge = page.getByTestId('ended-unseen-badge');
    await badge.waitFor({ timeout: 10_000 });
    assert.equal((await badge.innerText()).trim(), 'Ended unseen');
    assert.match(await badge.getAttribute('title'), /a later checkpoint completed/);
    await page.getByTestId('lang-zh').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="ended-unseen-badge"]')?.textContent?.trim() === '结束未见', null, { timeout: STEP });
    await page.getByTestId('lang-en').click();
    // The job's timeline draws it grey, as the legend says.
    await go(`#/job?cluster=${enc(FLINK)}&job=${archive}`);
    await page.getByTestId('timeline-canvas').waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    const grey = await colourPixels('[data-testid="timeline-canvas"]', '--status-ended-unseen');
    assert.ok(grey >= 12, `the ended-unseen bar painted grey (${grey} px; a bar is at least 3 × 4)`);
    // The table names it so too.
    const row = page.locator(`[data-testid="checkpoint-row"][data-id="${ENDED_UNSEEN}"] .status-badge`);
    await row.waitFor({ timeout: 10_000 });
    assert.equal((await row.innerText()).trim(), 'Ended unseen');
    await shot('ended-unseen');
    await comeBack();
  });

  it('the job header reconciles the engine\'s ids and counters with what is stored, in both languages', async () => {
    const comeBack = await leave();
    await go(`#/job?cluster=${enc(FLINK)}&job=${flinkJob}`);
    const r = await call('JobReconciliation', FLINK, flinkJob);
    assert.ok(r && r.missed === r.gaps + r.unaccounted && r.gaps > 0 && r.without_id > 0, `the capture's reconciliation came with the import: ${JSON.stringify(r)}`);
    const line = page.getByTestId('reconciliation');
    await line.waitFor({ timeout: 10_000 });
    const n = (v) => v.toLocaleString('en-US');
    assert.equal(
      (await page.locator('[data-testid="reconciliation"] .recontext').innerText()).trim(),
      `Engine counted ${n(r.engine_counted)} · stored ${n(r.stored)} · missed ${n(r.missed)} (gaps) · ${n(r.without_id)} failed before an id`,
    );
    // Something was not stored: the line is a warning, and its tooltip explains every figure.
    assert.equal(await line.getAttribute('data-warn'), 'true');
    const tip = await line.getAttribute('title');
    assert.match(tip, new RegExp(`^Checkpoints #1 to #${r.latest_id} \\(${r.ids} ids\\)`));
    for (const w of [/Gaps: ids the engine’s history evicted/, /Unaccounted: ids neither stored nor recorded as a gap/, /since the JobManager started/, /Failed before an id/]) {
      assert.match(tip, w);
    }
    assert.notEqual(
      await line.evaluate((e) => getComputedStyle(e).color),
      await page.locator('[data-testid="range-info"] .muted').first().evaluate((e) => getComputedStyle(e).color),
      'highlighted, not muted',
    );
    await page.getByTestId('jobhead').screenshot({ path: `${resultsDir}views-job-header.png` });
    await shot('job-with-reconciliation');
    await page.getByTestId('lang-zh').click();
    await page.waitForFunction(() => /引擎计数/.test(document.querySelector('[data-testid="reconciliation"]')?.textContent ?? ''), null, { timeout: STEP });
    assert.equal(
      (await page.locator('[data-testid="reconciliation"] .recontext').innerText()).trim(),
      `引擎计数 ${r.engine_counted} · 已缓存 ${r.stored} · 缺失 ${r.missed}（缺口） · ${r.without_id} 个在获得 id 前失败`,
    );
    assert.match(await line.getAttribute('title'), /下落不明/);
    await shot('zh-job-header');
    await page.getByTestId('lang-en').click();

    // A job without a reconciliation shows no line (the SeaTunnel job of the file has none).
    const st = (await call('ListJobs', SEATUNNEL))[0].id;
    assert.equal(await call('JobReconciliation', SEATUNNEL, st), null);
    await go(`#/job?cluster=${enc(SEATUNNEL)}&job=${st}`);
    await page.getByTestId('timeline-canvas').waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    assert.equal(await page.getByTestId('reconciliation').count(), 0);
    await comeBack();
  });

  it('a checkpoint with partial details says which vertices lack their stats, in both languages', async () => {
    const { archive, view, comeBack } = await leaveForArchive(PARTIAL_DETAILS);
    assert.equal(view.checkpoint.detail_loss, 'partial');
    const missing = view.checkpoint.tasks.filter((x) => x.missing);
    assert.equal(missing.length, 1, 'the store marks the vertex stored without subtasks');
    await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${archive}&id=${PARTIAL_DETAILS}`);
    const notice = page.getByTestId('partial-notice');
    await notice.waitFor({ timeout: 10_000 });
    assert.match(await notice.innerText(), /^Details are incomplete: the per-subtask stats of 1 vertex could not be fetched \(marked in the chart below\)/);
    // The vertex that came is drawn; the missing one is a labelled row without bars.
    const canvas = page.getByTestId('gantt-canvas');
    assert.equal(Number(await canvas.getAttribute('data-missing')), 1);
    assert.equal(Number(await canvas.getAttribute('data-rows')), new Set(view.subtasks.map((x) => x.vertex_id)).size + 1);
    await page.waitForTimeout(300); // painted after layout
    const warnPx = await colourPixels('[data-testid="gantt-canvas"]', '--warn');
    assert.ok(warnPx > 5, `the "stats not fetched" label is painted (${warnPx} px)`);
    assert.equal((await page.getByTestId('vertex-not-fetched').innerText()).trim(), 'stats not fetched');
    await notice.scrollIntoViewIfNeeded();
    await shot('checkpoint-partial');
    await page.getByTestId('lang-zh').click();
    await page.waitForFunction(() => /详情不完整/.test(document.querySelector('[data-testid="partial-notice"]')?.textContent ?? ''), null, { timeout: STEP });
    assert.equal((await page.getByTestId('vertex-not-fetched').innerText()).trim(), '统计未获取');
    assert.deepEqual(await rawKeys(), []);
    await page.getByTestId('lang-en').click();
    await comeBack();
  });

  it('compare: the default pair with its reason, phase and vertex deltas, either side choosable', async () => {
    await page.keyboard.press('c');
    await page.getByTestId('compare-view').waitFor();
    await page.getByTestId('compare-phases').waitFor({ timeout: 10_000 });
    const def = await call('DefaultCompare', FLINK, flinkJob, 0, 0);
    assert.equal((await page.getByTestId('compare-reason').innerText()).replace(/^Chosen:\s*/, ''), def.reason);
    const deltas = await page.locator('[data-testid="compare-phases"] [data-testid="delta"]').allInnerTexts();
    assert.ok(deltas.some((d) => /^[+−±]/.test(d.trim())), `phase deltas shown: ${deltas.join(' | ')}`);
    assert.equal(await page.locator('[data-testid="compare-vertices"] tbody tr').count(), def.vertices.length);
    await shot('compare');

    // Choose another baseline: the address and the table follow.
    const options = await page.getByTestId('pick-a').locator('option').evaluateAll((os) => os.map((o) => o.value));
    const other = options.find((v) => v !== String(def.a.id) && v !== String(def.b.id));
    await page.getByTestId('pick-a').selectOption(other);
    await page.waitForFunction((v) => new URLSearchParams(location.hash.split('?')[1]).get('a') === v, other);
    await page.waitForFunction((v) => document.querySelector('[data-testid="compare-phases"] thead')?.textContent.includes(`A #${v}`), other);
  });

  it('switching cluster changes the data (quick switcher and Alt+number)', async () => {
    await page.keyboard.press('Control+k');
    await page.getByTestId('quick-switcher').waitFor();
    await page.getByTestId('switcher-input').fill('seatunnel');
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.querySelector('[data-testid="source-current"]')?.textContent.trim() === n, SEATUNNEL);
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="job-item"]')].some((e) => e.textContent.includes('mysql-cdc-to-doris')));
    const jobs = await page.locator('[data-testid="job-item"]').allInnerTexts();
    assert.ok(!jobs.some((j) => j.includes('orders-enrichment')), 'the Flink jobs are gone');

    const sources = await call('ListClusters');
    const i = sources.findIndex((s) => s.name === FLINK);
    assert.ok(i >= 0 && i < 9);
    await page.keyboard.press(`Alt+${i + 1}`);
    await page.waitForFunction((n) => document.querySelector('[data-testid="source-current"]')?.textContent.trim() === n, FLINK);
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="job-item"]')].some((e) => e.textContent.includes('orders-enrichment')));
  });

  it('SeaTunnel checkpoint: only the phases it has, and what is not observable', async () => {
    const jobs = await call('ListJobs', SEATUNNEL);
    const job = jobs[0].id;
    const cps = await call('Checkpoints', SEATUNNEL, job, 0, 0);
    const slow = [...cps].sort((a, b) => b.end_to_end_ms - a.end_to_end_ms).find((c) => c.status === 'COMPLETED');
    await go(`#/checkpoint?cluster=${enc(SEATUNNEL)}&job=${job}&id=${slow.id}&pipeline=${slow.pipeline}`);
    await page.getByTestId('gantt-unavailable').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('gantt-unavailable').innerText(), /Not observable: start delay, alignment, sync, async, ack/);
    const chips = await page.locator('[data-testid="critical-phases"] .chip').allInnerTexts();
    assert.ok(chips.every((c) => c.includes('not observable')), chips.join(' | '));
    assert.match(await page.getByTestId('checkpoint-view').innerText(), /State blobs/);
    assert.match(await page.getByTestId('checkpoint-notes').innerText(), /SeaTunnel exposes no start_delay/);
    await shot('checkpoint-seatunnel');
  });

  it('cache and overhead: what is cached, the limits, requests per second per source; the log', async () => {
    await page.keyboard.press('r');
    await page.getByTestId('retention-view').waitFor();
    const ret = await call('Retention');
    await page.waitForFunction((n) => document.querySelector('[data-testid="cache-counts"]')?.textContent.includes(n), ret.checkpoints.toLocaleString('en-US'));
    const sources = await call('ListClusters');
    assert.equal(await page.locator('[data-testid="overhead-table"] tbody tr').count(), sources.length);
    // A bad limit is named and nothing is sent.
    await page.getByTestId('limit-mib').fill('0.5');
    await page.getByTestId('retention-save').click();
    await page.getByText('A cache under 1 MiB cannot hold even its schema.').waitFor();
    assert.deepEqual((await call('Retention')).limits, ret.limits);
    await page.getByTestId('limit-mib').fill(String(ret.limits.max_bytes / 1048576));
    await shot('retention');

    await page.getByTestId('open-log').click();
    await page.getByTestId('log-dialog').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="log-lines"]')?.textContent.length ?? 0) > 20, null, { timeout: STEP });
    await shot('log');
    await page.keyboard.press('Escape');
  });

  it('the Chinese UI shows no untranslated key in any view', async () => {
    // A toast shown in English before the switch is not part of the Chinese UI.
    if (await page.getByTestId('toast').isVisible()) await page.getByTestId('toast').getByRole('button').click();
    await page.getByTestId('lang-zh').click();
    const views = [
      ['job', `#/job?cluster=${enc(FLINK)}&job=${flinkJob}`, '时间线'],
      ['heatmap', `#/heatmap?cluster=${enc(FLINK)}&job=${flinkJob}&kind=failure`, '按失败特征'],
      ['heatmap-vertex', `#/heatmap?cluster=${enc(FLINK)}&job=${flinkJob}&kind=vertex`, '哪个算子'],
      ['checkpoint', `#/checkpoint?cluster=${enc(FLINK)}&job=${flinkJob}&id=${(await call('Report', FLINK, flinkJob, 0, 0)).summary.slowest[0]}`, '关键路径'],
      ['compare', `#/compare?cluster=${enc(FLINK)}&job=${flinkJob}`, '逐阶段'],
      ['retention', `#/retention?cluster=${enc(FLINK)}&job=${flinkJob}`, '轮询开销'],
    ];
    for (const [name, hash, label] of views) {
      await go(hash);
      await page.getByText(label, { exact: false }).first().waitFor({ timeout: 10_000 });
      await page.waitForTimeout(400);
      assert.deepEqual(await rawKeys(), [], `no raw keys in the ${name} view`);
      if (name === 'job') {
        // The verdict's reason is said in Chinese too, not only its label.
        const why = await page.getByTestId('verdict').getAttribute('title');
        assert.match(why, /[\u4e00-\u9fff]/, `the reason is in Chinese: ${why}`);
        assert.doesNotMatch(why, /\{\{|reason\./, 'every clause found and filled');
      }
      await shot(`zh-${name}`);
    }
    await page.getByTestId('open-shortcuts').click();
    await page.getByTestId('shortcuts').waitFor();
    assert.deepEqual(await rawKeys(), [], 'no raw keys in the shortcut list');
    await page.keyboard.press('Escape');
    await page.getByTestId('lang-en').click();
  });

  it('dark theme: the checkpoint view follows the OS', async () => {
    const dark = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', colorScheme: 'dark' });
    try {
      const p = await dark.newPage();
      const slowest = (await call('Report', FLINK, flinkJob, 0, 0)).summary.slowest[0];
      await p.goto(`${CE_URL}#/checkpoint?cluster=${enc(FLINK)}&job=${flinkJob}&id=${slowest}`);
      await p.getByTestId('gantt-canvas').waitFor({ timeout: 15_000 });
      await p.waitForTimeout(500);
      const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = bg.match(/\d+/g).map(Number);
      assert.ok(r + g + b < 150, `dark background (${bg})`);
      await p.screenshot({ path: `${resultsDir}views-checkpoint-dark.png` });
    } finally {
      await dark.close();
    }
  });

  it('the bundled Flink 1.20 recording with mixed causes names where barriers queued, in both languages', async () => {
    const sample = (await call('ListClusters')).find((s) => s.kind === 'sample' && s.name === 'sample: Flink 1.20 mixed causes');
    assert.ok(sample, 'the mixed-cause sample is bundled');
    const [job] = await call('ListJobs', sample.name);
    const report = await call('Report', sample.name, job.id, 0, 0);
    const slow = report.checkpoints.find((c) => c.id === report.summary.slowest[0]);
    const [first, second] = slow.causes;
    // A real 1.20 run: barriers queue at Slow Map's input behind the backpressured source; Slow Snapshot's sync follows.
    assert.deepEqual([first.phase, first.vertex_name, first.upstream_vertex_name, second.phase, second.vertex_name],
      ['start_delay', 'Slow Map', 'Source: Numbers', 'sync', 'Slow Snapshot']);
    assert.equal(slow.bottleneck.origin.vertex_name, 'Slow Map');
    await go(`#/checkpoint?cluster=${enc(sample.name)}&job=${job.id}&id=${slow.id}`);
    await page.getByTestId('causes').waitFor({ timeout: 10_000 });
    const en = `${first.ms} ms: barriers queued at the input of Slow Map (behind Source: Numbers); ${second.ms} ms: sync in Slow Snapshot subtask 0`;
    assert.ok((await page.getByTestId('bottleneck').innerText()).trim().startsWith(`Bottleneck: ${en}`));
    // Why barriers queued there: the source is held back, Slow Map is busy (the recording's own samples).
    assert.ok(first.upstream_backpressure > 0.5 && first.busy > 0.5, JSON.stringify(first));
    assert.match(await page.getByTestId('cause-evidence').first().innerText(), /^Source: Numbers backpressured \d+% · Slow Map busy \d+%$/);
    const canvas = page.getByTestId('gantt-canvas');
    assert.equal(await canvas.getAttribute('data-origin'), first.vertex_id);
    await page.waitForFunction(() => document.querySelector('[data-testid="gantt-canvas"]')?.dataset.originLabel, null, { timeout: STEP });
    assert.equal(await canvas.getAttribute('data-origin-label'), 'barriers queued here ← behind Source: Numbers');
    await shot('sample-mixed-causes');
    await page.getByTestId('lang-zh').click();
    const zh = `${first.ms}毫秒：barrier 在 Slow Map 的输入端排队（排在 Source: Numbers 的数据之后）；${second.ms}毫秒：Slow Snapshot 子任务 0 的同步`;
    await page.waitForFunction((want) => document.querySelector('[data-testid="bottleneck"]')?.textContent.includes(want), zh, { timeout: STEP });
    await page.waitForFunction(() => document.querySelector('[data-testid="gantt-canvas"]')?.dataset.originLabel?.startsWith('barrier'), null, { timeout: STEP });
    assert.deepEqual(await rawKeys(), []);
    await shot('zh-sample-mixed-causes');
    await page.getByTestId('lang-en').click();
  });

  it('the bundled Iceberg recording shows its sink-commit lane and slow commits, in both languages', async () => {
    const sample = (await call('ListClusters')).find((s) => s.kind === 'sample' && s.name === 'sample: Flink 1.20 Iceberg slow commits');
    assert.ok(sample, 'the Iceberg sample is bundled');
    const [job] = await call('ListJobs', sample.name);
    const report = await call('Report', sample.name, job.id, 0, 0);
    // A real Iceberg sink on Flink 1.20 whose table location makes each commit take about 1.9 s.
    const slow = report.checkpoints.find((c) => c.commit && c.commit.duration_ms > 1500);
    assert.ok(slow, 'a checkpoint followed by a slow commit');
    await go(`#/job?cluster=${enc(sample.name)}&job=${job.id}`);
    await page.waitForFunction(() => (document.querySelector('[data-testid="timeline-canvas"]')?.dataset.lanes ?? '').includes('Sink commit'),
      null, { timeout: 10_000 });
    await shot('sample-iceberg-timeline');
    await go(`#/checkpoint?cluster=${enc(sample.name)}&job=${job.id}&id=${slow.id}`);
    const block = page.getByTestId('sink-commit');
    await block.waitFor({ timeout: 10_000 });
    const ms = slow.commit.duration_ms.toLocaleString('en-US');
    assert.match(await page.getByTestId('commit-duration').innerText(), new RegExp(`^${ms} ms \\(1\\.[89]\\d? sec\\)$`));
    assert.ok(Number((await page.getByTestId('commit-files').innerText()).replace(/,/g, '')) > 0);
    await shot('sample-iceberg-commit');
    await page.getByTestId('lang-zh').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="commit-duration"]')?.textContent.includes('毫秒'), null, { timeout: STEP });
    assert.match(await block.locator('h4').innerText(), /提交/);
    await go(`#/job?cluster=${enc(sample.name)}&job=${job.id}`);
    await page.waitForFunction(() => (document.querySelector('[data-testid="timeline-canvas"]')?.dataset.lanes ?? '').includes('Sink 提交'),
      null, { timeout: 10_000 });
    assert.deepEqual(await rawKeys(), []);
    await shot('zh-sample-iceberg-timeline');
    await page.getByTestId('lang-en').click();
  });

  it('the bundled Flink sample (a real recording) explains its checkpoints', async (t) => {
    const sample = (await call('ListClusters')).find((s) => s.kind === 'sample' && s.name.startsWith('sample: Flink 2.3'));
    if (!sample) {
      t.skip('this build bundles no recorded Flink sample');
      return;
    }
    const jobs = (await call('ListJobs', sample.name)).filter((j) => j.total > 0);
    const failing = jobs.find((j) => j.failed > 0);
    assert.ok(failing, 'the sample has a job with failed checkpoints');
    await go(`#/heatmap?cluster=${enc(sample.name)}&job=${failing.id}&kind=failure`);
    await page.waitForFunction(() => (document.querySelector('[data-testid="heatmap-chart"]')?.__chart?.getOption().series?.[0]?.data?.length ?? 0) > 0);
    const cell = await page.evaluate(() => {
      const el = document.querySelector('[data-testid="heatmap-chart"]');
      const d = el.__chart.getOption().series[0].data[0];
      const [x, y] = el.__chart.convertToPixel({ seriesIndex: 0 }, [d[0], d[1]]);
      const r = el.getBoundingClientRect();
      return { x: r.left + x, y: r.top + y };
    });
    await page.mouse.click(cell.x, cell.y);
    await page.locator('[data-testid="cell-checkpoint"]').first().click();
    await page.getByTestId('failure').waitFor();
    assert.match(await page.getByTestId('bottleneck').innerText(), /Stuck|Bottleneck|No bottleneck/);
    await shot('sample-failed');

    // A completed checkpoint with subtask stats: a bottleneck sentence and one Gantt row per vertex.
    const withStats = jobs.find((j) => j.completed > 0 && (j.vertices ?? []).length > 0);
    const report = await call('Report', sample.name, withStats.id, 0, 0);
    const slow = report.checkpoints.find((c) => c.id === report.summary.slowest[0]);
    await go(`#/checkpoint?cluster=${enc(sample.name)}&job=${withStats.id}&id=${slow.id}`);
    await page.getByTestId('checkpoint-title').waitFor();
    if (slow.bottleneck) {
      await page.getByTestId('gantt-canvas').waitFor();
      const view = await call('CheckpointView', sample.name, withStats.id, 0, slow.id);
      assert.equal(Number(await page.getByTestId('gantt-canvas').getAttribute('data-rows')), new Set(view.subtasks.map((s) => s.vertex_id)).size);
      // With causes the sentence names them (origin first); the bottleneck's phase is said under their list.
      const said = slow.causes?.length ? page.getByTestId('bottleneck-critical') : page.getByTestId('bottleneck');
      assert.match(await said.innerText(), new RegExp(`${slow.bottleneck.phase.replace('_', ' ')}`));
    }
    await shot('sample-checkpoint');

    // The backpressure job's timeline draws bars and its backpressure lane from the recorded samples.
    const bp = jobs.find((j) => j.name.includes('backpressure'));
    if (bp) {
      await go(`#/job?cluster=${enc(sample.name)}&job=${bp.id}`);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="checkpoint-row"]').length > 10, null, { timeout: 10_000 });
      await page.waitForTimeout(300);
      assert.ok((await colourPixels('[data-testid="timeline-canvas"]', '--status-completed')) > 500, 'completed bars painted');
      // Backpressure stays at 100 % here: the lane is one translucent block, so count its tint
      // (orange over the band's background), not the exact lane colour of a line.
      const bpPixels = await page.evaluate(() => {
        const c = document.querySelector('[data-testid="timeline-canvas"]');
        const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
        let n = 0;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
          if (r > 200 && g > 140 && g < 225 && r - b > 50) n++;
        }
        return n;
      });
      await shot('sample-timeline');
      assert.ok(bpPixels > 2000, `backpressure lane painted from real samples (${bpPixels} tinted px)`);
      await shot('sample-timeline');
    }

    // Compare on real data: the default pair of a job with failures, with its reason and deltas.
    await go(`#/compare?cluster=${enc(sample.name)}&job=${failing.id}`);
    await page.getByTestId('compare-phases').waitFor({ timeout: 10_000 });
    const def = await call('DefaultCompare', sample.name, failing.id, 0, 0);
    assert.equal((await page.getByTestId('compare-reason').innerText()).replace(/^Chosen:\s*/, ''), def.reason);
    assert.equal(await page.locator('[data-testid="compare-vertices"] tbody tr').count(), def.vertices.length);
    await shot('sample-compare');
  });

  it('cluster form: reporter endpoints, relabelled Prometheus names and the request budget are checked, saved and shown again for editing', async () => {
    const name = 'e2e-relabelled';
    await page.getByTestId('clusters-button').click();
    const dialog = page.getByTestId('cluster-dialog');
    await dialog.waitFor({ state: 'visible' });
    await dialog.locator('#cl-name').fill(name);
    await dialog.locator('#cl-base').fill('http://127.0.0.1:9/');
    await dialog.locator('[data-testid="cluster-prometheus"] > summary').click();
    await dialog.getByTestId('cluster-reporters').fill('http://127.0.0.1:9249/metrics\n127.0.0.1:9250');
    await dialog.getByTestId('cluster-names').fill('task_label=vertex_id\nbusy');
    await dialog.locator('[data-testid="cluster-budget"] > summary').click();
    await dialog.getByTestId('cluster-rps').fill('0.01');
    await dialog.getByTestId('cluster-inflight').fill('2.5');
    await dialog.locator('button[type="submit"]').click();
    assert.equal((await dialog.locator('#cl-reporters-err').textContent()).trim(), 'Each line must be an http:// or https:// URL.');
    assert.match(await dialog.locator('#cl-names-err').textContent(), /one key=value per line/);
    assert.match(await dialog.locator('#cl-rps-err').textContent(), /from 0\.1 to 1000/);
    assert.match(await dialog.locator('#cl-inflight-err').textContent(), /whole number from 1 to 64/);
    assert.equal((await call('ListClusters')).some((c) => c.name === name), false, 'nothing is saved while the form has problems');

    await dialog.getByTestId('cluster-reporters').fill('http://127.0.0.1:9249/metrics\nhttp://127.0.0.1:9250/metrics');
    await dialog.getByTestId('cluster-names').fill('task_label=vertex_id\nbusy=-');
    await dialog.getByTestId('cluster-rps').fill('2.5');
    await dialog.getByTestId('cluster-inflight').fill('2');
    assert.equal(await dialog.getByTestId('cluster-jmlog').inputValue(), 'auto', 'the JobManager log is read automatically by default');
    await dialog.getByTestId('cluster-jmlog').selectOption('on');
    await shot('cluster-form');
    await dialog.locator('button[type="submit"]').click();
    await page.waitForFunction(
      async (n) => (await window.go.app.App.ListClusters()).some((c) => c.name === n),
      name,
      { timeout: STEP },
    );
    const saved = (await call('ListClusters')).find((c) => c.name === name);
    assert.deepEqual(saved.reporter_urls, ['http://127.0.0.1:9249/metrics', 'http://127.0.0.1:9250/metrics']);
    assert.deepEqual(saved.prometheus_names, { task_label: 'vertex_id', busy: '-' });
    assert.equal(saved.requests_per_second, 2.5);
    assert.equal(saved.max_in_flight, 2);
    assert.equal(saved.jobmanager_log, 'on');

    // Editing shows them again; clearing them clears them.
    await dialog.locator('button.add').click();
    await dialog.locator('li', { hasText: name }).locator('button.item').click();
    assert.equal(await dialog.getByTestId('cluster-names').inputValue(), 'busy=-\ntask_label=vertex_id');
    assert.equal(await dialog.getByTestId('cluster-rps').inputValue(), '2.5');
    assert.equal(await dialog.getByTestId('cluster-inflight').inputValue(), '2');
    assert.equal(await dialog.getByTestId('cluster-jmlog').inputValue(), 'on');
    await dialog.getByTestId('cluster-names').fill('');
    await dialog.getByTestId('cluster-rps').fill('');
    await dialog.getByTestId('cluster-jmlog').selectOption('auto');
    await dialog.locator('button[type="submit"]').click();
    await page.waitForFunction(
      async (n) => !(await window.go.app.App.ListClusters()).find((c) => c.name === n)?.prometheus_names,
      name,
      { timeout: STEP },
    );
    const edited = (await call('ListClusters')).find((c) => c.name === name);
    assert.deepEqual(edited.reporter_urls.length, 2, 'the reporters stay');
    assert.equal(edited.requests_per_second ?? 0, 0, 'an emptied rate goes back to the default');
    assert.equal(edited.max_in_flight, 2);
    assert.equal(edited.jobmanager_log, undefined, 'automatic is the default, not stored');

    page.once('dialog', (d) => d.accept());
    await dialog.locator('li', { hasText: name }).locator('button.remove').click();
    await page.waitForFunction(async (n) => !(await window.go.app.App.ListClusters()).some((c) => c.name === n), name, { timeout: STEP });
    await dialog.locator('button.close').click();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
