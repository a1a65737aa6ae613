import { describe, expect, it } from 'vitest';
import type { SubtaskRow } from './api';
import { GANTT_SUBTASK_ROW, GANTT_VERTEX_ROW, ganttRows, originLabelFit, originLabelPlace, originRows, relTicks, rowAtY, rowOffsets, segmentAt, stackPhases } from './gantt';

function sub(vertex: string, subtask: number, p: Partial<SubtaskRow> = {}): SubtaskRow {
  return {
    vertex_id: vertex,
    vertex_name: `name of ${vertex}`,
    subtask,
    acknowledged: true,
    end_to_end_ms: 100,
    phases: { start_delay: 10, alignment: 20, sync: 5, async: 60, ack: 5 },
    ...p,
  };
}

describe('stackPhases', () => {
  it('stacks the phases from the trigger in the order they happen', () => {
    expect(stackPhases({ ack: 5, async: 60, sync: 5, alignment: 20, start_delay: 10 })).toEqual([
      { phase: 'start_delay', from: 0, to: 10 },
      { phase: 'alignment', from: 10, to: 30 },
      { phase: 'sync', from: 30, to: 35 },
      { phase: 'async', from: 35, to: 95 },
      { phase: 'ack', from: 95, to: 100 },
    ]);
  });

  it('skips absent phases instead of drawing them as zero, and keeps observed zeros', () => {
    expect(stackPhases({ sync: 0, async: 40 })).toEqual([
      { phase: 'sync', from: 0, to: 0 },
      { phase: 'async', from: 0, to: 40 },
    ]);
    expect(stackPhases({})).toEqual([]);
  });

  it('ignores finalize, which belongs to the checkpoint rather than a subtask', () => {
    expect(stackPhases({ finalize: 300, ack: 1 })).toEqual([{ phase: 'ack', from: 0, to: 1 }]);
  });
});

describe('ganttRows', () => {
  const rows: SubtaskRow[] = [
    sub('src', 0, { end_to_end_ms: 80 }),
    sub('src', 1, { end_to_end_ms: 120 }),
    sub('win', 0, { end_to_end_ms: 150 }),
    sub('win', 3, {
      end_to_end_ms: 19_000,
      critical: true,
      phases: { start_delay: 12, alignment: 16_900, sync: 8, async: 2070, ack: 10 },
    }),
    sub('win', 1, { end_to_end_ms: 20_000, phases: { start_delay: 1, alignment: 1, sync: 1, async: 1, ack: 19_996 } }),
  ];

  it('shows one row per vertex, upstream first, each with the critical subtask or else its last ack', () => {
    const g = ganttRows(rows, { expanded: new Set(), endMs: 19_000 });
    expect(g.vertexIds).toEqual(['src', 'win']);
    expect(g.rows.map((r) => [r.key, r.subtask, r.critical, r.acked, r.total])).toEqual([
      ['v:src', 1, false, 2, 2],
      ['v:win', 3, true, 3, 3],
    ]);
    // The critical subtask represents the vertex even though subtask 1 acked later.
    expect(g.rows[1].segments.map((s) => s.phase)).toEqual(['start_delay', 'alignment', 'sync', 'async', 'ack']);
    expect(g.rows[1].endMs).toBe(19_000);
    expect(g.rows[0].firstAckMs).toBe(80);
    expect(g.rows[0].endMs).toBe(120);
    // The axis reaches the latest ack even past the checkpoint's own figure.
    expect(g.domainMs).toBe(20_000);
  });

  it('lists a vertex\'s subtasks under it when expanded, in the backend\'s order', () => {
    const g = ganttRows(rows, { expanded: new Set(['win']), endMs: 19_000 });
    expect(g.rows.map((r) => r.key)).toEqual(['v:src', 'v:win', 's:win:0', 's:win:3', 's:win:1']);
    expect(g.rows[1].expanded).toBe(true);
    expect(g.rows.filter((r) => r.critical).map((r) => r.key)).toEqual(['v:win', 's:win:3']);
  });

  it('draws pending subtasks as one pending span up to the end, and a vertex with none acked likewise', () => {
    const pending: SubtaskRow[] = [
      sub('src', 0, { end_to_end_ms: 50 }),
      { vertex_id: 'win', subtask: 0, acknowledged: false, phases: {}, critical: true },
      { vertex_id: 'win', subtask: 1, acknowledged: false, phases: {}, critical: true },
    ];
    const g = ganttRows(pending, { expanded: new Set(['win']), endMs: 60_000 });
    expect(g.domainMs).toBe(60_000);
    const win = g.rows.find((r) => r.key === 'v:win')!;
    expect(win.acknowledged).toBe(false);
    expect(win.acked).toBe(0);
    expect(win.vertexName).toBe('win'); // no name reported: the id stands in
    expect(win.segments).toEqual([{ phase: 'pending', from: 0, to: 60_000 }]);
    expect(g.rows.filter((r) => r.kind === 'subtask' && r.vertexId === 'win').every((r) => r.segments[0].phase === 'pending')).toBe(true);
  });

  it('is empty for a checkpoint without subtask stats', () => {
    expect(ganttRows([], { expanded: new Set(), endMs: 500 })).toEqual({ rows: [], domainMs: 500, vertexIds: [] });
  });
});

describe('segmentAt', () => {
  const row = ganttRows([sub('a', 0)], { expanded: new Set(), endMs: 100 }).rows[0];
  it.each([
    [5, 0, 'start_delay'],
    [29, 0, 'alignment'],
    [96, 0, 'ack'],
    [103, 0, undefined],
    [103, 4, 'ack'],
  ])('at %d ms (slop %d) finds %s', (t, slop, want) => {
    expect(segmentAt(row, t, slop)?.phase).toBe(want);
  });
});

describe('relTicks', () => {
  it('picks a 1-2-5 step that keeps labels apart', () => {
    const ticks = relTicks(19_000, 800, (ms) => `${ms}`);
    expect(ticks.map((t) => t.ms)).toEqual([0, 2000, 4000, 6000, 8000, 10000, 12000, 14000, 16000, 18000]);
    expect(relTicks(90, 900, String).map((t) => t.ms)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
  });

  it('survives an empty domain or width', () => {
    expect(relTicks(0, 800, String)).toEqual([{ ms: 0, label: '0' }]);
    expect(relTicks(100, 0, String)).toEqual([{ ms: 0, label: '0' }]);
  });
});

describe('row geometry', () => {
  const g = ganttRows([sub('a', 0), sub('a', 1), sub('b', 0)], { expanded: new Set(['a']), endMs: 100 });
  const { tops, total } = rowOffsets(g.rows);

  it('stacks vertex and subtask rows with their heights', () => {
    expect(tops).toEqual([0, GANTT_VERTEX_ROW, GANTT_VERTEX_ROW + GANTT_SUBTASK_ROW, GANTT_VERTEX_ROW + 2 * GANTT_SUBTASK_ROW]);
    expect(total).toBe(2 * GANTT_VERTEX_ROW + 2 * GANTT_SUBTASK_ROW);
  });

  it.each([
    [-1, -1],
    [0, 0],
    [GANTT_VERTEX_ROW - 1, 0],
    [GANTT_VERTEX_ROW, 1],
    [GANTT_VERTEX_ROW + GANTT_SUBTASK_ROW + 3, 2],
    [2 * GANTT_VERTEX_ROW + 2 * GANTT_SUBTASK_ROW - 1, 3],
    [2 * GANTT_VERTEX_ROW + 2 * GANTT_SUBTASK_ROW, -1],
  ])('y=%d is row %d', (y, want) => {
    expect(rowAtY(g.rows, tops, y)).toBe(want);
  });
});

describe('ganttRows with vertices whose stats were not fetched', () => {
  const missing = [{ vertexId: 'b', vertexName: 'name of b', acked: 2, total: 2 }];

  it('puts a labelled row without bars where the vertex belongs in the job order', () => {
    const l = ganttRows([sub('a', 0), sub('c', 0)], { expanded: new Set(), endMs: 100, missing, order: ['a', 'b', 'c'] });
    expect(l.rows.map((r) => [r.vertexId, !!r.missing])).toEqual([
      ['a', false],
      ['b', true],
      ['c', false],
    ]);
    const b = l.rows[1];
    expect(b).toMatchObject({ kind: 'vertex', vertexName: 'name of b', segments: [], critical: false, acked: 2, total: 2 });
    // Only vertices with subtasks can be expanded.
    expect(l.vertexIds).toEqual(['a', 'c']);
  });

  it('goes last when the order does not place it, and first when it is upstream of all', () => {
    expect(ganttRows([sub('a', 0)], { expanded: new Set(), endMs: 100, missing }).rows.map((r) => r.vertexId)).toEqual(['a', 'b']);
    expect(ganttRows([sub('a', 0)], { expanded: new Set(), endMs: 100, missing, order: ['b', 'a'] }).rows.map((r) => r.vertexId)).toEqual([
      'b',
      'a',
    ]);
  });

  it('is not expanded and adds no subtask rows, even when asked to', () => {
    const l = ganttRows([sub('a', 0)], { expanded: new Set(['a', 'b']), endMs: 100, missing, order: ['a', 'b'] });
    expect(l.rows.map((r) => r.key)).toEqual(['v:a', 's:a:0', 'v:b']);
  });

  it('shows the rows alone when no vertex has stats', () => {
    const l = ganttRows([], { expanded: new Set(), endMs: 80, missing, order: ['b'] });
    expect(l.rows).toHaveLength(1);
    expect(l.domainMs).toBe(80);
  });

  it('ignores a vertex marked missing that has subtasks after all', () => {
    const l = ganttRows([sub('b', 0)], { expanded: new Set(), endMs: 100, missing, order: ['b'] });
    expect(l.rows.map((r) => !!r.missing)).toEqual([false]);
  });
});

describe('originRows', () => {
  const rows: SubtaskRow[] = [
    sub('src', 0, { end_to_end_ms: 60, phases: { start_delay: 35, sync: 5, async: 15, ack: 5 } }),
    sub('map', 0, { end_to_end_ms: 950, phases: { start_delay: 925, alignment: 0, sync: 5, async: 15, ack: 5 } }),
    sub('map', 1, { end_to_end_ms: 100, phases: { start_delay: 80, alignment: 0, sync: 5, async: 10, ack: 5 } }),
    sub('snap', 0, { end_to_end_ms: 1240, critical: true, phases: { start_delay: 930, alignment: 0, sync: 302, async: 5, ack: 3 } }),
  ];

  it('marks the origin vertex with the time queued at the end of its start delay', () => {
    const g = ganttRows(rows, { expanded: new Set(), endMs: 1240 });
    // Slow Map's row shows subtask 0 (acked last); 890 ms of its 925 ms start delay were queued: 35 → 925.
    expect(originRows(g.rows, { vertexId: 'map', subtask: 0, phase: 'start_delay', ms: 890 })).toEqual([{ index: 1, from: 35, to: 925 }]);
    // No interval on a row that shows another subtask, or without the time.
    expect(originRows(g.rows, { vertexId: 'map', subtask: 1, phase: 'start_delay', ms: 50 })).toEqual([{ index: 1 }]);
    expect(originRows(g.rows, { vertexId: 'map' })).toEqual([{ index: 1 }]);
    expect(originRows(g.rows, undefined)).toEqual([]);
    expect(originRows(g.rows, { vertexId: 'nowhere' })).toEqual([]);
  });

  it('marks the measured subtask too when the vertex is expanded, and keeps the interval inside the phase', () => {
    const g = ganttRows(rows, { expanded: new Set(['map']), endMs: 1240 });
    expect(g.rows.map((r) => r.key)).toEqual(['v:src', 'v:map', 's:map:0', 's:map:1', 'v:snap']);
    expect(originRows(g.rows, { vertexId: 'map', subtask: 0, phase: 'start_delay', ms: 5000 })).toEqual([
      { index: 1, from: 0, to: 925 },
      { index: 2, from: 0, to: 925 },
    ]);
  });

  it('skips a vertex whose stats were not fetched', () => {
    const g = ganttRows([], { expanded: new Set(), endMs: 10, missing: [{ vertexId: 'm', vertexName: 'M', acked: 0, total: 1 }] });
    expect(originRows(g.rows, { vertexId: 'm' })).toEqual([]);
  });
});

describe('originLabelFit', () => {
  it('drops detail as room shrinks: tag and edge, tag, nothing', () => {
    expect(originLabelFit(300, 120, 150)).toBe('full');
    expect(originLabelFit(270, 120, 150)).toBe('tag');
    expect(originLabelFit(120, 120, 150)).toBe('tag');
    expect(originLabelFit(119, 120, 150)).toBe('none');
    expect(originLabelFit(300, 120, 0)).toBe('tag');
  });
});

describe('originLabelPlace', () => {
  it('prefers the whole label in any slot over the tag alone in the first', () => {
    const after = { x: 900, room: 250 };
    const inside = { x: 300, room: 600 };
    expect(originLabelPlace([after, inside], 120, 150)).toEqual({ slot: 1, fit: 'full' });
    expect(originLabelPlace([{ x: 900, room: 300 }, inside], 120, 150)).toEqual({ slot: 0, fit: 'full' });
    expect(originLabelPlace([after, { x: 300, room: 100 }], 120, 150)).toEqual({ slot: 0, fit: 'tag' });
    expect(originLabelPlace([{ x: 0, room: 50 }, { x: 0, room: 80 }], 120, 150)).toEqual({ slot: -1, fit: 'none' });
    expect(originLabelPlace([], 120, 150)).toEqual({ slot: -1, fit: 'none' });
  });
});
