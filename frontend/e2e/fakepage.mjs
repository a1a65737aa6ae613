// The e2e suites' shared setup: Chromium as every suite launches it, the message catalogues,
// the page helpers (navigate, read a test id, screenshot, call the bridge, switch the language,
// count a colour on a canvas) and fakePage, which starts dev/serve-fake.mjs (the built dist/
// with dev/fake-bridge.js as the backend) and opens it, for the suites that need shapes the real
// backend cannot give (jmlog, lanes, ...). stop() closes both.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const dist = fileURLToPath(new URL('../dist/index.html', import.meta.url));
const serveFake = fileURLToPath(new URL('../dev/serve-fake.mjs', import.meta.url));
export const resultsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));

const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../src/i18n/${lang}.json`, import.meta.url), 'utf8'));
/** The English and Chinese message catalogues. */
export const en = catalogue('en');
export const zh = catalogue('zh');

/** i18nKeys lists a catalogue's keys (dotted, plural suffixes dropped). */
export function i18nKeys(obj, prefix = '') {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === 'object' ? i18nKeys(v, `${prefix}${k}.`) : [`${prefix}${k}`.replace(/_(one|other)$/, '')],
  );
}

/** skip is the reason to skip a fake-bridge suite, or false. */
export const skip = existsSync(dist) ? false : 'dist/ is not built: run `make frontend` (or `npm run build`) first';

/** launchChromium starts the system Chromium headless, as every suite runs it. */
export function launchChromium() {
  mkdirSync(resultsDir, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function fakePage({ viewport, pageErrors, locale = 'en-US', timezoneId }) {
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
  const browser = await launchChromium();
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

/** withFakePage opens a fake page before the suite (handing it to use) and closes it after. */
export function withFakePage(opts, use) {
  let stop;
  before(async () => {
    const p = await fakePage(opts);
    stop = p.stop;
    use(p.page);
  });
  after(async () => {
    await stop?.();
  });
}

/**
 * pageHelpers binds the suites' helpers to the page page() returns when they run; screenshots
 * are test-results/<name>-<shot>.png.
 */
export function pageHelpers(page, name) {
  return {
    /** go sets the location hash (a route). */
    go: (hash) => page().evaluate((h) => (location.hash = h), hash),
    /** text is the trimmed text of the first element with the test id, under root. */
    text: async (testid, root = page()) => (await root.getByTestId(testid).first().innerText()).trim(),
    shot: (shot) => page().screenshot({ path: `${resultsDir}${name}-${shot}.png` }),
    /** call runs a facade method through the page's bridge, for expected values. */
    call: (method, ...args) => page().evaluate(([m, a]) => window.go.app.App[m](...a), [method, args]),
    /** setLang switches the UI language with its buttons and waits for the page to follow. */
    setLang: async (lang) => {
      await page().getByTestId(`lang-${lang}`).click();
      await page().waitForFunction((l) => document.documentElement.lang === (l === 'zh' ? 'zh-CN' : 'en'), lang);
    },
    /** waitText waits until the element with the test id says want. */
    waitText: (testid, want) =>
      page().waitForFunction(([id, w]) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.includes(w), [testid, want], { timeout: 5000 }),
    /** colourPixels counts pixels of a CSS colour variable on a canvas. */
    colourPixels: (selector, cssVar) =>
      page().evaluate(
        ([sel, v]) => {
          const canvas = document.querySelector(sel);
          const probe = document.createElement('span');
          probe.style.color = `var(${v})`;
          document.body.append(probe);
          const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g).map(Number);
          probe.remove();
          const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
          let n = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (Math.abs(data[i] - r) < 10 && Math.abs(data[i + 1] - g) < 10 && Math.abs(data[i + 2] - b) < 10) n++;
          }
          return n;
        },
        [selector, cssVar],
      ),
  };
}
