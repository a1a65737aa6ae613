// A page opened on a job's timeline (a link, a reload, a bookmark) asks for
// the job's whole timeline as soon as it starts (boot.ts), not once the app
// has loaded, asked for its sources and laid the view out: over a long
// history the answer takes a few hundred milliseconds, which then pass while
// the page loads. It asks at the window's width, the widest the canvas can
// be: bars finer than the canvas's pixels draw the same (failed ones on top),
// and the view asks again at the canvas's width right after its first paint.
import { api, type Timeline } from './api';
import { parseHash } from './route';

interface Prefetched {
  cluster: string;
  job: string;
  widthPx: number;
  answer: Promise<Timeline>;
}

let pending: Prefetched | null = null;
let settled: Promise<void> = Promise.resolve();

// How long the job list waits for a prefetched timeline at most.
const SETTLE_WAIT_MS = 2000;

/** prefetchTimeline asks for the whole timeline of the job the hash opens, if it opens one on its timeline. */
export function prefetchTimeline(hash: string, widthPx: number): void {
  const r = parseHash(hash);
  const w = Math.round(widthPx);
  if (r.view !== 'job' || !r.cluster || !r.job || !(w > 0)) return;
  const answer = api.timeline({ cluster: r.cluster, job: r.job, from_ms: 0, to_ms: 0, width_px: w });
  answer.catch(() => {}); // the view that takes it sees the error
  pending = { cluster: r.cluster, job: r.job, widthPx: w, answer };
  settled = Promise.race([answer.then(noop, noop), new Promise<void>((res) => setTimeout(res, SETTLE_WAIT_MS))]);
}

function noop() {}

/**
 * prefetchSettled resolves once the prefetched timeline has come (or failed,
 * or SETTLE_WAIT_MS passed); at once when none was asked for. The job list
 * waits for it: rendering it beside the answer's computation slowed both on
 * two cores.
 */
export function prefetchSettled(): Promise<void> {
  return settled;
}

/**
 * takePrefetchedTimeline hands the prefetched answer to the first view that
 * asks for a whole timeline: when it is of the same job, at a canvas no wider
 * than it was asked for; else null, and the answer is dropped.
 */
export function takePrefetchedTimeline(cluster: string, job: string, widthPx: number): Promise<Timeline> | null {
  const p = pending;
  pending = null;
  if (!p || p.cluster !== cluster || p.job !== job || widthPx > p.widthPx) return null;
  return p.answer;
}
