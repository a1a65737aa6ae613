import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
for (let run = 0; run < 3; run++) {
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
await page.goto('about:blank');
const child = spawn('/work/perf/ce-t', ['serve', '--data-dir', '/work/perf/long', '--no-collect'], { stdio: ['ignore', 'pipe', 'pipe'] });
const url = await new Promise((res) => { let o = ''; child.stdout.on('data', (d) => { o += d; const m = o.match(/http:\/\/127\.0\.0\.1:[0-9]+\/\?token=[0-9A-Za-z_-]+/); if (m) res(m[0]); }); });
await page.addInitScript(() => {
  window.__lt = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
});
await page.goto(`${url}#/job?cluster=soak-long&job=b6f89b601ca911addd7d18135d6b80e4`, { waitUntil: 'commit' });
for (;;) {
  const m = await page.evaluate(() => performance.getEntriesByName('ce:timeline-first-paint').length);
  if (m) break;
  await new Promise((r) => setTimeout(r, 5));
}
const r = await page.evaluate(() => ({ lt: window.__lt, paint: Math.round(performance.getEntriesByName('ce:timeline-first-paint')[0].startTime),
  res: performance.getEntriesByType('resource').map((e) => [e.name.replace(/.*\//, '').replace('app.App.', '').slice(0, 20), Math.round(e.startTime), Math.round(e.responseEnd)]) }));
console.log(JSON.stringify(r));
child.kill(); await page.close();
}
await browser.close();
