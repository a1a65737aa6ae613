// Timeline benchmark for `make bench`: headless Chromium against a running
// `checkpoint-explorer serve` whose cache holds a big job (10,000 checkpoints).
// Prints plain lines; asserts nothing (targets are printed next to figures).
//
//   CE_URL=http://127.0.0.1:PORT/?token=... node bench/timeline-bench.mjs
//
// Options (environment):
//   CE_BENCH_CLUSTER, CE_BENCH_JOB  the job to open (default: the job with the most checkpoints)
//   CE_BENCH_GENERATE=1             first upload a generated capture of 10,000 checkpoints × 20
//                                   phase bars (testdata/gen-capture.mjs --bench) through /upload
//   CE_BENCH_ROUNDS                 repetitions of the pan/zoom sequence (default 3)
//   CE_BENCH_COLD_CMD               cold start instead (`make soak`): a JSON array, the command line
//                                   of a `checkpoint-explorer serve` to start (CE_URL is not needed);
//                                   with CE_BENCH_CLUSTER and CE_BENCH_JOB, measures from starting it
//                                   to the first timeline paint of that job, CE_BENCH_COLD_RUNS times
//                                   (default 3), each with a new serve process and a new page
//
// What is measured:
//   - first paint: from opening the job's timeline (the Timeline tab) to the first
//     canvas draw with bars (a performance mark the app leaves);
//   - frame work: for every wheel and drag event of a scripted pan/zoom sequence,
//     the time from the event's dispatch to the end of the timeline draw it
//     caused (event handling, Svelte's update and the canvas draw);
//   - draw time of every timeline draw, and the requestAnimationFrame interval
//     during the sequence (the display cadence; dropped frames show as > 16.7 ms);
//   - page memory: JSHeapUsedSize from the DevTools protocol after a GC, and DOM nodes.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { captureBytes, generate } from '../testdata/gen-capture.mjs';
import { door } from '../dev/door.mjs';

if (process.env.CE_BENCH_COLD_CMD) {
  await coldStart(JSON.parse(process.env.CE_BENCH_COLD_CMD));
  process.exit(0);
}

// coldStart starts `serve` (argv) with a browser already open, opens the job's
// timeline as soon as the URL is printed, and reports how long after the start
// of the process the first timeline paint came, and where the time went.
async function coldStart(argv) {
  const cluster = process.env.CE_BENCH_CLUSTER;
  const job = process.env.CE_BENCH_JOB;
  const runs = Number(process.env.CE_BENCH_COLD_RUNS || 3);
  if (!cluster || !job) {
    console.error('timeline-bench: the cold start needs CE_BENCH_CLUSTER and CE_BENCH_JOB');
    process.exit(2);
  }
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const totals = [];
  try {
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', colorScheme: 'light' });
      const page = await context.newPage();
      await page.goto('about:blank');
      const t0 = Date.now();
      const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const url = await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`serve printed no URL in 60 s: ${stderr.slice(-2000)}`)), 60_000);
        child.stdout.on('data', (d) => {
          out += d;
          const m = out.match(/http:\/\/127\.0\.0\.1:[0-9]+\/\?token=[0-9A-Za-z_-]+/);
          if (m) {
            clearTimeout(timer);
            resolve(m[0]);
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited (${code}) before printing its URL: ${stderr.slice(-2000)}`)));
      });
      const tReady = Date.now() - t0;
      const enc = encodeURIComponent;
      try {
        await page.goto(`${url}#/job?cluster=${enc(cluster)}&job=${enc(job)}`, { waitUntil: 'commit' });
        const r = await page.evaluate(async () => {
          const t = performance.now();
          for (;;) {
            const m = performance.getEntriesByName('ce:timeline-first-paint');
            if (m.length > 0) {
              const nav = performance.getEntriesByType('navigation')[0];
              return { paint: performance.timeOrigin + m[0].startTime, domContentLoaded: performance.timeOrigin + (nav?.domContentLoadedEventEnd ?? 0) };
            }
            if (performance.now() - t > 60_000) return { paint: NaN, domContentLoaded: NaN };
            await new Promise((res) => setTimeout(res, 5));
          }
        });
        const total = r.paint - t0;
        totals.push(total);
        console.log(
          `cold start ${run + 1}/${runs}: serve printed its URL after ${tReady} ms, page loaded (DOMContentLoaded) at ${Math.round(r.domContentLoaded - t0)} ms, first timeline paint ${Math.round(total)} ms after serve was started`,
        );
      } finally {
        child.kill('SIGTERM');
        await new Promise((res) => (child.exitCode !== null ? res() : child.on('exit', res)));
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  const sorted = [...totals].sort((a, b) => a - b);
  console.log(
    `cold start to first timeline paint: median ${Math.round(sorted[Math.floor(sorted.length / 2)])} ms, max ${Math.round(sorted[sorted.length - 1])} ms over ${totals.length} runs (target <= 1000 ms)`,
  );
}

const CE_URL = process.env.CE_URL;
if (!CE_URL) {
  console.error('timeline-bench: set CE_URL to the serve URL with its ?token=');
  process.exit(2);
}
const ROUNDS = Number(process.env.CE_BENCH_ROUNDS || 3);
const { origin, token, api } = door(CE_URL);

function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'n/a');
const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;

if (process.env.CE_BENCH_GENERATE === '1') {
  const t = Date.now();
  const buf = captureBytes(generate({ checkpoints: 10_000, vertices: 4, parallelism: 1, intervalMs: 1_000, seatunnel: false, metricsEveryMs: 10_000, flinkCluster: 'bench' }));
  const res = await fetch(`${origin}/upload?name=bench.ckpt.gz`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' },
    body: buf,
  });
  if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
  console.log(`generated and imported a capture of 10,000 checkpoints × 20 phase bars (${mib(buf.length)} gzip) in ${Date.now() - t} ms`);
}

let cluster = process.env.CE_BENCH_CLUSTER ?? '';
let job = process.env.CE_BENCH_JOB ?? '';
const jobs = await api('ListJobs', cluster);
const target = job ? jobs.find((j) => j.id === job && (!cluster || j.cluster === cluster)) : [...jobs].sort((a, b) => b.total - a.total)[0];
if (!target) {
  console.error('timeline-bench: no job to open (set CE_BENCH_JOB or CE_BENCH_GENERATE=1)');
  process.exit(2);
}
cluster = target.cluster;
job = target.id;
const retention = await api('Retention');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', colorScheme: 'light' });
  await context.addInitScript(() => {
    window.__ceBench = { draws: [], drawEnds: [] };
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const enc = encodeURIComponent;

  // Land on a view of the job without the timeline, then open the timeline.
  await page.goto(`${CE_URL}#/retention?cluster=${enc(cluster)}&job=${enc(job)}`);
  await page.getByTestId('retention-view').waitFor({ timeout: 30_000 });
  await page.getByTestId('tab-job').waitFor();
  await page.waitForTimeout(500);
  const firstPaint = await page.evaluate(async () => {
    const t0 = performance.now();
    document.querySelector('[data-testid="tab-job"]').click();
    for (;;) {
      const m = performance.getEntriesByName('ce:timeline-first-paint').filter((e) => e.startTime >= t0);
      if (m.length > 0) return m[0].startTime - t0;
      if (performance.now() - t0 > 30_000) return NaN;
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  await page.waitForTimeout(1000); // the committed range's data lands
  const bars = await page.evaluate(() => window.__ceBench.draws.length);
  void bars;

  const box = await page.getByTestId('timeline-canvas').boundingBox();
  const cx = box.x + box.width / 2;
  const cy = box.y + 100;

  // In the page: stamp every input event at dispatch, every draw at its end, and every frame.
  await page.evaluate(() => {
    const b = window.__ceBench;
    b.inputs = [];
    b.frames = [];
    b.draws.length = 0;
    b.drawEnds.length = 0;
    const stamp = (e) => b.inputs.push(performance.now());
    window.addEventListener('wheel', stamp, { capture: true, passive: true });
    window.addEventListener('pointermove', (e) => e.buttons && stamp(e), { capture: true, passive: true });
    b.running = true;
    const loop = (t) => {
      b.frames.push(t);
      if (b.running) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  // perf.ts records draw durations; record their end times too.
  await page.evaluate(() => {
    const b = window.__ceBench;
    const push = b.draws.push.bind(b.draws);
    b.draws.push = (d) => {
      b.drawEnds.push(performance.now());
      return push(d);
    };
  });

  for (let round = 0; round < ROUNDS; round++) {
    await page.mouse.move(cx, cy);
    for (let i = 0; i < 12; i++) {
      await page.mouse.wheel(0, -120); // zoom in around the pointer
      await page.waitForTimeout(16);
    }
    // Drag to pan right and back.
    await page.mouse.down();
    for (let i = 1; i <= 30; i++) {
      await page.mouse.move(cx + i * 12, cy);
      await page.waitForTimeout(16);
    }
    for (let i = 29; i >= -30; i--) {
      await page.mouse.move(cx + i * 12, cy);
      await page.waitForTimeout(16);
    }
    await page.mouse.up();
    await page.mouse.move(cx, cy);
    for (let i = 0; i < 12; i++) {
      await page.mouse.wheel(0, 120); // zoom back out
      await page.waitForTimeout(16);
    }
    await page.keyboard.press('f');
    await page.waitForTimeout(400);
  }

  const r = await page.evaluate(() => {
    const b = window.__ceBench;
    b.running = false;
    // Frame work: dispatch → end of the first draw after it (before the next input).
    const work = [];
    let d = 0;
    for (let i = 0; i < b.inputs.length; i++) {
      const t = b.inputs[i];
      const next = i + 1 < b.inputs.length ? b.inputs[i + 1] : Infinity;
      while (d < b.drawEnds.length && b.drawEnds[d] < t) d++;
      if (d < b.drawEnds.length && b.drawEnds[d] <= next + 50) work.push(b.drawEnds[d] - t);
    }
    const intervals = [];
    for (let i = 1; i < b.frames.length; i++) intervals.push(b.frames[i] - b.frames[i - 1]);
    return { work, draws: [...b.draws], intervals, inputs: b.inputs.length, domNodes: document.getElementsByTagName('*').length };
  });

  await cdp.send('HeapProfiler.collectGarbage');
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));

  console.log(`timeline bench: job "${target.name}" on ${cluster}: ${target.total.toLocaleString('en-US')} checkpoints; cache holds ${retention.subtask_rows.toLocaleString('en-US')} subtask rows (${(retention.subtask_rows * 5).toLocaleString('en-US')} phase bars)`);
  console.log(`timeline first paint after opening the job: ${ms(firstPaint)} (target <= 1000 ms)`);
  console.log(
    `timeline pan/zoom frame work: p50 ${ms(quantile(r.work, 0.5))}, p95 ${ms(quantile(r.work, 0.95))}, max ${ms(Math.max(...r.work))} over ${r.work.length} of ${r.inputs} input events (target p95 <= 16.7 ms)`,
  );
  console.log(`timeline draw: p50 ${ms(quantile(r.draws, 0.5))}, p95 ${ms(quantile(r.draws, 0.95))}, max ${ms(Math.max(...r.draws))} over ${r.draws.length} draws`);
  console.log(`timeline frame interval (requestAnimationFrame) during the sequence: p50 ${ms(quantile(r.intervals, 0.5))}, p95 ${ms(quantile(r.intervals, 0.95))}`);
  console.log(
    `timeline page memory: JS heap used ${mib(metrics.JSHeapUsedSize)} of ${mib(metrics.JSHeapTotalSize)} after GC, ${metrics.Nodes} DOM nodes (${r.domNodes} elements)`,
  );
} finally {
  await browser.close();
}
