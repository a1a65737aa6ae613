// Fleet benchmark for `make bench` (testenv/bench.sh): headless Chromium against the built UI with
// the fake bridge (dev/serve-fake.mjs), whose Fleet answers the fleet that backend/fleet read from
// the generated cache (CE_BENCH_FLEET_JSON, written by its TestPrintFleetCost): 2,000 rows. The
// answer is parsed from its JSON text in the page, as the app parses the backend's; the backend's
// own time is the Go side's figure. Prints plain lines; asserts nothing.
//
//   CE_BENCH_FLEET_JSON=fleet.json node bench/fleet-bench.mjs
//
// What is measured, for the whole fleet and, as the baseline in the same run, its first 200 rows:
//   - first paint from a cold start: a new browser context (nothing cached) opens the app on the
//     fleet; from the navigation's start to the end of the first frame that shows every row;
//   - a live update: a checkpoints event, then the refresh's answer (every row's window ends a
//     second later, a tenth of the rows have a new checkpoint): the main thread's work from the
//     answer (its parse included) to the end of the frame that shows it, and the long tasks
//     (over 50 ms) the Performance timeline saw meanwhile. CE_BENCH_ROUNDS updates (default 5).
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { launchChromium, startServeFake } from '../e2e/fakepage.mjs';

const file = process.env.CE_BENCH_FLEET_JSON;
if (!file) {
  console.error('fleet-bench: set CE_BENCH_FLEET_JSON to the fleet JSON (backend/fleet TestPrintFleetCost writes it)');
  process.exit(2);
}
const ROUNDS = Number(process.env.CE_BENCH_ROUNDS || 5);
const COLD_RUNS = Number(process.env.CE_BENCH_COLD_RUNS || 3);
const full = JSON.parse(readFileSync(file, 'utf8'));
const baselineRows = 200;

/** In the page, before the app: Fleet answers window.__ceBenchText, and every answer is timed. */
function benchHooks() {
  const b = (window.__ceBench = { answers: [], painted: NaN, longTasks: [] });
  new PerformanceObserver((list) => b.longTasks.push(...list.getEntries().map((e) => ({ start: e.startTime, ms: e.duration })))).observe({
    type: 'longtask',
    buffered: true,
  });
  // afterTask calls fn once the current task (and its microtasks) has run.
  const afterTask = (fn) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => fn(performance.now());
    ch.port2.postMessage(0);
  };
  window.__ceBenchFleet = async () => {
    const a = { start: performance.now() };
    b.answers.push(a);
    const f = JSON.parse(window.__ceBenchText);
    // The work: this task (the answer's microtasks are the view's update), then the next
    // frame's (style, layout, paint), from its animation frame to the task after it; not the
    // idle wait between them.
    afterTask((t) => {
      a.script = t - a.start;
      requestAnimationFrame(() => {
        const frameStart = performance.now();
        afterTask((end) => (a.work = a.script + end - frameStart));
      });
    });
    return f;
  };
  // The first frame with the table of every row (aria-rowcount counts the rows the table has,
  // those out of view included, and its header) and rows in it.
  const want = () => JSON.parse(window.__ceBenchText).jobs.length + 1;
  const poll = () => {
    const table = document.querySelector('[data-testid="fleet-table"]');
    if (Number(table?.getAttribute('aria-rowcount')) === (b.want ??= want()) && table.querySelector('[data-testid="fleet-row"]')) {
      afterTask((t) => (b.painted = t));
      return;
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}

/** Once the bridge is loaded: the fake's Fleet is the bench's. */
const bridgeTail = '\n;window.go.app.App.Fleet = () => window.__ceBenchFleet();\n';

/** update is the next answer: every window a second later, a new checkpoint in a tenth of the rows. */
function update(fleet, round) {
  return {
    ...fleet,
    jobs: fleet.jobs.map((r, i) => {
      const moved = { ...r, window_end_ms: r.window_end_ms + 1000 * (round + 1) };
      if (i % 10 !== round % 10) return moved;
      const last = r.sparkline.at(-1);
      const spark = last ? [...r.sparkline.slice(1), { ...last, trigger_ms: last.trigger_ms + 10_000, ms: last.ms + 7 }] : r.sparkline;
      return { ...moved, completed: r.completed + 1, p50_ms: r.p50_ms === null ? null : r.p50_ms + 1, sparkline: spark };
    }),
  };
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))];
const fmt = (v) => (Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a');

const { server, url } = await startServeFake();
const browser = await launchChromium();

/** measure opens the app on a fleet of the given rows in a new context COLD_RUNS times, then updates it live. */
async function measure(fleet) {
  const text = JSON.stringify(fleet);
  const paints = [];
  let page;
  let context;
  for (let run = 0; run < COLD_RUNS; run++) {
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    await context.addInitScript({ content: `window.__ceBenchText = ${JSON.stringify(text)};` });
    await context.addInitScript(benchHooks);
    await context.route('**/bridge.js', async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, body: (await res.text()) + bridgeTail });
    });
    page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${url}&static#/fleet`);
    await page.waitForFunction(() => Number.isFinite(window.__ceBench.painted));
    paints.push(await page.evaluate(() => window.__ceBench.painted));
  }
  const live = [];
  let longTasks = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // The next answer first (handing the page a few MB is a long task of its own), then the event.
    await page.evaluate((t) => (window.__ceBenchText = t), JSON.stringify(update(fleet, round)));
    const before = await page.evaluate(() => {
      window.__ceBench.longTasks.length = 0;
      window.__ceFakeEmit('checkpoints', { cluster: 'bench', job: 'bench' });
      return window.__ceBench.answers.length;
    });
    await page.waitForFunction((n) => window.__ceBench.answers.length > n && window.__ceBench.answers.at(-1).work !== undefined, before);
    const r = await page.evaluate(() => ({ ...window.__ceBench.answers.at(-1), long: window.__ceBench.longTasks.reduce((s, t) => s + t.ms, 0) }));
    live.push(r);
    longTasks = Math.max(longTasks, r.long);
    await page.waitForTimeout(300);
  }
  const rows = Number(await page.getByTestId('fleet-table').getAttribute('aria-rowcount')) - 1;
  const rendered = await page.locator('[data-testid="fleet-row"]').count();
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  await context.close();
  return {
    rows,
    rendered,
    nodes,
    paint: quantile(paints, 0.5),
    paintMax: Math.max(...paints),
    script: quantile(
      live.map((r) => r.script),
      0.5,
    ),
    work: quantile(
      live.map((r) => r.work),
      0.5,
    ),
    workMax: Math.max(...live.map((r) => r.work)),
    longTasks,
  };
}

try {
  const all = await measure(full);
  const base = await measure({ ...full, jobs: full.jobs.slice(0, baselineRows) });
  const n = (v) => v.toLocaleString('en-US');
  console.log(
    `fleet first paint from a cold start (new browser context, the answer parsed in the page, the backend's time aside), ${n(all.rows)} rows: median ${fmt(all.paint)}, max ${fmt(all.paintMax)} of ${COLD_RUNS} (target <= 1000 ms); baseline ${n(base.rows)} rows ${fmt(base.paint)}: ratio ${(all.paint / base.paint).toFixed(1)}`,
  );
  console.log(
    `fleet live update, ${n(all.rows)} rows: main-thread work ${fmt(all.work)} median, ${fmt(all.workMax)} max of ${ROUNDS} (parse and update ${fmt(all.script)}, then the frame); long tasks up to ${fmt(all.longTasks)} (target <= 50 ms); baseline ${n(base.rows)} rows ${fmt(base.work)}: ratio ${(all.work / base.work).toFixed(1)}`,
  );
  console.log(
    `fleet page: ${n(all.nodes)} DOM elements, ${n(all.rendered)} rows rendered of ${n(all.rows)}; ${n(base.nodes)} and ${n(base.rendered)} of ${n(base.rows)}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`,
  );
} finally {
  await browser.close();
  server.kill();
}
