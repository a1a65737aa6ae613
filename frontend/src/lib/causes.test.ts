import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Bottleneck, Cause, Origin } from './api';
import { causeEvidence, causeItem, causeShare, causesSentence, causeText, ganttOrigin, originCause, originText, shownCauses } from './causes';
import { explainBottleneck } from './explain';
import { i18n, t } from './i18n.svelte';

beforeAll(() => i18n.set('en'));
afterEach(() => i18n.set('en'));

// The user story of docs/phases.md, worked by hand (parallelism 1): start delays Source 35 → Slow Map 925 →
// Stateful Counter 928 → Slow Snapshot 930 → Sink 931; Slow Snapshot syncs 302 ms, async 5, ack 3 and acknowledges
// last at 1,240 ms. Its 930 ms start delay splits at each edge: 2 ms queued behind Stateful Counter (which left at
// 928), 3 ms queued at Stateful Counter behind Slow Map (925), 890 ms at Slow Map behind the Source (35), and the
// Source's own 35 ms. 890 + 302 + 35 + 5 + 3 + 3 + 2 = 1,240.
const SRC = { id: 's', name: 'Source: Numbers' };
const MAP = { id: 'm', name: 'Slow Map' };
const CNT = { id: 'c', name: 'Stateful Counter' };
const SNAP = { id: 'n', name: 'Slow Snapshot' };
const story: Cause[] = [
  { phase: 'start_delay', vertex_id: MAP.id, vertex_name: MAP.name, upstream_vertex_id: SRC.id, upstream_vertex_name: SRC.name, subtask: 0, ms: 890, share: 0.718 },
  { phase: 'sync', vertex_id: SNAP.id, vertex_name: SNAP.name, subtask: 0, ms: 302, share: 0.244 },
  { phase: 'start_delay', vertex_id: SRC.id, vertex_name: SRC.name, subtask: 0, ms: 35, share: 0.028 },
  { phase: 'async', vertex_id: SNAP.id, vertex_name: SNAP.name, subtask: 0, ms: 5, share: 0.004 },
  { phase: 'ack', vertex_id: SNAP.id, vertex_name: SNAP.name, subtask: 0, ms: 3, share: 0.002 },
  { phase: 'start_delay', vertex_id: CNT.id, vertex_name: CNT.name, upstream_vertex_id: MAP.id, upstream_vertex_name: MAP.name, subtask: 0, ms: 3, share: 0.002 },
  { phase: 'start_delay', vertex_id: SNAP.id, vertex_name: SNAP.name, upstream_vertex_id: CNT.id, upstream_vertex_name: CNT.name, subtask: 0, ms: 2, share: 0.002 },
];
const storyOrigin: Origin = { vertex_id: MAP.id, vertex_name: MAP.name, upstream_vertex_id: SRC.id, upstream_vertex_name: SRC.name };
const storyBottleneck: Bottleneck = {
  phase: 'start_delay',
  vertex_id: SNAP.id,
  vertex_name: SNAP.name,
  subtask: 0,
  phase_ms: 930,
  end_to_end_ms: 1240,
  origin: storyOrigin,
};

describe('causeText', () => {
  it.each([
    [story[0], 'barriers queued at the input of Slow Map (behind Source: Numbers)'],
    [story[1], 'sync in Slow Snapshot subtask 0'],
    [story[2], 'start delay at Source: Numbers subtask 0 (before it took the barrier: the trigger reached it late)'],
    [
      { phase: 'alignment', vertex_id: 'w', vertex_name: 'Window', upstream_vertex_name: 'Source: orders', subtask: 3, ms: 16_900, share: 0.9 },
      "alignment in Window subtask 3, waiting for Source: orders's barrier",
    ],
    [{ phase: 'alignment', vertex_name: 'Window', ms: 10, share: 0.1 }, 'alignment in Window'],
    [{ phase: 'finalize', ms: 200, share: 0.1 }, 'finalize'],
    [{ phase: 'async', vertex_id: 'abc', ms: 1, share: 0 }, 'async in abc'],
    [{ phase: 'async', ms: 1, share: 0 }, 'async'],
  ] as [Cause, string][])('%j', (c, want) => {
    expect(causeText(c, t)).toBe(want);
  });

  it('shortens long vertex names as the bottleneck sentence does', () => {
    const long = 'Window(TumblingEventTimeWindows(60000), EventTimeTrigger, OrderAggregate)';
    expect(causeText({ phase: 'sync', vertex_name: long, subtask: 1, ms: 1, share: 1 }, t)).toBe(
      'sync in Window(TumblingEventTimeWindows(60000), EventTi… subtask 1',
    );
  });

  it('says each cause with its duration and share', () => {
    expect(causeItem(story[0], t, 'en-US')).toBe('890 ms: barriers queued at the input of Slow Map (behind Source: Numbers)');
    expect(causeItem({ ...story[1], ms: 16_900 }, t, 'en-US')).toBe('16.9 sec: sync in Slow Snapshot subtask 0');
    expect(causeShare(story[0], 'en-US')).toBe('72%');
  });
});

describe('causeEvidence', () => {
  it('says what the metrics show of a queue, in both languages', () => {
    const q = { ...story[0], upstream_backpressure: 0.96, busy: 1 };
    expect(causeEvidence(q, t, 'en-US')).toBe('Source: Numbers backpressured 96% · Slow Map busy 100%');
    i18n.set('zh');
    expect(causeEvidence(q, t, 'zh-CN')).toBe('Source: Numbers 反压 96%，Slow Map 繁忙 100%');
  });
  it('says nothing without samples, or for a cause that is not a queue', () => {
    expect(causeEvidence(story[0], t, 'en-US')).toBe('');
    expect(causeEvidence({ ...story[0], busy: 0.5 }, t, 'en-US')).toBe('Slow Map busy 50%');
    expect(causeEvidence(story[1], t, 'en-US')).toBe('');
  });
});

describe('shownCauses', () => {
  it('keeps the causes of at least 5 %, at most the limit, origin first', () => {
    expect(shownCauses(story, storyOrigin)).toEqual([story[0], story[1]]);
    expect(shownCauses(story, storyOrigin, 4, 0)).toEqual(story.slice(0, 4));
    expect(shownCauses(story, storyOrigin, 1)).toEqual([story[0]]);
    expect(shownCauses(undefined, storyOrigin)).toEqual([]);
  });

  it('moves the origin before a larger cause elsewhere', () => {
    const cs: Cause[] = [
      { phase: 'sync', vertex_name: 'X', subtask: 0, ms: 600, share: 0.6 },
      { phase: 'start_delay', vertex_id: 'y', vertex_name: 'Y', upstream_vertex_id: 'z', upstream_vertex_name: 'Z', subtask: 0, ms: 400, share: 0.4 },
    ];
    const o = { vertex_id: 'y', vertex_name: 'Y', upstream_vertex_id: 'z', upstream_vertex_name: 'Z' };
    expect(originCause(cs, o)).toBe(cs[1]);
    expect(shownCauses(cs, o)).toEqual([cs[1], cs[0]]);
    expect(causesSentence(cs, o, t, 'en-US')).toBe('400 ms: barriers queued at the input of Y (behind Z); 600 ms: sync in X subtask 0');
    // Without an origin the backend's order stays.
    expect(causesSentence(cs, undefined, t, 'en-US')).toBe('600 ms: sync in X subtask 0; 400 ms: barriers queued at the input of Y (behind Z)');
  });

  it('keeps the first cause however small its share', () => {
    const cs: Cause[] = [
      { phase: 'ack', vertex_name: 'A', ms: 4, share: 0.04 },
      { phase: 'sync', vertex_name: 'A', ms: 3, share: 0.03 },
    ];
    expect(shownCauses(cs, undefined)).toEqual([cs[0]]);
  });
});

describe('causesSentence', () => {
  it('names the origin first, then the other causes of at least 5 % (the user story)', () => {
    expect(causesSentence(story, storyOrigin, t, 'en-US')).toBe(
      '890 ms: barriers queued at the input of Slow Map (behind Source: Numbers); 302 ms: sync in Slow Snapshot subtask 0',
    );
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    expect(causesSentence(story, storyOrigin, t, 'zh-CN')).toBe(
      '890毫秒：barrier 在 Slow Map 的输入端排队（排在 Source: Numbers 的数据之后）；302毫秒：Slow Snapshot 子任务 0 的同步',
    );
    expect(causeText(story[2], t)).toBe('Source: Numbers 子任务 0 的启动延迟（收到 barrier 之前：触发到达它较晚）');
    expect(causeText({ phase: 'alignment', vertex_name: 'Window', upstream_vertex_name: 'Source', subtask: 3, ms: 1, share: 1 }, t)).toBe(
      'Window 子任务 3 的对齐，等待 Source 的 barrier',
    );
    expect(causeText({ phase: 'finalize', ms: 1, share: 1 }, t)).toBe('收尾');
  });

  it('is undefined without causes', () => {
    expect(causesSentence([], storyOrigin, t, 'en-US')).toBeUndefined();
    expect(causesSentence(undefined, undefined, t, 'en-US')).toBeUndefined();
  });
});

describe('explainBottleneck', () => {
  it('says the causes when there are some', () => {
    expect(explainBottleneck({ bottleneck: storyBottleneck, causes: story }, t, 'en-US')).toBe(
      '890 ms: barriers queued at the input of Slow Map (behind Source: Numbers); 302 ms: sync in Slow Snapshot subtask 0',
    );
  });

  it('names the origin before the bottleneck when only the origin came (a comparison side)', () => {
    expect(explainBottleneck({ bottleneck: storyBottleneck }, t, 'en-US')).toBe(
      'barriers queued at the input of Slow Map (behind Source: Numbers), which shows as start delay in Slow Snapshot subtask 0: 930 ms of 1.24 sec',
    );
    i18n.set('zh');
    expect(explainBottleneck({ bottleneck: storyBottleneck }, t, 'zh-CN')).toBe(
      'barrier 在 Slow Map 的输入端排队（排在 Source: Numbers 的数据之后），表现为Slow Snapshot 子任务 0 的启动延迟：930毫秒（共 1.24秒）',
    );
  });

  it('keeps the bottleneck sentence when the origin is the bottleneck itself, a source', () => {
    const b: Bottleneck = { phase: 'start_delay', vertex_id: 's', vertex_name: 'Src', subtask: 0, phase_ms: 900, end_to_end_ms: 1000, origin: { vertex_id: 's', vertex_name: 'Src' } };
    expect(explainBottleneck({ bottleneck: b }, t, 'en-US')).toBe('start delay in Src subtask 0: 900 ms of 1 sec');
    expect(originText(b.origin!, t)).toBe('start delay at Src (before it took the barrier: the trigger reached it late)');
  });

  it('keeps the old sentence without causes or origin, and for a stuck checkpoint', () => {
    const b: Bottleneck = { phase: 'alignment', vertex_name: 'Window(…)', subtask: 3, phase_ms: 16_900, end_to_end_ms: 19_000 };
    expect(explainBottleneck({ bottleneck: b }, t, 'en-US')).toBe('alignment in Window(…) subtask 3: 16.9 sec of 19 sec');
    const stuck: Bottleneck = { phase: 'async', vertex_name: 'Sink', subtask: 0, end_to_end_ms: 7271, pending: true, pending_subtasks: 1 };
    expect(explainBottleneck({ bottleneck: stuck, causes: story }, t, 'en-US')).toBe('stuck in async at Sink subtask 0: 1 subtask never acknowledged');
    expect(explainBottleneck({}, t, 'en-US')).toBeUndefined();
  });
});

describe('ganttOrigin', () => {
  it('marks the origin vertex with the time queued there and the upstream it queued behind', () => {
    expect(ganttOrigin({ bottleneck: storyBottleneck, causes: story }, t, 'en-US')).toEqual({
      vertexId: MAP.id,
      subtask: 0,
      phase: 'start_delay',
      ms: 890,
      tag: 'barriers queued here',
      edge: '← behind Source: Numbers',
      tip: '890 ms: barriers queued at the input of Slow Map (behind Source: Numbers)',
    });
    i18n.set('zh');
    const zh = ganttOrigin({ bottleneck: storyBottleneck, causes: story }, t, 'zh-CN')!;
    expect([zh.tag, zh.edge]).toEqual(['barrier 在此排队', '← 排在 Source: Numbers 之后']);
  });

  it('says alignment where the origin is an alignment, and nothing without an origin', () => {
    const cs: Cause[] = [{ phase: 'alignment', vertex_id: 'w', vertex_name: 'Window', upstream_vertex_id: 's', upstream_vertex_name: 'Src', subtask: 3, ms: 900, share: 0.9 }];
    const b: Bottleneck = { phase: 'alignment', vertex_id: 'w', subtask: 3, phase_ms: 900, end_to_end_ms: 1000, origin: { vertex_id: 'w', vertex_name: 'Window', upstream_vertex_id: 's', upstream_vertex_name: 'Src' } };
    const g = ganttOrigin({ bottleneck: b, causes: cs }, t, 'en-US')!;
    expect([g.phase, g.tag, g.edge]).toEqual(['alignment', 'aligning here', '← waiting for Src']);
    expect(ganttOrigin({ bottleneck: { ...b, origin: undefined }, causes: cs }, t, 'en-US')).toBeUndefined();
  });
});
