import { describe, expect, it } from 'vitest';
import { deltaBars, formatDelta } from './compare';

describe('formatDelta', () => {
  it.each([
    [{ a: 199, b: 7271, delta: 7072 }, 'ms', { a: '199 ms', b: '7,271 ms', delta: '+7,072 ms', pct: '+3,554%', tone: 'worse' }],
    [{ a: 17_461, b: 12, delta: -17_449 }, 'ms', { a: '17,461 ms', b: '12 ms', delta: '−17,449 ms', pct: '-100%', tone: 'better' }],
    [{ a: 5, b: 5, delta: 0 }, 'ms', { a: '5 ms', b: '5 ms', delta: '±0 ms', pct: '0%', tone: 'same' }],
    [{ a: 0, b: 12, delta: 12 }, 'ms', { a: '0 ms', b: '12 ms', delta: '+12 ms', pct: '', tone: 'worse' }],
    [{ a: 1024, b: 3072, delta: 2048 }, 'bytes', { a: '1 KiB', b: '3 KiB', delta: '+2 KiB', pct: '+200%', tone: 'worse' }],
  ] as const)('%j in %s', (d, unit, want) => {
    expect(formatDelta(d, unit, 'en-US')).toEqual(want);
  });

  it('shows no delta when a side is not observable, never a zero', () => {
    expect(formatDelta({ a: 150 }, 'ms', 'en-US')).toEqual({ a: '150 ms', b: '', delta: '', pct: '', tone: 'na' });
    expect(formatDelta({ b: 3 }, 'ms', 'en-US')).toEqual({ a: '', b: '3 ms', delta: '', pct: '', tone: 'na' });
    expect(formatDelta({}, 'bytes', 'en-US').tone).toBe('na');
  });

  it('formats for the locale', () => {
    expect(formatDelta({ a: 1000, b: 20_000, delta: 19_000 }, 'ms', 'zh-CN')).toMatchObject({ delta: '+19,000毫秒', pct: '+1,900%' });
  });
});

describe('deltaBars', () => {
  it('scales each |delta| to the largest one, absent deltas at 0', () => {
    expect(deltaBars([{ delta: 10 }, { delta: -40 }, {}, { delta: 0 }])).toEqual([0.25, 1, 0, 0]);
    expect(deltaBars([{}, {}])).toEqual([0, 0]);
  });
});
