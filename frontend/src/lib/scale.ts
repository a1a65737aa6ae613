// Linear scales between a time range and pixels. Kept free of the DOM so the
// zoom, hit-testing and tick code can be tested in Node.

/** A half-open time range in epoch milliseconds, from < to. */
export interface Range {
  from: number;
  to: number;
}

export interface TimeScale {
  readonly range: Range;
  readonly widthPx: number;
  /** x in pixels for an instant (may fall outside 0..widthPx). */
  toPx(ms: number): number;
  /** the instant at pixel x. */
  toMs(px: number): number;
  /** milliseconds covered by one pixel. */
  readonly msPerPx: number;
}

/** timeScale maps range onto 0..widthPx. A degenerate range or width maps everything to 0. */
export function timeScale(range: Range, widthPx: number): TimeScale {
  const span = range.to - range.from;
  const ok = span > 0 && widthPx > 0;
  const k = ok ? widthPx / span : 0;
  return {
    range,
    widthPx,
    msPerPx: ok ? span / widthPx : 0,
    toPx: (ms) => (ms - range.from) * k,
    toMs: (px) => (ok ? range.from + px / k : range.from),
  };
}

/** linear maps a value from [d0, d1] onto [r0, r1]; a zero-width domain maps to r0. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const dd = d1 - d0;
  if (dd === 0) return () => r0;
  const k = (r1 - r0) / dd;
  return (v) => r0 + (v - d0) * k;
}

export function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/** sameRange compares two ranges to the millisecond. */
export function sameRange(a: Range | null | undefined, b: Range | null | undefined): boolean {
  if (!a || !b) return a === b;
  return Math.round(a.from) === Math.round(b.from) && Math.round(a.to) === Math.round(b.to);
}
