import { afterEach, describe, expect, it, vi } from 'vitest';
import { debounce, throttle } from './debounce';

afterEach(() => vi.useRealTimers());

describe('debounce', () => {
  it('runs once with the last arguments after calls stop; flush runs at once', () => {
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
    // flush runs now, instead of the pending call.
    d(2);
    d.flush(4);
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([3, 4]);
  });
});

describe.each([
  ['debounce', debounce],
  ['throttle', throttle],
])('%s', (_, make) => {
  it('cancel drops the pending call; a later call runs', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const d = make((n: number) => seen.push(n), 100);
    d(1);
    d.cancel();
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([]);
    d(2);
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([2]);
  });
});

describe('throttle', () => {
  it('runs at most once per wait, with the last arguments, even while calls keep coming', () => {
    vi.useFakeTimers();
    const seen: number[] = [];
    const th = throttle((n: number) => seen.push(n), 1000);
    // A call every 300 ms for 3 s (a debounce would never run): calls 1–4 run at 1,000 ms,
    // 5–8 (from 1,200 ms) at 2,200 ms, 9–10 (from 2,400 ms) at 3,400 ms.
    for (let i = 1; i <= 10; i++) {
      th(i);
      vi.advanceTimersByTime(300);
    }
    expect(seen).toEqual([4, 8]);
    vi.advanceTimersByTime(400);
    expect(seen).toEqual([4, 8, 10]);
    vi.advanceTimersByTime(5000);
    expect(seen).toEqual([4, 8, 10]);
  });
});
