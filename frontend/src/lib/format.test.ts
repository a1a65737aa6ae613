import { describe, expect, it } from 'vitest';
import {
  checkpointSize,
  formatBytes,
  formatDateTime,
  formatMs,
  formatNumber,
  formatRange,
  formatSpan,
  formatCompact,
  truncate,
} from './format';

describe('formatMs', () => {
  it.each([
    [19022, 'en-US', '19,022 ms'],
    [0, 'en-US', '0 ms'],
    [47, 'en-US', '47 ms'],
    [1234567, 'en-US', '1,234,567 ms'],
    [19022, 'zh-CN', '19,022毫秒'],
  ])('%d in %s → %s', (ms, loc, want) => {
    expect(formatMs(ms, loc)).toBe(want);
  });

  it('shows a dash for non-numbers instead of NaN', () => {
    expect(formatMs(Number.NaN, 'en-US')).toBe('—');
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1,023 B'],
    [1024, '1 KiB'],
    [4370, '4.27 KiB'],
    [12316, '12 KiB'],
    [1536 * 1024, '1.5 MiB'],
    [1024 ** 3, '1 GiB'],
    [150 * 1024 ** 2, '150 MiB'],
    // Rounds up across a unit boundary instead of printing "1,024 KiB".
    [1024 * 1024 - 1, '1 MiB'],
    [-2048, '-2 KiB'],
  ])('%d → %s', (bytes, want) => {
    expect(formatBytes(bytes, 'en-US')).toBe(want);
  });

  it('uses the locale for the decimal separator', () => {
    expect(formatBytes(4370, 'de-DE')).toBe('4,27 KiB');
  });
});

describe('formatSpan', () => {
  it.each([
    [42, '42 ms'],
    [1500, '1.5 sec'],
    [12_340, '12.3 sec'],
    [60_000, '1 min'],
    [96_000, '1 min, 36 sec'],
    [3_600_000 + 5 * 60_000 + 59_000, '1 hr, 5 min'],
    [2 * 86_400_000 + 3 * 3_600_000, '2 days, 3 hr'],
  ])('%d → %s', (ms, want) => {
    expect(formatSpan(ms, 'en-US')).toBe(want);
  });

  it('speaks Chinese units in zh-CN', () => {
    expect(formatSpan(96_000, 'zh-CN')).toBe('1分钟 36秒');
  });
});

describe('formatDateTime', () => {
  it('renders local wall-clock time with milliseconds', () => {
    const t = new Date(2026, 4, 27, 23, 30, 18, 333).getTime();
    expect(formatDateTime(t, 'en-US')).toBe('05/27/2026, 23:30:18.333');
    expect(formatDateTime(t, 'zh-CN')).toBe('2026/05/27 23:30:18.333');
  });

  it('shows a dash for an absent (zero) time', () => {
    expect(formatDateTime(0, 'en-US')).toBe('—');
  });
});

describe('formatRange', () => {
  it('omits the repeated date within one day and appends the span', () => {
    const from = new Date(2026, 4, 27, 23, 29, 48).getTime();
    const to = new Date(2026, 4, 27, 23, 31, 25).getTime();
    expect(formatRange(from, to, 'en-US')).toBe('May 27, 2026 23:29:48 – 23:31:25 (1 min, 37 sec)');
  });

  it('repeats the date when the range crosses midnight', () => {
    const from = new Date(2026, 4, 27, 23, 0, 0).getTime();
    const to = new Date(2026, 4, 28, 1, 0, 0).getTime();
    expect(formatRange(from, to, 'en-US')).toBe('May 27, 2026 23:00:00 – May 28, 2026 01:00:00 (2 hr)');
  });

  it('shows milliseconds when zoomed below ten seconds', () => {
    const from = new Date(2026, 4, 27, 23, 0, 0, 5).getTime();
    expect(formatRange(from, from + 250, 'en-US')).toBe('May 27, 2026 23:00:00.005 – 23:00:00.255 (250 ms)');
  });
});

describe('formatNumber', () => {
  it('groups digits per locale', () => {
    expect(formatNumber(1234567, 'en-US')).toBe('1,234,567');
    expect(formatNumber(1234567, 'de-DE')).toBe('1.234.567');
  });
});

describe('truncate', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['this is a long failure message', 10, 'this is a…'],
    ['', 5, ''],
    // Counts characters, not UTF-16 units: never splits a surrogate pair.
    ['检查点失败了', 5, '检查点失…'],
    ['😀😀😀😀', 3, '😀😀…'],
  ])('%j at %d → %j', (text, max, want) => {
    expect(truncate(text, max)).toBe(want);
  });
});

describe('checkpointSize', () => {
  it('shows bytes for Flink', () => {
    expect(checkpointSize({ checkpointed_size: 4370 })).toEqual({ kind: 'bytes', bytes: 4370 });
    expect(checkpointSize({ checkpointed_size: 4370, state_blobs: null })).toEqual({ kind: 'bytes', bytes: 4370 });
  });

  it('shows the SeaTunnel blob count, never as bytes, even when zero', () => {
    expect(checkpointSize({ checkpointed_size: 0, state_blobs: 5 })).toEqual({ kind: 'blobs', count: 5 });
    expect(checkpointSize({ checkpointed_size: 123, state_blobs: 0 })).toEqual({ kind: 'blobs', count: 0 });
  });
});

describe('formatCompact', () => {
  it.each([
    [0, 'en-US', '0'],
    [0.5, 'en-US', '0.5'],
    [3.14159, 'en-US', '3.14'],
    [4200, 'en-US', '4.2K'],
    [12_345, 'en-US', '12.3K'],
    [1_234_567, 'en-US', '1.23M'],
    [12_345, 'zh-CN', '1.23万'],
    [NaN, 'en-US', '—'],
  ])('%s in %s is %s', (n, loc, want) => {
    expect(formatCompact(n, loc)).toBe(want);
  });
});
