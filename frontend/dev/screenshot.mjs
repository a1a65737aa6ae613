// DEV ONLY: screenshots of the BUILT UI (dist/) served by `vite preview`, with
// dev/fake-bridge.js injected before the app loads. For looking at layout in
// both languages and themes; not a test. Usage: npm run build && node dev/screenshot.mjs
import { preview } from 'vite';
import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../../test-results/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const fake = readFileSync(here + 'fake-bridge.js', 'utf8');

const server = await preview({ root: here + '..', preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'warn' });
const url = server.resolvedUrls.local[0];
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const shots = process.argv.slice(2);
  const plan = [
    { name: 'en-light', lang: 'en', scheme: 'light', source: 'sample' },
    { name: 'zh-dark', lang: 'zh', scheme: 'dark', source: 'sample' },
    { name: 'en-dark-busy', lang: 'en', scheme: 'dark', source: 'prod-flink', detail: true },
    { name: 'zh-light-busy', lang: 'zh', scheme: 'light', source: 'prod-flink', detail: true, hover: true },
    { name: 'en-light-seatunnel', lang: 'en', scheme: 'light', source: 'zeta-staging', detail: true },
  ].filter((p) => shots.length === 0 || shots.includes(p.name));
  for (const p of plan) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: p.scheme, locale: p.lang === 'zh' ? 'zh-CN' : 'en-US' });
    await ctx.addInitScript(fake);
    const page = await ctx.newPage();
    page.on('console', (m) => m.type() === 'error' && console.error('console:', m.text()));
    page.on('pageerror', (e) => console.error('pageerror:', e.message));
    await page.goto(`${url}?static#/job?cluster=${encodeURIComponent(p.source)}`);
    await page.waitForSelector('[data-testid="checkpoint-row"]', { timeout: 10_000 });
    await page.waitForTimeout(400);
    if (p.detail) {
      await page.locator('[data-testid="checkpoint-row"].failed, [data-testid="checkpoint-row"]').first().click();
      await page.waitForSelector('[data-testid="vertex-table"], [data-testid="checkpoint-detail"] .error-box', { timeout: 5000 });
    }
    if (p.hover) {
      const box = await page.locator('[data-testid="timeline-canvas"]').boundingBox();
      await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.6);
      await page.waitForTimeout(200);
    }
    await page.screenshot({ path: `${outDir}dev-${p.name}.png` });
    console.log('wrote', `${outDir}dev-${p.name}.png`);
    await ctx.close();
  }
} finally {
  await browser.close();
  await new Promise((r) => server.httpServer.close(r));
}
