// Backend events the UI must show without a call of its own (fake bridge):
// a capture dropped on the window that did not open says so, in both
// languages (the desktop door sends it as import-error, app/events.go).
// Needs the built frontend (`make frontend`); screenshots go to
// test-results/events-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const fill = (s, v) => s.replace(/{{(\w+)}}/g, (_, k) => v[k]);

describe('events without a call (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, setLang } = fakeSuite('events', (p) => (page = p), { viewport: { width: 1280, height: 800 } });

  const dropFailed = async (lang, file, error) => {
    if (lang) await setLang(lang);
    if (await page.getByTestId('toast').isVisible()) await page.getByTestId('toast').getByRole('button').click();
    await page.evaluate(([f, e]) => window.__ceFakeEmit('import-error', { file: f, error: e }), [file, error]);
    const toast = page.getByTestId('toast');
    await toast.waitFor();
    return toast;
  };

  it('a capture dropped on the window that does not open shows why, in both languages', async () => {
    const error = 'capture: broken.ckpt: line 1: not JSON';
    let toast = await dropFailed('', 'broken.ckpt', error);
    assert.equal(await toast.getAttribute('role'), 'alert');
    assert.ok((await toast.innerText()).includes(fill(en.capture.openFailed, { file: 'broken.ckpt', error })));
    await page.screenshot({ path: `${resultsDir}events-en-import-error.png` });

    toast = await dropFailed('zh', 'kaputt.ckpt', error);
    assert.ok((await toast.innerText()).includes(fill(zh.capture.openFailed, { file: 'kaputt.ckpt', error })));
    await page.screenshot({ path: `${resultsDir}events-zh-import-error.png` });
    await page.getByTestId('lang-en').click();
  });

  it('an export under way shows its progress in the top bar, in both languages', async () => {
    await page.evaluate(() => window.__ceFakeEmit('export-progress', { file: 'prod.ckpt.gz', checkpoints: 12345 }));
    const bar = page.getByTestId('export-progress');
    await bar.waitFor();
    assert.ok((await bar.innerText()).includes(fill(en.export.progress, { file: 'prod.ckpt.gz', checkpoints: '12,345' })));
    await page.screenshot({ path: `${resultsDir}events-en-export-progress.png` });
    await page.getByTestId('lang-zh').click();
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    assert.ok((await bar.innerText()).includes(fill(zh.export.progress, { file: 'prod.ckpt.gz', checkpoints: '12,345' })));
    await page.getByTestId('lang-en').click();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
