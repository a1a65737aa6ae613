import { describe, expect, it } from 'vitest';
import { clamp, linear, sameRange, timeScale } from './scale';

describe('timeScale', () => {
  const s = timeScale({ from: 1000, to: 2000 }, 500);

  it('maps the range ends onto 0 and the width', () => {
    expect(s.toPx(1000)).toBe(0);
    expect(s.toPx(2000)).toBe(500);
    expect(s.toPx(1500)).toBe(250);
    expect(s.msPerPx).toBe(2);
  });

  it('extrapolates outside the range (bars may start off-screen)', () => {
    expect(s.toPx(500)).toBe(-250);
    expect(s.toPx(3000)).toBe(1000);
  });

  it('inverts toPx', () => {
    for (const ms of [1000, 1234, 1999.5, 2500]) expect(s.toMs(s.toPx(ms))).toBeCloseTo(ms, 9);
  });

  it('keeps precision for epoch-millisecond instants', () => {
    const big = timeScale({ from: 1779924591497, to: 1779924682497 }, 1000);
    expect(big.toPx(1779924618333)).toBeCloseTo(294.9, 1);
    expect(big.toMs(294.9010989)).toBeCloseTo(1779924618333, 0);
  });

  it.each([
    [{ from: 5, to: 5 }, 100],
    [{ from: 10, to: 5 }, 100],
    [{ from: 0, to: 100 }, 0],
  ])('degenerate %j at width %d maps to 0 instead of NaN/Infinity', (r, w) => {
    const d = timeScale(r, w);
    expect(d.toPx(50)).toBe(0);
    expect(d.toMs(10)).toBe(r.from);
    expect(d.msPerPx).toBe(0);
  });
});

describe('linear', () => {
  it('maps a domain onto a range, including reversed ranges', () => {
    const f = linear(0, 10, 100, 0);
    expect(f(0)).toBe(100);
    expect(f(10)).toBe(0);
    expect(f(2.5)).toBe(75);
  });

  it('maps a zero-width domain to the range start', () => {
    expect(linear(3, 3, 7, 9)(100)).toBe(7);
  });
});

describe('clamp / sameRange', () => {
  it('clamps', () => {
    expect(clamp(-1, 0, 10)).toBe(0);
    expect(clamp(11, 0, 10)).toBe(10);
    expect(clamp(5, 0, 10)).toBe(5);
  });

  it('compares ranges to the millisecond', () => {
    expect(sameRange({ from: 1, to: 2 }, { from: 1.2, to: 2.4 })).toBe(true);
    expect(sameRange({ from: 1, to: 2 }, { from: 1, to: 3 })).toBe(false);
    expect(sameRange(null, null)).toBe(true);
    expect(sameRange(null, { from: 1, to: 2 })).toBe(false);
  });
});
