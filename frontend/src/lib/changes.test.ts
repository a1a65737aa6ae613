import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeEffect, ChangeKind, Effect } from './api';
import {
  changeLegend,
  changeLines,
  changeMoments,
  changeSummary,
  fromLocalInput,
  layoutMarkers,
  momentKind,
  revealRange,
  stepMoment,
  toLocalInput,
} from './changes';
import { i18n, t } from './i18n.svelte';

const effect = {} as Effect; // what the marker's tooltip says of it is reason.ts's
const change = (kind: ChangeKind, time_ms: number, detail: ChangeEffect['detail'] = {}): ChangeEffect => ({ kind, time_ms, source: 'user', detail, effect });

afterEach(() => i18n.set('en'));

describe('changeMoments', () => {
  it('gathers changes at one instant, oldest moment first, each named by the kind the finding names first', () => {
    const note = change('note', 2000, { text: 'deployed v42' });
    const config = change('config', 2000, { keys: [{ key: 'k', old: 'a', new: 'b' }] });
    const rescale = change('rescale', 1000);
    const moments = changeMoments([note, rescale, config]);
    expect(moments).toEqual([
      { time_ms: 1000, changes: [rescale] },
      { time_ms: 2000, changes: [config, note] },
    ]);
    expect(moments.map(momentKind)).toEqual(['rescale', 'config']);
    expect(changeMoments([])).toEqual([]);
  });
});

describe('layoutMarkers', () => {
  it('places the moments inside the range, its ends included, keeping their index', () => {
    const moments = changeMoments([999, 1000, 1500, 2000, 2500].map((ms) => change('restart', ms)));
    // 1000 ms over 500 px: 2 ms a pixel.
    expect(layoutMarkers(moments, { from: 1000, to: 2000 }, 500)).toEqual([
      { x: 0, index: 1 },
      { x: 250, index: 2 },
      { x: 500, index: 3 },
    ]);
  });
});

describe('changeLegend', () => {
  it('has one entry per kind present, in the markers’ order, with its count', () => {
    const list = [change('note', 1), change('config', 2), change('restart', 3), change('config', 4)];
    expect(changeLegend(list)).toEqual([
      { kind: 'config', count: 2 },
      { kind: 'restart', count: 1 },
      { kind: 'note', count: 1 },
    ]);
    expect(changeLegend([])).toEqual([]);
  });
});

describe('changeLines and changeSummary', () => {
  const config = change('config', 1, {
    keys: [
      { key: 'execution.checkpointing.unaligned.enabled', old: 'false', new: 'true' },
      { key: 'state.backend.type', old: '', new: 'rocksdb' },
    ],
  });
  const rescale = change('rescale', 1, { vertex_id: 'ea63', vertex_name: 'Map', from: 2, to: 4 });
  const restart = change('restart', 1, { checkpoint_id: 41, reason: 'f_job_region', restored: 3 });
  const resubmit = change('resubmit', 1, { previous_job_id: 'c0ffee', savepoint: 's3://sp/savepoint-1' });
  const note = change('note', 1, { text: 'deployed v42' });

  it.each([
    [config, ['execution.checkpointing.unaligned.enabled: false → true', 'state.backend.type: — → rocksdb']],
    [rescale, ['Map: 2 → 4 parallel subtasks']],
    [restart, ['checkpoint 41 aborted: a failover region was restarting: the checkpoint was aborted, no phase is to blame', 'restored from a checkpoint 3 times so far']],
    // A reason this UI has no words for is said as sent.
    [change('restart', 1, { checkpoint_id: 7, reason: 'from_a_newer_backend' }), ['checkpoint 7 aborted: from_a_newer_backend']],
    [change('restart', 1, { restored: 1 }), ['restored from a checkpoint 1 time so far']],
    [resubmit, ['a new run after job c0ffee', 'from savepoint s3://sp/savepoint-1']],
    [change('resubmit', 1), []],
    [note, ['says “deployed v42”']],
  ])('says %j in English', (c, want) => {
    expect(changeLines(c, t)).toEqual(want);
  });

  it('says them in Chinese', () => {
    i18n.set('zh');
    expect(changeLines(config, t)).toEqual(['execution.checkpointing.unaligned.enabled：false → true', 'state.backend.type：— → rocksdb']);
    expect(changeLines(rescale, t)).toEqual(['Map：并行子任务 2 → 4']);
    expect(changeLines(restart, t)).toEqual(['检查点 41 被中止：' + t('reason.f_job_region'), '迄今已从检查点恢复 3 次']);
    expect(changeSummary(note, t)).toBe('备注：“deployed v42”');
    expect(changeSummary(change('restart', 1, { restored: 2 }), t)).toBe('重启：迄今已从检查点恢复 2 次');
  });

  it('puts the kind before what changed, alone when nothing is known of it', () => {
    expect(changeSummary(rescale, t)).toBe('Rescale: Map: 2 → 4 parallel subtasks');
    expect(changeSummary(change('resubmit', 1), t)).toBe('Resubmission');
    expect(changeSummary(change('restart', 1, { checkpoint_id: 7, reason: 'x', restored: 2 }), t)).toBe('Restart: checkpoint 7 aborted: x; restored from a checkpoint 2 times so far');
    // A vertex without a name is said by its id.
    expect(changeLines(change('rescale', 1, { vertex_id: 'ea63', from: 1, to: 2 }), t)).toEqual(['ea63: 1 → 2 parallel subtasks']);
  });
});

describe('stepMoment', () => {
  const times = [100, 200, 300, 400];
  const view = { from: 150, to: 350 };
  it.each([
    // From none: the first in view going forward, the last in view going back.
    [null, 1, view, 1],
    [null, -1, view, 2],
    // From one: its neighbour, staying at the ends.
    [1, 1, view, 2],
    [3, 1, view, 3],
    [0, -1, view, 0],
    [2, -1, view, 1],
    // None in view: the nearest beyond it.
    [null, 1, { from: 500, to: 600 }, 3],
    [null, -1, { from: 500, to: 600 }, 3],
    [null, 1, { from: 0, to: 50 }, 0],
    [null, -1, { from: 0, to: 50 }, 0],
  ] as const)('from %s by %s in %j → %s', (cur, delta, range, want) => {
    expect(stepMoment(times, cur, delta, range)).toBe(want);
  });

  it('has nowhere to go without moments', () => {
    expect(stepMoment([], null, 1, view)).toBeNull();
  });
});

describe('revealRange', () => {
  it('keeps a range that shows the moment and centres one that does not, keeping its span', () => {
    const r = { from: 1000, to: 2000 };
    expect(revealRange(r, 1500)).toBe(r);
    expect(revealRange(r, 2000)).toBe(r);
    expect(revealRange(r, 3000)).toEqual({ from: 2500, to: 3500 });
    expect(revealRange(r, 0)).toEqual({ from: -500, to: 500 });
  });
});

describe('the note form’s time', () => {
  it('writes and reads local time to the second', () => {
    const ms = new Date(2026, 5, 12, 9, 5, 7).getTime();
    expect(toLocalInput(ms)).toBe('2026-06-12T09:05:07');
    expect(fromLocalInput('2026-06-12T09:05:07')).toBe(ms);
    // Without seconds, as some browsers give it.
    expect(fromLocalInput('2026-06-12T09:05')).toBe(new Date(2026, 5, 12, 9, 5).getTime());
    // Milliseconds drop: the input keeps seconds.
    expect(toLocalInput(ms + 999)).toBe('2026-06-12T09:05:07');
  });

  it.each(['', 'yesterday', '2026-06-12', '12/06/2026 09:05'])('reads %j as no time', (v) => {
    expect(fromLocalInput(v)).toBeNaN();
  });
});
