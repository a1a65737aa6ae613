// fakePage starts dev/serve-fake.mjs (the built dist/ with dev/fake-bridge.js
// as the backend) and opens it in Chromium, for the suites that need shapes
// the real backend cannot give (jmlog, lanes). stop() closes both.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const dist = fileURLToPath(new URL('../dist/index.html', import.meta.url));
const serveFake = fileURLToPath(new URL('../dev/serve-fake.mjs', import.meta.url));
export const resultsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));

/** skip is the reason to skip a fake-bridge suite, or false. */
export const skip = existsSync(dist) ? false : 'dist/ is not built: run `make frontend` (or `npm run build`) first';

export async function fakePage({ viewport, pageErrors, locale = 'en-US', timezoneId }) {
  mkdirSync(resultsDir, { recursive: true });
  const server = spawn(process.execPath, [serveFake], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/CE_URL=(\S+)/);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`serve-fake exited with ${code}`)));
  });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport, locale, timezoneId, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // static: no live updates from the fake while the suite looks.
  await page.goto(`${url}&static`);
  await page.getByTestId('source-current').waitFor({ timeout: 15_000 });
  const stop = async () => {
    await browser.close();
    if (server.exitCode === null) server.kill();
  };
  return { page, stop };
}
