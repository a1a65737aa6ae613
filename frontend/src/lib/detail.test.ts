import { describe, expect, it } from 'vitest';
import type { CheckpointDetail, SubtaskDetail } from './api';
import { missingVertices, vertexRows } from './detail';

function sub(index: number, p: Partial<SubtaskDetail>): SubtaskDetail {
  return {
    index,
    status: 'completed',
    ack_ms: 0,
    end_to_end_ms: 0,
    start_delay_ms: 0,
    alignment_ms: 0,
    sync_ms: 0,
    async_ms: 0,
    state_size: 0,
    checkpointed_size: 0,
    processed_data: 0,
    persisted_data: 0,
    ...p,
  };
}

function detail(p: Partial<CheckpointDetail>): CheckpointDetail {
  return {
    cluster: 'c',
    job_id: 'j',
    id: 28,
    kind: 'checkpoint',
    status: 'COMPLETED',
    trigger_ms: 1000,
    end_to_end_ms: 19022,
    state_size: 0,
    checkpointed_size: 12316,
    processed_data: 0,
    persisted_data: 0,
    num_subtasks: 2,
    num_acknowledged: 2,
    vertex_names: {},
    ...p,
  };
}

describe('vertexRows', () => {
  it('names vertices and takes per-phase maxima over acknowledged subtasks', () => {
    const d = detail({
      vertex_names: { v1: 'Source: mysql-cdc' },
      tasks: [
        {
          vertex_id: 'v1',
          latest_ack_ms: 0,
          end_to_end_ms: 19000,
          state_size: 10,
          checkpointed_size: 20,
          processed_data: 0,
          persisted_data: 0,
          num_subtasks: 3,
          num_acknowledged: 2,
          subtasks: [
            sub(0, { start_delay_ms: 5, alignment_ms: 120, sync_ms: 3, async_ms: 40 }),
            sub(1, { start_delay_ms: 18000, alignment_ms: 7, sync_ms: 9, async_ms: 10 }),
            // Pending: zeros that were never measured must not count.
            sub(2, { status: 'pending_or_failed', start_delay_ms: 99999 }),
          ],
        },
        {
          vertex_id: 'v2',
          latest_ack_ms: 0,
          end_to_end_ms: 50,
          state_size: 0,
          checkpointed_size: 0,
          processed_data: 0,
          persisted_data: 0,
          num_subtasks: 1,
          num_acknowledged: 1,
          subtasks: undefined,
        },
      ],
    });
    expect(vertexRows(d)).toEqual([
      {
        vertexId: 'v1',
        name: 'Source: mysql-cdc',
        acknowledged: 2,
        subtasks: 3,
        endToEndMs: 19000,
        stateSize: 10,
        checkpointedSize: 20,
        maxStartDelayMs: 18000,
        maxAlignmentMs: 120,
        maxSyncMs: 9,
        maxAsyncMs: 40,
        missing: false,
      },
      {
        vertexId: 'v2',
        name: 'v2', // no name known: fall back to the id
        acknowledged: 1,
        subtasks: 1,
        endToEndMs: 50,
        stateSize: 0,
        checkpointedSize: 0,
        maxStartDelayMs: null,
        maxAlignmentMs: null,
        maxSyncMs: null,
        maxAsyncMs: null,
        missing: false,
      },
    ]);
  });

  it('returns no rows when the engine gave no tasks', () => {
    expect(vertexRows(detail({ tasks: [] }))).toEqual([]);
    expect(vertexRows(detail({}))).toEqual([]);
  });
});

describe('missingVertices', () => {
  const task = (id: string, missing: boolean) => ({
    vertex_id: id,
    latest_ack_ms: 0,
    end_to_end_ms: 10,
    state_size: 0,
    checkpointed_size: 0,
    processed_data: 0,
    persisted_data: 0,
    num_subtasks: 4,
    num_acknowledged: 4,
    subtasks: missing ? undefined : [sub(0, {})],
    ...(missing ? { missing: true } : {}),
  });

  it('lists the vertices the backend marked missing, with their names and counts', () => {
    const d = detail({ detail_loss: 'partial', vertex_names: { v2: 'Sink' }, tasks: [task('v1', false), task('v2', true), task('v3', true)] });
    expect(missingVertices(d)).toEqual([
      { vertexId: 'v2', vertexName: 'Sink', acked: 4, total: 4 },
      { vertexId: 'v3', vertexName: 'v3', acked: 4, total: 4 },
    ]);
    expect(vertexRows(d).map((r) => r.missing)).toEqual([false, true, true]);
  });

  it('is empty for a complete checkpoint', () => {
    expect(missingVertices(detail({ tasks: [task('v1', false)] }))).toEqual([]);
    expect(missingVertices(detail({}))).toEqual([]);
  });
});
