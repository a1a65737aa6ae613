import { afterEach, describe, expect, it, vi } from 'vitest';
import { debounce } from './debounce';

afterEach(() => vi.useRealTimers());

describe('debounce', () => {
  it('runs once with the last arguments after calls stop', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const d = debounce((n: number) => seen.push(n), 100);
    d(1);
    vi.advanceTimersByTime(60);
    d(2);
    vi.advanceTimersByTime(60);
    d(3);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(seen).toEqual([3]);
  });

  it('cancel drops the pending call; flush runs now', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const d = debounce((n: number) => seen.push(n), 100);
    d(1);
    d.cancel();
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([]);
    d(2);
    d.flush(4);
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([4]);
  });
});
