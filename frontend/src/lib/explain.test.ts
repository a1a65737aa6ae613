import { beforeAll, describe, expect, it } from 'vitest';
import type { Bottleneck, CheckpointViewData } from './api';
import { bottleneckSentence, checkpointSummaryText } from './explain';
import { i18n, t } from './i18n.svelte';

beforeAll(() => i18n.set('en'));

const WINDOW = 'Window(TumblingEventTimeWindows(60000), EventTimeTrigger, OrderAggregate)';

describe('bottleneckSentence', () => {
  it.each([
    [
      { phase: 'alignment', vertex_name: 'Window(…)', subtask: 3, phase_ms: 16_900, end_to_end_ms: 19_000 },
      'alignment in Window(…) subtask 3: 16.9 sec of 19 sec',
    ],
    [
      { phase: 'alignment', vertex_name: WINDOW, vertex_id: 'w', subtask: 3, phase_ms: 17_461, end_to_end_ms: 17_625 },
      'alignment in Window(TumblingEventTimeWindows(60000), EventTi… subtask 3: 17.5 sec of 17.6 sec',
    ],
    [{ phase: 'finalize', phase_ms: 2500, end_to_end_ms: 3000 }, 'finalize: 2.5 sec of 3 sec'],
    [
      { phase: 'async', vertex_name: 'Sink', subtask: 0, end_to_end_ms: 7271, pending: true, pending_subtasks: 1 },
      'stuck in async at Sink subtask 0: 1 subtask never acknowledged',
    ],
    [
      { phase: 'alignment', vertex_id: 'abc', end_to_end_ms: 60_000, pending: true, pending_subtasks: 7 },
      'stuck in alignment at abc: 7 subtasks never acknowledged',
    ],
    [{ phase: 'start_delay', end_to_end_ms: 15, pending: true, pending_subtasks: 12 }, 'stuck in start delay: 12 subtasks never acknowledged'],
  ] as [Bottleneck, string][])('%j', (b, want) => {
    expect(bottleneckSentence(b, t, 'en-US')).toBe(want);
  });

  it('is undefined when the backend named no bottleneck', () => {
    expect(bottleneckSentence(undefined, t, 'en-US')).toBeUndefined();
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    try {
      expect(bottleneckSentence({ phase: 'alignment', vertex_name: 'W', subtask: 3, phase_ms: 16_900, end_to_end_ms: 19_000 }, t, 'zh-CN')).toBe(
        'W 子任务 3 的对齐：16.9秒（共 19秒）',
      );
    } finally {
      i18n.set('en');
    }
  });
});

function view(): CheckpointViewData {
  return {
    checkpoint: {
      cluster: 'prod',
      job_id: 'j',
      id: 97,
      kind: 'checkpoint',
      status: 'COMPLETED',
      trigger_ms: Date.UTC(2026, 4, 27, 10, 16, 0, 32),
      end_to_end_ms: 17_625,
      state_size: 28_000_000,
      checkpointed_size: 2_900_000,
      processed_data: 0,
      persisted_data: 0,
      num_subtasks: 12,
      num_acknowledged: 12,
      vertex_names: {},
    },
    analysis: {
      id: 97,
      status: 'COMPLETED',
      trigger_ms: 0,
      duration_ms: 17_625,
      checkpointed_size: 2_900_000,
      phases: { start_delay: 21, alignment: 17_461, sync: 5, async: 134, ack: 4 },
      bottleneck: { phase: 'alignment', vertex_id: 'w', vertex_name: 'Window', subtask: 3, phase_ms: 17_461, end_to_end_ms: 17_625 },
      backpressure: { upstream: 0.97, max: 0.97, samples: 16 },
      slow: [{ phase: 'start_delay', vertex_id: 'e', value_ms: 2103, median_ms: 29, threshold_ms: 1029 }],
    },
    subtasks: [],
    phases_available: ['start_delay', 'alignment', 'sync', 'async', 'ack'],
    notes: ['finalize is absent'],
    note_parts: [],
    vertices: [{ id: 'e', name: 'Async enrich', parallelism: 4 }],
    edges: [],
    advice: [],
  };
}

describe('checkpointSummaryText', () => {
  it('puts every finding on its own line, absent phases said to be not observable', () => {
    const text = checkpointSummaryText(view(), { t, locale: 'en-US', jobName: 'orders', cluster: 'prod', clusterTime: () => 'CLUSTER' });
    const lines = text.split('\n');
    expect(lines[0]).toBe('Checkpoint #97 of orders on prod');
    expect(lines).toContain('Status: Completed (Checkpoint)');
    expect(lines.some((l) => l.startsWith('Trigger time: ') && l.endsWith('(CLUSTER)'))).toBe(true);
    expect(lines).toContain('End to end: 17,625 ms');
    expect(lines).toContain('Checkpointed size: 2.77 MiB');
    expect(lines).toContain('Acked / total: 12 / 12');
    expect(lines).toContain('Bottleneck: alignment in Window subtask 3: 17.5 sec of 17.6 sec');
    expect(lines).toContain(
      'Critical path: start delay 21 ms, alignment 17,461 ms, sync 5 ms, async 134 ms, ack 4 ms, finalize not observable',
    );
    expect(lines).toContain('Backpressure during the checkpoint: 97% (16 samples)');
    expect(lines).toContain('Slow: start delay · Async enrich: 2,103 ms vs median 29 ms (threshold 1,029 ms)');
    expect(lines).toContain('Note: finalize is absent');
  });

  it('counts SeaTunnel state blobs, not bytes, and names the failure', () => {
    const v = view();
    v.checkpoint.state_blobs = 3;
    v.checkpoint.status = 'FAILED';
    v.analysis.failure = { signature: 's', message: 'Checkpoint expired before completing.', phase: 'alignment', basis: 'timeout', basis_parts: [], expired: true };
    const lines = checkpointSummaryText(v, { t, locale: 'en-US', jobName: 'cdc', cluster: 'zeta' }).split('\n');
    expect(lines).toContain('State blobs: 3 blobs');
    expect(lines.some((l) => l.startsWith('Checkpointed size'))).toBe(false);
    expect(lines).toContain('Failure: Checkpoint expired before completing.');
    expect(lines).toContain('Phase when it failed: alignment (timeout)');
  });

  it('says where a record from the JobManager log came from, and the failure’s cause and declining task', () => {
    const v = view();
    v.checkpoint.status = 'FAILED';
    v.checkpoint.source = 'jobmanager_log';
    v.checkpoint.failure_message = 'Task local checkpoint failure.';
    v.checkpoint.failure_cause = 'java.lang.RuntimeException: snapshot thrown on purpose';
    v.checkpoint.declined = { vertex_id: 'e', subtask: 1, attempt: 0 };
    v.analysis.failure = { signature: 's', message: 'Task local checkpoint failure.', basis: 'b', basis_parts: [], cause: 'java.lang.RuntimeException: snapshot thrown on purpose', task: 'Async enrich (2/4)#0' };
    const lines = checkpointSummaryText(v, { t, locale: 'en-US', jobName: 'orders', cluster: 'prod' }).split('\n');
    expect(lines[2]).toBe(
      'From the JobManager log — it had left Flink’s REST history: status, times, size, finalize and failure cause; no per-subtask stats',
    );
    expect(lines).toContain('Cause: java.lang.RuntimeException: snapshot thrown on purpose');
    // The checkpoint's own decline wins over the analysis's task name; its vertex by name.
    expect(lines).toContain('Declined by Async enrich subtask 1');
    delete v.checkpoint.declined;
    expect(checkpointSummaryText(v, { t, locale: 'en-US', jobName: 'orders', cluster: 'prod' }).split('\n')).toContain('Declined by Async enrich (2/4)#0');
  });

  it('adds no log lines to a checkpoint from REST without them', () => {
    const text = checkpointSummaryText(view(), { t, locale: 'en-US', jobName: 'orders', cluster: 'prod' });
    expect(text).not.toMatch(/JobManager log|Cause:|Declined by/);
    expect(text).not.toMatch(/From traces/);
  });

  it('says a record came from the traces, after its status', () => {
    const v = view();
    v.checkpoint.source = 'traces';
    const lines = checkpointSummaryText(v, { t, locale: 'en-US', jobName: 'orders', cluster: 'prod' }).split('\n');
    expect(lines[2]).toBe('From traces — read from Flink’s checkpoint spans in Jaeger; it was not in Flink’s REST history');
    expect(lines.join('\n')).not.toMatch(/JobManager log/);
  });

  it('names the causes along the barrier path, origin first, and the phase of the critical subtask after', () => {
    const v = view();
    v.analysis.phases = { start_delay: 930, alignment: 0, sync: 302, async: 5, ack: 3 };
    v.analysis.bottleneck = {
      phase: 'start_delay',
      vertex_id: 'n',
      vertex_name: 'Slow Snapshot',
      subtask: 0,
      phase_ms: 930,
      end_to_end_ms: 1240,
      origin: { vertex_id: 'm', vertex_name: 'Slow Map', upstream_vertex_id: 's', upstream_vertex_name: 'Source: Numbers' },
    };
    v.analysis.causes = [
      { phase: 'start_delay', vertex_id: 'm', vertex_name: 'Slow Map', upstream_vertex_id: 's', upstream_vertex_name: 'Source: Numbers', subtask: 0, ms: 890, share: 0.718 },
      { phase: 'sync', vertex_id: 'n', vertex_name: 'Slow Snapshot', subtask: 0, ms: 302, share: 0.244 },
      { phase: 'start_delay', vertex_id: 's', vertex_name: 'Source: Numbers', subtask: 0, ms: 35, share: 0.028 },
    ];
    const lines = checkpointSummaryText(v, { t, locale: 'en-US', jobName: 'chain', cluster: 'prod' }).split('\n');
    expect(lines).toContain('Bottleneck: 890 ms: barriers queued at the input of Slow Map (behind Source: Numbers); 302 ms: sync in Slow Snapshot subtask 0');
    expect(lines).toContain('Largest phase of the subtask that acknowledged last: start delay in Slow Snapshot subtask 0: 930 ms of 1.24 sec');
  });
});
