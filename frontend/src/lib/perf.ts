// Hooks for the timeline benchmark (frontend/bench/timeline-bench.mjs): when
// the page sets window.__ceBench = { draws: [] }, every timeline draw records
// its duration there. Without it nothing is kept. The first draw with data
// after a job opens also leaves a performance mark.

interface BenchHooks {
  draws: number[];
}

declare global {
  interface Window {
    __ceBench?: BenchHooks;
  }
}

/** recordDraw keeps one draw's duration in ms when a benchmark is listening. */
export function recordDraw(ms: number): void {
  if (typeof window !== 'undefined' && window.__ceBench) window.__ceBench.draws.push(ms);
}

export const FIRST_PAINT_MARK = 'ce:timeline-first-paint';

/** markFirstPaint leaves the mark the benchmark waits for. */
export function markFirstPaint(): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(FIRST_PAINT_MARK);
}
