import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { prefetchSettled, prefetchTimeline, takePrefetchedTimeline } from './prefetch';

// window.go stands in for the backend: prefetch.ts and api.ts are under test.
let asked: unknown[];

beforeEach(() => {
  asked = [];
  const Timeline = (req: unknown) => {
    asked.push(req);
    return Promise.resolve({ from_ms: 1, to_ms: 2, extent: { min_ms: 1, max_ms: 2 }, bars: null, gaps: null, lanes: {}, total: 0 });
  };
  vi.stubGlobal('window', { go: { app: { App: { Timeline } } } });
});

afterEach(() => {
  takePrefetchedTimeline('', '', 0); // drop what a test left
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('prefetchTimeline', () => {
  it('asks for the whole timeline of the job the address opens, at the window width', async () => {
    prefetchTimeline('#/job?cluster=prod&job=abc&from=5&to=9', 1440.4);
    const got = takePrefetchedTimeline('prod', 'abc', 1100);
    expect(got).not.toBeNull();
    // The answer comes normalised, as api.timeline gives it.
    expect((await got!).bars).toEqual([]);
    expect(asked).toEqual([{ cluster: 'prod', job: 'abc', from_ms: 0, to_ms: 0, width_px: 1440 }]);
    // Once: the next view asks for itself.
    expect(takePrefetchedTimeline('prod', 'abc', 1100)).toBeNull();
  });

  it.each([
    ['another job', 'prod', 'other', 1100],
    ['another cluster', 'test', 'abc', 1100],
    ['a wider canvas', 'prod', 'abc', 1500],
  ])('is not handed to %s, and is dropped', (_what, cluster, job, width) => {
    prefetchTimeline('#/job?cluster=prod&job=abc', 1440);
    expect(takePrefetchedTimeline(cluster, job, width)).toBeNull();
    expect(takePrefetchedTimeline('prod', 'abc', 1100)).toBeNull();
  });

  it.each([
    ['no hash', ''],
    ['no job', '#/job?cluster=prod'],
    ['another view', '#/heatmap?cluster=prod&job=abc'],
  ])('asks nothing for %s', async (_what, hash) => {
    prefetchTimeline(hash, 1440);
    await tick();
    expect(asked).toEqual([]);
    expect(takePrefetchedTimeline('prod', 'abc', 1100)).toBeNull();
  });

  it('asks nothing without a width', async () => {
    prefetchTimeline('#/job?cluster=prod&job=abc', 0);
    await tick();
    expect(asked).toEqual([]);
  });

  it('holds the job list back until the answer has come', async () => {
    let answer: (v: unknown) => void = () => {};
    vi.stubGlobal('window', { go: { app: { App: { Timeline: () => new Promise((r) => (answer = r)) } } } });
    prefetchTimeline('#/job?cluster=prod&job=abc', 1440);
    let settled = false;
    void prefetchSettled().then(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    answer({ from_ms: 1, to_ms: 2, extent: { min_ms: 1, max_ms: 2 }, bars: [], gaps: [], lanes: {}, total: 0 });
    await tick();
    expect(settled).toBe(true);
  });

  it('holds it back 2 s at most', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('window', { go: { app: { App: { Timeline: () => new Promise(() => {}) } } } });
    prefetchTimeline('#/job?cluster=prod&job=abc', 1440);
    let settled = false;
    void prefetchSettled().then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
  });
});
