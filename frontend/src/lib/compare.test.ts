import { describe, expect, it } from 'vitest';
import type { EffectSide } from './api';
import { deltaBars, formatDelta, formatShift, sharePairs, tooFew } from './compare';

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

describe('formatShift', () => {
  it.each([
    // p90 1.9 s → 0.7 s: −63 %, the interval below zero.
    [{ before: 1900, after: 700, change: -0.632, low: -0.67, high: -0.58 }, { before: '1,900 ms', after: '700 ms', change: '-63%', interval: '-67% … -58%', tone: 'better' }],
    // An interval across zero: no measurable change.
    [{ before: 100, after: 105, change: 0.05, low: -0.02, high: 0.1 }, { before: '100 ms', after: '105 ms', change: '+5%', interval: '-2% … +10%', tone: 'same' }],
    [{ before: 200, after: 260, change: 0.3, low: 0.1, high: 0.45 }, { before: '200 ms', after: '260 ms', change: '+30%', interval: '+10% … +45%', tone: 'worse' }],
    // A percentile of 0 before: no relative change.
    [{ before: 0, after: 5, change: null, low: null, high: null }, { before: '0 ms', after: '5 ms', change: '', interval: '', tone: 'na' }],
    // Too few checkpoints on a side: nothing at all.
    [{ before: null, after: null, change: null, low: null, high: null }, { before: '', after: '', change: '', interval: '', tone: 'na' }],
  ] as const)('%j', (shift, want) => {
    expect(formatShift(shift, 'en-US')).toEqual(want);
  });

  it('formats for the locale', () => {
    expect(formatShift({ before: 1900, after: 700, change: -0.632, low: -0.67, high: -0.58 }, 'zh-CN')).toMatchObject({ before: '1,900毫秒', change: '-63%' });
  });
});

const side = (completed: number, shares: EffectSide['phase_shares'] = []): EffectSide => ({
  from_ms: 0,
  to_ms: 0,
  completed,
  failed: 0,
  failure_rate: null,
  failures: [],
  phase_shares: shares,
  with_phases: completed,
  checkpointed_size_p50_bytes: null,
  upstream_backpressure_p50: null,
});

describe('tooFew', () => {
  it('names the sides below what the finding says a side needs', () => {
    const finding_parts = [{ code: 'effect_few', args: { before: '3', after: '12', need: '5' } }];
    expect(tooFew({ before: side(3), after: side(12), finding_parts })).toEqual({ before: true, after: false, need: 5 });
    expect(tooFew({ before: side(0), after: side(0), finding_parts })).toEqual({ before: true, after: true, need: 5 });
  });

  it('names none when the finding measured', () => {
    expect(tooFew({ before: side(3), after: side(12), finding_parts: [{ code: 'effect_none', args: {} }] })).toEqual({ before: false, after: false, need: 0 });
  });
});

describe('sharePairs', () => {
  it('pairs the phases either side has, in phase order, 0 where a side has none', () => {
    // The report-format example: unaligned checkpoints turned on.
    const before = side(17, [
      { phase: 'start_delay', share: 0.002 },
      { phase: 'alignment', share: 0.664 },
      { phase: 'async', share: 0.333 },
    ]);
    const after = side(20, [
      { phase: 'async', share: 0.965 },
      { phase: 'alignment', share: 0.028 },
      { phase: 'finalize', share: 0.004 },
    ]);
    expect(sharePairs(before, after)).toEqual([
      { phase: 'start_delay', before: 0.002, after: 0 },
      { phase: 'alignment', before: 0.664, after: 0.028 },
      { phase: 'async', before: 0.333, after: 0.965 },
      { phase: 'finalize', before: 0, after: 0.004 },
    ]);
    expect(sharePairs(side(0), side(0))).toEqual([]);
  });
});
