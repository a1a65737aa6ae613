import { describe, expect, it } from 'vitest';
import { timeScale } from './scale';
import { fit, keepInView, MAX_SPAN_MS, MIN_SPAN_MS, pan, panPx, RangeHistory, wheelFactor, zoomAround } from './zoom';

describe('zoomAround', () => {
  const r = { from: 1000, to: 2000 };

  it('keeps the anchor at the same screen position', () => {
    for (const anchor of [1000, 1250, 1500, 1999]) {
      for (const factor of [0.5, 0.8, 1.25, 3]) {
        const z = zoomAround(r, anchor, factor);
        const before = timeScale(r, 800).toPx(anchor);
        const after = timeScale(z, 800).toPx(anchor);
        expect(after).toBeCloseTo(before, 6);
        expect(z.to - z.from).toBeCloseTo(1000 * factor, 6);
      }
    }
  });

  it('zooming in then out by the inverse factor returns the range', () => {
    const z = zoomAround(zoomAround(r, 1300, 0.25), 1300, 4);
    expect(z.from).toBeCloseTo(r.from, 6);
    expect(z.to).toBeCloseTo(r.to, 6);
  });

  it('stops at the minimum and maximum span', () => {
    const tiny = zoomAround(r, 1500, 1e-9);
    expect(tiny.to - tiny.from).toBe(MIN_SPAN_MS);
    expect(tiny.from).toBeLessThanOrEqual(1500);
    expect(tiny.to).toBeGreaterThanOrEqual(1500);
    const huge = zoomAround(r, 1500, 1e15);
    expect(huge.to - huge.from).toBe(MAX_SPAN_MS);
  });

  it('treats an anchor outside the range as the nearest edge', () => {
    const z = zoomAround(r, 50_000, 0.5);
    expect(z.to).toBe(2000);
    expect(z.from).toBe(1500);
  });

  it.each([0, -1, Number.NaN, Infinity])('ignores a bad factor %p', (f) => {
    expect(zoomAround(r, 1500, f)).toEqual(r);
  });
});

describe('pan', () => {
  it('shifts both ends', () => {
    expect(pan({ from: 10, to: 20 }, 5)).toEqual({ from: 15, to: 25 });
  });

  it('drag right moves the view earlier by the dragged share of the span', () => {
    expect(panPx({ from: 0, to: 1000 }, 100, 500)).toEqual({ from: -200, to: 800 });
    expect(panPx({ from: 0, to: 1000 }, -50, 500)).toEqual({ from: 100, to: 1100 });
  });
});

describe('wheelFactor', () => {
  it('zooms in on wheel up and out on wheel down, symmetrically', () => {
    const up = wheelFactor(-100);
    const down = wheelFactor(100);
    expect(up).toBeLessThan(1);
    expect(down).toBeGreaterThan(1);
    expect(up * down).toBeCloseTo(1, 12);
    expect(wheelFactor(0)).toBe(1);
  });

  it('scales line and page deltas up to pixels and caps huge deltas', () => {
    expect(wheelFactor(3, 1)).toBeCloseTo(wheelFactor(48), 12);
    expect(wheelFactor(1, 2)).toBeCloseTo(wheelFactor(400), 12);
    expect(wheelFactor(1e6)).toBe(wheelFactor(600));
  });
});

describe('fit', () => {
  it('pads the extent on both sides', () => {
    expect(fit({ min_ms: 1000, max_ms: 2000 }, 0.1)).toEqual({ from: 900, to: 2100 });
  });

  it('gives a single instant a one-minute window around it', () => {
    expect(fit({ min_ms: 1_000_000, max_ms: 1_000_000 })).toEqual({ from: 970_000, to: 1_030_000 });
  });

  it('returns null for an empty extent', () => {
    expect(fit({ min_ms: 0, max_ms: 0 })).toBeNull();
    expect(fit({ min_ms: 2000, max_ms: 1000 })).toBeNull();
  });
});

describe('keepInView', () => {
  const ext = { min_ms: 10_000, max_ms: 20_000 };

  it('leaves a range that overlaps the data alone', () => {
    expect(keepInView({ from: 5000, to: 15_000 }, ext)).toEqual({ from: 5000, to: 15_000 });
  });

  it('pulls a range panned past the end back so a tenth of it shows data', () => {
    const r = keepInView({ from: 50_000, to: 60_000 }, ext);
    expect(r).toEqual({ from: 19_000, to: 29_000 });
  });

  it('pulls a range panned before the start back', () => {
    const r = keepInView({ from: 0, to: 1000 }, ext);
    expect(r).toEqual({ from: 9100, to: 10_100 });
  });
});

describe('RangeHistory', () => {
  it('returns ranges last in, first out and collapses consecutive duplicates', () => {
    const h = new RangeHistory();
    h.push({ from: 1, to: 2 });
    h.push({ from: 1, to: 2 });
    h.push({ from: 3, to: 4 });
    expect(h.size).toBe(2);
    expect(h.back()).toEqual({ from: 3, to: 4 });
    expect(h.back()).toEqual({ from: 1, to: 2 });
    expect(h.back()).toBeUndefined();
  });

  it('forgets the oldest beyond its limit', () => {
    const h = new RangeHistory(3);
    for (let i = 0; i < 5; i++) h.push({ from: i, to: i + 1 });
    expect(h.size).toBe(3);
    expect([h.back(), h.back(), h.back()].map((r) => r?.from)).toEqual([4, 3, 2]);
  });

  it('copies what it stores', () => {
    const h = new RangeHistory();
    const r = { from: 1, to: 2 };
    h.push(r);
    r.from = 99;
    expect(h.back()).toEqual({ from: 1, to: 2 });
  });
});
