// Dates and numbers follow the user's own locale (navigator.languages), while
// the translation follows the language: a British user reading English gets
// day-before-month dates, an American the reverse. Runs against the fake
// bridge (dev/serve-fake.mjs; needs only dist/).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fakePage, skip } from './fakepage.mjs';

const CLUSTER = 'prod-flink';
const JOB = 'ffee00112233445566778899aabbccdd';
const FROM = Date.UTC(2026, 11, 31, 10, 0, 0);
const TO = FROM + 90 * 60_000;

describe('dates in the user locale (fake bridge)', { skip }, () => {
  const stops = [];
  after(async () => {
    for (const stop of stops) await stop();
  });

  for (const [locale, date, time] of [
    ['en-GB', '31 Dec 2026', '10:00:00'],
    ['en-US', 'Dec 31, 2026', '10:00:00'],
    ['en-IN', '31 Dec 2026', '10:00:00'],
  ]) {
    it(`${locale}: the range reads ${date}, in English`, async () => {
      const pageErrors = [];
      const { page, stop } = await fakePage({ viewport: { width: 1440, height: 900 }, pageErrors, locale, timezoneId: 'UTC' });
      stops.push(stop);
      await page.evaluate((h) => (location.hash = h), `#/job?cluster=${encodeURIComponent(CLUSTER)}&job=${JOB}&from=${FROM}&to=${TO}`);
      await page.waitForFunction(() => location.hash.includes('from='));
      const info = page.getByTestId('range-info');
      await info.waitFor();
      const text = (await info.innerText()).trim();
      assert.ok(text.includes(`${date} ${time}`), `range "${text}" lacks "${date} ${time}"`);
      assert.match(text, /Range/, 'the words stay English');
      assert.deepEqual(pageErrors, []);
    });
  }
});
