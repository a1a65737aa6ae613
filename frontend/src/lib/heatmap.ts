// From a heatmap cell to the checkpoints behind it. The backend aggregated
// the cells (backend/analyze/heatmap.go); this only maps a cell back to a time
// range and ids, and picks the matching rows of the checkpoint list.
import type { Buckets, CheckpointRow, FailureCell, PhaseCell, Status, VertexColumn, VertexHeatmap } from './api';

/** A request for the checkpoints behind one cell. */
export interface CellSelection {
  /** trigger-time range to list, inclusive; to 0 = unbounded */
  fromMs: number;
  toMs: number;
  /** only these ids (failure cells); undefined = every id in the range */
  ids?: number[];
  /** only ids in this inclusive range (vertex heatmap columns) */
  idRange?: [number, number];
  /** only this pipeline (vertex heatmap columns); undefined = any */
  pipeline?: number;
  /** only checkpoints in this status */
  status?: Status;
  /** the checkpoint to point out (the phase heatmap's maximum) */
  highlight?: { id: number; pipeline: number };
}

/** bucketRange is the inclusive trigger-time range of bucket i. */
export function bucketRange(b: Buckets, i: number): { fromMs: number; toMs: number } {
  const from = b.start_ms + i * b.width_ms;
  return { fromMs: from, toMs: from + b.width_ms - 1 };
}

/** failureCellSelection: the failed checkpoints a failure-heatmap cell counted. */
export function failureCellSelection(b: Buckets, cell: FailureCell): CellSelection {
  return { ...bucketRange(b, cell.bucket), ids: [...cell.checkpoint_ids], status: 'FAILED' };
}

/** phaseCellSelection: the completed checkpoints of a phase-heatmap cell, its slowest pointed out. */
export function phaseCellSelection(b: Buckets, cell: PhaseCell): CellSelection {
  return {
    ...bucketRange(b, cell.bucket),
    status: 'COMPLETED',
    highlight: { id: cell.max_id, pipeline: cell.max_pipeline ?? 0 },
  };
}

/**
 * vertexColumnSelection: the checkpoints merged into column col of a vertex
 * heatmap. Columns are consecutive in trigger order, so the next column's
 * first trigger bounds this one.
 */
export function vertexColumnSelection(hm: VertexHeatmap, col: number): CellSelection {
  const c: VertexColumn = hm.columns[col];
  const next = hm.columns[col + 1];
  return {
    fromMs: c.trigger_ms,
    toMs: next ? Math.max(c.trigger_ms, next.trigger_ms - 1) : 0,
    idRange: [c.first_id, c.last_id],
    pipeline: c.count === 1 ? (c.pipeline ?? 0) : undefined,
  };
}

/** selectRows keeps the rows of a checkpoint list that a selection names, in trigger order. */
export function selectRows(rows: readonly CheckpointRow[], sel: CellSelection): CheckpointRow[] {
  const ids = sel.ids ? new Set(sel.ids) : undefined;
  return rows
    .filter((r) => {
      if (sel.fromMs && r.trigger_ms < sel.fromMs) return false;
      if (sel.toMs && r.trigger_ms > sel.toMs) return false;
      if (ids && !ids.has(r.id)) return false;
      if (sel.idRange && (r.id < sel.idRange[0] || r.id > sel.idRange[1])) return false;
      if (sel.pipeline !== undefined && r.pipeline !== sel.pipeline) return false;
      if (sel.status && r.status !== sel.status) return false;
      return true;
    })
    .sort((a, b) => a.trigger_ms - b.trigger_ms || a.pipeline - b.pipeline || a.id - b.id);
}

/**
 * logScale maps a duration to a colour position: heatmaps span milliseconds
 * to minutes, and a linear scale would paint everything but the worst cell
 * the same colour. The exact value is always in the tooltip.
 */
export function logScale(ms: number): number {
  return Math.log10(Math.max(0, ms) + 1);
}

/** fromLogScale inverts logScale, for the legend's labels. */
export function fromLogScale(v: number): number {
  return Math.max(0, 10 ** v - 1);
}

/** heatData turns sparse cells into ECharts heatmap triples [x, y, value], keeping the cell index as the 4th item. */
export function heatData<C extends { bucket: number }>(rows: { cells: C[] }[], value: (c: C) => number): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  rows.forEach((r, y) => r.cells.forEach((c, i) => out.push([c.bucket, y, value(c), i])));
  return out;
}

/** vertexHeatData turns a vertex heatmap into triples [column, row, ms]; empty cells are left out. */
export function vertexHeatData(hm: VertexHeatmap): [number, number, number][] {
  const out: [number, number, number][] = [];
  hm.rows.forEach((r, y) =>
    r.cells.forEach((v, x) => {
      if (typeof v === 'number') out.push([x, y, v]);
    }),
  );
  return out;
}
