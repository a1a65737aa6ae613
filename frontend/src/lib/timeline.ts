// Geometry of the timeline: where each bar and gap goes on the canvas and
// which bar is under the pointer. The backend already merged bars for the
// width; this only places exactly what it returned.
import type { LanePoint, Status, TimelineBar, TimelineGap } from './api';
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

/**
 * barEndedUnseen: every checkpoint of the bar was stored in progress and has
 * ended unseen (a later one completed; the backend says how many).
 */
export function barEndedUnseen(bar: TimelineBar): boolean {
  return bar.status === 'IN_PROGRESS' && (bar.ended_unseen ?? 0) >= bar.count;
}

/** barRunning: the bar holds a checkpoint still running, as far as anyone knows. */
export function barRunning(bar: TimelineBar): boolean {
  return bar.status === 'IN_PROGRESS' && (bar.ended_unseen ?? 0) < bar.count;
}

/** barEnd is when a bar stops: its end, or now for a checkpoint still running. */
export function barEnd(bar: TimelineBar, nowMs: number): number {
  if (bar.end_ms > 0) return bar.end_ms;
  if (barRunning(bar)) return Math.max(bar.start_ms, nowMs);
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

// ---- Lanes beneath the checkpoints, on the same time axis ----


export interface Band {
  top: number;
  height: number;
}

export interface TimelineLayout {
  /** the checkpoint bars */
  bars: Plot;
  /**
   * upstream backpressure (0..1), checkpointed size (bytes), the sink's commit
   * duration (ms; null without commit data), the custom lanes in order, and
   * failures; absent without lanes
   */
  lanes: { backpressure: Band; size: Band; commit: Band | null; custom: Band[]; failures: Band } | null;
  /** y of the time axis line; tick labels go below it */
  axisY: number;
}

/** The lanes beyond backpressure, size and failures that a timeline shows (only those with points). */
export interface ExtraLanes {
  commit: boolean;
  custom: number;
}

export const NO_EXTRA_LANES: ExtraLanes = { commit: false, custom: 0 };

export const LANE_GAP = 6;
export const LANE_HEIGHT = 34;
export const FAILURE_LANE_HEIGHT = 14;

/** extraLaneCount is how many lanes beyond the base three a timeline draws. */
export function extraLaneCount(extra: ExtraLanes): number {
  return (extra.commit ? 1 : 0) + Math.max(0, extra.custom);
}

/**
 * extraLanesHeight is the height the extra lanes take (each a gap and a lane):
 * the canvas grows by it so the bars keep their height.
 */
export function extraLanesHeight(extra: ExtraLanes): number {
  return extraLaneCount(extra) * (LANE_GAP + LANE_HEIGHT);
}

/**
 * timelineLayout divides the canvas height between bars, lanes and the axis.
 * Beneath the bars: backpressure, size, then the sink commit and the custom
 * lanes when there are any, and failures last, just above the axis.
 */
export function timelineLayout(
  width: number,
  height: number,
  withLanes: boolean,
  top = 20,
  axisHeight = 38,
  extra: ExtraLanes = NO_EXTRA_LANES,
): TimelineLayout {
  const lanesH = withLanes ? 3 * LANE_GAP + 2 * LANE_HEIGHT + FAILURE_LANE_HEIGHT + extraLanesHeight(extra) : 0;
  const barsH = Math.max(10, height - top - axisHeight - 4 - lanesH);
  const bars: Plot = { top, height: barsH, width };
  let y = top + barsH;
  if (!withLanes) return { bars, lanes: null, axisY: y };
  const band = (h: number): Band => {
    y += LANE_GAP;
    const b = { top: y, height: h };
    y += h;
    return b;
  };
  const backpressure = band(LANE_HEIGHT);
  const size = band(LANE_HEIGHT);
  const commit = extra.commit ? band(LANE_HEIGHT) : null;
  const custom: Band[] = [];
  for (let i = 0; i < extra.custom; i++) custom.push(band(LANE_HEIGHT));
  const failures = band(FAILURE_LANE_HEIGHT);
  return { bars, lanes: { backpressure, size, commit, custom, failures }, axisY: y };
}

/** visibleMax is the largest lane value inside range: the top of the lane's scale. */
export function visibleMax(points: readonly LanePoint[], range: Range): number {
  let m = 0;
  for (const p of points) if (p.t_ms >= range.from && p.t_ms <= range.to && p.value > m) m = p.value;
  return m;
}

export interface LanePx {
  x: number;
  y: number;
  point: LanePoint;
}

/**
 * lanePoints places a lane's points: x by time, y by value on 0..max within
 * the band (max 0 draws everything on the floor). Points just outside the
 * range are kept so lines run to the edges.
 */
export function lanePoints(points: readonly LanePoint[], range: Range, width: number, band: Band, max: number): LanePx[] {
  const s = timeScale(range, width);
  const out: LanePx[] = [];
  const floor = band.top + band.height;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    // Outside the range, keep only the neighbour that leads into it.
    const last = i + 1 >= points.length;
    if (p.t_ms < range.from && (last || points[i + 1].t_ms < range.from)) continue;
    if (p.t_ms > range.to && (i === 0 || points[i - 1].t_ms > range.to)) continue;
    const frac = max > 0 ? Math.min(1, Math.max(0, p.value / max)) : 0;
    out.push({ x: s.toPx(p.t_ms), y: floor - frac * band.height, point: p });
  }
  return out;
}

/** laneHit finds the lane point nearest to x within slop pixels. */
export function laneHit(px: readonly LanePx[], x: number, slopPx = 8): LanePx | undefined {
  let best: LanePx | undefined;
  let d = slopPx;
  for (const p of px) {
    const dd = Math.abs(p.x - x);
    if (dd <= d) {
      best = p;
      d = dd;
    }
  }
  return best;
}

/** failureTicks places the failed (or merged-with-a-failure) bars on the failures lane. */
export function failureTicks(bars: readonly TimelineBar[], range: Range, width: number): { x: number; w: number; bar: TimelineBar }[] {
  const s = timeScale(range, width);
  const out: { x: number; w: number; bar: TimelineBar }[] = [];
  for (const b of bars) {
    if (b.status !== 'FAILED' || b.start_ms > range.to || b.start_ms < range.from - (range.to - range.from)) continue;
    const x = s.toPx(b.start_ms);
    if (x < -2 || x > width + 2) continue;
    out.push({ x, w: Math.max(2, s.toPx(b.start_ms + Math.max(0, b.max_duration_ms)) - x), bar: b });
  }
  return out;
}

/** brushRange turns a brushed pixel span into a time range (either drag direction); null if too narrow. */
export function brushRange(x0: number, x1: number, range: Range, width: number, minPx = 4): Range | null {
  const a = Math.max(0, Math.min(x0, x1));
  const b = Math.min(width, Math.max(x0, x1));
  if (b - a < minPx) return null;
  const s = timeScale(range, width);
  return { from: s.toMs(a), to: s.toMs(b) };
}
