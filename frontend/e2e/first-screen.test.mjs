// End-to-end check of the first screen against a running
// `checkpoint-explorer serve` whose data dir holds the bundled sample.
// CE_URL is the app URL including ?token=...; without it the suite skips.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { CE_URL, describeServe, en, i18nKeys, resultsDir, withServePage } from './fakepage.mjs';

const SAMPLE_JOB_ID = '469237c073b0c1ea872fc0403694fc68';
const enKeys = i18nKeys(en);

describeServe('first screen', () => {
  let browser;
  let context;
  let page;
  let sampleName = '';
  const pageErrors = [];

  withServePage({ pageErrors }, (p) => ({ browser, context, page } = p));

  it('lists the bundled sample and selects it', async () => {
    const current = page.getByTestId('source-current');
    await current.waitFor({ timeout: 15_000 });
    await page.getByTestId('source-picker').click();
    const samples = page.locator('[data-testid="source-option"][data-kind="sample"]');
    assert.ok((await samples.count()) >= 1, 'at least one bundled sample is listed');
    // The phase-2.3 sample (real Flink 1.20 checkpoint stats) is the one this suite knows by heart;
    // other bundled samples may be listed before it.
    const sample = page.locator('[data-testid="source-option"][data-kind="sample"][data-name^="sample: phase-2.3"]');
    assert.equal(await sample.count(), 1, 'the phase-2.3 sample is listed');
    await sample.click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="source-current"]')?.textContent?.startsWith('sample: phase-2.3'),
      null,
      { timeout: 10_000 },
    );
    await page.getByTestId('source-picker').click();
    assert.equal(await sample.getAttribute('aria-selected'), 'true', 'the sample is the selected source');
    assert.equal((await current.textContent()).trim(), await sample.getAttribute('data-name'));
    sampleName = await sample.getAttribute('data-name');
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 300); // close the menu
  });

  it("shows the sample's job, selected", async () => {
    const job = page.locator(`[data-testid="job-item"][data-job-id="${SAMPLE_JOB_ID}"]`);
    await job.waitFor({ timeout: 10_000 });
    assert.equal(await job.getAttribute('aria-current'), 'true');
    assert.match(await job.textContent(), /✓\s*7/, 'the job counts 7 completed checkpoints');
  });

  it('puts checkpoint 28 down to backpressure, from the slow checkpoint itself', async () => {
    const verdict = page.getByTestId('verdict');
    await verdict.waitFor({ timeout: 10_000 });
    assert.equal((await verdict.textContent()).trim(), 'Backpressure');
    assert.match(await verdict.getAttribute('title'), /checkpoint 28, the one judged slow, spent its time waiting for barriers/);
    assert.equal((await page.getByTestId('verdict-basis').textContent()).trim(), 'from the slow checkpoints; too few to correlate');
  });

  it('draws the timeline', async () => {
    await page.getByTestId('timeline-canvas').waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300); // let the committed-range request land and repaint
    const counts = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid="timeline-canvas"]');
      const probe = document.createElement('span');
      probe.style.color = 'var(--status-completed)';
      document.body.append(probe);
      const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g).map(Number);
      probe.remove();
      const ctx = canvas.getContext('2d');
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let bar = 0;
      const colours = new Set();
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - r) < 8 && Math.abs(data[i + 1] - g) < 8 && Math.abs(data[i + 2] - b) < 8) bar++;
        if (i % 64 === 0) colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      }
      return { bar, colours: colours.size, width: canvas.width, height: canvas.height };
    });
    assert.ok(counts.width > 0 && counts.height > 0, 'canvas has a size');
    // Checkpoint 28 (19 s of a ~95 s view) alone is a large completed-coloured block.
    assert.ok(counts.bar > 2000, `completed bars painted (${counts.bar} pixels in the completed colour)`);
    assert.ok(counts.colours > 3, `canvas is not blank (${counts.colours} colours)`);
  });

  it('lists the 7 checkpoints with #28 at 19,022 ms', async () => {
    const rows = page.getByTestId('checkpoint-row');
    await rows.first().waitFor({ timeout: 10_000 });
    assert.equal(await rows.count(), 7);
    const row28 = page.locator('[data-testid="checkpoint-row"][data-id="28"]');
    assert.equal((await row28.locator('[data-col="duration"]').textContent()).trim(), '19,022 ms');
    assert.match(await row28.textContent(), /Completed/);
    await page.screenshot({ path: `${resultsDir}first-screen-en.png` });
  });

  it('opens the detail of a checkpoint on click', async () => {
    await page.locator('[data-testid="checkpoint-row"][data-id="28"]').click();
    const detail = page.getByTestId('checkpoint-detail');
    await detail.waitFor({ timeout: 10_000 });
    assert.match(await detail.locator('h3').textContent(), /#28/);
    await page.getByTestId('checkpoint-detail').getByRole('button', { name: 'Close' }).click();
  });

  it('zooms with the wheel, goes back with Esc', async () => {
    const label = page.getByTestId('range-label');
    const before = (await label.textContent()).trim();
    const box = await page.getByTestId('timeline-canvas').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -400);
    await page.waitForFunction(
      (prev) => document.querySelector('[data-testid="range-label"]')?.textContent.trim() !== prev,
      before,
      { timeout: 5000 },
    );
    const zoomed = (await label.textContent()).trim();
    assert.notEqual(zoomed, before);
    await page.waitForTimeout(500); // the debounced request settles and the range is remembered
    await page.screenshot({ path: `${resultsDir}first-screen-zoomed.png` });
    await page.keyboard.press('Escape');
    await page.waitForFunction(
      (prev) => document.querySelector('[data-testid="range-label"]')?.textContent.trim() === prev,
      before,
      { timeout: 5000 },
    );
  });

  it('switches to Chinese without raw keys', async () => {
    await page.getByTestId('lang-zh').click();
    await page.getByRole('heading', { name: '时间线' }).waitFor({ timeout: 5000 });
    const text = await page.locator('body').innerText();
    for (const label of ['作业', '时间线', '检查点', '触发时间', '耗时', '缓存']) {
      assert.ok(text.includes(label), `Chinese label ${label} shown`);
    }
    const raw = enKeys.filter((k) => text.includes(k));
    assert.deepEqual(raw, [], 'no raw i18n keys on screen');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    const dur = await page.locator('[data-testid="checkpoint-row"][data-id="28"] [data-col="duration"]').textContent();
    assert.equal(dur.trim(), '19,022毫秒');
    await page.screenshot({ path: `${resultsDir}first-screen-zh.png` });
    // The choice survives a reload.
    await page.reload();
    await page.getByRole('heading', { name: '时间线' }).waitFor({ timeout: 10_000 });
    await page.getByTestId('lang-en').click();
  });

  it('follows a dark OS theme', async () => {
    const dark = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', colorScheme: 'dark' });
    try {
      const p = await dark.newPage();
      await p.goto(`${CE_URL}#/job?cluster=${encodeURIComponent(sampleName)}&job=${SAMPLE_JOB_ID}`);
      await p.getByTestId('checkpoint-row').first().waitFor({ timeout: 15_000 });
      const bg = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = bg.match(/\d+/g).map(Number);
      assert.ok(r + g + b < 150, `dark background (${bg})`);
      await p.waitForTimeout(300);
      await p.screenshot({ path: `${resultsDir}first-screen-dark.png` });
    } finally {
      await dark.close();
    }
  });

  it('asks for the timeline of the job the address opens first, and draws that answer', async () => {
    const p = await context.newPage();
    const calls = [];
    p.on('request', (r) => {
      const m = r.url().match(/\/api\/app\.App\.(\w+)$/);
      if (m) calls.push({ method: m[1], args: JSON.parse(r.postData() || '[]') });
    });
    try {
      await p.goto(`${CE_URL}#/job?cluster=${encodeURIComponent(sampleName)}&job=${SAMPLE_JOB_ID}`);
      await p.waitForFunction(() => performance.getEntriesByName('ce:timeline-first-paint').length > 0, null, { timeout: 15_000 });
      const methods = calls.map((c) => c.method);
      // Before the app has loaded: the whole job, at the window's width.
      assert.equal(methods[0], 'Timeline', `calls: ${methods.join(', ')}`);
      assert.deepEqual(calls[0].args, [{ cluster: sampleName, job: SAMPLE_JOB_ID, from_ms: 0, to_ms: 0, width_px: 1440 }]);
      // The view drew that answer rather than asking again, and the job list came after it.
      const whole = calls.filter((c) => c.method === 'Timeline' && c.args[0].from_ms === 0 && c.args[0].to_ms === 0);
      assert.equal(whole.length, 1, `whole-job timeline calls: ${JSON.stringify(whole)}`);
      assert.ok(methods.indexOf('ListJobs') > methods.indexOf('ListClusters'), `calls: ${methods.join(', ')}`);
      await p.getByTestId('checkpoint-row').first().waitFor({ timeout: 15_000 });
      assert.equal(await p.getByTestId('checkpoint-row').count(), 7);
    } finally {
      await p.close();
    }
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });

  it('refuses API requests without the token', async () => {
    const origin = new URL(CE_URL).origin;
    const res = await fetch(`${origin}/api/app.App.ListClusters`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '[]',
    });
    assert.ok([401, 403].includes(res.status), `status ${res.status} without token`);
    const up = await fetch(`${origin}/upload?name=x.gz`, { method: 'POST', body: 'x' });
    assert.ok([401, 403].includes(up.status), `upload status ${up.status} without token`);
  });
});
