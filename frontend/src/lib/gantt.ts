// Layout of the checkpoint Gantt: one row per vertex (collapsed) or per
// subtask (expanded), each bar starting at the trigger and stacking the
// phases the backend split (start_delay, alignment, sync, async, ack) in the
// order they happen. Nothing is derived here beyond placing those values:
// absent phases are skipped (not drawn as 0), and the critical path is the
// backend's `critical` flag.
import { SUBTASK_PHASES, type Phase, type PhaseOrE2E, type Phases, type SubtaskRow } from './api';
import { phaseValue } from './phases';

export interface GanttSegment {
  phase: Phase | 'pending';
  /** ms since the trigger */
  from: number;
  to: number;
}

export interface GanttRow {
  key: string;
  kind: 'vertex' | 'subtask';
  vertexId: string;
  vertexName: string;
  /** subtask rows: the subtask; vertex rows: the subtask whose bar is shown (the one that acked last) */
  subtask?: number;
  segments: GanttSegment[];
  /** subtask rows: it acknowledged; vertex rows: every subtask did */
  acknowledged: boolean;
  /** on the checkpoint's critical path (the backend's flag) */
  critical: boolean;
  /** trigger → ack of the subtask (vertex rows: the last ack); absent while pending */
  endMs?: number;
  /** vertex rows: trigger → the earliest ack, for the spread of the vertex's subtasks */
  firstAckMs?: number;
  acked: number;
  total: number;
  /** vertex rows: whether its subtasks are listed below it */
  expanded: boolean;
  /** vertex rows: its per-subtask stats could not be fetched (the checkpoint's details are partial); no bars */
  missing?: boolean;
}

export interface GanttLayout {
  rows: GanttRow[];
  /** the time axis spans 0..domainMs after the trigger */
  domainMs: number;
  /** vertices with subtasks, in display order (upstream first, as the backend sorted them) */
  vertexIds: string[];
}

/** A vertex whose per-subtask stats could not be fetched (TaskDetail.missing). */
export interface MissingVertex {
  vertexId: string;
  vertexName: string;
  acked: number;
  total: number;
}

/** stackPhases puts the present phases end to end from the trigger. */
export function stackPhases(ph: Phases): GanttSegment[] {
  const out: GanttSegment[] = [];
  let t = 0;
  for (const p of SUBTASK_PHASES) {
    const v = phaseValue(ph, p);
    if (v === undefined) continue;
    const d = Math.max(0, v);
    out.push({ phase: p, from: t, to: t + d });
    t += d;
  }
  return out;
}

function subtaskEnd(s: SubtaskRow): number | undefined {
  if (!s.acknowledged) return undefined;
  if (typeof s.end_to_end_ms === 'number') return s.end_to_end_ms;
  const seg = stackPhases(s.phases);
  return seg.length ? seg[seg.length - 1].to : undefined;
}

export interface GanttOptions {
  /** vertex ids whose subtasks are shown */
  expanded: ReadonlySet<string>;
  /** where the checkpoint ended, ms after trigger (end to end, or the failure); pending bars run to here */
  endMs: number;
  /** vertices without stats, each shown as a labelled row without bars */
  missing?: readonly MissingVertex[];
  /** the job's vertex ids upstream first (CheckpointView.vertices): where the missing rows go among the others */
  order?: readonly string[];
}

/**
 * placeMissing puts each missing vertex before the first listed vertex that
 * comes after it in order (at the end when none does, or order does not know it).
 */
function placeMissing(present: readonly string[], missing: readonly string[], order: readonly string[]): string[] {
  const pos = new Map(order.map((id, i) => [id, i]));
  const out = [...present];
  for (const m of missing) {
    const pm = pos.get(m);
    let at = out.length;
    if (pm !== undefined) {
      const k = out.findIndex((id) => (pos.get(id) ?? -1) > pm);
      if (k >= 0) at = k;
    }
    out.splice(at, 0, m);
  }
  return out;
}

/** ganttRows lays out the checkpoint's subtasks as Gantt rows. */
export function ganttRows(subtasks: readonly SubtaskRow[], opts: GanttOptions): GanttLayout {
  const byVertex = new Map<string, SubtaskRow[]>();
  const order: string[] = [];
  let domain = Math.max(0, opts.endMs);
  for (const s of subtasks) {
    let list = byVertex.get(s.vertex_id);
    if (!list) {
      list = [];
      byVertex.set(s.vertex_id, list);
      order.push(s.vertex_id);
    }
    list.push(s);
    const e = subtaskEnd(s);
    if (e !== undefined) domain = Math.max(domain, e);
  }
  const pendingSeg = (): GanttSegment[] => [{ phase: 'pending', from: 0, to: domain }];
  const missing = new Map((opts.missing ?? []).filter((m) => !byVertex.has(m.vertexId)).map((m) => [m.vertexId, m]));
  const rows: GanttRow[] = [];
  for (const vid of placeMissing(order, [...missing.keys()], opts.order ?? [])) {
    const mv = missing.get(vid);
    if (mv) {
      rows.push({
        key: `v:${vid}`,
        kind: 'vertex',
        vertexId: vid,
        vertexName: mv.vertexName || vid,
        segments: [],
        acknowledged: mv.acked === mv.total,
        critical: false,
        acked: mv.acked,
        total: mv.total,
        expanded: false,
        missing: true,
      });
      continue;
    }
    const list = byVertex.get(vid)!;
    const name = list.find((s) => s.vertex_name)?.vertex_name || vid;
    let last: SubtaskRow | undefined;
    let lastEnd = -1;
    let firstEnd: number | undefined;
    let acked = 0;
    for (const s of list) {
      const e = subtaskEnd(s);
      if (e === undefined) continue;
      acked++;
      // The critical subtask represents its vertex; otherwise the one that acked last.
      if (s.critical || (!last?.critical && e > lastEnd)) {
        last = s;
        lastEnd = e;
      }
      firstEnd = firstEnd === undefined ? e : Math.min(firstEnd, e);
    }
    const expanded = opts.expanded.has(vid);
    rows.push({
      key: `v:${vid}`,
      kind: 'vertex',
      vertexId: vid,
      vertexName: name,
      subtask: last?.subtask,
      segments: last ? stackPhases(last.phases) : pendingSeg(),
      acknowledged: acked === list.length,
      critical: list.some((s) => s.critical),
      endMs: last ? lastEnd : undefined,
      firstAckMs: firstEnd,
      acked,
      total: list.length,
      expanded,
    });
    if (!expanded) continue;
    for (const s of list) {
      const e = subtaskEnd(s);
      rows.push({
        key: `s:${vid}:${s.subtask}`,
        kind: 'subtask',
        vertexId: vid,
        vertexName: name,
        subtask: s.subtask,
        segments: s.acknowledged ? stackPhases(s.phases) : pendingSeg(),
        acknowledged: s.acknowledged,
        critical: !!s.critical,
        endMs: e,
        acked: s.acknowledged ? 1 : 0,
        total: 1,
        expanded: false,
      });
    }
  }
  return { rows, domainMs: domain, vertexIds: order };
}

/** segmentAt finds the segment of row under time t (ms after trigger), with slop in ms. */
export function segmentAt(row: GanttRow, t: number, slopMs = 0): GanttSegment | undefined {
  let best: GanttSegment | undefined;
  let bestDist = Infinity;
  for (const s of row.segments) {
    const d = t < s.from ? s.from - t : t > s.to ? t - s.to : 0;
    if (d <= slopMs && d < bestDist) {
      best = s;
      bestDist = d;
    }
  }
  return best;
}

/** A tick of the relative time axis (ms after the trigger). */
export interface RelTick {
  ms: number;
  label: string;
}

/**
 * relTicks picks a 1-2-5 step so that ticks are at least minSpacingPx apart
 * over 0..domainMs drawn widthPx wide, labelled with fmt.
 */
export function relTicks(domainMs: number, widthPx: number, fmt: (ms: number) => string, minSpacingPx = 80): RelTick[] {
  if (!(domainMs > 0) || !(widthPx > 0)) return [{ ms: 0, label: fmt(0) }];
  const minStep = (domainMs * minSpacingPx) / widthPx;
  let step = 1;
  for (let p = 1; p < 1e12; p *= 10) {
    const s = [1, 2, 5].map((k) => k * p).find((s) => s >= minStep);
    if (s !== undefined) {
      step = s;
      break;
    }
  }
  const out: RelTick[] = [];
  for (let ms = 0; ms <= domainMs + 1e-9 && out.length < 1000; ms += step) out.push({ ms, label: fmt(ms) });
  return out;
}

/** Row heights of the Gantt, in CSS pixels. */
export const GANTT_VERTEX_ROW = 22;
export const GANTT_SUBTASK_ROW = 16;

/** rowOffsets gives each row's top and the total height. */
export function rowOffsets(rows: readonly GanttRow[]): { tops: number[]; total: number } {
  const tops: number[] = [];
  let y = 0;
  for (const r of rows) {
    tops.push(y);
    y += r.kind === 'vertex' ? GANTT_VERTEX_ROW : GANTT_SUBTASK_ROW;
  }
  return { tops, total: y };
}

/** rowAtY finds the row under y (relative to the first row's top), by binary search over tops. */
export function rowAtY(rows: readonly GanttRow[], tops: readonly number[], y: number): number {
  if (y < 0 || rows.length === 0) return -1;
  let lo = 0;
  let hi = tops.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (tops[mid] <= y) lo = mid;
    else hi = mid - 1;
  }
  const h = rows[lo].kind === 'vertex' ? GANTT_VERTEX_ROW : GANTT_SUBTASK_ROW;
  return y < tops[lo] + h ? lo : -1;
}

/** The origin of queued barriers as the Gantt marks it (lib/causes ganttOrigin). */
export interface GanttOriginMark {
  vertexId: string;
  /** the subtask the queued time was measured on, when known */
  subtask?: number;
  /** the phase whose segment holds the queued time (start_delay or alignment), when known */
  phase?: PhaseOrE2E;
  /** how long the barriers queued there, when known */
  ms?: number;
}

/** A row to mark as the origin, with the queued interval on it (ms after trigger) when it can be placed. */
export interface OriginRowMark {
  index: number;
  from?: number;
  to?: number;
}

/**
 * originRows finds the rows to mark for the origin: its vertex row and, when
 * expanded, the subtask row the time was measured on. The queued interval is
 * the last `ms` of the row's segment of that phase (barriers queued until the
 * phase ended), placed only on a row showing that subtask.
 */
export function originRows(rows: readonly GanttRow[], o: GanttOriginMark | undefined): OriginRowMark[] {
  if (!o) return [];
  const out: OriginRowMark[] = [];
  rows.forEach((r, index) => {
    if (r.vertexId !== o.vertexId || r.missing) return;
    if (r.kind === 'subtask' && o.subtask !== undefined && r.subtask !== o.subtask) return;
    const m: OriginRowMark = { index };
    const seg = o.phase && r.segments.find((s) => s.phase === o.phase);
    const sameSub = o.subtask === undefined || r.subtask === o.subtask;
    if (seg && sameSub && o.ms !== undefined && o.ms > 0 && seg.to > seg.from) {
      m.to = seg.to;
      m.from = Math.max(seg.from, seg.to - o.ms);
    }
    out.push(m);
  });
  return out;
}

/**
 * originLabelFit says how much of the origin's label fits in roomPx, most
 * detail first: the tag and the edge ("barriers queued here ← behind X"),
 * the tag alone, or nothing (the row keeps its marker).
 */
export function originLabelFit(roomPx: number, tagPx: number, edgePx: number, gapPx = 6): 'full' | 'tag' | 'none' {
  if (edgePx > 0 && tagPx + gapPx + edgePx <= roomPx) return 'full';
  if (tagPx <= roomPx) return 'tag';
  return 'none';
}

/** A place the origin's label may go: x where it starts and the room it has (px). */
export interface LabelSlot {
  x: number;
  room: number;
}

/**
 * originLabelPlace picks where the origin's label goes and how much of it:
 * the first slot (after the bar, then inside the queued time) where the whole
 * label fits, else the first where the tag alone fits, else none.
 */
export function originLabelPlace(slots: readonly LabelSlot[], tagPx: number, edgePx: number, gapPx = 6): { slot: number; fit: 'full' | 'tag' | 'none' } {
  for (const want of ['full', 'tag'] as const) {
    const i = slots.findIndex((s) => originLabelFit(s.room, tagPx, edgePx, gapPx) === want);
    if (i >= 0) return { slot: i, fit: want };
  }
  return { slot: -1, fit: 'none' };
}
