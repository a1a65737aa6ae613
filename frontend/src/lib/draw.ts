// Canvas painting of the timeline. Geometry comes from timeline.ts and ticks
// from ticks.ts; this file only turns them into pixels.
import type { LanePoint, TimelineBar, TimelineGap } from './api';
import type { Range } from './scale';
import { timeScale } from './scale';
import {
  barEndedUnseen,
  failureTicks,
  lanePoints,
  layoutBars,
  layoutGaps,
  timelineLayout,
  visibleMax,
  type BarRect,
  type GapRect,
  type LanePx,
  type Plot,
  type TimelineLayout,
} from './timeline';
import type { Theme } from './theme';
import { timeTicks } from './ticks';

export function statusColor(p: Theme, status: TimelineBar['status']): string {
  return status === 'FAILED' ? p.failed : status === 'IN_PROGRESS' ? p.inProgress : p.completed;
}

/** barColor is a bar's status colour; grey when its checkpoints ended unseen. */
export function barColor(p: Theme, bar: TimelineBar): string {
  return barEndedUnseen(bar) ? p.endedUnseen : statusColor(p, bar.status);
}

export const AXIS_HEIGHT = 38;
export const PLOT_TOP = 20;

export function plotFor(width: number, height: number): Plot {
  return { top: PLOT_TOP, height: Math.max(10, height - PLOT_TOP - AXIS_HEIGHT - 4), width };
}

export interface DrawInput {
  bars: TimelineBar[];
  gaps: TimelineGap[];
  range: Range;
  width: number;
  height: number;
  nowMs: number;
  locale: string;
  selectedId: number | null;
  /** the bar under the pointer, matched by identity so a stale rectangle is never outlined */
  hovered: TimelineBar | null;
  /** label drawn top-left, e.g. "max 19,022 ms" */
  maxLabel: string;
  gapLabel: (g: TimelineGap) => string;
  /** lanes beneath the bars; omitted = bars only */
  lanes?: {
    backpressure: LanePoint[];
    size: LanePoint[];
    /** the sink's commit duration (ms); empty = no commit lane */
    commit?: LanePoint[];
    /** custom lanes to draw, in order (the caller leaves out those without points) */
    custom?: { name: string; points: LanePoint[] }[];
    /** lane names and the label of each lane's top value */
    labels: { backpressure: string; size: string; failures: string; commit?: string };
    sizeMaxLabel: (max: number) => string;
    commitMaxLabel?: (max: number) => string;
    customMaxLabel?: (max: number) => string;
  };
  /** a brushed span in CSS pixels, drawn as a selection */
  brush?: { x0: number; x1: number } | null;
  /** the change markers in view (lib/changes.ts): a line through bars and lanes, the kind's glyph above them */
  marks?: ChangeMark[];
}

/** A change marker as drawn: where (x), which glyph, and whether it is the chosen one. */
export type ChangeMark = { x: number; glyph: string; chosen: boolean };

/** MARK_GLYPH_TOP and MARK_GLYPH_HEIGHT place a marker's glyph in the strip above the bars. */
export const MARK_GLYPH_TOP = 2;
export const MARK_GLYPH_HEIGHT = 16;

export interface DrawResult {
  bars: BarRect[];
  gaps: GapRect[];
  plot: Plot;
  layout: TimelineLayout;
  lanes: {
    backpressure: LanePx[];
    size: LanePx[];
    /** empty without a commit lane */
    commit: LanePx[];
    /** one per custom lane drawn, in the layout's order */
    custom: { name: string; px: LanePx[] }[];
    failures: { x: number; w: number; bar: TimelineBar }[];
  } | null;
}

// The hatch tile only depends on the colour: build it once per colour, not per frame.
const hatchTiles = new Map<string, HTMLCanvasElement>();

function hatch(ctx: CanvasRenderingContext2D, color: string): CanvasPattern | string {
  let c = hatchTiles.get(color);
  if (!c) {
    c = document.createElement('canvas');
    c.width = 8;
    c.height = 8;
    const g = c.getContext('2d');
    if (!g) return color;
    g.strokeStyle = color;
    g.globalAlpha = 0.3;
    g.lineWidth = 1.5;
    g.beginPath();
    g.moveTo(0, 8);
    g.lineTo(8, 0);
    g.stroke();
    hatchTiles.set(color, c);
  }
  return ctx.createPattern(c, 'repeat') ?? color;
}

/** drawTimeline paints one frame and returns the geometry used, for hit-testing. */
export function drawTimeline(ctx: CanvasRenderingContext2D, p: Theme, d: DrawInput): DrawResult {
  const { width, height, range } = d;
  const commitPts = d.lanes?.commit ?? [];
  const customLanes = d.lanes?.custom ?? [];
  const layout = timelineLayout(width, height, !!d.lanes, PLOT_TOP, AXIS_HEIGHT, { commit: commitPts.length > 0, custom: customLanes.length });
  const plot = layout.bars;
  const s = timeScale(range, width);
  const baseY = plot.top + plot.height;
  const axisY = layout.axisY;

  ctx.clearRect(0, 0, width, height);
  ctx.fillStyle = p.bg;
  ctx.fillRect(0, 0, width, height);
  ctx.font = `11px ${p.font}`;
  ctx.textBaseline = 'top';

  // Grid and axis ticks, through the bars and the lanes.
  const ticks = timeTicks(range.from, range.to, width, d.locale);
  ctx.strokeStyle = p.grid;
  ctx.lineWidth = 1;
  for (const tk of ticks) {
    const x = Math.round(s.toPx(tk.ms)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, plot.top);
    ctx.lineTo(x, axisY);
    ctx.stroke();
  }

  // Gaps: hatched spans where checkpoints are known to be missing.
  const gapRects = layoutGaps(d.gaps, range, width);
  if (gapRects.length > 0) {
    const pattern = hatch(ctx, p.gap);
    for (const g of gapRects) {
      ctx.fillStyle = pattern;
      ctx.fillRect(g.x, plot.top, g.w, plot.height);
      ctx.strokeStyle = p.gap;
      ctx.setLineDash([3, 3]);
      ctx.strokeRect(Math.round(g.x) + 0.5, plot.top + 0.5, Math.max(1, Math.round(g.w) - 1), plot.height - 1);
      ctx.setLineDash([]);
      const label = d.gapLabel(g.gap);
      const tw = ctx.measureText(label).width;
      if (tw + 6 < g.w || g.w > 30) {
        ctx.fillStyle = p.gap;
        ctx.fillText(label, Math.max(2, Math.min(width - tw - 2, g.x + 3)), plot.top + 3);
      } else {
        ctx.fillStyle = p.gap;
        ctx.fillText('⚠', g.x + g.w / 2 - 4, plot.top + 3);
      }
    }
  }

  // Bars.
  const rects = layoutBars(d.bars, range, plot, d.nowMs);
  for (const r of rects) {
    ctx.fillStyle = barColor(p, r.bar);
    ctx.fillRect(r.x, r.y, r.w, r.h);
  }
  // Failed bars on top so a merged neighbour never hides them.
  for (const r of rects) {
    if (r.bar.status !== 'FAILED') continue;
    ctx.fillStyle = p.failed;
    ctx.fillRect(r.x, r.y, r.w, r.h);
  }

  const outline = (r: BarRect, w: number) => {
    ctx.strokeStyle = p.highlight;
    ctx.lineWidth = w;
    ctx.strokeRect(r.x - w / 2 - 1, r.y - w / 2 - 1, r.w + w + 2, r.h + w + 2);
  };
  if (d.selectedId !== null) {
    for (const r of rects) {
      if (d.selectedId >= r.bar.first_id && d.selectedId <= r.bar.last_id) outline(r, 2);
    }
  }
  if (d.hovered) {
    const h = d.hovered;
    const r = rects.find((x) => x.bar.first_id === h.first_id && x.bar.start_ms === h.start_ms);
    if (r) outline(r, 1);
  }

  // Baseline of the bars.
  ctx.strokeStyle = p.axis;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(0, baseY + 0.5);
  ctx.lineTo(width, baseY + 0.5);
  ctx.stroke();

  // Lanes.
  let lanesOut: DrawResult['lanes'] = null;
  if (d.lanes && layout.lanes) {
    const L = layout.lanes;
    const bpPx = lanePoints(d.lanes.backpressure, range, width, L.backpressure, 1);
    const sizeMax = visibleMax(d.lanes.size, range);
    const sizePx = lanePoints(d.lanes.size, range, width, L.size, sizeMax);
    const fails = failureTicks(d.bars, range, width);
    // Commit and custom lanes: each on its own 0..max scale, the largest value in view.
    const commitMax = L.commit ? visibleMax(commitPts, range) : 0;
    const commitPx = L.commit ? lanePoints(commitPts, range, width, L.commit, commitMax) : [];
    const custom = L.custom.map((band, i) => {
      const lane = customLanes[i];
      const max = visibleMax(lane.points, range);
      return { name: lane.name, band, max, px: lanePoints(lane.points, range, width, band, max) };
    });
    lanesOut = { backpressure: bpPx, size: sizePx, commit: commitPx, custom: custom.map((c) => ({ name: c.name, px: c.px })), failures: fails };

    const bandBg = (b: { top: number; height: number }) => {
      ctx.fillStyle = p.grid;
      ctx.globalAlpha = 0.35;
      ctx.fillRect(0, b.top, width, b.height);
      ctx.globalAlpha = 1;
    };
    bandBg(L.backpressure);
    bandBg(L.size);
    if (L.commit) bandBg(L.commit);
    for (const b of L.custom) bandBg(b);
    bandBg(L.failures);

    // A filled step area: each value holds until the next sample.
    const stepArea = (px: LanePx[], band: { top: number; height: number }, color: string) => {
      if (px.length === 0) return;
      const floor = band.top + band.height;
      ctx.beginPath();
      ctx.moveTo(px[0].x, floor);
      for (let i = 0; i < px.length; i++) {
        const q = px[i];
        if (i > 0) ctx.lineTo(q.x, px[i - 1].y);
        ctx.lineTo(q.x, q.y);
      }
      ctx.lineTo(px[px.length - 1].x, floor);
      ctx.closePath();
      ctx.fillStyle = color;
      ctx.globalAlpha = 0.35;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.strokeStyle = color;
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      for (let i = 0; i < px.length; i++) {
        const q = px[i];
        if (i === 0) ctx.moveTo(q.x, q.y);
        else {
          ctx.lineTo(q.x, px[i - 1].y);
          ctx.lineTo(q.x, q.y);
        }
      }
      ctx.stroke();
    };
    // Backpressure: 0..100 %.
    stepArea(bpPx, L.backpressure, p.laneBp);
    // Sink commit duration and custom lanes: the same, on their own scales.
    if (L.commit) stepArea(commitPx, L.commit, p.laneCommit);
    for (const c of custom) stepArea(c.px, c.band, p.laneCustom);
    // Size: one stem per checkpoint (or per merged pixel column).
    if (sizePx.length > 0) {
      const floor = L.size.top + L.size.height;
      ctx.strokeStyle = p.laneSize;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (const q of sizePx) {
        const x = Math.round(q.x) + 0.5;
        ctx.moveTo(x, floor);
        ctx.lineTo(x, Math.min(floor - 1, q.y));
      }
      ctx.stroke();
    }
    // Failures: a red tick per failed bar.
    ctx.fillStyle = p.failed;
    for (const f of fails) ctx.fillRect(f.x, L.failures.top + 2, Math.min(f.w, 6), L.failures.height - 4);

    // Lane names (left) and the value at the top of each lane (right).
    ctx.fillStyle = p.muted;
    const label = (text: string, y: number) => {
      const tw = ctx.measureText(text).width;
      ctx.fillStyle = p.bg;
      ctx.globalAlpha = 0.75;
      ctx.fillRect(2, y, tw + 6, 13);
      ctx.globalAlpha = 1;
      ctx.fillStyle = p.muted;
      ctx.fillText(text, 5, y + 1);
    };
    label(d.lanes.labels.backpressure, L.backpressure.top);
    label(d.lanes.labels.size, L.size.top);
    if (L.commit) label(d.lanes.labels.commit ?? '', L.commit.top);
    for (const c of custom) label(c.name, c.band.top);
    label(d.lanes.labels.failures, L.failures.top);
    const right = (text: string, y: number) => {
      const tw = ctx.measureText(text).width;
      ctx.fillStyle = p.muted;
      ctx.fillText(text, width - tw - 4, y + 1);
    };
    right('100%', L.backpressure.top);
    if (sizeMax > 0) right(d.lanes.sizeMaxLabel(sizeMax), L.size.top);
    if (L.commit && commitMax > 0) right(d.lanes.commitMaxLabel?.(commitMax) ?? String(commitMax), L.commit.top);
    for (const c of custom) if (c.max > 0) right(d.lanes.customMaxLabel?.(c.max) ?? String(c.max), c.band.top);
  }

  // Time axis.
  ctx.strokeStyle = p.axis;
  ctx.lineWidth = 1;
  if (axisY !== baseY) {
    ctx.beginPath();
    ctx.moveTo(0, axisY + 0.5);
    ctx.lineTo(width, axisY + 0.5);
    ctx.stroke();
  }
  ctx.fillStyle = p.muted;
  for (const tk of ticks) {
    const x = Math.round(s.toPx(tk.ms)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, axisY);
    ctx.lineTo(x, axisY + 5);
    ctx.stroke();
    const tw = ctx.measureText(tk.label).width;
    const lx = Math.max(0, Math.min(width - tw, x - tw / 2));
    ctx.fillText(tk.label, lx, axisY + 7);
    if (tk.dateLabel) {
      const dw = ctx.measureText(tk.dateLabel).width;
      ctx.fillText(tk.dateLabel, Math.max(0, Math.min(width - dw, x - dw / 2)), axisY + 21);
    }
  }

  // Scale hint: what full height means.
  if (d.maxLabel) {
    ctx.fillStyle = p.muted;
    ctx.fillText(d.maxLabel, 4, 4);
  }

  if (d.marks) drawMarks(ctx, p, d.marks, axisY);

  // Brushed selection.
  if (d.brush) {
    const a = Math.min(d.brush.x0, d.brush.x1);
    const w = Math.abs(d.brush.x1 - d.brush.x0);
    ctx.fillStyle = p.highlight;
    ctx.globalAlpha = 0.12;
    ctx.fillRect(a, plot.top, w, axisY - plot.top);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = p.highlight;
    ctx.setLineDash([4, 3]);
    ctx.strokeRect(Math.round(a) + 0.5, plot.top + 0.5, Math.round(w), axisY - plot.top - 1);
    ctx.setLineDash([]);
  }
  return { bars: rects, gaps: gapRects, plot, layout, lanes: lanesOut };
}

/** drawMarks draws each change marker: a dashed line down to the axis from its glyph, boxed above the bars. */
function drawMarks(ctx: CanvasRenderingContext2D, p: Theme, marks: ChangeMark[], axisY: number) {
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  for (const m of marks) {
    const x = Math.round(m.x) + 0.5;
    const color = m.chosen ? p.highlight : p.accent;
    ctx.strokeStyle = color;
    ctx.lineWidth = m.chosen ? 2 : 1;
    ctx.setLineDash(m.chosen ? [] : [4, 3]);
    ctx.beginPath();
    ctx.moveTo(x, MARK_GLYPH_TOP + MARK_GLYPH_HEIGHT);
    ctx.lineTo(x, axisY);
    ctx.stroke();
    ctx.setLineDash([]);
    const w = Math.max(MARK_GLYPH_HEIGHT, ctx.measureText(m.glyph).width + 6);
    ctx.fillStyle = m.chosen ? p.highlight : p.bg;
    ctx.fillRect(x - w / 2, MARK_GLYPH_TOP, w, MARK_GLYPH_HEIGHT);
    ctx.lineWidth = 1;
    ctx.strokeRect(x - w / 2, MARK_GLYPH_TOP + 0.5, w, MARK_GLYPH_HEIGHT - 1);
    ctx.fillStyle = m.chosen ? p.bg : color;
    ctx.fillText(m.glyph, x, MARK_GLYPH_TOP + MARK_GLYPH_HEIGHT / 2 + 0.5);
  }
  ctx.textBaseline = 'top';
  ctx.textAlign = 'start';
}
