// Zoom and pan arithmetic for the timeline: pure functions over Range, so the
// canvas component only turns events into calls.
import { clamp, type Range } from './scale';

/** The narrowest span the timeline zooms to; below a few ms nothing more is learnt. */
export const MIN_SPAN_MS = 10;
/** The widest span, ~10 years; protects against runaway zoom-out. */
export const MAX_SPAN_MS = 10 * 365 * 86_400_000;

/**
 * zoomAround scales range by factor (<1 zooms in, >1 out) keeping anchorMs at
 * the same screen position, so the point under the cursor stays put.
 */
export function zoomAround(range: Range, anchorMs: number, factor: number): Range {
  const span = range.to - range.from;
  if (!(span > 0) || !(factor > 0) || !Number.isFinite(factor)) return range;
  const newSpan = clamp(span * factor, MIN_SPAN_MS, MAX_SPAN_MS);
  const k = newSpan / span;
  const anchor = clamp(anchorMs, range.from, range.to);
  const from = anchor - (anchor - range.from) * k;
  return { from, to: from + newSpan };
}

/** pan shifts range by deltaMs (positive moves the view later in time). */
export function pan(range: Range, deltaMs: number): Range {
  return { from: range.from + deltaMs, to: range.to + deltaMs };
}

/** panPx shifts range by a pixel distance at the given width (a drag of +dx moves the view earlier). */
export function panPx(range: Range, dxPx: number, widthPx: number): Range {
  if (widthPx <= 0) return range;
  return pan(range, (-dxPx * (range.to - range.from)) / widthPx);
}

/** wheelFactor converts a wheel delta into a zoom factor: scrolling up (negative) zooms in. */
export function wheelFactor(deltaY: number, deltaMode = 0): number {
  // Lines and pages are much coarser than pixels; normalise to pixels.
  const px = deltaMode === 1 ? deltaY * 16 : deltaMode === 2 ? deltaY * 400 : deltaY;
  return Math.exp(clamp(px, -600, 600) * 0.0015);
}

/**
 * fit returns the extent padded on both sides so the first and last bars are
 * not glued to the edges; an empty or zero-width extent gets a one-minute view.
 */
export function fit(extent: { min_ms: number; max_ms: number }, padFraction = 0.03): Range | null {
  const { min_ms: lo, max_ms: hi } = extent;
  if (!(lo > 0) || !(hi > 0) || hi < lo) return null;
  const span = hi - lo;
  if (span < MIN_SPAN_MS) return { from: lo - 30_000, to: hi + 30_000 };
  const pad = span * padFraction;
  return { from: lo - pad, to: hi + pad };
}

/**
 * keepInView limits panning so at least a fraction of the data stays on
 * screen: the view may not leave the padded extent entirely.
 */
export function keepInView(range: Range, extent: { min_ms: number; max_ms: number }, keepFraction = 0.1): Range {
  const span = range.to - range.from;
  if (!(extent.max_ms >= extent.min_ms) || !(extent.min_ms > 0)) return range;
  const keep = span * keepFraction;
  if (range.to < extent.min_ms + keep) return { from: extent.min_ms + keep - span, to: extent.min_ms + keep };
  if (range.from > extent.max_ms - keep) return { from: extent.max_ms - keep, to: extent.max_ms - keep + span };
  return range;
}

/**
 * RangeHistory remembers the ranges the user left so Esc can go back. Only
 * settled ranges are pushed (one per gesture, not one per wheel tick).
 */
export class RangeHistory {
  private stack: Range[] = [];
  constructor(private readonly limit = 50) {}

  /** push records the range being left; consecutive duplicates collapse. */
  push(r: Range): void {
    const top = this.stack[this.stack.length - 1];
    if (top && Math.round(top.from) === Math.round(r.from) && Math.round(top.to) === Math.round(r.to)) return;
    this.stack.push({ from: r.from, to: r.to });
    if (this.stack.length > this.limit) this.stack.shift();
  }

  /** back returns the previous range, or undefined when there is none. */
  back(): Range | undefined {
    return this.stack.pop();
  }

  get size(): number {
    return this.stack.length;
  }

  clear(): void {
    this.stack = [];
  }
}
