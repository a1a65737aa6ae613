// Canvas painting of the checkpoint Gantt (GanttCanvas.svelte), as draw.ts
// paints the timeline: geometry comes from gantt.ts, colours from theme.ts,
// words from the caller; this file only turns them into pixels.
import type { GanttOriginInfo } from './causes';
import { GANTT_SUBTASK_ROW, GANTT_VERTEX_ROW, originLabelPlace, relTicks, rowAtY, type GanttRow } from './gantt';
import type { Theme } from './theme';

/** The label column's width and the axis' height, CSS px. */
export const LABEL_W = 250;
export const AXIS_H = 24;

/** What paintGantt draws. */
export interface GanttDrawInput {
  rows: GanttRow[];
  /** each row's top, from rowOffsets */
  tops: number[];
  domainMs: number;
  theme: Theme;
  /** the checkpoint's end and its failure, ms after trigger */
  endMs: number;
  failureMs?: number;
  /** the row under the pointer */
  hoverKey?: string;
  /** rows of the origin vertex (originRows), by index, with the queued span */
  originMarks: Map<number, { from?: number; to?: number }>;
  origin?: GanttOriginInfo;
  /** the words and numbers, in the user's language */
  text: {
    span: (ms: number) => string;
    count: (n: number) => string;
    subtask: (n: number | undefined) => string;
    notFetched: string;
    fromTrigger: string;
  };
}

/** fitText shortens text with an ellipsis until it fits maxPx. */
function fitText(ctx: CanvasRenderingContext2D, text: string, maxPx: number): string {
  if (ctx.measureText(text).width <= maxPx) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, mid) + '…').width <= maxPx) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, Math.max(1, lo)) + '…';
}

/**
 * paintGantt draws rows [first visible .. last visible] at scroll offset y0
 * into ctx of size w×h (CSS px), the bars pw px wide after the labels.
 * Returns what the origin's tag says where it was drawn ('' if nowhere).
 */
export function paintGantt(ctx: CanvasRenderingContext2D, d: GanttDrawInput, w: number, h: number, y0: number, pw: number): string {
  const c = d.theme;
  const rows = d.rows;
  const tops = d.tops;
  const domain = Math.max(1, d.domainMs);
  const x = (ms: number) => LABEL_W + (ms / domain) * pw;
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = c.bg;
  ctx.fillRect(0, 0, w, h);
  ctx.font = `11px ${c.font}`;
  ctx.textBaseline = 'middle';
  let label = ''; // what the origin's tag says where it was drawn (for tests and the accessible name)

  const ticks = relTicks(domain, pw, d.text.span);
  // Grid.
  ctx.strokeStyle = c.grid;
  ctx.lineWidth = 1;
  for (const tk of ticks) {
    const xx = Math.round(x(tk.ms)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(xx, AXIS_H);
    ctx.lineTo(xx, h);
    ctx.stroke();
  }

  const hatch = (() => {
    const tile = document.createElement('canvas');
    tile.width = 6;
    tile.height = 6;
    const g = tile.getContext('2d')!;
    g.strokeStyle = c.phase.pending;
    g.lineWidth = 1.5;
    g.beginPath();
    g.moveTo(0, 6);
    g.lineTo(6, 0);
    g.stroke();
    return ctx.createPattern(tile, 'repeat') ?? c.phase.pending;
  })();

  // Rows.
  let i = Math.max(0, rowAtY(rows, tops, y0));
  if (i < 0) i = 0;
  for (; i < rows.length; i++) {
    const r = rows[i];
    const rh = r.kind === 'vertex' ? GANTT_VERTEX_ROW : GANTT_SUBTASK_ROW;
    const top = AXIS_H + tops[i] - y0;
    if (top > h) break;
    if (top + rh < AXIS_H) continue;
    const mid = top + rh / 2;
    if (r.kind === 'vertex') {
      ctx.fillStyle = c.panel2;
      ctx.fillRect(0, top, w, rh);
    }
    if (d.hoverKey === r.key) {
      ctx.fillStyle = c.hover;
      ctx.fillRect(0, top, w, rh);
    }
    // Label: caret and name on the left, counts right-aligned against the bars.
    ctx.fillStyle = r.critical ? c.critical : r.kind === 'vertex' ? c.text : c.muted;
    ctx.font = `${r.kind === 'vertex' ? '600 ' : ''}11px ${c.font}`;
    if (r.kind === 'vertex') {
      const counts = `${d.text.count(r.acked)}/${d.text.count(r.total)}`;
      const cw = ctx.measureText(counts).width;
      ctx.fillText(counts, LABEL_W - 10 - cw, mid);
      const caret = r.missing ? '  ' : r.expanded ? '▾ ' : '▸ ';
      ctx.fillText(fitText(ctx, caret + r.vertexName, LABEL_W - 24 - cw), 6, mid);
    } else {
      ctx.fillText(d.text.subtask(r.subtask), 26, mid);
    }
    ctx.font = `11px ${c.font}`;
    if (r.missing) {
      // No stats came for this vertex: say so where its bar would be.
      ctx.fillStyle = c.warn;
      ctx.font = `italic 600 11px ${c.font}`;
      ctx.fillText(fitText(ctx, d.text.notFetched, pw - 8), LABEL_W + 6, mid);
      ctx.font = `11px ${c.font}`;
      continue;
    }
    // Bar.
    const bh = r.kind === 'vertex' ? 12 : 9;
    const by = mid - bh / 2;
    if (r.kind === 'vertex' && r.firstAckMs !== undefined && r.endMs !== undefined && r.endMs > r.firstAckMs) {
      // Spread of the vertex's acks: earliest to latest.
      ctx.strokeStyle = c.muted;
      ctx.beginPath();
      ctx.moveTo(x(r.firstAckMs), mid + bh / 2 + 2.5);
      ctx.lineTo(x(r.endMs), mid + bh / 2 + 2.5);
      ctx.stroke();
    }
    for (const s of r.segments) {
      const x0 = x(s.from);
      const ww = Math.max(s.to > s.from ? 1 : 0, x(s.to) - x0);
      if (ww <= 0) continue;
      ctx.fillStyle = s.phase === 'pending' ? hatch : c.phase[s.phase];
      ctx.fillRect(x0, by, ww, bh);
      if (s.phase === 'pending') {
        ctx.strokeStyle = c.phase.pending;
        ctx.strokeRect(x0 + 0.5, by + 0.5, ww - 1, bh - 1);
      }
    }
    if (r.kind === 'vertex' && !r.acknowledged && r.acked > 0 && r.endMs !== undefined) {
      // Some subtasks of this vertex never acknowledged: hatch from its last ack to the end.
      const x0 = x(r.endMs);
      const ww = x(domain) - x0;
      if (ww > 0) {
        ctx.fillStyle = hatch;
        ctx.fillRect(x0, by + 2, ww, bh - 4);
      }
    }
    if (r.critical) {
      const last = r.segments[r.segments.length - 1];
      const x1 = last ? x(last.to) : x(domain);
      ctx.strokeStyle = c.critical;
      ctx.lineWidth = 2;
      ctx.strokeRect(LABEL_W - 1, by - 2, x1 - LABEL_W + 2, bh + 4);
      ctx.lineWidth = 1;
    }
    const om = d.originMarks.get(i);
    if (om && d.origin) {
      label = paintOrigin(ctx, c, d.origin, om, r, { top, rh, mid, by, bh, w, x }) || label;
    }
  }

  // End and failure markers.
  const marker = (ms: number, color: string, dash: number[]) => {
    const xx = Math.round(x(ms)) + 0.5;
    ctx.strokeStyle = color;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(xx, AXIS_H);
    ctx.lineTo(xx, h);
    ctx.stroke();
    ctx.setLineDash([]);
  };
  if (d.endMs > 0) marker(d.endMs, c.text, [4, 3]);
  if (d.failureMs !== undefined && d.failureMs > 0) marker(d.failureMs, c.failed, [2, 2]);

  // Axis on top, over the rows.
  ctx.fillStyle = c.bg;
  ctx.fillRect(0, 0, w, AXIS_H);
  ctx.strokeStyle = c.axis;
  ctx.beginPath();
  ctx.moveTo(LABEL_W, AXIS_H - 0.5);
  ctx.lineTo(w, AXIS_H - 0.5);
  ctx.stroke();
  ctx.fillStyle = c.muted;
  ctx.textBaseline = 'middle';
  ctx.fillText(d.text.fromTrigger, 6, AXIS_H / 2);
  for (const tk of ticks) {
    const xx = x(tk.ms);
    const tw = ctx.measureText(tk.label).width;
    ctx.fillText(tk.label, Math.min(w - tw - 2, Math.max(LABEL_W, xx - tw / 2)), AXIS_H / 2);
  }
  return label;
}

/**
 * paintOrigin marks a row of the origin vertex: a stripe and an outline on
 * its label in the phase's colour, the queued time outlined on the bar with
 * an arrow pointing back to when the upstream's barrier left, and on the
 * vertex row as much of "barriers queued here ← behind X" as fits after the
 * bar. Returns the words drawn.
 */
function paintOrigin(
  ctx: CanvasRenderingContext2D,
  c: Theme,
  o: GanttOriginInfo,
  om: { from?: number; to?: number },
  r: GanttRow,
  g: { top: number; rh: number; mid: number; by: number; bh: number; w: number; x: (ms: number) => number },
): string {
  const pc = c.phase[o.phase === 'alignment' ? 'alignment' : 'start_delay'];
  ctx.fillStyle = pc;
  ctx.fillRect(0, g.top + 1, 4, g.rh - 2);
  ctx.strokeStyle = pc;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(1.5, g.top + 1.5, LABEL_W - 4, g.rh - 3);
  ctx.lineWidth = 1;
  if (om.from !== undefined && om.to !== undefined) {
    const x0 = g.x(om.from);
    const x1 = g.x(om.to);
    ctx.strokeStyle = c.text;
    ctx.setLineDash([3, 2]);
    ctx.strokeRect(x0 + 0.5, g.by - 2.5, Math.max(1, x1 - x0 - 1), g.bh + 5);
    ctx.setLineDash([]);
    if (x1 - x0 > 14) {
      // ← from the barrier's arrival back to when the upstream's barrier left.
      ctx.strokeStyle = c.bg;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(x1 - 3, g.mid);
      ctx.lineTo(x0 + 3, g.mid);
      ctx.moveTo(x0 + 7, g.mid - 3);
      ctx.lineTo(x0 + 3, g.mid);
      ctx.lineTo(x0 + 7, g.mid + 3);
      ctx.stroke();
      ctx.lineWidth = 1;
    }
  }
  if (r.kind !== 'vertex') return '';
  // The label goes after the bar, or inside the queued time (over the arrow) when only there it fits whole.
  const last = r.segments[r.segments.length - 1];
  const after = (last ? g.x(last.to) : LABEL_W) + 8;
  const slots = [{ x: after, room: g.w - after - 4 }];
  if (om.from !== undefined && om.to !== undefined) slots.push({ x: g.x(om.from) + 12, room: g.x(om.to) - g.x(om.from) - 18 });
  ctx.font = `600 10.5px ${c.font}`;
  const tagW = ctx.measureText(o.tag).width + 10;
  ctx.font = `11px ${c.font}`;
  const edgeW = o.edge ? ctx.measureText(o.edge).width : 0;
  const { slot, fit } = originLabelPlace(slots, tagW, edgeW);
  if (fit === 'none') return '';
  const start = slots[slot].x;
  const inside = slot > 0;
  const th = 15;
  ctx.fillStyle = c.bg;
  ctx.strokeStyle = pc;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  if (ctx.roundRect) ctx.roundRect(start, g.mid - th / 2, tagW, th, 7);
  else ctx.rect(start, g.mid - th / 2, tagW, th);
  ctx.fill();
  ctx.stroke();
  ctx.lineWidth = 1;
  ctx.fillStyle = c.text;
  ctx.font = `600 10.5px ${c.font}`;
  ctx.fillText(o.tag, start + 5, g.mid);
  ctx.font = `11px ${c.font}`;
  if (fit === 'tag') return o.tag;
  if (inside) {
    // Over the bar: the edge on its own backing so it reads against the phase colour.
    const ew = edgeW + 8;
    ctx.fillStyle = c.bg;
    ctx.beginPath();
    if (ctx.roundRect) ctx.roundRect(start + tagW + 2, g.mid - th / 2, ew, th, 7);
    else ctx.rect(start + tagW + 2, g.mid - th / 2, ew, th);
    ctx.fill();
    ctx.fillStyle = c.text;
  }
  ctx.fillText(o.edge, start + tagW + 6, g.mid);
  return `${o.tag} ${o.edge}`;
}
