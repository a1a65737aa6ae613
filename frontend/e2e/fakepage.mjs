// The e2e suites' shared setup: Chromium as every suite launches it, the message catalogues,
// the page helpers (navigate, read a test id, screenshot, call the bridge, switch the language,
// open the cluster dialog, count a colour on a canvas), describeServe and withServePage for the
// suites against a running `checkpoint-explorer serve` (CE_URL), and fakePage, which starts
// dev/serve-fake.mjs (the built dist/ with dev/fake-bridge.js as the backend) and opens it, for
// the suites that need shapes the real backend cannot give (jmlog, lanes, ...). stop() closes both.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
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

/** CE_URL is the app URL of the `checkpoint-explorer serve` under test, its ?token= included. */
export const CE_URL = process.env.CE_URL;

/**
 * describeServe describes a suite against CE_URL; without it the suite is skipped, and a skipped
 * test of the same name says how to run it.
 */
export function describeServe(name, body) {
  if (!CE_URL) {
    it(name, (t) => {
      t.skip('CE_URL is not set: start `checkpoint-explorer serve` and pass its URL (make test-e2e does)');
    });
  }
  describe(name, { skip: !CE_URL }, body);
}

/**
 * withServePage opens CE_URL before the suite in a light, English, 1440×900 page whose uncaught
 * errors go to pageErrors, and closes its browser after. use gets { browser, context, page } before
 * the page loads; prepare(context, page), when given, runs then too (permissions, timeouts).
 */
export function withServePage({ pageErrors, prepare }, use) {
  let browser;
  before(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    use({ browser, context, page });
    await prepare?.(context, page);
    await page.goto(CE_URL);
  });
  after(async () => {
    await browser?.close();
  });
}

/** launchChromium starts the system Chromium headless, as every suite runs it. */
export function launchChromium() {
  mkdirSync(resultsDir, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** startServeFake starts dev/serve-fake.mjs (the built dist/ with the fake bridge) and gives its URL and process. */
export async function startServeFake() {
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
  return { server, url };
}

export async function fakePage({ viewport, pageErrors, locale = 'en-US', timezoneId }) {
  const { server, url } = await startServeFake();
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
 * fakeSuite sets up a fake-bridge suite: a fake page (withFakePage; 1440×900 unless viewport says
 * otherwise) handed to use, its page helpers (screenshots named <name>-…) and pageErrors, what
 * the page threw.
 */
export function fakeSuite(name, use, { viewport = { width: 1440, height: 900 } } = {}) {
  let page;
  const pageErrors = [];
  withFakePage({ viewport, pageErrors }, (p) => use((page = p)));
  return { pageErrors, ...pageHelpers(() => page, name) };
}

/**
 * pageHelpers binds the suites' helpers to the page page() returns when they run; screenshots
 * are test-results/<name>-<shot>.png.
 */
export function pageHelpers(page, name) {
  const helpers = {
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
    /** openClusters opens the cluster dialog in lang (it is modal: the language is chosen before it opens). */
    openClusters: async (lang) => {
      await helpers.setLang(lang);
      await page().getByTestId('clusters-button').click();
      await page().getByTestId('cluster-dialog').waitFor({ state: 'visible' });
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
  return helpers;
}
