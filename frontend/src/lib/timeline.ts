// Geometry of the timeline: where each bar and gap goes on the canvas and
// which bar is under the pointer. The backend already merged bars for the
// width; this only places exactly what it returned.
import type { Status, TimelineBar, TimelineGap } from './api';
import { timeScale, type Range } from './scale';

export interface Plot {
  /** top of the bar area in CSS pixels */
  top: number;
  /** height of the bar area; bars grow up from top + height */
  height: number;
  width: number;
}

export interface BarRect {
  x: number;
  y: number;
  w: number;
  h: number;
  bar: TimelineBar;
}

export interface GapRect {
  x: number;
  w: number;
  gap: TimelineGap;
}

export const MIN_BAR_W = 3;
export const MIN_BAR_H = 4;

/** barEnd is when a bar stops: its end, or now for a checkpoint still running. */
export function barEnd(bar: TimelineBar, nowMs: number): number {
  if (bar.end_ms > 0) return bar.end_ms;
  if (bar.status === 'IN_PROGRESS') return Math.max(bar.start_ms, nowMs);
  return bar.start_ms + Math.max(0, bar.max_duration_ms);
}

/** visibleMaxDuration is the longest duration among bars overlapping range: the 100% height. */
export function visibleMaxDuration(bars: TimelineBar[], range: Range, nowMs: number): number {
  let max = 0;
  for (const b of bars) {
    if (b.start_ms <= range.to && barEnd(b, nowMs) >= range.from && b.max_duration_ms > max) max = b.max_duration_ms;
  }
  return max;
}

/**
 * layoutBars places bars: x from trigger to end, height by duration relative
 * to the longest one in view. Tiny values still get a visible minimum.
 */
export function layoutBars(bars: TimelineBar[], range: Range, plot: Plot, nowMs: number): BarRect[] {
  const s = timeScale(range, plot.width);
  const maxDur = visibleMaxDuration(bars, range, nowMs);
  const out: BarRect[] = [];
  for (const bar of bars) {
    const end = barEnd(bar, nowMs);
    if (bar.start_ms > range.to || end < range.from) continue;
    const x0 = s.toPx(bar.start_ms);
    const x1 = s.toPx(end);
    const w = Math.max(MIN_BAR_W, x1 - x0);
    const frac = maxDur > 0 ? Math.max(0, bar.max_duration_ms) / maxDur : 1;
    const h = Math.max(MIN_BAR_H, frac * plot.height);
    out.push({ x: x0, y: plot.top + plot.height - h, w, h, bar });
  }
  return out;
}

/** layoutGaps places the spans where checkpoints are known to be missing. */
export function layoutGaps(gaps: TimelineGap[], range: Range, width: number): GapRect[] {
  const s = timeScale(range, width);
  const out: GapRect[] = [];
  for (const gap of gaps) {
    if (gap.after_ms > range.to || gap.before_ms < range.from) continue;
    const x0 = s.toPx(gap.after_ms);
    const x1 = s.toPx(gap.before_ms);
    out.push({ x: x0, w: Math.max(MIN_BAR_W, x1 - x0), gap });
  }
  return out;
}

/**
 * hitTest finds the bar under the pointer. Short bars are hard to hit, so the
 * whole column above a bar counts, with a few pixels of slop; the nearest
 * centre wins and, at equal distance, the worse status.
 */
export function hitTest(rects: BarRect[], x: number, y: number, plot: Plot, slopPx = 3): BarRect | undefined {
  if (y < plot.top - slopPx || y > plot.top + plot.height + slopPx) return undefined;
  let best: BarRect | undefined;
  let bestDist = Infinity;
  for (const r of rects) {
    if (x < r.x - slopPx || x > r.x + r.w + slopPx) continue;
    const d = x >= r.x && x <= r.x + r.w ? 0 : Math.min(Math.abs(x - r.x), Math.abs(x - r.x - r.w));
    if (d < bestDist || (d === bestDist && best && statusRank(r.bar.status) > statusRank(best.bar.status))) {
      best = r;
      bestDist = d;
    }
  }
  return best;
}

/** hitGap finds a gap span under the pointer. */
export function hitGap(rects: GapRect[], x: number): GapRect | undefined {
  return rects.find((g) => x >= g.x && x <= g.x + g.w);
}

/** statusRank mirrors model.Status.Rank: failed needs the most attention. */
export function statusRank(s: Status): number {
  return s === 'FAILED' ? 2 : s === 'COMPLETED' ? 1 : 0;
}
