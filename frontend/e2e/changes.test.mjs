// End-to-end check of "Did the change help?" (docs/user-guide.md) against dev/serve-fake.mjs (the built dist/
// with dev/fake-bridge.js: orders-enrichment on prod-flink has a restart, unaligned checkpoints turned on and a
// rescale, each with a before/after measured from its checkpoints; notes are kept across a reload): the
// timeline's markers and their legend, [ and ] stepping through them and Enter opening the before/after in the
// compare view; the panel's finding, percentiles, interval and window; too few checkpoints on a side; the
// latest change in the job header; a note added by hand (the backend's error beside the field), kept after a
// reload and deleted from its marker; English and Chinese. Needs only dist/ (`make frontend`); screenshots go
// to test-results/changes-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const JOB = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'; // orders-enrichment
const SAMPLE_JOB = '469237c073b0c1ea872fc0403694fc68'; // the sample: 7 checkpoints
const enc = encodeURIComponent;
const fill = (s, v) => s.replace(/{{(\w+)}}/g, (_, k) => v[k]);
/** finding is a before/after's finding said with msgs' templates, as the UI says it. */
const finding = (e, msgs) => e.finding_parts.map((p) => fill(msgs.reason[p.code], p.args ?? {})).join(msgs.reasonJoin.sep) + msgs.reasonJoin.end;
const ms = (v) => new Intl.NumberFormat('en-US', { style: 'unit', unit: 'millisecond', unitDisplay: 'short', maximumFractionDigits: 0 }).format(v);
const pct = (v) => new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 0, signDisplay: 'exceptZero' }).format(v);

describe('did the change help? (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, go, text, shot, call, setLang, waitText } = fakeSuite('changes', (p) => (page = p), { viewport: { width: 1440, height: 1000 } });
  const timeline = async (job = JOB, cluster = CLUSTER) => {
    await go(`#/job?cluster=${enc(cluster)}&job=${job}`);
    // The first draw of 3,000 checkpoints takes a while on a busy machine.
    await page.getByTestId('timeline-canvas').waitFor({ timeout: 30_000 });
  };
  const legend = () =>
    page.getByTestId('legend-change').evaluateAll((els) => els.map((e) => ({ kind: e.dataset.kind, count: e.dataset.count, text: e.textContent.trim() })));
  const markers = () => page.getByTestId('change-marker').evaluateAll((els) => els.map((e) => ({ kind: e.dataset.kind, time: Number(e.dataset.time) })));
  const focusedTime = () => page.evaluate(() => Number(document.activeElement?.dataset.time));
  const tipKinds = () => page.locator('[data-testid="change-tip"] [data-testid="change-tip-item"]').evaluateAll((els) => els.map((e) => e.dataset.kind));
  /** waitMarkers waits until the timeline marks these kinds, in time order (a reload redraws 3,000 checkpoints first). */
  const waitMarkers = (kinds) =>
    page.waitForFunction((k) => [...document.querySelectorAll('[data-testid="change-marker"]')].map((e) => e.dataset.kind).join() === k.join(), kinds, {
      timeout: 30_000,
    });

  it('marks each change on the timeline, with a legend entry per kind, and the latest in the header, in English and Chinese', async () => {
    const changes = await call('Changes', CLUSTER, JOB);
    assert.deepEqual(
      changes.map((c) => c.kind),
      ['restart', 'config', 'rescale'],
    );
    await timeline();
    await waitMarkers(['restart', 'config', 'rescale']);
    assert.deepEqual(
      await markers(),
      changes.map((c) => ({ kind: c.kind, time: c.time_ms })),
    );
    // The legend in the markers' order: a configuration change, a rescale, a restart.
    const kinds = ['config', 'rescale', 'restart'];
    const entries = await legend();
    assert.deepEqual(
      entries.map((e) => [e.kind, e.count]),
      kinds.map((k) => [k, '1']),
    );
    entries.forEach((e, i) => assert.ok(e.text.endsWith(en.changes.kind[kinds[i]]), e.text));
    const label = await page.locator('[data-testid="change-marker"][data-kind="config"]').getAttribute('aria-label');
    assert.ok(label.includes(`${en.changes.kind.config}: execution.checkpointing.unaligned.enabled: false → true`), label);

    const rescale = changes[2];
    const head = page.getByTestId('latest-change');
    assert.equal(await head.getAttribute('data-kind'), 'rescale');
    assert.ok((await head.innerText()).includes(`${en.changes.kind.rescale}: Enrich: 2 → 4 parallel subtasks`));
    assert.equal(await text('latest-change-finding'), finding(rescale.effect, en));
    assert.equal(await text('latest-change-finding'), rescale.effect.finding, 'the English is what the backend wrote');
    await shot('timeline');

    await setLang('zh');
    await waitText('latest-change-finding', '调整为 4 之后');
    assert.deepEqual(
      (await legend()).map((e) => e.text.slice(-zh.changes.kind[e.kind].length)),
      kinds.map((k) => zh.changes.kind[k]),
    );
    assert.equal(await text('latest-change-finding'), finding(rescale.effect, zh));
    assert.ok((await head.innerText()).includes(zh.changes.latest));
    await shot('timeline-zh');
    await setLang('en');
  });

  it('[ and ] step through the markers, each saying what changed, and Enter opens its before/after', async () => {
    const [restart, config] = await call('Changes', CLUSTER, JOB);
    await timeline();
    await waitMarkers(['restart', 'config', 'rescale']);
    await page.getByTestId('timeline-canvas').hover({ position: { x: 5, y: 200 } });
    await page.keyboard.press(']');
    await page.getByTestId('change-tip').waitFor();
    assert.equal(await focusedTime(), restart.time_ms, 'the first marker in view takes the focus');
    assert.deepEqual(await tipKinds(), ['restart']);
    await page.keyboard.press(']');
    await page.waitForFunction((t) => document.querySelector('[data-testid="change-tip"]')?.dataset.time === String(t), config.time_ms);
    assert.equal(await focusedTime(), config.time_ms);
    const tip = await text('change-tip');
    assert.ok(tip.includes('execution.checkpointing.unaligned.enabled: false → true'), tip);
    assert.ok(tip.includes(en.changes.open), tip);
    assert.equal(await text('change-tip-finding'), finding(config.effect, en));
    await page.keyboard.press('[');
    assert.equal(await focusedTime(), restart.time_ms);
    await page.keyboard.press(']');
    assert.equal(await focusedTime(), config.time_ms);
    await shot('marker');

    await page.keyboard.press('Enter');
    await page.getByTestId('ba-finding').waitFor();
    assert.match(await page.evaluate(() => location.hash), new RegExp(`^#/compare\\?.*at=${config.time_ms}`));
    // Up to the neighbouring changes, as the marker's effect was measured.
    const e = await call('BeforeAfter', CLUSTER, JOB, config.time_ms, 0);
    assert.deepEqual(e, config.effect);
    assert.equal(await text('ba-finding'), finding(e, en));
    assert.ok(/fell from/.test(e.finding) && e.end_to_end_p90_ms.high < 0, 'the fake measured a fall');
    const p90 = e.end_to_end_p90_ms;
    assert.deepEqual(
      await page.locator('[data-testid="ba-p90"] td').allInnerTexts(),
      [en.beforeAfter.p90, ms(p90.before), ms(p90.after), pct(p90.change), `${pct(p90.low)} … ${pct(p90.high)}`],
    );
    assert.deepEqual(await page.locator('[data-testid="ba-completed"] td').allInnerTexts(), [en.beforeAfter.completed, String(e.before.completed), String(e.after.completed), '', '']);
    assert.ok((await text('ba-at')).includes(en.changes.kind.config));
    assert.deepEqual(
      await page.getByTestId('ba-share').evaluateAll((els) => els.map((x) => x.dataset.phase)),
      ['start_delay', 'alignment', 'sync', 'async', 'ack'],
    );
    assert.ok((await text('ba-spans')).includes(en.beforeAfter.bound.change));
    await page.getByTestId('before-after').screenshot({ path: `${resultsDir}changes-before-after.png` });

    // A window of an hour each side.
    await page.getByTestId('ba-window').selectOption(String(3_600_000));
    await page.waitForFunction(() => /win=3600000/.test(location.hash));
    const hour = await call('BeforeAfter', CLUSTER, JOB, config.time_ms, 3_600_000);
    await waitText('ba-spans', en.beforeAfter.bound.window);
    assert.equal(await text('ba-finding'), finding(hour, en));

    await setLang('zh');
    await waitText('ba-finding', '之后；');
    assert.equal(await text('ba-finding'), finding(hour, zh));
    assert.equal((await page.locator('[data-testid="ba-table"] th').nth(1).innerText()).trim(), zh.beforeAfter.before);
    assert.equal((await page.locator('#ba-title').innerText()).trim(), zh.beforeAfter.title);
    await page.getByTestId('before-after').screenshot({ path: `${resultsDir}changes-before-after-zh.png` });
    await setLang('en');
  });

  it('says a side has too few checkpoints instead of a percentile', async () => {
    // The sample's checkpoint 28: 4 completed before it, 3 from it on.
    const at = 1779924618333;
    await go(`#/compare?cluster=sample&job=${SAMPLE_JOB}&at=${at}`);
    await page.getByTestId('ba-finding').waitFor();
    const e = await call('BeforeAfter', 'sample', SAMPLE_JOB, at, 0);
    assert.deepEqual([e.before.completed, e.after.completed], [4, 3]);
    assert.equal(await text('ba-finding'), finding(e, en));
    const cells = await page.locator('[data-testid="ba-p50"] td').allInnerTexts();
    assert.deepEqual(cells, [
      en.beforeAfter.p50,
      fill(en.beforeAfter.tooFew, { n: '4', need: '5' }),
      fill(en.beforeAfter.tooFew, { n: '3', need: '5' }),
      '—',
      '—',
    ]);
    assert.ok((await text('ba-at')).startsWith(en.beforeAfter.noChangeHere));
  });

  it('adds a note by hand, shows the backend’s error beside the field, keeps the note after a reload and deletes it from its marker', async () => {
    await timeline();
    await waitMarkers(['restart', 'config', 'rescale']);
    const [, config] = await call('Changes', CLUSTER, JOB);
    await page.getByTestId('timeline-canvas').hover({ position: { x: 5, y: 200 } });
    await page.keyboard.press('n');
    await page.getByTestId('note-form').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'note-text', 'N opens the form on its text');
    // Half an hour after unaligned checkpoints were turned on, in the page's local time.
    const at = config.time_ms + 1_800_000;
    const local = await page.evaluate((t) => {
      const d = new Date(t);
      const p = (n) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, at);
    await page.getByTestId('note-time').fill(local);
    // Blank text passes the field's own check; the backend refuses it and says why.
    await page.getByTestId('note-text').fill('   ');
    await page.keyboard.press('Enter');
    await page.getByTestId('note-error').waitFor();
    assert.match(await text('note-error'), /a note needs some text, at most 2000 characters/);
    await page.getByTestId('note-text').fill('deployed v42');
    await page.keyboard.press('Enter');
    await page.getByTestId('note-form').waitFor({ state: 'detached' });
    const when = Math.floor(at / 1000) * 1000; // the field keeps seconds
    await waitMarkers(['restart', 'config', 'note', 'rescale']);
    assert.deepEqual((await markers()).find((m) => m.kind === 'note'), { kind: 'note', time: when });
    // The new note is the chosen marker: its tooltip says it.
    await page.waitForFunction((t) => document.querySelector('[data-testid="change-tip"]')?.dataset.time === String(t), when);
    assert.ok((await text('change-tip')).includes('says “deployed v42”'));
    assert.ok((await legend()).some((e) => e.kind === 'note'));

    await page.reload();
    await page.getByTestId('timeline-canvas').waitFor({ timeout: 30_000 });
    await waitMarkers(['restart', 'config', 'note', 'rescale']);
    assert.deepEqual(
      (await call('Changes', CLUSTER, JOB)).find((c) => c.kind === 'note')?.detail,
      { text: 'deployed v42' },
    );
    await setLang('zh');
    await page.waitForFunction((w) => document.querySelector('[data-testid="legend-change"][data-kind="note"]')?.textContent.includes(w), zh.changes.kind.note);
    await page.locator('[data-testid="change-marker"][data-kind="note"]').click();
    await page.getByTestId('note-delete').waitFor();
    assert.equal(await text('note-delete'), zh.changes.deleteNote);
    assert.ok((await text('change-tip')).includes('“deployed v42”'));
    await shot('note-zh');
    await page.getByTestId('note-delete').click();
    await waitMarkers(['restart', 'config', 'rescale']);
    assert.equal(await page.locator('[data-testid="legend-change"][data-kind="note"]').count(), 0);
    await setLang('en');
  });

  it('lists the markers’ keys in the shortcuts help', async () => {
    await timeline();
    await page.getByTestId('timeline-canvas').hover({ position: { x: 5, y: 200 } });
    await page.keyboard.press('?');
    await page.getByTestId('shortcuts').waitFor({ state: 'visible' });
    const help = await text('shortcuts');
    for (const k of ['markerStep', 'markerOpen', 'note']) assert.ok(help.includes(en.keys[k]), k);
    await page.keyboard.press('Escape');
    await page.getByTestId('shortcuts').waitFor({ state: 'hidden' });
  });

  it('threw nothing', () => {
    assert.deepEqual(pageErrors, []);
  });
});
