import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseStep, tickTimes, timeTicks, type TickStep } from './ticks';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** withTZ runs a block's tests in another time zone (Node re-reads TZ on change). */
function withTZ(tz: string, body: () => void) {
  describe(`in ${tz}`, () => {
    let saved: string | undefined;
    beforeAll(() => {
      saved = process.env.TZ;
      process.env.TZ = tz;
    });
    afterAll(() => {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    });
    body();
  });
}

function expectOrderedWithin(ticks: number[], from: number, to: number) {
  for (let i = 0; i < ticks.length; i++) {
    expect(ticks[i]).toBeGreaterThanOrEqual(from);
    expect(ticks[i]).toBeLessThanOrEqual(to);
    if (i > 0) expect(ticks[i]).toBeGreaterThan(ticks[i - 1]);
  }
}

describe('chooseStep', () => {
  it.each([
    [1000, 1000, 90, 100],
    [90_000, 1000, 90, 10_000],
    [8 * HOUR, 1000, 90, HOUR],
    [8 * HOUR, 1000, 60, 30 * MIN],
    [30 * DAY, 1000, 90, 7 * DAY],
  ])('span %d over %dpx at %dpx spacing → ~%d ms', (span, width, spacing, approx) => {
    const s = chooseStep(span, width, spacing);
    expect(s.approxMs).toBe(approx);
    // The chosen step leaves at least the requested spacing, and it is the smallest that does.
    expect((s.approxMs / span) * width).toBeGreaterThanOrEqual(spacing);
  });

  it('falls back sensibly for degenerate input', () => {
    expect(chooseStep(0, 100).approxMs).toBe(1);
    expect(chooseStep(100, 0).approxMs).toBe(1);
  });
});

withTZ('Asia/Kathmandu', () => {
  // UTC+05:45: epoch-aligned 30-minute ticks would land on :15 and :45 local.
  it('aligns minute steps to the local wall clock', () => {
    const from = Date.UTC(2026, 4, 27, 0, 7);
    const to = from + 6 * HOUR;
    const step: TickStep = { unit: 'ms', n: 30 * MIN, approxMs: 30 * MIN };
    const ticks = tickTimes(from, to, step);
    expect(ticks.length).toBe(12);
    expectOrderedWithin(ticks, from, to);
    for (const t of ticks) {
      const d = new Date(t);
      expect(d.getMinutes() % 30).toBe(0);
      expect(d.getSeconds()).toBe(0);
    }
  });

  it('aligns hour steps to local hours', () => {
    const from = Date.UTC(2026, 4, 27, 3, 0);
    const to = from + 2 * DAY;
    const ticks = tickTimes(from, to, { unit: 'hour', n: 6, approxMs: 6 * HOUR });
    expect(ticks.length).toBe(8);
    expectOrderedWithin(ticks, from, to);
    for (const t of ticks) {
      expect(new Date(t).getHours() % 6).toBe(0);
      expect(new Date(t).getMinutes()).toBe(0);
    }
  });
});

withTZ('America/New_York', () => {
  // DST starts 2026-03-08 02:00 local: that day has 23 hours.
  const from = new Date(2026, 2, 6, 12).getTime();
  const to = new Date(2026, 2, 11, 12).getTime();

  it('puts day ticks on local midnight across a DST change', () => {
    const ticks = tickTimes(from, to, { unit: 'day', n: 1, approxMs: DAY });
    expect(ticks.map((t) => new Date(t).getDate())).toEqual([7, 8, 9, 10, 11]);
    for (const t of ticks) expect(new Date(t).getHours()).toBe(0);
    // The step really is calendar days: one of them is 23 h long.
    const lengths = ticks.slice(1).map((t, i) => t - ticks[i]);
    expect(lengths).toContain(23 * HOUR);
  });

  it('keeps hour ticks on multiples of the step across a DST change', () => {
    const ticks = tickTimes(new Date(2026, 2, 7, 20).getTime(), new Date(2026, 2, 8, 12).getTime(), {
      unit: 'hour',
      n: 3,
      approxMs: 3 * HOUR,
    });
    expect(ticks.map((t) => new Date(t).getHours())).toEqual([21, 0, 3, 6, 9, 12]);
  });

  it('keeps second steps exact across a DST change', () => {
    const dst = new Date(2026, 2, 8, 3, 0, 0).getTime(); // first instant after the jump
    const ticks = tickTimes(dst - 30_000, dst + 30_000, { unit: 'ms', n: 10_000, approxMs: 10_000 });
    expect(ticks.length).toBe(7);
    for (const t of ticks) expect(new Date(t).getSeconds() % 10).toBe(0);
  });

  it('puts month and year ticks on the first day', () => {
    const months = tickTimes(new Date(2025, 10, 15).getTime(), new Date(2026, 9, 1).getTime(), {
      unit: 'month',
      n: 3,
      approxMs: 90 * DAY,
    });
    expect(months.map((t) => [new Date(t).getMonth(), new Date(t).getDate(), new Date(t).getHours()])).toEqual([
      [0, 1, 0],
      [3, 1, 0],
      [6, 1, 0],
      [9, 1, 0],
    ]);
    const years = tickTimes(new Date(2019, 5, 1).getTime(), new Date(2031, 0, 1).getTime(), {
      unit: 'year',
      n: 5,
      approxMs: 5 * 365 * DAY,
    });
    expect(years.map((t) => new Date(t).getFullYear())).toEqual([2020, 2025, 2030]);
  });
});

describe('tickTimes', () => {
  it('gives sub-second ticks at exact millisecond multiples', () => {
    const from = 1779924618333;
    const ticks = tickTimes(from, from + 1000, { unit: 'ms', n: 200, approxMs: 200 });
    expect(ticks.length).toBe(5);
    for (const t of ticks) expect(new Date(t).getMilliseconds() % 200).toBe(0);
  });

  it('returns nothing for an inverted range', () => {
    expect(tickTimes(10, 5, { unit: 'ms', n: 1, approxMs: 1 })).toEqual([]);
  });
});

describe('timeTicks', () => {
  it('labels minute ticks as hh:mm and dates the first tick and each new day', () => {
    const from = new Date(2026, 4, 27, 22, 0).getTime();
    const to = new Date(2026, 4, 28, 2, 0).getTime();
    const ticks = timeTicks(from, to, 1000, 'en-US');
    expect(ticks.length).toBeGreaterThan(3);
    expect(ticks.length).toBeLessThanOrEqual(1000 / 90 + 1);
    expect(ticks[0].label).toBe('22:00');
    expect(ticks[0].dateLabel).toBe('May 27, 2026');
    const midnight = ticks.find((t) => t.label === '00:00');
    expect(midnight?.dateLabel).toBe('May 28, 2026');
    expect(ticks.filter((t) => t.dateLabel).length).toBe(2);
  });

  it('shows seconds for second steps and milliseconds below a second', () => {
    const from = new Date(2026, 4, 27, 23, 30, 0).getTime();
    expect(timeTicks(from, from + 60_000, 1000, 'en-US')[1].label).toBe('23:30:10');
    expect(timeTicks(from, from + 1000, 1000, 'en-US')[1].label).toBe('23:30:00.100');
  });

  it('formats for the locale', () => {
    const from = new Date(2026, 4, 27, 22, 0).getTime();
    const ticks = timeTicks(from, from + 4 * HOUR, 1000, 'zh-CN');
    expect(ticks[0].dateLabel).toBe('2026年5月27日');
  });
});
