// Shapes a CheckpointDetail for the simple detail panel: one row per vertex
// with its name and the largest per-subtask phase durations. This is display
// arithmetic (column maxima), not analysis — phases and bottlenecks come from Go.
import type { CheckpointDetail, TaskDetail } from './api';
import type { MissingVertex } from './gantt';

export interface VertexRow {
  vertexId: string;
  name: string;
  acknowledged: number;
  subtasks: number;
  endToEndMs: number;
  stateSize: number;
  checkpointedSize: number;
  /** null when the engine gave no per-subtask stats for this vertex */
  maxStartDelayMs: number | null;
  maxAlignmentMs: number | null;
  maxSyncMs: number | null;
  maxAsyncMs: number | null;
  /** its per-subtask stats could not be fetched (the checkpoint's details are partial) */
  missing: boolean;
}

function maxOf(task: TaskDetail, pick: (s: NonNullable<TaskDetail['subtasks']>[number]) => number): number | null {
  const subs = task.subtasks ?? [];
  let max: number | null = null;
  for (const s of subs) {
    // Pending subtasks carry only index and status; their zeros are not measurements.
    if (s.status && s.status !== 'completed') continue;
    const v = pick(s);
    if (Number.isFinite(v) && v >= 0 && (max === null || v > max)) max = v;
  }
  return max;
}

/** vertexRows lists the checkpoint's vertices in the order the engine reported them. */
export function vertexRows(d: CheckpointDetail): VertexRow[] {
  const names = d.vertex_names ?? {};
  return (d.tasks ?? []).map((task) => ({
    vertexId: task.vertex_id,
    name: names[task.vertex_id] || task.vertex_id,
    acknowledged: task.num_acknowledged,
    subtasks: task.num_subtasks,
    endToEndMs: task.end_to_end_ms,
    stateSize: task.state_size,
    checkpointedSize: task.checkpointed_size,
    maxStartDelayMs: maxOf(task, (s) => s.start_delay_ms),
    maxAlignmentMs: maxOf(task, (s) => s.alignment_ms),
    maxSyncMs: maxOf(task, (s) => s.sync_ms),
    maxAsyncMs: maxOf(task, (s) => s.async_ms),
    missing: !!task.missing,
  }));
}

/** missingVertices lists the vertices the backend marked missing (detail_loss "partial"), for the Gantt. */
export function missingVertices(d: CheckpointDetail): MissingVertex[] {
  const names = d.vertex_names ?? {};
  return (d.tasks ?? [])
    .filter((task) => task.missing)
    .map((task) => ({
      vertexId: task.vertex_id,
      vertexName: names[task.vertex_id] || task.vertex_id,
      acked: task.num_acknowledged,
      total: task.num_subtasks,
    }));
}
