// End-to-end check of the sink commits and custom lanes, in English and
// Chinese: the timeline's "Sink commit" lane and a cluster's custom lanes
// (their labels and hover tooltips), the checkpoint view's "Sink commit"
// block (a slow 1.9 s commit shared by two checkpoints; nothing for a job
// without commit data), and the cluster form's custom lanes (Flink only:
// edited, checked, saved and shown again).
//
// Like jmlog.test.mjs it runs against dev/serve-fake.mjs, which serves the
// built dist/ with dev/fake-bridge.js as the backend (orders-enrichment on
// prod-flink has commit samples, #2499 and #2500 share a 1,900 ms commit, and
// prod-flink has the lanes "Kafka lag" and "Records out/s"). It starts that
// server itself and needs only dist/. Screenshots go to test-results/lanes-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const JOB = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'; // orders-enrichment: commits and custom lanes
const NO_COMMIT_JOB = 'ffee00112233445566778899aabbccdd'; // clickstream-sessionize: neither
const SLOW = 2500; // its commit took 1,900 ms and is shared with #2499
const LANES = [
  { name: 'Kafka lag', promql: 'sum(kafka_consumergroup_lag{job_id="$job_id"})' },
  { name: 'Records out/s', metric: 'numRecordsOutPerSecond' },
];
// Layout constants of lib/timeline.ts and lib/draw.ts (checked by lanes.test.ts).
const BASE_HEIGHT = 320;
const AXIS = 38;
const LANE = 34;
const GAP = 6;
const FAILURES = 14;


describe('sink commits and custom lanes in the UI (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, go, text, shot, call, setLang, waitText, colourPixels, openClusters } = fakeSuite('lanes', (p) => (page = p), {
    viewport: { width: 1440, height: 1000 },
  });
  const enc = encodeURIComponent;
  const drawnLanes = async () => (await page.getByTestId('timeline-canvas').getAttribute('data-lanes')).split('\n');
  const waitLanes = (want) =>
    page.waitForFunction((w) => document.querySelector('[data-testid="timeline-canvas"]')?.dataset.lanes === w, want.join('\n'), { timeout: 10_000 });

  /**
   * hoverLane moves the pointer to the middle of the lane drawn at index
   * (data-lanes order; the failures lane is last, just above the axis) at a
   * fraction of the width, and returns the tooltip.
   */
  const hoverLane = async (index, xFrac = 0.5) => {
    const lanes = await drawnLanes();
    const box = await page.getByTestId('timeline-canvas').boundingBox();
    const failuresTop = box.height - AXIS - 4 - FAILURES;
    const top = failuresTop - (lanes.length - 1 - index) * (LANE + GAP);
    await page.mouse.move(box.x + 5, box.y + 5);
    await page.mouse.move(box.x + box.width * xFrac, box.y + top + LANE / 2, { steps: 2 });
    const tip = page.getByTestId('timeline-tooltip');
    await tip.waitFor({ timeout: 5000 });
    return tip;
  };

  it('the timeline draws a Sink commit lane and the custom lanes, labelled, in both languages', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}`);
    const want = (m) => [m.timeline.laneBackpressure, m.timeline.laneSize, m.timeline.laneCommit, 'Kafka lag', 'Records out/s', m.timeline.laneFailures];
    await waitLanes(want(en));
    // The canvas grows by the three lanes so the bars keep their height.
    const box = await page.getByTestId('timeline-canvas').boundingBox();
    assert.equal(box.height, BASE_HEIGHT + 3 * (LANE + GAP));
    await page.waitForTimeout(200);
    assert.ok((await colourPixels('[data-testid="timeline-canvas"]', '--lane-commit')) > 200, 'commit lane painted');
    assert.ok((await colourPixels('[data-testid="timeline-canvas"]', '--lane-custom')) > 400, 'custom lanes painted');
    assert.equal(await text('legend-commit'), en.timeline.laneCommit);
    assert.equal(await text('legend-custom'), en.timeline.legendCustom);
    await shot('timeline');

    await setLang('zh');
    await waitLanes(want(zh));
    assert.equal(await text('legend-commit'), zh.timeline.laneCommit);
    await shot('zh-timeline');
    await setLang('en');
    await waitLanes(want(en));
  });

  it('a job without commit data or custom lane samples draws neither', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${NO_COMMIT_JOB}`);
    await waitLanes([en.timeline.laneBackpressure, en.timeline.laneSize, en.timeline.laneFailures]);
    assert.equal((await page.getByTestId('timeline-canvas').boundingBox()).height, BASE_HEIGHT);
    assert.equal(await page.getByTestId('legend-commit').count(), 0);
    assert.equal(await page.getByTestId('legend-custom').count(), 0);
  });

  it('hovering the lanes names them and gives the value: the slow commit in ms, a custom lane compactly, in both languages', async () => {
    // Zoom on the slow commit: two minutes around the sample that saw it, so it is in the middle.
    // (The job view takes a range from the address when it opens a job; the previous test left another job open.)
    const { analysis } = await call('CheckpointView', CLUSTER, JOB, 0, SLOW);
    assert.equal(analysis.commit.duration_ms, 1900);
    const at = analysis.commit.at_ms;
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}&from=${at - 60_000}&to=${at + 60_000}`);
    await page.waitForFunction((f) => location.hash.includes(`from=${f}`), at - 60_000);
    await page.waitForTimeout(500);
    const lanes = await drawnLanes();
    // The custom lanes' samples (every 10 s) nearest the middle, to point at.
    const from = at - 60_000;
    const to = at + 60_000;
    const { width } = await page.getByTestId('timeline-canvas').boundingBox();
    const tl = await call('Timeline', { cluster: CLUSTER, job: JOB, from_ms: from, to_ms: to, width_px: Math.round(width) });
    const nearMiddle = (points) => points.reduce((b, p) => (Math.abs(p.t_ms - at) < Math.abs(b.t_ms - at) ? p : b));
    const lag = nearMiddle(tl.lanes.custom.find((c) => c.name === 'Kafka lag').points);
    const lagX = (lag.t_ms - from) / (to - from);
    const out = nearMiddle(tl.lanes.custom.find((c) => c.name === 'Records out/s').points);
    const outX = (out.t_ms - from) / (to - from);
    let tip = await hoverLane(lanes.indexOf(en.timeline.laneCommit));
    assert.equal(await tip.getAttribute('data-lane'), 'commit');
    assert.equal((await tip.locator('.title').innerText()).trim(), en.timeline.laneCommit);
    assert.equal(await tip.getByTestId('lane-value').innerText(), '1,900 ms');
    assert.ok((await tip.locator('dt').allInnerTexts()).includes(en.timeline.laneCommitValue));
    assert.equal((await tip.locator('.hint').innerText()).trim(), en.timeline.laneCommitHint);
    await shot('commit-hover');

    tip = await hoverLane(lanes.indexOf('Kafka lag'), lagX);
    assert.equal(await tip.getAttribute('data-lane'), 'custom');
    assert.equal((await tip.locator('.title').innerText()).trim(), 'Kafka lag');
    // Lag around 1,200 ± 800 records: compact, with the exact number after it.
    const fmt = (v, o) => new Intl.NumberFormat('en-US', o).format(v);
    assert.equal(
      (await tip.getByTestId('lane-value').innerText()).trim(),
      lag.value >= 1000 ? `${fmt(lag.value, { notation: 'compact', maximumSignificantDigits: 3 })} (${fmt(lag.value)})` : fmt(lag.value),
    );
    assert.equal((await tip.locator('.hint').innerText()).trim(), en.timeline.laneCustomHint);
    tip = await hoverLane(lanes.indexOf('Records out/s'), outX);
    assert.equal((await tip.locator('.title').innerText()).trim(), 'Records out/s');
    await shot('custom-hover');

    await setLang('zh');
    await waitLanes([zh.timeline.laneBackpressure, zh.timeline.laneSize, zh.timeline.laneCommit, 'Kafka lag', 'Records out/s', zh.timeline.laneFailures]);
    tip = await hoverLane(2);
    assert.equal((await tip.locator('.title').innerText()).trim(), zh.timeline.laneCommit);
    assert.equal(await tip.getByTestId('lane-value').innerText(), '1,900毫秒');
    assert.ok((await tip.locator('dt').allInnerTexts()).includes(zh.timeline.laneCommitValue));
    tip = await hoverLane(3, lagX);
    assert.equal((await tip.locator('.title').innerText()).trim(), 'Kafka lag');
    assert.equal((await tip.locator('.hint').innerText()).trim(), zh.timeline.laneCustomHint);
    await shot('zh-hover');
    await page.mouse.move(0, 0);
    await setLang('en');
  });

  it('the checkpoint view shows the slow sink commit, shared by two checkpoints, in both languages', async () => {
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=${SLOW}`);
    const block = page.getByTestId('sink-commit');
    await block.waitFor();
    assert.equal((await block.locator('h4').innerText()).trim(), en.commit.title);
    assert.equal(await text('commit-duration'), '1,900 ms (1.9 sec)');
    assert.equal(await text('commit-files'), '8');
    assert.equal(await text('commit-records'), '8,869');
    assert.equal(await text('commit-committables'), '8');
    assert.equal(await text('commit-shared'), 'Shared by 2 checkpoints (sampled every 10 s): the counts are theirs together.');
    const labels = (await block.locator('dt').allInnerTexts()).map((s) => s.trim());
    assert.deepEqual(labels, [en.commit.duration, en.commit.files, en.commit.records, en.commit.committables, en.commit.seenAt]);
    await block.screenshot({ path: `${resultsDir}lanes-commit-block.png` });
    await shot('checkpoint');

    await setLang('zh');
    await waitText('commit-duration', '毫秒');
    assert.equal((await block.locator('h4').innerText()).trim(), zh.commit.title);
    assert.equal(await text('commit-duration'), '1,900毫秒 (1.9秒)');
    assert.equal(await text('commit-shared'), '由 2 个检查点共享（每 10 秒采样一次）：这些计数是它们的合计。');
    assert.deepEqual(
      (await block.locator('dt').allInnerTexts()).map((s) => s.trim()),
      [zh.commit.duration, zh.commit.files, zh.commit.records, zh.commit.committables, zh.commit.seenAt],
    );
    await block.screenshot({ path: `${resultsDir}lanes-zh-commit-block.png` });
    await setLang('en');

    // A commit of its own window: no "shared by".
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=${SLOW + 1}`);
    await page.waitForFunction(() => document.querySelector('[data-testid="commit-duration"]')?.textContent.trim() !== '1,900 ms (1.9 sec)');
    assert.match(await text('commit-duration'), /^\d{3} ms$/);
    assert.equal(await page.getByTestId('commit-shared').count(), 0);

    // A job without commit data: no block at all.
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${NO_COMMIT_JOB}&id=5`);
    await page.waitForFunction(() => document.querySelector('[data-testid="checkpoint-title"]')?.textContent.includes('5'));
    await page.getByTestId('critical-phases').waitFor();
    assert.equal(await page.getByTestId('sink-commit').count(), 0);
  });

  it('cluster form: custom lanes for Flink only, checked, saved and shown again, in both languages', async () => {
    const dialog = page.getByTestId('cluster-dialog');
    const section = dialog.getByTestId('cluster-lanes');
    const rows = section.getByTestId('lane-row');
    const rowValues = () =>
      rows.evaluateAll((rs) =>
        rs.map((r) => [r.querySelector('[data-testid="lane-name"]').value, r.querySelector('[data-testid="lane-kind"]').value, r.querySelector('[data-testid="lane-expr"]').value]),
      );
    const openCluster = async (name) => {
      await dialog.locator('button.add').click();
      await dialog.locator('li', { hasText: name }).locator('button.item').click();
    };
    const stored = async () => (await call('ListClusters')).find((c) => c.name === CLUSTER).lanes;
    /** saved waits for the backend to hold want (undefined: no lanes) and the form to have reloaded the clusters. */
    const saved = async (want) => {
      await page.waitForFunction(
        async ([n, w]) => JSON.stringify((await window.go.app.App.ListClusters()).find((c) => c.name === n)?.lanes) === w,
        [CLUSTER, JSON.stringify(want)],
      );
      await page.waitForFunction(() => !document.querySelector('[data-testid="cluster-dialog"] button[type="submit"]')?.disabled);
    };

    for (const [lang, msgs] of Object.entries({ zh, en })) {
      await openClusters(lang);
      // Adding a Flink cluster: the section is there, empty.
      assert.equal((await section.locator('legend').innerText()).trim(), msgs.clusters.lanes);
      assert.equal((await section.locator('#cl-lanes-help').innerText()).trim(), msgs.clusters.lanesHelp);
      assert.ok(msgs.clusters.lanesHelp.includes('$job_id') && msgs.clusters.lanesHelp.includes('Prometheus URL'));
      assert.equal(await text('lanes-none'), msgs.clusters.lanesNone);
      await dialog.locator('#cl-engine').selectOption('seatunnel');
      assert.equal(await section.count(), 0, 'SeaTunnel has no custom lanes');
      await dialog.locator('#cl-engine').selectOption('flink');
      // Editing prod-flink shows its two lanes, in order.
      await openCluster(CLUSTER);
      assert.deepEqual(await rowValues(), [
        ['Kafka lag', 'promql', LANES[0].promql],
        ['Records out/s', 'metric', LANES[1].metric],
      ]);
      assert.deepEqual(
        await rows.first().getByTestId('lane-kind').locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()])),
        [
          ['promql', msgs.clusters.laneKindMode.promql],
          ['metric', msgs.clusters.laneKindMode.metric],
        ],
      );
      // A row left without its query is caught before sending, in the user's language.
      await section.getByTestId('lane-add').click();
      await rows.nth(2).getByTestId('lane-name').fill('Busy');
      await rows.nth(2).getByTestId('lane-kind').selectOption('promql');
      await dialog.locator('button[type="submit"]').click();
      assert.equal(await text('lane-error'), msgs.clusters.err.laneExprPromql);
      if (lang === 'zh') {
        await shot('zh-cluster-form');
        await dialog.locator('button.close').click();
        await dialog.waitFor({ state: 'hidden' });
      }
    }
    assert.deepEqual(await stored(), LANES, 'nothing was saved');

    // The backend's own check names the lane: one metric name, no commas.
    await rows.nth(2).getByTestId('lane-kind').selectOption('metric');
    await rows.nth(2).getByTestId('lane-expr').fill('busyTimeMsPerSecond, idleTimeMsPerSecond');
    await dialog.locator('button[type="submit"]').click();
    await dialog.getByTestId('cluster-error').waitFor();
    assert.match(await text('cluster-error'), /lane "Busy": metric "busyTimeMsPerSecond, idleTimeMsPerSecond": give one Flink metric name/);

    // Edit: change one, fix the new one, remove the first; saved in order and shown again.
    await rows.nth(2).getByTestId('lane-expr').fill('busyTimeMsPerSecond');
    await rows.nth(1).getByTestId('lane-expr').fill('numRecordsInPerSecond');
    await rows.nth(0).getByTestId('lane-remove').click();
    assert.equal(await rows.count(), 2);
    await shot('cluster-form');
    await dialog.locator('button[type="submit"]').click();
    const edited = [
      { name: 'Records out/s', metric: 'numRecordsInPerSecond' },
      { name: 'Busy', metric: 'busyTimeMsPerSecond' },
    ];
    await saved(edited);
    await openCluster(CLUSTER);
    assert.deepEqual(await rowValues(), [
      ['Records out/s', 'metric', 'numRecordsInPerSecond'],
      ['Busy', 'metric', 'busyTimeMsPerSecond'],
    ]);

    // At most 8.
    for (let i = 2; i < 8; i++) await section.getByTestId('lane-add').click();
    assert.equal(await rows.count(), 8);
    assert.equal(await section.getByTestId('lane-add').isDisabled(), true);
    assert.equal(await text('lanes-max'), en.clusters.laneMax.replace('{{max}}', '8'));

    // Back to the original lanes (blank rows are dropped, not sent).
    await openCluster(CLUSTER);
    await rows.nth(0).getByTestId('lane-name').fill('Kafka lag');
    await rows.nth(0).getByTestId('lane-kind').selectOption('promql');
    await rows.nth(0).getByTestId('lane-expr').fill(LANES[0].promql);
    await rows.nth(1).getByTestId('lane-name').fill('Records out/s');
    await rows.nth(1).getByTestId('lane-expr').fill(LANES[1].metric);
    await section.getByTestId('lane-add').click();
    await dialog.locator('button[type="submit"]').click();
    await saved(LANES);

    // Removing every lane clears them (nothing is sent).
    await openCluster(CLUSTER);
    await rows.nth(0).getByTestId('lane-remove').click();
    await rows.nth(0).getByTestId('lane-remove').click();
    assert.equal(await text('lanes-none'), en.clusters.lanesNone);
    await dialog.locator('button[type="submit"]').click();
    await saved(undefined);

    // A SeaTunnel cluster has none.
    await openCluster('zeta-staging');
    assert.equal(await dialog.locator('#cl-engine').inputValue(), 'seatunnel');
    assert.equal(await section.count(), 0);
    await dialog.locator('button.close').click();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
