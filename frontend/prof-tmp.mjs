import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
await page.goto('about:blank');
const child = spawn('/work/perf/ce-t', ['serve', '--data-dir', '/work/perf/long', '--no-collect'], { stdio: ['ignore', 'pipe', 'pipe'] });
const url = await new Promise((res) => { let o = ''; child.stdout.on('data', (d) => { o += d; const m = o.match(/http:\/\/127\.0\.0\.1:[0-9]+\/\?token=[0-9A-Za-z_-]+/); if (m) res(m[0]); }); });
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
await page.goto(`${url}#/job?cluster=soak-long&job=b6f89b601ca911addd7d18135d6b80e4`, { waitUntil: 'commit' });
for (;;) {
  const m = await page.evaluate(() => performance.getEntriesByName('ce:timeline-first-paint').length);
  if (m) break;
  await new Promise((r) => setTimeout(r, 5));
}
const { profile } = await cdp.send('Profiler.stop');
// self time per function
const self = new Map();
const dt = profile.timeDeltas; const ids = profile.samples;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
for (let i = 0; i < ids.length; i++) {
  const n = byId.get(ids[i]); const f = n.callFrame;
  const k = `${f.functionName || '(anon)'} ${f.url.replace(/.*\//, '')}:${f.lineNumber}`;
  self.set(k, (self.get(k) || 0) + (dt[i] || 0) / 1000);
}
const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30);
for (const [k, v] of top) console.log(v.toFixed(1).padStart(8), k);
child.kill(); await browser.close();
