// End-to-end check of Alerts… (docs/alerts.md, "In the app") against dev/serve-fake.mjs (the built
// dist/ with dev/fake-bridge.js, which keeps the rules set and refuses a bad one with the backend's
// error text): opened from the top bar with the keyboard, modal (focus stays in it) and closed by
// Escape; a failures_in_window rule added for one job, saved and listed in words; a value the
// backend refuses shown next to the field of the rule it names, a clash of names next to the other
// rule; what the form cannot read named before sending; the labels in English and Chinese; "Alert
// on failure" in a job's header. Needs only dist/ (`make frontend`); screenshots go to
// test-results/alerts-*.png.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { en, fakeSuite, resultsDir, skip, zh } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const ORDERS = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'; // orders-enrichment
const CLICKS = 'ffee00112233445566778899aabbccdd'; // clickstream-sessionize
const SAMPLE_JOB = '469237c073b0c1ea872fc0403694fc68';
const fill = (s, v) => s.replace(/{{(\w+)}}/g, (_, k) => v[k]);

describe('the alert rules (fake bridge)', { skip }, () => {
  let page;
  const { pageErrors, go, text, shot, call, setLang } = fakeSuite('alerts', (p) => (page = p));
  const dialog = () => page.getByTestId('alerts-dialog');
  const rules = () => page.getByTestId('alert-rule');
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  const fieldError = (field) => page.locator(`[data-testid="alert-field-error"][data-field="${field}"]`);
  const open = async () => {
    await page.getByTestId('alerts-button').click();
    await dialog().waitFor({ state: 'visible' });
  };
  const close = async () => {
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'hidden' });
  };
  /** The words of the listed rule i: kind, parameters, scope, name. */
  const ruleWords = (i) =>
    Promise.all(['kind', 'params', 'scope', 'name'].map((w) => rules().nth(i).getByTestId(`alert-rule-${w}`).innerText().then((s) => s.trim())));

  it('opens from the top bar with the keyboard, says what alerts are, keeps focus inside and closes on Escape', async () => {
    await page.getByTestId('clusters-button').focus();
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'alerts-button', 'Alerts… follows Clusters… in the tab order');
    assert.equal((await page.getByTestId('alerts-button').innerText()).trim(), en.alerts.manage);
    await page.keyboard.press('Enter');
    await dialog().waitFor({ state: 'visible' });
    await page.getByTestId('alerts-none').waitFor();
    assert.equal(await text('alerts-none'), en.alerts.none);
    assert.ok((await page.locator('#alerts-intro').innerText()).includes(en.alerts.intro));
    const docs = page.getByTestId('alerts-docs');
    assert.equal((await docs.innerText()).trim(), en.alerts.docs);
    assert.match(await docs.getAttribute('href'), /\/docs\/alerts\.md$/);
    // Modal: tabbing around never leaves the dialog.
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press('Tab');
      const inside = await page.evaluate(() => {
        const el = document.activeElement;
        return !el || el === document.body || !!el.closest('[data-testid="alerts-dialog"]');
      });
      assert.ok(inside, `Tab ${i + 1} left the dialog`);
    }
    await close();
    assert.equal(await focused(), 'alerts-button', 'focus goes back to the button');
  });

  it('adds a failures_in_window rule for one job, saves it and lists it in words', async () => {
    await page.keyboard.press('Enter');
    await dialog().waitFor({ state: 'visible' });
    await page.getByTestId('alert-kind').selectOption('failures_in_window');
    assert.equal((await page.locator('#al-kind-help').innerText()).trim(), en.alerts.help.failures_in_window);
    await page.getByTestId('alert-cluster').selectOption(CLUSTER);
    // The cluster's jobs by name, stored as the job's id.
    await page.locator(`[data-testid="alert-job"] option[value="${ORDERS}"]`).waitFor({ state: 'attached' });
    await page.getByTestId('alert-job').selectOption(ORDERS);
    await page.getByTestId('alert-count').fill('3');
    await page.getByTestId('alert-window').fill('15m');
    assert.equal(await text('alert-window-note'), '15 minutes');
    await page.getByTestId('alert-window').fill('1h30m');
    assert.equal(await text('alert-window-note'), '1 hour, 30 minutes');
    await page.getByTestId('alert-window').fill('15m');
    assert.equal(await page.getByTestId('alert-name').getAttribute('placeholder'), `failures_in_window@${CLUSTER}/${ORDERS}`);
    assert.equal(await text('alert-preview'), 'Repeated failures · 3 failures within 15 minutes · orders-enrichment on prod-flink');
    await shot('form');
    await page.getByTestId('alert-save').click();
    await page.getByTestId('alerts-status').waitFor();
    assert.equal(await rules().count(), 1);
    assert.deepEqual(await ruleWords(0), ['Repeated failures', '3 failures within 15 minutes', 'orders-enrichment on prod-flink', `failures_in_window@${CLUSTER}/${ORDERS}`]);
    assert.deepEqual(await call('AlertRules'), [
      { name: `failures_in_window@${CLUSTER}/${ORDERS}`, kind: 'failures_in_window', cluster: CLUSTER, job_id: ORDERS, count: 3, window_ms: 900_000 },
    ]);
    // The rule saved is the one being edited now.
    assert.equal(await rules().nth(0).getByTestId('alert-rule-edit').getAttribute('aria-current'), 'true');
    await shot('saved');
  });

  it('shows the backend’s error next to the rule it names, and what the form cannot read before sending', async () => {
    // The rule saved above, its count out of the backend's bounds.
    await page.getByTestId('alert-count').fill('50');
    await page.getByTestId('alert-save').click();
    await fieldError('count').waitFor();
    assert.equal((await fieldError('count').innerText()).trim(), 'must be 1 to 30 failures for failures_in_window');
    assert.equal(await page.getByTestId('alert-count').getAttribute('aria-invalid'), 'true');
    assert.equal((await call('AlertRules'))[0].count, 3, 'nothing was saved');
    await shot('backend-error');
    // A duration without a unit is named at once, without asking the backend.
    await page.getByTestId('alert-count').fill('3');
    await page.getByTestId('alert-window').fill('10');
    await page.getByTestId('alert-save').click();
    await fieldError('window').waitFor();
    assert.equal((await fieldError('window').innerText()).trim(), en.alerts.err.window);
    assert.equal(await fieldError('count').count(), 0);
    await page.getByTestId('alert-window').fill('15m');

    // A second rule, named; then the first renamed alike: the backend names the second rule.
    await page.getByTestId('alert-add').click();
    await page.getByTestId('alert-kind').selectOption('checkpoint_failed');
    await page.getByTestId('alert-name').fill('orders');
    await page.getByTestId('alert-save').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="alert-rule"]').length === 2);
    await rules().nth(0).getByTestId('alert-rule-edit').click();
    await page.getByTestId('alert-name').fill('orders');
    await page.getByTestId('alert-save').click();
    const listed = rules().nth(1).getByTestId('alert-rule-error');
    await listed.waitFor();
    assert.equal((await listed.innerText()).trim(), `name: "orders" is also rules[0]'s name`);
    assert.equal(await rules().nth(0).getByTestId('alert-rule-error').count(), 0);
    assert.equal(await text('alerts-error'), en.alerts.notSaved);
    await shot('list-error');
    await page.getByTestId('alert-name').fill('');
    await page.getByTestId('alert-save').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="alert-rule-error"]'));
    assert.deepEqual(
      (await call('AlertRules')).map((r) => r.name),
      [`failures_in_window@${CLUSTER}/${ORDERS}`, 'orders'],
    );
  });

  it('says it all in Chinese', async () => {
    await close();
    await setLang('zh');
    assert.equal((await page.getByTestId('alerts-button').innerText()).trim(), zh.alerts.manage);
    await open();
    assert.equal((await page.locator('#alerts-title').innerText()).trim(), zh.alerts.title);
    assert.ok((await page.locator('#alerts-intro').innerText()).includes(zh.alerts.intro));
    assert.match(await page.getByTestId('alerts-docs').getAttribute('href'), /\/docs-zh\/alerts\.md$/);
    assert.deepEqual(await ruleWords(0), ['多次失败', '15分钟内失败 3 次', 'prod-flink 上的 orders-enrichment', `failures_in_window@${CLUSTER}/${ORDERS}`]);
    assert.deepEqual((await ruleWords(1)).slice(0, 3), ['检查点失败', zh.alerts.params.checkpoint_failed, 'prod-flink 的所有作业']);
    for (const [id, label] of [
      ['al-kind', zh.alerts.kindLabel],
      ['al-cluster', zh.alerts.clusterLabel],
      ['al-job', zh.alerts.jobLabel],
      ['al-name', zh.alerts.nameLabel],
    ]) {
      assert.equal((await page.locator(`label[for="${id}"]`).innerText()).trim(), label);
    }
    await page.getByTestId('alert-kind').selectOption('no_completion');
    assert.equal((await page.locator('label[for="al-duration"]').innerText()).trim(), zh.alerts.durationLabel);
    await page.getByTestId('alert-duration').fill('2h');
    assert.equal(await text('alert-duration-note'), '2小时');
    const kinds = await page.locator('[data-testid="alert-kind"] option').allInnerTexts();
    assert.deepEqual(kinds, Object.values(zh.alerts.kind));
    await shot('zh');
    await close();
    await setLang('en');
  });

  it('adds a checkpoint_failed rule from a job’s header, unless one watches the job; none for the sample', async () => {
    await go(`#/job?cluster=${CLUSTER}&job=${CLICKS}`);
    const button = page.getByTestId('alert-me');
    const heading = (name) => page.waitForFunction((n) => document.querySelector('[data-testid="jobhead"] h2')?.textContent.trim() === n, name);
    const toast = (want) => page.waitForFunction((w) => document.querySelector('[data-testid="toast"]')?.textContent.includes(w), want);
    await heading('clickstream-sessionize');
    assert.equal((await button.innerText()).trim(), en.alerts.me.button);
    // "orders" (above) watches every job of the cluster already.
    await button.click();
    await toast(fill(en.alerts.me.already, { name: 'orders' }));
    assert.equal((await call('AlertRules')).length, 2, 'no rule added');

    await call('SetAlertRules', (await call('AlertRules')).slice(0, 1));
    await button.click();
    await toast(fill(en.alerts.me.added, { job: 'clickstream-sessionize' }));
    const saved = await call('AlertRules');
    assert.deepEqual(saved[1], { name: `checkpoint_failed@${CLUSTER}/${CLICKS}`, kind: 'checkpoint_failed', cluster: CLUSTER, job_id: CLICKS });
    await page.getByTestId('jobhead').screenshot({ path: `${resultsDir}alerts-job-header.png` });
    await button.click();
    await toast(fill(en.alerts.me.already, { name: `checkpoint_failed@${CLUSTER}/${CLICKS}` }));
    assert.equal((await call('AlertRules')).length, 2, 'no second rule');

    await go(`#/job?cluster=sample&job=${SAMPLE_JOB}`);
    await heading('mysql-cdc-to-iceberg');
    assert.equal(await button.count(), 0, 'a capture’s jobs do not run: no rule judges them');
  });

  it('threw nothing in the page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
