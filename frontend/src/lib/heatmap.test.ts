import { describe, expect, it } from 'vitest';
import type { Buckets, CheckpointRow, VertexHeatmap } from './api';
import {
  bucketRange,
  failureCellSelection,
  fromLogScale,
  heatData,
  logScale,
  phaseCellSelection,
  selectRows,
  vertexColumnSelection,
  vertexHeatData,
} from './heatmap';

const buckets: Buckets = { start_ms: 1_000_000, width_ms: 60_000, count: 10 };

function row(id: number, trigger: number, p: Partial<CheckpointRow> = {}): CheckpointRow {
  return {
    id,
    pipeline: 0,
    kind: 'checkpoint',
    status: 'COMPLETED',
    trigger_ms: trigger,
    end_ms: trigger + 100,
    end_to_end_ms: 100,
    state_size: 0,
    checkpointed_size: 0,
    num_subtasks: 2,
    num_acknowledged: 2,
    failure_message: '',
    ...p,
  };
}

describe('bucketRange', () => {
  it('spans one bucket width, inclusive of its last millisecond', () => {
    expect(bucketRange(buckets, 0)).toEqual({ fromMs: 1_000_000, toMs: 1_059_999 });
    expect(bucketRange(buckets, 3)).toEqual({ fromMs: 1_180_000, toMs: 1_239_999 });
  });
});

describe('a failure cell', () => {
  const cell = { bucket: 2, count: 2, checkpoint_ids: [88, 95] };
  const sel = failureCellSelection(buckets, cell);

  it('selects its bucket, its ids and failed checkpoints only', () => {
    expect(sel).toEqual({ fromMs: 1_120_000, toMs: 1_179_999, ids: [88, 95], status: 'FAILED' });
  });

  it('maps back to exactly the checkpoints it counted, resolving their pipelines', () => {
    const list = [
      row(87, 1_110_000),
      row(88, 1_120_500, { status: 'FAILED' }),
      row(89, 1_130_000),
      row(95, 1_170_000, { status: 'FAILED', pipeline: 2 }),
      row(95, 1_171_000, { status: 'COMPLETED', pipeline: 1 }), // same id, other pipeline, not failed
      row(96, 1_180_000, { status: 'FAILED' }), // next bucket
    ];
    expect(selectRows(list, sel).map((r) => [r.id, r.pipeline])).toEqual([
      [88, 0],
      [95, 2],
    ]);
  });
});

describe('a phase cell', () => {
  it('lists the bucket\'s completed checkpoints and points out its maximum', () => {
    const sel = phaseCellSelection(buckets, { bucket: 1, count: 3, max_ms: 16_900, p90_ms: 16_000, max_id: 97, max_pipeline: 0 });
    expect(sel).toMatchObject({ fromMs: 1_060_000, toMs: 1_119_999, status: 'COMPLETED', highlight: { id: 97, pipeline: 0 } });
    const list = [row(96, 1_060_000), row(97, 1_070_000), row(98, 1_080_000, { status: 'FAILED' })];
    expect(selectRows(list, sel).map((r) => r.id)).toEqual([96, 97]);
  });
});

describe('a vertex heatmap column', () => {
  const hm: VertexHeatmap = {
    phase: 'alignment',
    columns: [
      { first_id: 1, last_id: 4, trigger_ms: 1000, count: 4 },
      { first_id: 5, last_id: 5, trigger_ms: 5000, count: 1, pipeline: 2 },
      { first_id: 6, last_id: 9, trigger_ms: 6000, count: 4 },
    ],
    rows: [
      { vertex_id: 'a', cells: [10, null, 30] },
      { vertex_id: 'b', cells: [null, 20, null] },
    ],
  };

  it('is bounded by the next column\'s first trigger', () => {
    expect(vertexColumnSelection(hm, 0)).toEqual({ fromMs: 1000, toMs: 4999, idRange: [1, 4], pipeline: undefined });
    expect(vertexColumnSelection(hm, 1)).toEqual({ fromMs: 5000, toMs: 5999, idRange: [5, 5], pipeline: 2 });
    // The last column runs to the end of the data.
    expect(vertexColumnSelection(hm, 2)).toEqual({ fromMs: 6000, toMs: 0, idRange: [6, 9], pipeline: undefined });
  });

  it('keeps only ids of the column', () => {
    const list = [row(4, 4000), row(5, 4500), row(6, 6000), row(9, 9000), row(10, 10_000)];
    expect(selectRows(list, vertexColumnSelection(hm, 2)).map((r) => r.id)).toEqual([6, 9]);
  });

  it('becomes heatmap triples without the empty cells', () => {
    expect(vertexHeatData(hm)).toEqual([
      [0, 0, 10],
      [2, 0, 30],
      [1, 1, 20],
    ]);
  });
});

describe('heatData', () => {
  it('places sparse cells by bucket and row, remembering the cell index', () => {
    const rows = [{ cells: [{ bucket: 3, count: 2 }] }, { cells: [{ bucket: 0, count: 1 }, { bucket: 7, count: 5 }] }];
    expect(heatData(rows, (c) => c.count)).toEqual([
      [3, 0, 2, 0],
      [0, 1, 1, 0],
      [7, 1, 5, 1],
    ]);
  });
});

describe('logScale', () => {
  it.each([0, 1, 42, 1000, 16_900, 600_000])('round-trips %d ms', (ms) => {
    expect(fromLogScale(logScale(ms))).toBeCloseTo(ms, 6);
  });

  it('orders durations and separates milliseconds from seconds', () => {
    expect(logScale(0)).toBe(0);
    expect(logScale(10)).toBeLessThan(logScale(100));
    expect(logScale(16_900) - logScale(169)).toBeCloseTo(2, 1);
  });
});
