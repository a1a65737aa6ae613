// DEV ONLY: the screenshots of docs/user-guide.md, docs/alerts.md and their Chinese pages.
// Needs a running `checkpoint-explorer serve` on a fresh data dir (the bundled
// samples open on first run); uploads the demo capture of testdata/gen-capture.mjs
// and shoots every view in English and Chinese into ../../docs/images/. What no
// sample or capture holds — a cluster's custom lanes, the jobs in its traces, a
// job's changes and their before/after, alert rules — is shot from
// dev/serve-fake.mjs (the built dist/ with dev/fake-bridge.js), so dist/ must be
// built (`make frontend`); so is the fleet, whose canned rows span several
// clusters and both engines. Without CE_URL only those are shot.
//
//   CE_URL=http://127.0.0.1:PORT/?token=... node dev/docs-shots.mjs
import { mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { captureBytes, CHAIN_JOB, generate } from '../testdata/gen-capture.mjs';
import { fakePage, launchChromium, pageHelpers } from '../e2e/fakepage.mjs';
import { door } from './door.mjs';

const CE_URL = process.env.CE_URL;
const out = fileURLToPath(new URL('../../docs/images/', import.meta.url));
mkdirSync(out, { recursive: true });
const enc = encodeURIComponent;
const FLINK = 'capture: prod-flink';
const ST = 'capture: etl-seatunnel';
// The bundled sample with the JobManager log's finalize times, sink commits and advice.
const ICEBERG = 'sample: Flink 1.20 Iceberg slow commits';
// The files this run writes: only they are quantised at the end.
const written = new Set();
const shotPath = (lang, n) => {
  const p = `${out}${lang === 'zh' ? 'zh-' : ''}${n}.png`;
  written.add(p);
  return p;
};

if (CE_URL) await serveShots();
else console.log('CE_URL is not set: only the shots from the fake bridge (dist/ built)');

/** serveShots shoots the views of the samples and the demo capture from `serve` (CE_URL). */
async function serveShots() {
  const { origin, token, api } = door(CE_URL);

  const sources = await api('ListClusters');
  if (!sources.some((s) => s.name === FLINK)) {
    const res = await fetch(`${origin}/upload?name=demo.ckpt.gz`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: captureBytes(generate()) });
    if (!res.ok) throw new Error(await res.text());
  }
  const flinkJob = (await api('ListJobs', FLINK)).find((j) => j.name === 'orders-enrichment').id;
  const stJob = (await api('ListJobs', ST))[0].id;
  const report = await api('Report', FLINK, flinkJob, 0, 0);
  const slowest = report.summary.slowest[0];
  const stSlow = (await api('Checkpoints', ST, stJob, 0, 0)).filter((c) => c.status === 'COMPLETED').sort((a, b) => b.end_to_end_ms - a.end_to_end_ms)[0];
  const chainJob = (await api('ListJobs', FLINK)).find((j) => j.name === CHAIN_JOB).id;
  const chainSlowest = (await api('Report', FLINK, chainJob, 0, 0)).summary.slowest[0];
  const iceJob = (await api('ListJobs', ICEBERG))[0].id;
  // Its slowest checkpoint that a sink commit followed.
  let iceCommitted = 0;
  for (const id of (await api('Report', ICEBERG, iceJob, 0, 0)).summary.slowest) {
    if ((await api('CheckpointView', ICEBERG, iceJob, 0, id)).analysis.commit) {
      iceCommitted = id;
      break;
    }
  }
  const knob = sources.find((s) => s.name.startsWith('sample: Flink 2.3'));
  let knobFail = null;
  if (knob) {
    const jobs = await api('ListJobs', knob.name);
    const thrower = jobs.find((j) => j.name.includes('snapshots that throw'));
    if (thrower) {
      const cps = await api('Checkpoints', knob.name, thrower.id, 0, 0);
      const f = cps.find((c) => c.status === 'FAILED');
      if (f) knobFail = { cluster: knob.name, job: thrower.id, id: f.id };
    }
  }

  const browser = await launchChromium();
  try {
    for (const lang of ['en', 'zh']) {
      const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: lang === 'zh' ? 'zh-CN' : 'en-US', colorScheme: 'light' });
      await ctx.addInitScript((l) => localStorage.setItem('ce.lang', l), lang);
      const page = await ctx.newPage();
      page.setDefaultTimeout(15_000);
      const name = (n) => shotPath(lang, n);
      const go = async (hash, ready) => {
        await page.goto(`${CE_URL}${hash}`);
        await page.getByTestId(ready).waitFor();
        await page.waitForTimeout(1200);
      };
      // tall runs shoot in a window height px tall, for what does not fit in 900.
      const tall = async (height, shoot) => {
        await page.setViewportSize({ width: 1440, height });
        try {
          await shoot();
        } finally {
          await page.setViewportSize({ width: 1440, height: 900 });
        }
      };

      await go(`#/job?cluster=${enc(FLINK)}&job=${flinkJob}`, 'timeline-canvas');
      await page.screenshot({ path: name('timeline') });
      // Expanded, Insights is taller than the window.
      await tall(2000, async () => {
        await page.getByTestId('insights-toggle').click();
        await page.getByTestId('verdict-reason').waitFor();
        await page.waitForTimeout(300);
        await page.getByTestId('insights').screenshot({ path: name('insights') });
        await page.getByTestId('insights-toggle').click();
      });
      // Hovering a bar shows its exact values.
      const box = await page.getByTestId('timeline-canvas').boundingBox();
      await page.mouse.move(box.x + box.width * 0.392, box.y + 140);
      await page.waitForTimeout(300);
      await page.locator('.timeline.panel').screenshot({ path: name('timeline-tooltip') });
      await page.mouse.move(5, 5);

      await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${flinkJob}&id=${slowest}`, 'gantt-canvas');
      await page.screenshot({ path: name('checkpoint') });
      await page.getByTestId('expand-all').click();
      await page.waitForTimeout(300);
      await page.getByTestId('gantt').screenshot({ path: name('gantt') });
      await page.getByTestId('ack-curve').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await page.locator('section.panel', { has: page.getByTestId('ack-curve') }).screenshot({ path: name('ack-progress') });

      // Causes along the barrier path: the barrier chain's slowest checkpoint, whose barriers
      // queued, down to the Gantt marking where (under the advice citing it).
      await tall(1300, async () => {
        await go(`#/checkpoint?cluster=${enc(FLINK)}&job=${chainJob}&id=${chainSlowest}`, 'gantt-canvas');
        await page.screenshot({ path: name('checkpoint-causes') });
      });

      // Finalize from the JobManager log on the critical path, and the sink commit after it.
      await go(`#/checkpoint?cluster=${enc(ICEBERG)}&job=${iceJob}&id=${iceCommitted}`, 'sink-commit');
      await page.screenshot({ path: name('checkpoint-finalize') });

      // Advice: the Iceberg job's two items, in Insights.
      await go(`#/job?cluster=${enc(ICEBERG)}&job=${iceJob}`, 'timeline-canvas');
      await page.getByTestId('insights-toggle').click();
      await page.getByTestId('advice-list').waitFor();
      await page.waitForTimeout(300);
      await page.getByTestId('insights-advice').screenshot({ path: name('advice') });

      if (knobFail) {
        await go(`#/checkpoint?cluster=${enc(knobFail.cluster)}&job=${knobFail.job}&id=${knobFail.id}`, 'failure');
        await page.screenshot({ path: name('checkpoint-failed') });
      }
      await go(`#/checkpoint?cluster=${enc(ST)}&job=${stJob}&id=${stSlow.id}&pipeline=${stSlow.pipeline}`, 'gantt-unavailable');
      await page.screenshot({ path: name('checkpoint-seatunnel') });

      await go(`#/heatmap?cluster=${enc(FLINK)}&job=${flinkJob}&kind=failure`, 'heatmap-chart');
      const cell = await page.evaluate(() => {
        const el = document.querySelector('[data-testid="heatmap-chart"]');
        const c = el.__chart;
        const d = c.getOption().series[0].data.find((x) => x[1] === 1);
        const [x, y] = c.convertToPixel({ seriesIndex: 0 }, [d[0], d[1]]);
        const r = el.getBoundingClientRect();
        return { x: r.left + x, y: r.top + y };
      });
      await page.mouse.click(cell.x, cell.y);
      await page.getByTestId('cell-checkpoint').first().waitFor();
      await page.mouse.move(5, 5);
      await page.waitForTimeout(300);
      await page.screenshot({ path: name('heatmap-failure') });
      await go(`#/heatmap?cluster=${enc(FLINK)}&job=${flinkJob}&kind=phase`, 'heatmap-chart');
      await page.screenshot({ path: name('heatmap-phase') });
      await go(`#/heatmap?cluster=${enc(FLINK)}&job=${flinkJob}&kind=vertex&phase=alignment`, 'heatmap-chart');
      await page.screenshot({ path: name('heatmap-vertex') });

      // The before/after panel (no change chosen) above the pair: the phase table fits in 1300.
      await tall(1300, async () => {
        await go(`#/compare?cluster=${enc(FLINK)}&job=${flinkJob}`, 'compare-phases');
        await page.screenshot({ path: name('compare') });
      });

      await go(`#/retention?cluster=${enc(FLINK)}&job=${flinkJob}`, 'overhead-table');
      await page.screenshot({ path: name('retention') });

      await go(`#/job?cluster=${enc(FLINK)}&job=${flinkJob}`, 'timeline-canvas');
      // The cluster form of a Flink cluster, its traces and a custom lane filled in: taller
      // than the window.
      await tall(1500, async () => {
        await page.getByTestId('clusters-button').click();
        await page.getByTestId('cluster-dialog').waitFor();
        await page.locator('#cl-name').fill('prod');
        await page.locator('#cl-base').fill('http://flink-jm.internal:8081');
        await page.getByTestId('cluster-traces-url').fill('http://jaeger.internal:16686');
        await page.getByTestId('cluster-traces-service').fill('flink-prod');
        await page.getByTestId('lane-add').click();
        await page.getByTestId('lane-name').fill('Records out/s');
        await page.getByTestId('lane-kind').selectOption('metric');
        await page.getByTestId('lane-expr').fill('numRecordsOutPerSecond');
        await page.locator('#cl-name').focus();
        await page.waitForTimeout(200);
        await page.getByTestId('cluster-dialog').screenshot({ path: name('clusters') });
        await page.keyboard.press('Escape');
      });
      await page.keyboard.press('Control+k');
      await page.getByTestId('quick-switcher').waitFor();
      await page.waitForTimeout(200);
      await page.screenshot({ path: name('switcher') });
      await page.keyboard.press('Escape');
      await page.getByTestId('open-shortcuts').click();
      await page.getByTestId('shortcuts').waitFor();
      await page.waitForTimeout(200);
      await page.getByTestId('shortcuts').screenshot({ path: name('shortcuts') });
      await page.keyboard.press('Escape');
      await page.getByTestId('open-log').click();
      await page.getByTestId('log-dialog').waitFor();
      await page.waitForTimeout(600);
      await page.screenshot({ path: name('log') });
      await ctx.close();
      console.log(`docs screenshots (${lang}) written to ${out}`);
    }
  } finally {
    await browser.close();
  }
}

// The fake bridge's prod-flink has two custom lanes and a sink committer on orders-enrichment,
// and a Jaeger whose spans hold a job Flink no longer lists (nightly-compaction); its fleet spans
// three sources and both engines, a failing job on top; orders-enrichment has changes with their
// before/after (a restart, unaligned checkpoints turned on, a rescale). It starts with no alert
// rule: the Alerts… shot saves three through the bridge, one of each kind with parameters.
const ALERT_RULES = [
  { kind: 'failures_in_window', cluster: 'prod-flink', job_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', count: 3, window_ms: 900_000 },
  { kind: 'slower_than_baseline', cluster: 'prod-flink', factor: 3 },
  { name: 'doris-stuck', kind: 'no_completion', cluster: 'zeta-staging', job_name: 'mysql-to-doris', for_ms: 1_800_000 },
];
// One fake page per language, in its locale, so that each starts from the fake's first screen.
for (const lang of ['en', 'zh']) {
  const fake = await fakePage({ viewport: { width: 1440, height: 900 }, pageErrors: [], locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
  try {
    const { page } = fake;
    const { go, setLang, call } = pageHelpers(() => page, 'docs');
    await setLang(lang);
    // The fleet (the first screen), the second job selected (↓ ↓; the fleet keeps it when it
    // comes back), the pointer out of the way.
    await page.getByTestId('open-fleet').click();
    await page.getByTestId('fleet-row').first().waitFor();
    if ((await page.locator('[data-testid="fleet-row"][aria-selected="true"]').count()) === 0) {
      await page.mouse.click(700, 700);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
    }
    await page.mouse.move(5, 880);
    await page.locator('[data-testid="retention"] .item').first().waitFor(); // the cache's size, shown after the first screen
    await page.waitForTimeout(600);
    await page.screenshot({ path: shotPath(lang, 'fleet') });
    await go(`#/job?cluster=prod-flink&job=a1b2c3d4e5f60718293a4b5c6d7e8f90`);
    await page.getByTestId('legend-custom').waitFor();
    await page.waitForTimeout(600);
    await page.locator('.timeline.panel').screenshot({ path: shotPath(lang, 'lanes') });
    await page.getByTestId('open-traces').click();
    await page.getByTestId('trace-job').first().waitFor();
    await page.waitForTimeout(300);
    await page.getByTestId('traces-dialog').screenshot({ path: shotPath(lang, 'traces') });
    await page.keyboard.press('Escape');
    // A change's marker chosen with the keyboard (unaligned checkpoints turned on), then its before/after.
    await page.getByTestId('change-marker').first().waitFor();
    await page.mouse.move(5, 880);
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await page.getByTestId('change-tip').waitFor();
    await page.waitForTimeout(300);
    await page.locator('.timeline.panel').screenshot({ path: shotPath(lang, 'changes') });
    await page.keyboard.press('Enter');
    await page.getByTestId('ba-finding').waitFor();
    await page.waitForTimeout(300);
    await page.getByTestId('before-after').screenshot({ path: shotPath(lang, 'before-after') });
    // Alerts…: the rules listed in words, the first one chosen so the form shows its count and window.
    await call('SetAlertRules', ALERT_RULES);
    await page.getByTestId('alerts-button').click();
    await page.getByTestId('alert-rule').nth(ALERT_RULES.length - 1).waitFor();
    await page.getByTestId('alert-rule-edit').first().click();
    await page.locator(`[data-testid="alert-job"] option[value="${ALERT_RULES[0].job_id}"]`).waitFor({ state: 'attached' });
    await page.getByTestId('alert-preview').waitFor();
    await page.mouse.move(5, 880);
    await page.waitForTimeout(300);
    await page.getByTestId('alerts-dialog').screenshot({ path: shotPath(lang, 'alerts') });
    await page.keyboard.press('Escape');
    await page.getByTestId('alerts-dialog').waitFor({ state: 'hidden' });
    console.log(`docs screenshots from the fake bridge (${lang}) written to ${out}`);
  } finally {
    await fake.stop();
  }
}

// UI screenshots survive a 256-colour palette unchanged to the eye at about 40 % of the size.
try {
  for (const f of written) {
    execFileSync('convert', [f, '-dither', 'None', '-colors', '256', `PNG8:${f}`]);
  }
  console.log('quantised to 256 colours');
} catch (e) {
  console.log(`kept full-colour PNGs (ImageMagick convert unavailable: ${e.message})`);
}
