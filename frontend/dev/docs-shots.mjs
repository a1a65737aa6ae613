// DEV ONLY: the screenshots of docs/user-guide.md and docs-zh/user-guide.md.
// Needs a running `checkpoint-explorer serve` on a fresh data dir (the bundled
// samples open on first run); uploads the demo capture of testdata/gen-capture.mjs
// and shoots every view in English and Chinese into ../../docs/images/.
//
//   CE_URL=http://127.0.0.1:PORT/?token=... node dev/docs-shots.mjs
import { chromium } from 'playwright-core';
import { mkdirSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { captureBytes, generate } from '../testdata/gen-capture.mjs';
import { door } from './door.mjs';

const CE_URL = process.env.CE_URL;
if (!CE_URL) throw new Error('set CE_URL');
const out = fileURLToPath(new URL('../../docs/images/', import.meta.url));
mkdirSync(out, { recursive: true });
const { origin, token, api } = door(CE_URL);
const enc = encodeURIComponent;
const FLINK = 'capture: prod-flink';
const ST = 'capture: etl-seatunnel';

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

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (const lang of ['en', 'zh']) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: lang === 'zh' ? 'zh-CN' : 'en-US', colorScheme: 'light' });
    await ctx.addInitScript((l) => localStorage.setItem('ce.lang', l), lang);
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    const name = (n) => `${out}${lang === 'zh' ? 'zh-' : ''}${n}.png`;
    const go = async (hash, ready) => {
      await page.goto(`${CE_URL}${hash}`);
      await page.getByTestId(ready).waitFor();
      await page.waitForTimeout(1200);
    };

    await go(`#/job?cluster=${enc(FLINK)}&job=${flinkJob}`, 'timeline-canvas');
    await page.screenshot({ path: name('timeline') });
    await page.getByTestId('insights-toggle').click();
    await page.getByTestId('verdict-reason').waitFor();
    await page.waitForTimeout(300);
    await page.getByTestId('insights').screenshot({ path: name('insights') });
    await page.getByTestId('insights-toggle').click();
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

    await go(`#/compare?cluster=${enc(FLINK)}&job=${flinkJob}`, 'compare-phases');
    await page.screenshot({ path: name('compare') });

    await go(`#/retention?cluster=${enc(FLINK)}&job=${flinkJob}`, 'overhead-table');
    await page.screenshot({ path: name('retention') });

    await go(`#/job?cluster=${enc(FLINK)}&job=${flinkJob}`, 'timeline-canvas');
    await page.getByTestId('clusters-button').click();
    await page.getByTestId('cluster-dialog').waitFor();
    await page.locator('#cl-name').fill('prod');
    await page.locator('#cl-base').fill('http://flink-jm.internal:8081');
    await page.waitForTimeout(200);
    await page.getByTestId('cluster-dialog').screenshot({ path: name('clusters') });
    await page.keyboard.press('Escape');
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

// UI screenshots survive a 256-colour palette unchanged to the eye at about 40 % of the size.
try {
  for (const f of readdirSync(out).filter((n) => n.endsWith('.png'))) {
    execFileSync('convert', [`${out}${f}`, '-dither', 'None', '-colors', '256', `PNG8:${out}${f}`]);
  }
  console.log('quantised to 256 colours');
} catch (e) {
  console.log(`kept full-colour PNGs (ImageMagick convert unavailable: ${e.message})`);
}
