// Writes a deterministic capture file (docs/capture-format.md) with the
// situations the explorer must explain: a backpressure episode that makes
// alignment in one window subtask the bottleneck, a slow-storage episode
// (async in the sink), expired and async failures, a gap, a savepoint, and a
// SeaTunnel job with two pipelines, no subtask stats and sampled ack progress;
// a checkpoint with partial details (one vertex's stats not fetched), the
// main job's reconciliation of the engine's ids and counters (format 1.1), and
// a chain of forward edges whose barriers queue at one input (the user story
// of docs/phases.md, "Barrier path and causes").
//
// It goes through the app's real import path (upload or `checkpoint-explorer
// import`); nothing here is read by the UI directly.
//
//   node testdata/gen-capture.mjs OUT.ckpt.gz                      # the E2E capture
//   node testdata/gen-capture.mjs OUT.ckpt.gz --bench              # 10,000 checkpoints × 20 phase bars
//   node testdata/gen-capture.mjs OUT.ckpt.gz --checkpoints N --vertices V --parallelism P --no-seatunnel
import { gzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** mulberry32: a tiny seeded PRNG so every run writes the same file. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (r, n) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(r() * 16)]).join('');

export const DEFAULTS = {
  checkpoints: 240,
  intervalMs: 10_000,
  /** 2026-05-27 10:00:00 UTC */
  startMs: 1_779_876_000_000,
  vertices: null, // the named default graph
  parallelism: null,
  seatunnel: true,
  flinkCluster: 'prod-flink',
  seatunnelCluster: 'etl-seatunnel',
  metricsEveryMs: 5_000,
};

/** The default Flink graph: a source, a window, an async enrichment and a sink. */
function defaultGraph(r) {
  return [
    { id: hex(r, 32), name: 'Source: orders (Kafka)', parallelism: 2 },
    { id: hex(r, 32), name: 'Window(TumblingEventTimeWindows(60000), EventTimeTrigger, OrderAggregate)', parallelism: 4 },
    { id: hex(r, 32), name: 'Async enrich: customer lookup', parallelism: 4 },
    { id: hex(r, 32), name: 'Sink: orders_enriched (JDBC)', parallelism: 2 },
  ];
}

function syntheticGraph(r, n, p) {
  return Array.from({ length: n }, (_, i) => ({ id: hex(r, 32), name: `Operator ${i + 1}`, parallelism: p }));
}

/**
 * episode gives 0..1 for how strong an effect is at checkpoint k: a ramp up,
 * a plateau and a ramp down over [from, to) as fractions of the run.
 */
function episode(k, n, from, to) {
  const a = Math.floor(from * n);
  const b = Math.floor(to * n);
  if (k < a || k >= b) return 0;
  const len = b - a;
  const x = (k - a) / Math.max(1, len);
  if (x < 0.25) return x / 0.25;
  if (x > 0.75) return (1 - x) / 0.25;
  return 1;
}

/** generate returns the capture's records (without header and end), in file order. */
/** The id of the clickstream-archive checkpoint whose details were missed. */
export const MISSED_DETAILS = 31;
/** The id of the clickstream-archive checkpoint whose sink's per-subtask stats could not be fetched. */
export const PARTIAL_DETAILS = 45;
/**
 * The id of the clickstream-archive checkpoint stored in progress whose end left Flink's history unseen: the
 * checkpoints after it completed, so it has ended (Flink aborts pending checkpoints then).
 */
export const ENDED_UNSEEN = 52;
/** Triggers of orders-enrichment that failed before they got an id (the reconciliation's without_id). */
export const WITHOUT_ID = 3;
/** The job whose barriers queue at the input of Slow Map, behind its source. */
export const CHAIN_JOB = 'barrier-chain';
/** Its checkpoint of the user story: start delays grow 35 → 925 → 928 → 930 → 931 ms, Slow Snapshot syncs 302 ms. */
export const CHAIN_STORY = 12;

/**
 * chainJob writes the barrier-chain job: Source: Numbers → Slow Map → Stateful Counter → Slow Snapshot → Sink,
 * parallelism 1, FORWARD edges, so the barrier path follows subtask 0 down the chain. Checkpoint CHAIN_STORY is
 * the user story: barriers wait 890 ms behind the source's data at Slow Map's input, then pass the rest of the
 * chain in a few ms each. It draws from its own generator so the other jobs' values do not change.
 */
function chainJob(push, cluster, startMs) {
  const r = rng(20261201);
  const names = ['Source: Numbers', 'Slow Map', 'Stateful Counter', 'Slow Snapshot', 'Sink: Print'];
  const vs = names.map((name) => ({ id: hex(r, 32), name, parallelism: 1 }));
  const id = hex(r, 32);
  const edges = vs.slice(1).map((v, i) => ({ source: vs[i].id, target: v.id, ship_strategy: 'FORWARD' }));
  push({ type: 'job', cluster, id, name: CHAIN_JOB, engine: 'flink', state: 'RUNNING', start_ms: startMs - 30_000, vertices: vs, edges });
  for (let k = 0; k < 30; k++) {
    const cid = k + 1;
    const trig = startMs + k * 20_000 + 317;
    const story = cid === CHAIN_STORY;
    // [start delay, sync, async, ack] per vertex; start delays grow along the chain (a barrier arrives after the one upstream left).
    const ph = story
      ? [[35, 2, 5, 1], [925, 1, 3, 1], [928, 2, 4, 1], [930, 302, 5, 3], [931, 1, 2, 1]]
      : vs.map((_, vi) => {
          const sd = (vi === 0 ? 2 : 0) + Math.floor(r() * 6) + vi * 3;
          return [sd, vi === 3 ? 40 + Math.floor(r() * 40) : 1 + Math.floor(r() * 3), 4 + Math.floor(r() * 12), 1 + Math.floor(r() * 2)];
        });
    if (!story) for (let vi = 1; vi < ph.length; vi++) ph[vi][0] = Math.max(ph[vi][0], ph[vi - 1][0] + 1);
    const e2es = ph.map(([sd, sy, as, ack]) => sd + sy + as + ack);
    const e2e = Math.max(...e2es);
    push({
      type: 'checkpoint', cluster, job_id: id, id: cid, kind: 'checkpoint', status: 'COMPLETED',
      trigger_ms: trig, latest_ack_ms: trig + e2e, end_to_end_ms: e2e, state_size: 3_000_000, checkpointed_size: 250_000,
      processed_data: 0, persisted_data: 0, num_subtasks: vs.length, num_acknowledged: vs.length,
      external_path: `s3://ckpt-bucket/flink/${id}/chk-${cid}`,
      tasks: vs.map((v, vi) => {
        const [sd, sy, as] = ph[vi];
        return {
          vertex_id: v.id, latest_ack_ms: trig + e2es[vi], end_to_end_ms: e2es[vi], state_size: 600_000, checkpointed_size: 50_000,
          processed_data: 0, persisted_data: 0, num_subtasks: 1, num_acknowledged: 1,
          subtasks: [{ index: 0, status: 'completed', ack_ms: trig + e2es[vi], end_to_end_ms: e2es[vi], start_delay_ms: sd, alignment_ms: 0,
            sync_ms: sy, async_ms: as, state_size: 600_000, checkpointed_size: 50_000, processed_data: 0, persisted_data: 0 }],
        };
      }),
    });
  }
}

export function generate(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const r = rng(20260527);
  const records = [];
  const push = (rec) => records.push(rec);

  // ---- Flink ----
  const fc = o.flinkCluster;
  push({ type: 'cluster', name: fc, engine: 'flink', base_url: 'http://flink-jm.internal:8081', auth: { kind: 'none' }, read_only: true });
  const vertices = o.vertices ? syntheticGraph(r, o.vertices, o.parallelism ?? 1) : defaultGraph(r);
  const edges = vertices.slice(1).map((v, i) => ({ source: vertices[i].id, target: v.id, ship_strategy: i === 0 ? 'HASH' : 'FORWARD' }));
  const jobId = hex(r, 32);
  const n = o.checkpoints;
  push({
    type: 'job',
    cluster: fc,
    id: jobId,
    name: o.vertices ? 'bench job' : 'orders-enrichment',
    engine: 'flink',
    state: 'RUNNING',
    start_ms: o.startMs - 60_000,
    vertices,
    edges,
  });
  // A second, healthy job so the job list has more than one entry.
  const job2 = hex(r, 32);
  if (!o.vertices) {
    const v2 = [
      { id: hex(r, 32), name: 'Source: clicks (Kafka)', parallelism: 2 },
      { id: hex(r, 32), name: 'Sink: clicks_raw (Filesystem)', parallelism: 2 },
    ];
    push({ type: 'job', cluster: fc, id: job2, name: 'clickstream-archive', engine: 'flink', state: 'RUNNING', start_ms: o.startMs, vertices: v2, edges: [{ source: v2[0].id, target: v2[1].id, ship_strategy: 'FORWARD' }] });
    for (let k = 0; k < 60; k++) {
      const trig = o.startMs + k * 60_000 + 1_234;
      const e2e = 150 + Math.floor(r() * 120);
      const cp = {
        type: 'checkpoint', cluster: fc, job_id: job2, id: k + 1, kind: 'checkpoint', status: 'COMPLETED',
        trigger_ms: trig, latest_ack_ms: trig + e2e, end_to_end_ms: e2e, state_size: 1 << 20, checkpointed_size: 40_000 + Math.floor(r() * 9000),
        processed_data: 0, persisted_data: 0, num_subtasks: 4, num_acknowledged: 4,
        tasks: v2.map((v) => ({
          vertex_id: v.id, latest_ack_ms: trig + e2e, end_to_end_ms: e2e, state_size: 1 << 19, checkpointed_size: 20_000,
          processed_data: 0, persisted_data: 0, num_subtasks: 2, num_acknowledged: 2,
          subtasks: [0, 1].map((i) => {
            const sd = 3 + Math.floor(r() * 10);
            const sy = 2 + Math.floor(r() * 4);
            const as = 60 + Math.floor(r() * 50);
            const se = Math.min(e2e, sd + sy + as + 5);
            return { index: i, status: 'completed', ack_ms: trig + se, end_to_end_ms: se, start_delay_ms: sd, alignment_ms: 0, sync_ms: sy, async_ms: as, state_size: 1 << 18, checkpointed_size: 10_000, processed_data: 0, persisted_data: 0 };
          }),
        })),
      };
      if (k === MISSED_DETAILS - 1) {
        // Its details left Flink's history before they were fetched (the random draws above are kept, so the rest of the file does not change).
        delete cp.tasks;
        cp.detail_loss = 'missed';
      }
      if (k === ENDED_UNSEEN - 1) {
        // Seen once while it ran, as the history lists it (no tasks); never again (the draws above are kept).
        Object.assign(cp, { status: 'IN_PROGRESS', num_acknowledged: 1, latest_ack_ms: trig + 40, end_to_end_ms: 40 });
        delete cp.tasks;
      }
      if (k === PARTIAL_DETAILS - 1) {
        // The sink's per-subtask stats could not be fetched; the source's came (the draws above are kept).
        cp.detail_loss = 'partial';
        delete cp.tasks[1].subtasks;
        cp.tasks[1].missing = true;
      }
      push(cp);
    }
    chainJob(push, fc, o.startMs);
  }

  const withGap = !o.vertices;
  const gapFrom = Math.floor(n * 0.55);
  const gapTo = gapFrom + Math.max(2, Math.floor(n / 40));
  const winV = Math.min(1, vertices.length - 1);
  const sinkV = vertices.length - 1;
  const hotSub = Math.min(3, vertices[winV].parallelism - 1);
  // pressure[k] drives both the stats and the metrics, so they agree.
  const pressure = [];
  const storage = [];
  for (let k = 0; k < n; k++) {
    pressure.push(o.vertices ? 0.5 + 0.5 * Math.sin(k / 37) ** 2 * (k % 500 < 250 ? 1 : 0.2) : episode(k, n, 0.3, 0.5));
    storage.push(o.vertices ? 0 : episode(k, n, 0.72, 0.82));
  }
  let expiredBudget = o.vertices ? 0 : 3;
  for (let k = 0; k < n; k++) {
    const id = k + 1;
    if (withGap && id >= gapFrom && id <= gapTo) continue; // never seen: recorded as a gap below
    const trig = o.startMs + k * o.intervalMs + Math.floor(r() * 40);
    const f = pressure[k];
    const st = storage[k];
    const savepoint = !o.vertices && k === Math.floor(n * 0.9);
    let status = 'COMPLETED';
    let failure = '';
    // Expired: at the peak of the backpressure episode the window subtask never acks in time.
    const expired = expiredBudget > 0 && f >= 1 && k % 7 === 3;
    if (expired) {
      status = 'FAILED';
      failure = 'Checkpoint expired before completing.';
      expiredBudget--;
    }
    const asyncFail = !o.vertices && st > 0.5 && k % 5 === 1;
    if (asyncFail) {
      status = 'FAILED';
      failure =
        `Asynchronous task checkpoint failed. Caused by: java.io.IOException: Could not flush and close the file system output stream to ` +
        `s3://ckpt-bucket/flink/${jobId}/chk-${id}/${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)} in order to obtain the stream state handle`;
    }
    const declined = !o.vertices && k === 2;
    if (declined) {
      status = 'FAILED';
      failure = 'Checkpoint was declined (tasks not ready)';
    }

    const tasks = [];
    let maxE2e = 0;
    let total = 0;
    let acked = 0;
    let upstreamDone = 0; // time the barrier left the previous vertex, roughly
    vertices.forEach((v, vi) => {
      const subs = [];
      let vMax = 0;
      let vAck = 0;
      for (let s = 0; s < v.parallelism; s++) {
        total++;
        let sd = upstreamDone + 2 + Math.floor(r() * 15) + vi * 3;
        let al = vi === 0 ? 0 : Math.floor(r() * 25);
        const sy = 1 + Math.floor(r() * 6);
        let as = 40 + Math.floor(r() * 90) + vi * 10;
        if (vi === winV) {
          al += Math.floor(f * (s === hotSub ? 16_000 + r() * 1500 : 1500 + r() * 800));
          if (o.vertices) al = Math.floor(al / 4);
        }
        if (vi > winV) sd += Math.floor(f * 1200);
        if (vi === sinkV) as += Math.floor(st * (6000 + r() * 2500));
        let pending = false;
        if (declined) pending = true;
        if (expired && vi >= winV && (vi > winV || s === hotSub)) pending = true;
        if (asyncFail && vi === sinkV && s === 0) pending = true;
        if (pending) {
          subs.push({ index: s, status: 'pending_or_failed' });
          continue;
        }
        const ack = 2 + Math.floor(r() * 12);
        const e2e = sd + al + sy + as + ack;
        vMax = Math.max(vMax, e2e);
        vAck++;
        acked++;
        subs.push({
          index: s,
          status: 'completed',
          ack_ms: trig + e2e,
          end_to_end_ms: e2e,
          start_delay_ms: sd,
          alignment_ms: al,
          sync_ms: sy,
          async_ms: as,
          state_size: 2_000_000 + Math.floor(r() * 500_000),
          checkpointed_size: 30_000 + Math.floor(r() * 20_000) + Math.floor(st * 60_000),
          processed_data: vi === 0 ? 0 : 1_000_000 + Math.floor(f * 30_000_000),
          persisted_data: 0,
        });
      }
      upstreamDone = Math.floor(vMax * 0.05);
      maxE2e = Math.max(maxE2e, vMax);
      const cps = subs.reduce((a, x) => a + (x.checkpointed_size ?? 0), 0);
      tasks.push({
        vertex_id: v.id,
        latest_ack_ms: vAck > 0 ? trig + vMax : 0,
        end_to_end_ms: vMax,
        state_size: subs.reduce((a, x) => a + (x.state_size ?? 0), 0),
        checkpointed_size: cps,
        processed_data: subs.reduce((a, x) => a + (x.processed_data ?? 0), 0),
        persisted_data: 0,
        num_subtasks: v.parallelism,
        num_acknowledged: vAck,
        subtasks: subs,
      });
    });
    const size = tasks.reduce((a, t) => a + t.checkpointed_size, 0) * (savepoint ? 40 : 1);
    const c = {
      type: 'checkpoint',
      cluster: fc,
      job_id: jobId,
      id,
      kind: savepoint ? 'savepoint' : 'checkpoint',
      status,
      trigger_ms: trig,
      end_to_end_ms: maxE2e,
      state_size: tasks.reduce((a, t) => a + t.state_size, 0),
      checkpointed_size: size,
      processed_data: tasks.reduce((a, t) => a + t.processed_data, 0),
      persisted_data: 0,
      num_subtasks: total,
      num_acknowledged: acked,
      tasks,
    };
    if (status === 'COMPLETED') {
      c.latest_ack_ms = trig + maxE2e;
      if (savepoint) c.external_path = `s3://ckpt-bucket/savepoints/savepoint-${jobId.slice(0, 6)}-${hex(r, 12)}`;
      else c.external_path = `s3://ckpt-bucket/flink/${jobId}/chk-${id}`;
    } else {
      const after = expired ? 60_000 : declined ? 15 : Math.max(maxE2e + 50, 800);
      c.failure_ms = trig + after;
      c.end_to_end_ms = after;
      c.failure_message = failure;
      if (acked > 0) c.latest_ack_ms = trig + maxE2e;
    }
    push(c);
  }
  if (withGap) push({ type: 'gap', cluster: fc, job_id: jobId, from_id: gapFrom, to_id: gapTo, detected_ms: o.startMs + gapTo * o.intervalMs + 5_000, reason: 'evicted from the JobManager history before a poll' });

  // The job's reconciliation as the collector kept it at its last poll: every id 1..n is
  // stored or in the gap; the engine's counters also saw WITHOUT_ID triggers that never got an id.
  const mine = records.filter((x) => x.type === 'checkpoint' && x.job_id === jobId);
  const gapIds = withGap ? gapTo - gapFrom + 1 : 0;
  const withoutId = o.vertices ? 0 : WITHOUT_ID;
  const reconciliation = {
    type: 'reconciliation',
    cluster: fc,
    job_id: jobId,
    at_ms: o.startMs + n * o.intervalMs + 5_000,
    polls: Math.ceil((n * o.intervalMs) / 5_000),
    failed_polls: o.vertices ? 0 : 2,
    first_id: 1,
    latest_id: n,
    ids: n,
    stored: mine.length,
    gaps: gapIds,
    unaccounted: 0,
    engine_counted: n + withoutId,
    without_id: withoutId,
    engine: {
      triggered: n + withoutId,
      // The gap's checkpoints completed as far as the engine knows.
      completed: mine.filter((x) => x.status === 'COMPLETED').length + gapIds,
      failed: mine.filter((x) => x.status === 'FAILED').length + withoutId,
      in_progress: 0,
      restored: 0,
    },
  };

  // Metrics: backpressure of the vertices upstream of the window, busy of the window.
  const lastMs = o.startMs + n * o.intervalMs;
  for (let t = o.startMs; t <= lastMs; t += o.metricsEveryMs) {
    const k = Math.min(n - 1, Math.floor((t - o.startMs) / o.intervalMs));
    const f = pressure[k];
    vertices.forEach((v, vi) => {
      const bp = vi < winV ? Math.round(Math.min(1000, 20 + f * 930 + r() * 30)) : vi === winV ? Math.round(f * 120) : 0;
      push({ type: 'metric_sample', cluster: fc, job_id: jobId, vertex_id: v.id, subtask: -1, metric: 'backPressuredTimeMsPerSecond', agg: 'max', time_ms: t, value: bp, source: 'rest' });
      if (!o.vertices || vi === winV) {
        const busy = vi === winV ? Math.round(150 + f * 820) : Math.round(80 + r() * 60);
        push({ type: 'metric_sample', cluster: fc, job_id: jobId, vertex_id: v.id, subtask: -1, metric: 'busyTimeMsPerSecond', agg: 'max', time_ms: t, value: busy, source: 'rest' });
      }
    });
  }

  if (!o.seatunnel) {
    push(reconciliation);
    return records;
  }

  // ---- SeaTunnel ----
  const sc = o.seatunnelCluster;
  push({ type: 'cluster', name: sc, engine: 'seatunnel', base_url: 'http://seatunnel-master.internal:5801', auth: { kind: 'basic' }, read_only: true });
  const stJob = '1000432156';
  const stV = [
    { id: '1', name: 'Source[0]-MySQL-CDC', parallelism: 2, pipeline: 1 },
    { id: '2', name: 'Sink[0]-Doris-orders', parallelism: 2, pipeline: 1 },
    { id: '3', name: 'Source[1]-MySQL-CDC', parallelism: 1, pipeline: 2 },
    { id: '4', name: 'Sink[1]-Doris-customers', parallelism: 1, pipeline: 2 },
  ];
  push({ type: 'job', cluster: sc, id: stJob, name: 'mysql-cdc-to-doris', engine: 'seatunnel', state: 'RUNNING', start_ms: o.startMs, vertices: stV, edges: [{ source: '1', target: '2' }, { source: '3', target: '4' }] });
  for (const pipeline of [1, 2]) {
    const subtasks = pipeline === 1 ? 4 : 2;
    for (let k = 0; k < 80; k++) {
      const id = k + 1;
      const trig = o.startMs + k * 30_000 + pipeline * 700;
      const slow = pipeline === 1 && k >= 40 && k < 48;
      const failed = pipeline === 1 && (k === 45 || k === 46);
      const dur = slow ? 9_000 + Math.floor(r() * 6000) : 300 + Math.floor(r() * 400);
      const c = {
        type: 'checkpoint', cluster: sc, job_id: stJob, pipeline, id, kind: 'checkpoint', status: failed ? 'FAILED' : 'COMPLETED',
        trigger_ms: trig, end_to_end_ms: dur, state_size: 0, checkpointed_size: 0, processed_data: 0, persisted_data: 0,
        state_blobs: subtasks - (k % 3 === 0 ? 1 : 0), num_subtasks: subtasks, num_acknowledged: failed ? subtasks - 1 : subtasks,
      };
      if (failed) {
        c.failure_ms = trig + 20_000;
        c.end_to_end_ms = 20_000;
        c.failure_message = 'Checkpoint expired before completing. - pipeline 1, checkpoint ' + id;
        delete c.state_blobs;
      } else {
        c.completion_ms = trig + dur;
      }
      push(c);
      if (slow) {
        // The collector samples inProgress[].acknowledged/total while a checkpoint runs.
        const end = failed ? 20_000 : dur;
        for (let t = 0; t <= end; t += 2_000) {
          const frac = Math.min(1, t / end);
          const ackd = failed ? Math.min(subtasks - 1, Math.floor(frac * subtasks)) : Math.floor(frac * frac * subtasks);
          push({ type: 'ack_sample', cluster: sc, job_id: stJob, pipeline, checkpoint_id: id, time_ms: trig + t, acknowledged: ackd, total: subtasks });
        }
      }
    }
  }
  for (let t = o.startMs; t <= o.startMs + 80 * 30_000; t += 15_000) {
    const k = Math.floor((t - o.startMs) / 30_000);
    const bp = k >= 38 && k < 49 ? 0.85 : 0.05;
    push({ type: 'metric_sample', cluster: sc, job_id: stJob, vertex_id: '1', target: '2', subtask: -1, metric: 'bpRatio', time_ms: t, value: bp, source: 'rest' });
  }
  push(reconciliation); // written before the end record, as the app writes it
  return records;
}

/** captureBytes returns the gzip'd capture file for the records. */
export function captureBytes(records, note = 'synthetic capture written by frontend/testdata/gen-capture.mjs') {
  const header = {
    type: 'header',
    format: 'checkpoint-explorer-capture',
    version: '1.1',
    recorded_by: 'gen-capture.mjs',
    recorded_at: '2026-05-27T12:00:00Z',
    app_version: '',
    note,
  };
  const lines = [JSON.stringify(header), ...records.map((x) => JSON.stringify(x)), JSON.stringify({ type: 'end', records: records.length })];
  return gzipSync(Buffer.from(lines.join('\n') + '\n'));
}

function parseArgs(argv) {
  const out = { file: '', opts: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => Number(argv[++i]);
    if (a === '--bench') Object.assign(out.opts, { checkpoints: 10_000, vertices: 4, parallelism: 1, intervalMs: 1_000, seatunnel: false, metricsEveryMs: 10_000, flinkCluster: 'bench' });
    else if (a === '--checkpoints') out.opts.checkpoints = num();
    else if (a === '--vertices') out.opts.vertices = num();
    else if (a === '--parallelism') out.opts.parallelism = num();
    else if (a === '--interval-ms') out.opts.intervalMs = num();
    else if (a === '--no-seatunnel') out.opts.seatunnel = false;
    else if (a.startsWith('-')) throw new Error(`gen-capture: unknown flag ${a}`);
    else out.file = a;
  }
  if (!out.file) throw new Error('gen-capture: give the output file, e.g. /tmp/demo.ckpt.gz');
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { file, opts } = parseArgs(process.argv.slice(2));
  const recs = generate(opts);
  const buf = captureBytes(recs);
  writeFileSync(file, buf);
  const cps = recs.filter((x) => x.type === 'checkpoint').length;
  console.log(`wrote ${file}: ${recs.length} records, ${cps} checkpoints, ${buf.length} bytes`);
}
