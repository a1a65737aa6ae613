// End-to-end check of the advice (issue #16), in English and Chinese: the
// insights panel's Advice section (each item's severity, title, text, the
// configuration keys with their current values or "not reported", the
// evidence ids and the docs link), an evidence id opening that checkpoint's
// view, the checkpoint view showing the items that cite it (and none where
// none does), and the section's one line when nothing is advised.
//
// Like jmlog.test.mjs it runs against dev/serve-fake.mjs, which serves the
// built dist/ with dev/fake-bridge.js as the backend (orders-enrichment on
// prod-flink has three items — critical, warning, info —, clickstream-sessionize
// one, the sample none). The expected values are read from the fake's own
// answers, the words from the message catalogues. It starts that server itself
// and needs only dist/. Screenshots go to test-results/advice-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const JOB = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'; // orders-enrichment: three items
const SAMPLE = 'sample';
const SAMPLE_JOB = '469237c073b0c1ea872fc0403694fc68'; // nothing advised

/** fill puts a template's arguments in, as i18next does. */
const fill = (s, args = {}) => s.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k) => args[k] ?? '');

/** The title and text the UI says in msgs: the templates when the catalogue has them, else the English. */
function words(a, msgs) {
  const r = msgs.reason;
  const title = a.title_part?.code && r[a.title_part.code] ? fill(r[a.title_part.code], a.title_part.args) : a.title;
  const parts = a.text_parts ?? [];
  const text =
    parts.length > 0 && parts.every((p) => r[p.code]) ? parts.map((p) => fill(r[p.code], p.args)).join(msgs.reasonJoin.sep) + msgs.reasonJoin.end : a.text;
  return { title, text };
}

describe('advice in the UI (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, go, shot, call, setLang } = fakeSuite('advice', (p) => (page = p), { viewport: { width: 1440, height: 1000 } });
  const enc = encodeURIComponent;
  /** waitCheckpoint waits for the checkpoint view of id (its title formats the id: 2,102). */
  const waitCheckpoint = (id) =>
    page.waitForFunction(
      (i) =>
        new URLSearchParams(location.hash.split('?')[1] ?? '').get('id') === String(i) &&
        document.querySelector('[data-testid="checkpoint-title"]')?.textContent.replace(/\D/g, '') === String(i),
      id,
    );
  const openInsights = async () => {
    const toggle = page.getByTestId('insights-toggle');
    await toggle.waitFor();
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await page.getByTestId('insights-advice').waitFor();
  };

  /** items reads what the list under root shows for each item. */
  const items = (root) =>
    page.locator(`[data-testid="${root}"] [data-testid="advice-item"]`).evaluateAll((els) =>
      els.map((el) => ({
        code: el.dataset.code,
        severity: el.dataset.severity,
        badge: el.querySelector('[data-testid="advice-severity"]').textContent.trim(),
        title: el.querySelector('[data-testid="advice-title"]').textContent.trim(),
        text: el.querySelector('[data-testid="advice-text"]').textContent.trim(),
        keys: [...el.querySelectorAll('[data-testid="advice-key"]')].map((r) => [
          r.dataset.key,
          r.querySelector('[data-testid="advice-current"]').textContent.trim(),
          r.querySelector('[data-testid="advice-current"]').dataset.reported,
        ]),
        ids: [...el.querySelectorAll('[data-testid="advice-evidence"] button, [data-testid="advice-evidence"] [aria-current]')].map((b) =>
          b.textContent.trim(),
        ),
        docs: el.querySelector('[data-testid="advice-docs"]')?.getAttribute('href') ?? null,
        docsTarget: el.querySelector('[data-testid="advice-docs"]')?.getAttribute('target') ?? null,
      })),
    );

  /** want is what the list should show for the fake's items in msgs. */
  const want = (advice, msgs) =>
    advice.map((a) => ({
      code: a.code,
      severity: a.severity,
      badge: msgs.advice.severity[a.severity],
      ...words(a, msgs),
      keys: a.config_keys.map((k) => (k in a.current ? [k, a.current[k], 'true'] : [k, msgs.advice.notReported, 'false'])),
      ids: a.evidence.checkpoint_ids.map((id) => `#${id}`),
      docs: a.docs_url,
      docsTarget: '_blank',
    }));

  it('the insights panel lists the advice, most severe first, with keys, current values and evidence, in both languages', async () => {
    const advice = (await call('Insights', CLUSTER, JOB, 0, 0)).advice;
    assert.deepEqual(
      advice.map((a) => a.severity),
      ['critical', 'warning', 'info'],
    );
    assert.ok(advice.some((a) => a.config_keys.some((k) => !(k in a.current))), 'the fake has a key without a current value');
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}`);
    await openInsights();
    await page.getByTestId('advice-item').first().waitFor();
    assert.equal((await page.getByTestId('insights-advice').locator('h4').innerText()).trim(), `${en.advice.title} (3)`);
    assert.deepEqual(await items('insights-advice'), want(advice, en));
    // The unaligned item: the 2.x key not reported, the 1.x one reported.
    const unaligned = await page.locator('[data-testid="insights-advice"] [data-code="unaligned_checkpoints"] [data-testid="advice-key"]').allInnerTexts();
    assert.ok(unaligned[0].includes('execution.checkpointing.unaligned.enabled') && unaligned[0].includes('not reported'), unaligned[0]);
    assert.ok(unaligned[1].includes('false'), unaligned[1]);
    await page.getByTestId('insights-advice').screenshot({ path: `${resultsDir}advice-insights.png` });

    await setLang('zh');
    await page.waitForFunction((h) => document.querySelector('[data-testid="insights-advice"] h4')?.textContent.includes(h), zh.advice.title);
    assert.deepEqual(await items('insights-advice'), want(advice, zh));
    assert.ok((await page.getByTestId('insights-advice').innerText()).includes('未报告'));
    assert.deepEqual(
      await page.locator('[data-testid="insights-advice"] [data-testid="advice-severity"]').allInnerTexts(),
      ['严重', '警告', '提示'],
    );
    await page.getByTestId('insights-advice').screenshot({ path: `${resultsDir}advice-zh-insights.png` });
    await setLang('en');
  });

  it('the items are reachable by keyboard: an evidence id takes the focus and Enter opens its checkpoint', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}`);
    await openInsights();
    const advice = (await call('Insights', CLUSTER, JOB, 0, 0)).advice;
    const warn = advice.find((a) => a.severity === 'warning');
    const id = warn.evidence.checkpoint_ids[0];
    const button = page.locator(`[data-testid="insights-advice"] [data-code="${warn.code}"] [data-testid="advice-evidence-id"][data-id="${id}"]`);
    await button.focus();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.id), String(id));
    await page.keyboard.press('Enter');
    await waitCheckpoint(id);
    assert.match(await page.evaluate(() => location.hash), new RegExp(`^#/checkpoint\\?.*id=${id}`));
    await page.getByTestId('checkpoint-back').click();
    await page.getByTestId('insights-advice').waitFor();
  });

  it('an evidence id opens that checkpoint, whose view shows the advice citing it, in both languages', async () => {
    await go(`#/job?cluster=${enc(CLUSTER)}&job=${JOB}`);
    await openInsights();
    const advice = (await call('Insights', CLUSTER, JOB, 0, 0)).advice;
    // Cited by the warning and the info item, not by the critical one.
    const id = advice.find((a) => a.severity === 'info').evidence.checkpoint_ids[0];
    const citing = advice.filter((a) => a.evidence.checkpoint_ids.includes(id));
    assert.deepEqual(
      citing.map((a) => a.severity),
      ['warning', 'info'],
    );
    await page.locator(`[data-testid="insights-advice"] [data-code="unaligned_checkpoints"] [data-testid="advice-evidence-id"][data-id="${id}"]`).click();
    await waitCheckpoint(id);
    await page.getByTestId('checkpoint-advice').waitFor();

    const view = await call('CheckpointView', CLUSTER, JOB, 0, id);
    assert.deepEqual(
      view.advice.map((a) => a.code),
      citing.map((a) => a.code),
    );
    const shown = await items('checkpoint-advice');
    // The checkpoint's own id is marked, not a link; the others are links.
    const expect = (msgs) => want(view.advice, msgs);
    assert.deepEqual(shown, expect(en));
    assert.equal(await page.locator(`[data-testid="checkpoint-advice"] [aria-current="true"]`).first().innerText(), `#${id}`);
    assert.equal(await page.locator(`[data-testid="checkpoint-advice"] [data-testid="advice-evidence-id"][data-id="${id}"]`).count(), 0);
    assert.ok((await page.getByTestId('checkpoint-advice').locator('h4').innerText()).startsWith(en.advice.checkpointTitle));
    await page.getByTestId('checkpoint-advice').screenshot({ path: `${resultsDir}advice-checkpoint.png` });

    await setLang('zh');
    await page.waitForFunction((h) => document.querySelector('[data-testid="checkpoint-advice"] h4')?.textContent.includes(h), zh.advice.checkpointTitle);
    assert.deepEqual(await items('checkpoint-advice'), expect(zh));
    await page.getByTestId('checkpoint-advice').screenshot({ path: `${resultsDir}advice-zh-checkpoint.png` });
    await setLang('en');

    // Another id of the same item opens that checkpoint from here.
    const other = citing[0].evidence.checkpoint_ids.find((x) => x !== id);
    await page.locator(`[data-testid="checkpoint-advice"] [data-testid="advice-evidence-id"][data-id="${other}"]`).first().click();
    await waitCheckpoint(other);
  });

  it('a checkpoint no item cites shows no advice', async () => {
    await go(`#/checkpoint?cluster=${enc(CLUSTER)}&job=${JOB}&id=5`);
    await page.waitForFunction(() => document.querySelector('[data-testid="checkpoint-title"]')?.textContent.trim().endsWith('5'));
    await page.getByTestId('critical-phases').waitFor();
    assert.deepEqual((await call('CheckpointView', CLUSTER, JOB, 0, 5)).advice, []);
    assert.equal(await page.getByTestId('checkpoint-advice').count(), 0);
  });

  it('nothing advised: the section says so in one line, in both languages', async () => {
    assert.deepEqual((await call('Insights', SAMPLE, SAMPLE_JOB, 0, 0)).advice, []);
    await go(`#/job?cluster=${enc(SAMPLE)}&job=${SAMPLE_JOB}`);
    await openInsights();
    await page.getByTestId('advice-none').waitFor();
    assert.equal((await page.getByTestId('advice-none').innerText()).trim(), en.advice.none);
    assert.equal(await page.locator('[data-testid="insights-advice"] [data-testid="advice-item"]').count(), 0);
    await setLang('zh');
    await page.waitForFunction((w) => document.querySelector('[data-testid="advice-none"]')?.textContent.trim() === w, zh.advice.none);
    await setLang('en');
    await page.getByTestId('insights-toggle').click();
  });

  it('raised no page errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
