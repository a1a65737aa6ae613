// DEV ONLY. Canned data shaped exactly like the Go facade's contract, for
// manual checks of the UI before (or without) the Go side: loaded by `vite`
// dev with ?fake, or injected by dev/screenshot.mjs and dev/serve-fake.mjs.
// Never part of dist/. e2e/jmlog.test.mjs drives it (through serve-fake) for
// what a capture cannot show: the JobManager log's states, its "Read the
// JobManager log" request (window.__ceReadJobManagerLog records the calls) and
// checkpoints that came from the log (clickstream-sessionize on prod-flink).
// e2e/lanes.test.mjs drives it for the sink commits and custom lanes: orders-enrichment
// on prod-flink has commit samples (a slow 1,900 ms commit shared by #2499 and #2500)
// and prod-flink two custom lanes ("Kafka lag", "Records out/s") with samples.
// e2e/advice.test.mjs drives it for the advice (adviceFor): three items of different
// severities on orders-enrichment, one on clickstream-sessionize, none elsewhere.
// e2e/traces.test.mjs drives it for the traces (prod-flink's Jaeger): BackfillTraces on
// orders-enrichment adds the 31 checkpoints of its gap (#1200–#1230) and fills 3 checkpoints'
// subtask details, then finds nothing missing; TraceJobs lists both jobs (cached) and
// nightly-compaction (not cached), which OpenTracesJob caches with its 48 checkpoints from traces.
// e2e/fleet.test.mjs drives it for the fleet (Fleet): canned rows, not worked out from the
// checkpoints above (fleetRows) — clickstream-sessionize on prod-flink failing, mysql-to-doris on
// zeta-staging (SeaTunnel) slow, orders-enrichment slower than usual, the sample healthy, a job
// cached without a row (nightly-compaction, once opened from traces) without data — in the
// documented order (docs/fleet.md). window.__ceFleetSet(cluster, job, patch) changes a row (a
// test then sends a checkpoints event), window.__ceFleetCalls counts the calls.
// e2e/alerts.test.mjs drives it for the alert rules (AlertRules, SetAlertRules): it keeps what was
// set, each rule with its name filled in, and refuses a bad rule with the backend's error text.
(function () {
  'use strict';
  const now = Date.now();
  const params = new URLSearchParams(location.search);
  if (params.has('browser')) window.__CE_MODE = 'browser';

  // The bundled sample: the 7 checkpoints of phase-2.3-checkpoint-metrics.json.
  const sampleRecords = [
    [3, 1779924591497, 47, 4370],
    [13, 1779924602055, 42, 4370],
    [21, 1779924610968, 40, 4370],
    [27, 1779924617278, 53, 4370],
    [28, 1779924618333, 19022, 12316],
    [39, 1779924667438, 54, 4417],
    [52, 1779924682497, 26, 4417],
  ];

  function cp(cluster, job, id, trigger, dur, size, status, extra) {
    return Object.assign(
      {
        cluster,
        job_id: job,
        id,
        pipeline: 0,
        kind: 'checkpoint',
        status,
        trigger_ms: trigger,
        end_ms: status === 'IN_PROGRESS' ? 0 : trigger + dur,
        end_to_end_ms: dur,
        state_size: size * 3,
        checkpointed_size: size,
        num_subtasks: 8,
        num_acknowledged: status === 'COMPLETED' ? 8 : status === 'FAILED' ? 5 : 3,
        failure_message: '',
      },
      extra || {},
    );
  }

  const sources = [
    { name: 'sample', engine: 'flink', base_url: '', prometheus_url: '', auth_kind: 'none', ca_file: '', insecure_skip_verify: false, kind: 'sample', read_only: true, health: { state: 'idle', last_error: '', last_ok_ms: 0, requests_per_sec: 0 } },
    { name: 'prod-flink', engine: 'flink', base_url: 'http://127.0.0.1:8081', prometheus_url: 'http://127.0.0.1:9090', auth_kind: 'basic', username: 'ops', ca_file: '', insecure_skip_verify: false,
      traces_url: 'http://127.0.0.1:16686', traces_service: 'flink',
      lanes: [{ name: 'Kafka lag', promql: 'sum(kafka_consumergroup_lag{job_id="$job_id"})' }, { name: 'Records out/s', metric: 'numRecordsOutPerSecond' }],
      kind: 'cluster', read_only: false, health: { state: 'ok', last_error: '', last_ok_ms: now - 2000, requests_per_sec: 1.4 } },
    { name: 'zeta-staging', engine: 'seatunnel', base_url: 'http://127.0.0.1:5801', prometheus_url: '', auth_kind: 'none', ca_file: '', insecure_skip_verify: false, kind: 'cluster', read_only: false, health: { state: 'error', last_error: 'Get "http://127.0.0.1:5801/overview": dial tcp 127.0.0.1:5801: connect: connection refused', last_ok_ms: now - 3600_000, requests_per_sec: 0 } },
  ];

  const jobs = {
    sample: [{ id: '469237c073b0c1ea872fc0403694fc68', name: 'mysql-cdc-to-iceberg', state: 'FINISHED', engine: 'flink' }],
    'prod-flink': [
      { id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', name: 'orders-enrichment', state: 'RUNNING', engine: 'flink' },
      { id: 'ffee00112233445566778899aabbccdd', name: 'clickstream-sessionize', state: 'RUNNING', engine: 'flink' },
    ],
    'zeta-staging': [{ id: '870213338743619585', name: 'mysql-to-doris', state: 'RUNNING', engine: 'seatunnel' }],
  };

  const checkpoints = {};
  const gaps = {};
  const key = (c, j) => c + '\u0000' + j;
  checkpoints[key('sample', jobs.sample[0].id)] = sampleRecords.map(([id, t, d, s]) => cp('sample', jobs.sample[0].id, id, t, d, s, 'COMPLETED', { num_subtasks: 4, num_acknowledged: 4 }));
  // The sample recorded only some ids: the ones between are gaps.
  gaps[key('sample', jobs.sample[0].id)] = sampleRecords.slice(1).map(([id, t], i) => {
    const [pid, pt, pd] = sampleRecords[i];
    return { from_id: pid + 1, to_id: id - 1, after_ms: pt + pd, before_ms: t };
  });

  // A busy job: 3,000 checkpoints 10 s apart, a slow/failing patch, a gap, one running.
  {
    const job = jobs['prod-flink'][0].id;
    const list = [];
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const start = now - 3000 * 10_000;
    for (let i = 1; i <= 3000; i++) {
      if (i >= 1200 && i <= 1230) continue; // evicted before collection
      const t = start + i * 10_000 + Math.floor(rnd() * 400);
      const slow = i > 2100 && i < 2200;
      const dur = Math.floor((slow ? 4000 + rnd() * 4000 : 300 + rnd() * 700) * (i % 97 === 0 ? 6 : 1));
      const failed = (slow && rnd() < 0.25) || i % 311 === 0;
      const status = i === 3000 ? 'IN_PROGRESS' : failed ? 'FAILED' : 'COMPLETED';
      list.push(
        cp('prod-flink', job, i, t, dur, Math.floor(40e6 + rnd() * 20e6), status, failed ? {
          failure_message: i % 311 === 0
            ? 'Checkpoint expired before completing.'
            : 'org.apache.flink.runtime.checkpoint.CheckpointException: Asynchronous task checkpoint failed. Failure reason: java.io.IOException: Could not flush to file s3://bucket/checkpoints/a1b2/chk-' + i + '/_metadata: connection reset by peer',
        } : {}),
      );
    }
    checkpoints[key('prod-flink', job)] = list;
    gaps[key('prod-flink', job)] = [{ from_id: 1200, to_id: 1230, after_ms: start + 1199 * 10_000 + 900, before_ms: start + 1231 * 10_000 }];
    // clickstream-sessionize: #1–#4 had left Flink's REST history before the app followed the job
    // (earlier, from the JobManager log), #7 filled a gap from the log; #3 and #10 failed with the
    // root cause and the declining task the log gave (#10's decline names no task).
    const job2 = jobs['prod-flink'][1].id;
    const fromLog = { source: 'jobmanager_log', num_subtasks: 0, num_acknowledged: 0, state_size: 0 };
    checkpoints[key('prod-flink', job2)] = Array.from({ length: 12 }, (_, k) => {
      const i = k + 1;
      const t = now - (13 - i) * 60_000;
      const log = i <= 4 || i === 7;
      const extra = log ? Object.assign({ finalize_ms: 20 + i }, fromLog) : {};
      if (i === 3) {
        Object.assign(extra, {
          failure_message: 'Task local checkpoint failure.',
          failure_cause: 'java.lang.RuntimeException: Snapshot Thrower: snapshot of checkpoint 3 thrown on purpose',
          declined: { vertex_id: 'v2', subtask: 0, attempt: 0, task: 'Snapshot Thrower (1/2)#0', message: 'org.apache.flink.runtime.checkpoint.CheckpointException: Task local checkpoint failure.' },
        });
        delete extra.finalize_ms;
      }
      if (i === 10) {
        Object.assign(extra, {
          failure_message: 'org.apache.flink.runtime.checkpoint.CheckpointException: Asynchronous task checkpoint failed.',
          failure_cause: 'java.io.IOException: No space left on device',
          declined: { vertex_id: 'v2', subtask: 1, attempt: 0 },
        });
      }
      const status = i === 3 || i === 10 ? 'FAILED' : 'COMPLETED';
      return cp('prod-flink', job2, i, t, 800 + i * 100, 1_500_000, status, extra);
    });
  }
  {
    const job = jobs['zeta-staging'][0].id;
    const list = [];
    for (let i = 1; i <= 40; i++) {
      for (const p of [1, 2]) {
        const failed = i === 17 && p === 2;
        list.push(cp('zeta-staging', job, i, now - (41 - i) * 30_000 + p * 500, 1200 + ((i * 37 * p) % 900), 0, failed ? 'FAILED' : 'COMPLETED', {
          pipeline: p,
          state_blobs: 3 + ((i + p) % 4),
          state_size: 0,
          failure_message: failed ? 'CheckpointCoordinator: checkpoint 17 of pipeline 2 timed out after 60000 ms' : '',
        }));
      }
    }
    checkpoints[key('zeta-staging', job)] = list;
  }

  // ---- The fleet (canned rows; the order is the backend's, docs/fleet.md) ----
  /** the newest 30 final checkpoints of a job, as a fleet row's sparkline */
  function sparkline(cluster, job) {
    return (checkpoints[key(cluster, job)] || [])
      .filter((c) => c.status !== 'IN_PROGRESS')
      .slice(-30)
      .map((c) => (c.status === 'FAILED' ? { trigger_ms: c.trigger_ms, ms: c.end_to_end_ms, failed: true } : { trigger_ms: c.trigger_ms, ms: c.end_to_end_ms }));
  }
  const fleetRows = {
    [key('prod-flink', 'ffee00112233445566778899aabbccdd')]: {
      attention: 'failing', completed: 9, failed: 3, expired: 1, in_progress: 0, missed: 0, p50_ms: 1350, p90_ms: 1900, baseline_p90_ms: 1100,
      since_ms: now - 10 * 60_000, latest_failure: 'org.apache.flink.runtime.checkpoint.CheckpointException: Asynchronous task checkpoint failed.', verdict: 'inconclusive',
      interval_ms: 60_000, timeout_ms: 600_000,
    },
    [key('zeta-staging', '870213338743619585')]: {
      attention: 'slow', completed: 79, failed: 1, expired: 1, in_progress: 0, missed: 0, p50_ms: 1650, p90_ms: 2050, baseline_p90_ms: 1500,
      since_ms: now - 12 * 60_000, latest_failure: 'CheckpointCoordinator: checkpoint N of pipeline N timed out after N ms', verdict: 'storage',
      interval_ms: 2000, timeout_ms: 60_000,
    },
    [key('prod-flink', 'a1b2c3d4e5f60718293a4b5c6d7e8f90')]: {
      attention: 'slower_than_usual', completed: 355, failed: 1, expired: 1, in_progress: 1, missed: 0, p50_ms: 640, p90_ms: 2600, baseline_p90_ms: 900,
      since_ms: now - 25 * 60_000, latest_failure: 'Checkpoint expired before completing.', verdict: 'backpressure',
    },
    [key('sample', '469237c073b0c1ea872fc0403694fc68')]: {
      attention: 'healthy', completed: 7, failed: 0, expired: 0, in_progress: 0, missed: 43, p50_ms: 47, p90_ms: 19022, baseline_p90_ms: null,
      since_ms: null, latest_failure: '', verdict: 'backpressure', window_end_ms: 1779924682497,
    },
  };
  const fleetPatches = {};
  const ATTENTION_RANK = ['failing', 'slow', 'slower_than_usual', 'healthy', 'no_data'];
  /** nullsLast compares two nullable numbers, a null after any number */
  const nullsLast = (a, b, f) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : f(a, b));
  function fleet(req) {
    window.__ceFleetCalls = (window.__ceFleetCalls || 0) + 1;
    const out = [];
    for (const s of sources) {
      if (req.cluster && s.name !== req.cluster) continue;
      for (const j of jobs[s.name] || []) {
        const k = key(s.name, j.id);
        const canned = fleetRows[k] || {
          attention: 'no_data', completed: 0, failed: 0, expired: 0, in_progress: 0, missed: 0, p50_ms: null, p90_ms: null, baseline_p90_ms: null,
          since_ms: null, latest_failure: '', verdict: 'inconclusive',
        };
        out.push(Object.assign(
          { cluster: s.name, engine: j.engine, job_id: j.id, name: j.name, state: j.state, window_end_ms: Date.now(), sparkline: fleetRows[k] ? sparkline(s.name, j.id) : [] },
          canned,
          fleetPatches[k] || {},
        ));
      }
    }
    // The needs-attention order: attention, the longest trouble, the slowest p90, then cluster, name, id.
    out.sort((a, b) => ATTENTION_RANK.indexOf(a.attention) - ATTENTION_RANK.indexOf(b.attention)
      || nullsLast(a.since_ms, b.since_ms, (x, y) => x - y)
      || nullsLast(a.p90_ms, b.p90_ms, (x, y) => y - x)
      || a.cluster.localeCompare(b.cluster) || a.name.localeCompare(b.name) || a.job_id.localeCompare(b.job_id));
    // window.__ceFleetAsOf = {ms, answers}: the next answers are the last run's rows, as of ms
    // (the backend's first answer after a start, while it reads the fleet again).
    const stale = window.__ceFleetAsOf;
    const asOf = stale && stale.answers > 0 ? (stale.answers--, { as_of_ms: stale.ms }) : {};
    return Object.assign({ window_ms: req.window_ms || 3_600_000, jobs: out }, asOf);
  }
  window.__ceFleetSet = (cluster, job, patch) => {
    fleetPatches[key(cluster, job)] = Object.assign(fleetPatches[key(cluster, job)] || {}, patch);
  };

  function jobView(cluster, j) {
    const list = checkpoints[key(cluster, j.id)] || [];
    const count = (s) => list.filter((c) => c.status === s).length;
    return {
      cluster,
      id: j.id,
      name: j.name,
      engine: j.engine,
      state: j.state,
      start_ms: list.length ? list[0].trigger_ms - 5000 : 0,
      total: list.length,
      completed: count('COMPLETED'),
      failed: count('FAILED'),
      in_progress: count('IN_PROGRESS'),
      gaps: (gaps[key(cluster, j.id)] || []).length,
      first_trigger_ms: list.length ? list[0].trigger_ms : 0,
      last_trigger_ms: list.length ? list[list.length - 1].trigger_ms : 0,
    };
  }

  // ---- Sink commits and custom lanes (orders-enrichment on prod-flink only) ----
  const commitJob = jobs['prod-flink'][0].id;
  const SLOW_COMMIT_ID = 2500;
  /** one commit per sampling window; every 25th window saw two checkpoints complete (id and id − 1) */
  function commitFor(cluster, job, id) {
    if (cluster !== 'prod-flink' || job !== commitJob) return undefined;
    const list = checkpoints[key(cluster, job)] || [];
    const byId = (i) => list.find((c) => c.id === i && c.status === 'COMPLETED');
    const c = byId(id);
    if (!c) return undefined;
    const lead = id % 25 === 24 && byId(id + 1) ? id + 1 : id; // the window's last checkpoint
    const members = lead % 25 === 0 && byId(lead - 1) ? [lead - 1, lead] : [lead];
    if (!members.includes(id)) return undefined;
    const last = byId(lead);
    return {
      at_ms: last.end_ms + 2000 + (lead % 7) * 300,
      duration_ms: lead === SLOW_COMMIT_ID ? 1900 : 150 + ((lead * 37) % 250),
      files: members.reduce((n, i) => n + 2 + (i % 5), 0),
      records: members.reduce((n, i) => n + 4000 + ((i * 131) % 3000), 0),
      committables: members.length * 4,
      checkpoints: members.length,
    };
  }
  function commitPoints(cluster, job) {
    if (cluster !== 'prod-flink' || job !== commitJob) return [];
    const out = [];
    for (const c of checkpoints[key(cluster, job)] || []) {
      if (c.status !== 'COMPLETED' || (c.id % 25 === 24 && commitFor(cluster, job, c.id + 1))) continue;
      const m = commitFor(cluster, job, c.id);
      if (m) out.push({ t_ms: m.at_ms, value: m.duration_ms });
    }
    return out;
  }
  // A custom lane's samples, by its name: every 10 s over the job's life.
  const laneGenerators = {
    'Kafka lag': (k, slow) => Math.round(1200 + 800 * Math.sin(k / 40) + (slow ? 40_000 : 0)),
    'Records out/s': (k, slow) => Math.round((slow ? 800 : 3000) + 500 * Math.cos(k / 25)),
  };
  function customLanes(cluster, job, from, to, cols) {
    const src = sources.find((x) => x.name === cluster);
    if (!src || cluster !== 'prod-flink' || job !== commitJob) return [];
    const list = checkpoints[key(cluster, job)] || [];
    const start = list[0].trigger_ms;
    const slowFrom = list.find((c) => c.id >= 2100)?.trigger_ms ?? 0;
    const slowTo = list.find((c) => c.id >= 2200)?.trigger_ms ?? 0;
    const out = [];
    for (const l of src.lanes || []) {
      const gen = laneGenerators[l.name];
      if (!gen) continue; // nothing sampled under this name
      const pts = [];
      for (let t = start, k = 0; t <= Date.now(); t += 10_000, k++) pts.push({ t_ms: t, value: gen(k, t >= slowFrom && t < slowTo) });
      const points = perColumn(pts, from, to, cols);
      if (points.length) out.push({ name: l.name, points });
    }
    return out;
  }
  /** perColumn keeps the largest point of each pixel column, as the backend does. */
  function perColumn(points, from, to, cols) {
    const span = Math.max(1, to - from);
    const out = [];
    let col = -1;
    for (const p of points) {
      if (p.t_ms < from || p.t_ms > to) continue;
      const c = Math.floor(((p.t_ms - from) / span) * cols);
      if (c === col && out.length) {
        if (p.value > out[out.length - 1].value) out[out.length - 1] = p;
      } else {
        out.push(p);
        col = c;
      }
    }
    return out;
  }

  const rank = (s) => (s === 'FAILED' ? 2 : s === 'COMPLETED' ? 1 : 0);
  const endOf = (c) => (c.end_ms > 0 ? c.end_ms : Date.now());

  function timeline(req) {
    const list = checkpoints[key(req.cluster, req.job)] || [];
    const ext = list.length ? { min_ms: list[0].trigger_ms, max_ms: Math.max(...list.map(endOf)) } : { min_ms: 0, max_ms: 0 };
    const from = req.from_ms || ext.min_ms;
    const to = req.to_ms || ext.max_ms;
    const cols = Math.max(1, Math.floor((req.width_px || 800) / 2));
    const span = Math.max(1, to - from);
    const bars = [];
    let cur = null;
    let curCol = -1;
    for (const c of list) {
      if (c.trigger_ms > to || endOf(c) < from) continue;
      const col = Math.floor(((c.trigger_ms - from) / span) * cols);
      if (cur && col === curCol) {
        cur.count++;
        cur.last_id = c.id;
        cur.end_ms = Math.max(cur.end_ms, c.end_ms);
        cur.max_duration_ms = Math.max(cur.max_duration_ms, c.end_to_end_ms);
        if (rank(c.status) > rank(cur.status)) cur.status = c.status;
      } else {
        cur = { start_ms: c.trigger_ms, end_ms: c.end_ms, status: c.status, max_duration_ms: c.end_to_end_ms, count: 1, first_id: c.id, last_id: c.id };
        curCol = col;
        bars.push(cur);
      }
    }
    const size = list.filter((c) => c.trigger_ms >= from && c.trigger_ms <= to).map((c) => ({ t_ms: c.trigger_ms, value: c.checkpointed_size }));
    const px = Math.max(1, req.width_px || 800);
    const commit = perColumn(commitPoints(req.cluster, req.job), from, to, px);
    const custom = customLanes(req.cluster, req.job, from, to, px);
    return { from_ms: from, to_ms: to, extent: ext, bars, gaps: gaps[key(req.cluster, req.job)] || [], lanes: { backpressure: [], size, commit, custom } };
  }

  function detail(cluster, job, pipeline, id) {
    const c = (checkpoints[key(cluster, job)] || []).find((x) => x.id === id && (x.pipeline || 0) === pipeline);
    if (!c) throw new Error('checkpoint ' + id + ' of job ' + job + ' not found');
    const names = { v1: 'Source: orders (Kafka)', v2: 'Enrich → Filter → Map', v3: 'Sink: iceberg.orders_enriched (Writer → Committer)' };
    const tasks = c.source === 'jobmanager_log' ? [] : ['v1', 'v2', 'v3'].map((v, k) => ({
      vertex_id: v,
      latest_ack_ms: c.end_ms,
      end_to_end_ms: Math.floor(c.end_to_end_ms * (0.5 + k * 0.25)),
      state_size: Math.floor(c.state_size / 3),
      checkpointed_size: Math.floor(c.checkpointed_size / 3),
      processed_data: 0,
      persisted_data: 0,
      num_subtasks: 4,
      num_acknowledged: c.status === 'COMPLETED' ? 4 : 3,
      subtasks: [0, 1, 2, 3].map((i) => ({
        index: i,
        status: c.status === 'COMPLETED' || i < 3 ? 'completed' : 'pending_or_failed',
        ack_ms: c.end_ms,
        end_to_end_ms: Math.floor(c.end_to_end_ms * (0.4 + i * 0.1)),
        start_delay_ms: 3 + i * 2 + k,
        alignment_ms: k === 0 ? 0 : Math.floor(c.end_to_end_ms * 0.2 * (i + 1) / 4),
        sync_ms: 2 + i,
        async_ms: Math.floor(c.end_to_end_ms * 0.3 * (i + 1) / 4),
        state_size: 1000,
        checkpointed_size: 1000,
        processed_data: 0,
        persisted_data: 0,
      })),
    }));
    return Object.assign({}, c, { latest_ack_ms: c.source === 'jobmanager_log' ? 0 : c.end_ms, completion_ms: c.status === 'COMPLETED' ? c.end_ms : 0, failure_ms: c.status === 'FAILED' ? c.end_ms : 0, processed_data: 0, persisted_data: 0, external_path: c.status === 'COMPLETED' ? 's3://bucket/checkpoints/' + job + '/chk-' + id : '', tasks, vertex_names: names });
  }

  // The JobManager log of prod-flink grew past the automatic reads' cap after an earlier read
  // (which gave clickstream-sessionize its checkpoints from the log); the sample's capture
  // recorded the same state (read-only: it cannot be read from the UI).
  const MiB = 1 << 20;
  const tooLarge = { state: 'too_large', size_bytes: 47_400_000, limit_bytes: 16 * MiB, checkpoints: 5,
    reason: "the JobManager log is 45 MiB, over the 16 MiB cap: read it on demand, or set the cluster's JobManager log to on" };
  function reconciliation(cluster, job) {
    const list = checkpoints[key(cluster, job)] || [];
    if (!list.length || cluster === 'zeta-staging') return null;
    const logged = list.filter((c) => c.source === 'jobmanager_log');
    const earlier = cluster === 'prod-flink' && job === jobs['prod-flink'][1].id ? logged.filter((c) => c.id <= 4).length : 0;
    const span = list.filter((c) => c.id > earlier);
    const first = span[0].id;
    const latest = span[span.length - 1].id;
    const gapIds = (gaps[key(cluster, job)] || []).reduce((n, g) => n + g.to_id - g.from_id + 1, 0);
    const fromLog = span.filter((c) => c.source === 'jobmanager_log').length;
    const ids = latest - first + 1;
    const stored = span.length - fromLog;
    return {
      cluster, job_id: job, at_ms: Date.now() - 1500, polls: 420, failed_polls: 0, first_id: first, latest_id: latest, ids, stored,
      gaps: gapIds, unaccounted: Math.max(0, ids - stored - gapIds - fromLog), engine_counted: ids, without_id: 0,
      engine: { triggered: ids, completed: span.filter((c) => c.status === 'COMPLETED').length, failed: span.filter((c) => c.status === 'FAILED').length, in_progress: span.filter((c) => c.status === 'IN_PROGRESS').length, restored: 0 },
      missed: gapIds, from_log: fromLog, earlier, log: Object.assign({}, tooLarge),
    };
  }
  window.__ceReadJobManagerLog = [];

  // The analysis is only stubbed, but the failures are clustered by message, with the root
  // cause and declining task the JobManager log gave.
  // ---- Changes (issue #32) ----
  // orders-enrichment on prod-flink has three: a restart inside its slow patch (#2150), unaligned checkpoints
  // turned on, which ended it (#2200), and a rescale of Enrich 2 → 4 (#2600); every job has the user's notes,
  // kept in sessionStorage so that a reload keeps them as the cache does. Each before/after is measured from
  // the checkpoints above as analyze.BeforeAfter measures it (each side up to the neighbouring change and the
  // window, nearest-rank p50 and p90 of its completed checkpoints, 5 at least), but its interval is canned (the
  // change ± 5 points) and the phase shares are made up from how slow each checkpoint was.
  const NOTES_KEY = 'ce.fake.notes';
  const notes = (() => {
    try {
      return JSON.parse(sessionStorage.getItem(NOTES_KEY) || '{}');
    } catch {
      return {};
    }
  })();
  const keepNotes = () => {
    try {
      sessionStorage.setItem(NOTES_KEY, JSON.stringify(notes));
    } catch {
      // not kept: the notes last until the page goes
    }
  };
  const canned = {};
  {
    const job = jobs['prod-flink'][0].id;
    const before = (id) => checkpoints[key('prod-flink', job)].find((c) => c.id === id).trigger_ms - 2000;
    const change = (kind, id, source, detail) => ({ kind, time_ms: before(id), source, cluster: 'prod-flink', job_id: job, detail });
    canned[key('prod-flink', job)] = [
      change('restart', 2150, 'engine', { checkpoint_id: 2149, reason: 'f_job_region', restored: 1 }),
      change('config', 2200, 'config-history', { keys: [{ key: 'execution.checkpointing.unaligned.enabled', old: 'false', new: 'true' }] }),
      change('rescale', 2600, 'job-graph', { vertex_id: 'b71731f1c0df9c3076c4a455bf3a8e76', vertex_name: 'Enrich', from: 2, to: 4 }),
    ];
  }
  const changeList = (cluster, job) => [...(canned[key(cluster, job)] || []), ...(notes[key(cluster, job)] || [])].sort((a, b) => a.time_ms - b.time_ms);

  // The English of the finding's clauses (backend/analyze/beforeafter.go's effectTemplates).
  const EFFECT_EN = {
    effect_after_config: 'after {{key}} went {{old}} → {{new}}',
    effect_after_rescale: 'after {{vertex}} was rescaled from {{from}} to {{to}} parallel subtasks',
    effect_after_restart: 'after the job restarted',
    effect_after_note: 'after the note “{{text}}”',
    effect_fell: 'end-to-end {{stat}} fell from {{before}} to {{after}} ({{change}}%, {{conf}}% interval {{low}}…{{high}}%)',
    effect_rose: 'end-to-end {{stat}} rose from {{before}} to {{after}} ({{change}}%, {{conf}}% interval {{low}}…{{high}}%)',
    effect_none: 'no measurable change: end-to-end p50 went from {{p50_before}} to {{p50_after}} and p90 from {{p90_before}} to {{p90_after}}, and neither {{conf}}% interval excludes zero',
    effect_few: 'too few checkpoints to compare: {{before}} completed before and {{after}} after (need {{need}} on each side)',
    effect_share_fell: "{{phase}}'s share of the critical path fell from {{before}}% to {{after}}%",
    effect_share_rose: "{{phase}}'s share of the critical path rose from {{before}}% to {{after}}%",
  };
  const say = (p) => Object.entries(p.args || {}).reduce((t, [k, v]) => t.split('{{' + k + '}}').join(v), EFFECT_EN[p.code]);
  const latency = (ms) => (ms < 1000 ? ms + ' ms' : ms < 60000 ? Math.round(ms / 100) / 10 + ' s' : Math.round(ms / 6000) / 10 + ' min');
  const signed = (f) => {
    const p = Math.round(100 * f);
    return p < 0 ? '−' + -p : p > 0 ? '+' + p : '0';
  };
  const round3 = (x) => Math.round(x * 1000) / 1000;
  const nearestRank = (sorted, q) => sorted[Math.max(0, Math.min(Math.ceil(q * sorted.length) - 1, sorted.length - 1))];
  // A slow checkpoint queued its barriers behind backpressure (alignment); an ordinary one wrote its state (async).
  const SLOW_SHARES = { start_delay: 0.05, alignment: 0.7, sync: 0.05, async: 0.15, ack: 0.05 };
  const USUAL_SHARES = { start_delay: 0.02, alignment: 0.04, sync: 0.2, async: 0.64, ack: 0.1 };

  function effectSide(list, from, to, bound) {
    const done = list.filter((c) => c.status !== 'IN_PROGRESS' && c.trigger_ms >= from && (!to || c.trigger_ms < to));
    const ok = done.filter((c) => c.status === 'COMPLETED');
    const failed = done.length - ok.length;
    const shares = {};
    for (const c of ok) for (const [ph, v] of Object.entries(c.end_to_end_ms > 3000 ? SLOW_SHARES : USUAL_SHARES)) shares[ph] = (shares[ph] || 0) + v / ok.length;
    const sizes = ok.map((c) => c.checkpointed_size).sort((a, b) => a - b);
    const slow = ok.filter((c) => c.end_to_end_ms > 3000).length;
    return {
      from_ms: from, to_ms: to, ...(bound ? { bound } : {}), completed: ok.length, failed,
      failure_rate: done.length ? round3(failed / done.length) : null,
      failures: failed ? [{ signature: 'CheckpointException: Asynchronous task checkpoint failed', example: done.find((c) => c.status === 'FAILED').failure_message, count: failed }] : [],
      phase_shares: Object.entries(shares).map(([phase, share]) => ({ phase, share: round3(share) })),
      with_phases: ok.length,
      ...(slow ? { queued_at: { vertex_id: 'b71731f1c0df9c3076c4a455bf3a8e76', vertex_name: 'Enrich', upstream_vertex_id: 'cbc357ccb763df2852fee8c4fc7d55f2', upstream_vertex_name: 'Source: orders', checkpoints: slow } } : {}),
      checkpointed_size_p50_bytes: sizes.length ? nearestRank(sizes, 0.5) : null,
      upstream_backpressure_p50: null,
      e2e: ok.map((c) => c.end_to_end_ms).sort((a, b) => a - b),
    };
  }
  function shift(b, a, q) {
    if (b.length < 5 || a.length < 5) return { before: null, after: null, change: null, low: null, high: null };
    const before = nearestRank(b, q);
    const after = nearestRank(a, q);
    const change = round3(after / before - 1);
    return { before, after, change, low: round3(change - 0.05), high: round3(change + 0.05) };
  }
  const measured = (s) => s.low !== null && (s.low > 0 || s.high < 0);
  function changeClause(c) {
    const d = c.detail;
    if (c.kind === 'config') return { code: 'effect_after_config', args: { key: d.keys[0].key, old: d.keys[0].old || '—', new: d.keys[0].new || '—' } };
    if (c.kind === 'rescale') return { code: 'effect_after_rescale', args: { vertex: d.vertex_name, from: String(d.from), to: String(d.to) } };
    if (c.kind === 'restart') return { code: 'effect_after_restart' };
    return { code: 'effect_after_note', args: { text: d.text } };
  }
  function beforeAfter(cluster, job, at, windowMs) {
    const times = changeList(cluster, job).map((c) => c.time_ms);
    let from = windowMs ? at - windowMs : 0;
    let to = windowMs ? at + windowMs : 0;
    let boundBefore = windowMs ? 'window' : '';
    let boundAfter = boundBefore;
    for (const t of times) {
      if (t < at && t >= from) [from, boundBefore] = [t, 'change'];
      if (t > at && (!to || t <= to)) [to, boundAfter] = [t, 'change'];
    }
    const list = checkpoints[key(cluster, job)] || [];
    const { e2e: b, ...before } = effectSide(list, from, at, boundBefore);
    const { e2e: a, ...after } = effectSide(list, at, to, boundAfter);
    const p50 = shift(b, a, 0.5);
    const p90 = shift(b, a, 0.9);
    const here = changeList(cluster, job).find((c) => c.time_ms === at);
    const parts = here ? [changeClause(here)] : [];
    if (before.completed < 5 || after.completed < 5) {
      parts.push({ code: 'effect_few', args: { before: String(before.completed), after: String(after.completed), need: '5' } });
    } else if (measured(p90) || measured(p50)) {
      const [stat, s] = measured(p90) ? ['p90', p90] : ['p50', p50];
      parts.push({ code: s.high < 0 ? 'effect_fell' : 'effect_rose', args: { stat, before: latency(s.before), after: latency(s.after), change: signed(s.change), conf: '95', low: signed(s.low), high: signed(s.high) } });
    } else {
      parts.push({ code: 'effect_none', args: { p50_before: latency(p50.before), p50_after: latency(p50.after), p90_before: latency(p90.before), p90_after: latency(p90.after), conf: '95' } });
    }
    const share = (side, ph) => (side.phase_shares.find((x) => x.phase === ph) || { share: 0 }).share;
    if (before.completed >= 5 && after.completed >= 5) {
      const moved = Object.keys(SLOW_SHARES).map((ph) => [ph, share(before, ph), share(after, ph)]).sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1]))[0];
      if (Math.abs(moved[2] - moved[1]) >= 0.1) {
        parts.push({ code: moved[2] < moved[1] ? 'effect_share_fell' : 'effect_share_rose', args: { phase: moved[0], before: String(Math.round(100 * moved[1])), after: String(Math.round(100 * moved[2])) } });
      }
    }
    return { at_ms: at, before, after, end_to_end_p50_ms: p50, end_to_end_p90_ms: p90, finding: parts.map(say).join('; ') + '.', finding_parts: parts };
  }
  const changesOf = (cluster, job) => changeList(cluster, job).map((c) => Object.assign({}, c, { effect: beforeAfter(cluster, job, c.time_ms, 0) }));

  function report(cluster, job) {
    const list = checkpoints[key(cluster, job)] || [];
    const byMsg = new Map();
    for (const c of list.filter((x) => x.status === 'FAILED')) {
      const sig = c.failure_message.replace(/\d+/g, 'N');
      let f = byMsg.get(sig);
      if (!f) {
        f = { signature: sig, example: c.failure_message, count: 0, checkpoint_ids: [], vertices: [], first_ms: c.trigger_ms, last_ms: c.trigger_ms };
        byMsg.set(sig, f);
      }
      f.count++;
      f.checkpoint_ids.push(c.id);
      f.last_ms = c.trigger_ms;
      if (!f.cause && c.failure_cause) f.cause = c.failure_cause;
      if (!f.task && c.declined?.task) f.task = c.declined.task;
    }
    const failures = [...byMsg.values()].sort((a, b) => b.count - a.count);
    const advice = adviceFor(cluster, job);
    return { job: { cluster, id: job, name: job, engine: 'flink' }, from_ms: 0, to_ms: 0, missed: 0, phases_available: [], notes: ['fake bridge: no analysis'], checkpoints: [], failures, slow_phases: [], slow_checkpoints: [], changes: changesOf(cluster, job), episodes: [], advice_follow_up: advice.map((a) => ({ code: a.code, status: 'current' })), correlation: { backpressure: { rho: null, n: 0, p: null }, alignment_backpressure: { rho: null, n: 0, p: null }, checkpointed_size: { rho: null, n: 0, p: null }, verdict: 'inconclusive', reason: 'fake bridge: no analysis' }, advice, summary: { total: list.length, completed: list.filter((c) => c.status === 'COMPLETED').length, failed: list.filter((c) => c.status === 'FAILED').length, in_progress: 0, missed: 0, first_ms: 0, last_ms: 0, duration_p50_ms: 0, duration_p90_ms: 0, duration_p99_ms: 0, duration_max_ms: 0, slowest: [], size_p50_bytes: 0, size_max_bytes: 0 } };
  }

  // ---- Advice (issue #16): what a job's analysis would say to change, most severe first. ----
  // orders-enrichment on prod-flink: expiring checkpoints (critical, its timeout reported), barriers
  // behind backpressure in aligned checkpoints (warning, one key not reported) and an interval
  // shorter than the checkpoints (info); clickstream-sessionize: tolerable failures (#3 and #10).
  // The parts use the Go side's templates (reason.advice_*, backend/analyze/advice_rules.go);
  // title and text are their English, rendered by render() as the Go side renders them.
  const FLINK_DOCS = 'https://nightlies.apache.org/flink/flink-docs-stable/docs/';
  const EN = {
    advice_timeout_title: '{{n}} checkpoint(s) expired while still acknowledging: weigh the timeout against the p99',
    advice_timeout_evidence: '{{n}} checkpoint(s) ({{ids}}) expired at the timeout of {{timeout}}, their last acknowledgement at {{late}}% of it or later',
    advice_timeout_tight: 'completed checkpoints take up to {{p99}} (p99), too close to the timeout: raise {{key}} to at least {{suggest}}, or remove the cause',
    advice_unaligned_title: 'Barriers wait behind backpressured data: consider unaligned checkpoints',
    advice_unaligned_evidence: 'in {{share}}% of the slowest quarter of checkpoints ({{ids}}) the time went into the start delay or alignment while upstream backpressure reached {{level}}%',
    advice_unaligned_aligned: 'these checkpoints are aligned, so each barrier queues behind the buffered in-flight data',
    advice_unaligned_cause_at: 'the lasting fix is the slow operator that backpressures its inputs: {{vertex}}',
    advice_interval_title: 'Checkpoints run back to back',
    advice_interval_evidence: 'the interval is {{interval}} while completed checkpoints take {{p90}} (p90) and the min pause is {{pause}}: one starts as soon as the last ends',
    advice_interval_fix: 'the job spends most of its time checkpointing; raise the min pause ({{key_pause}}) to at least {{suggest}}, or the interval ({{key_interval}})',
    advice_tolerable_title: 'Each failed checkpoint fails the job over',
    advice_tolerable_evidence: '{{n}} checkpoint(s) ({{ids}}) failed between completed ones, and the job tolerates {{tolerable}} failed checkpoints',
    advice_tolerable_fix: 'with none tolerated, one failure restarts the job; allow a few ({{key}}: 3) while the failures are fixed',
  };
  const fill = (p) => Object.entries(p.args || {}).reduce((t, [k, v]) => t.split('{{' + k + '}}').join(v), EN[p.code]);
  const idText = (ids) => ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', …' : '');
  function render(code, severity, title, parts, keys, current, ids, figures, docs) {
    return { code, severity, title: fill(title), text: parts.map(fill).join('; ') + '.', title_part: title, text_parts: parts,
      config_keys: keys, current, evidence: { checkpoint_ids: ids, figures }, docs_url: docs };
  }
  function adviceFor(cluster, job) {
    const list = checkpoints[key(cluster, job)] || [];
    const ids = (pred, n) => list.filter(pred).slice(0, n || 20).map((c) => c.id);
    if (cluster === 'prod-flink' && job === jobs['prod-flink'][0].id) {
      const expired = ids((c) => c.status === 'FAILED' && /expired/.test(c.failure_message), 6);
      const slow = ids((c) => c.id > 2100 && c.id < 2200 && c.status === 'COMPLETED' && c.end_to_end_ms > 4000, 8);
      return [
        render('timeout_vs_p99', 'critical', { code: 'advice_timeout_title', args: { n: String(expired.length) } }, [
          { code: 'advice_timeout_evidence', args: { n: String(expired.length), ids: idText(expired), timeout: '1 min', late: '75' } },
          { code: 'advice_timeout_tight', args: { p99: '58.2 s', key: 'execution.checkpointing.timeout', suggest: '2 min' } },
        ], ['execution.checkpointing.timeout'], { 'execution.checkpointing.timeout': '1 min' }, expired,
        { timeout_ms: 60000, p99_ms: 58200, expired: expired.length }, FLINK_DOCS + 'dev/datastream/fault-tolerance/checkpointing/'),
        render('unaligned_checkpoints', 'warning', { code: 'advice_unaligned_title' }, [
          { code: 'advice_unaligned_evidence', args: { share: '71', ids: idText(slow), level: '94' } },
          { code: 'advice_unaligned_aligned' },
          { code: 'advice_unaligned_cause_at', args: { vertex: 'Enrich' } },
        ], ['execution.checkpointing.unaligned.enabled', 'execution.checkpointing.unaligned', 'execution.checkpointing.aligned-checkpoint-timeout', 'taskmanager.network.memory.buffer-debloat.enabled'],
        { 'execution.checkpointing.unaligned': 'false', 'execution.checkpointing.aligned-checkpoint-timeout': '0 ms' },
        slow, { share: 0.71, upstream_backpressure: 0.94 }, FLINK_DOCS + 'ops/state/checkpointing_under_backpressure/'),
        render('interval_back_to_back', 'info', { code: 'advice_interval_title' }, [
          { code: 'advice_interval_evidence', args: { interval: '1 s', p90: '5.4 s', pause: '0 ms' } },
          { code: 'advice_interval_fix', args: { key_pause: 'execution.checkpointing.min-pause', suggest: '6 s', key_interval: 'execution.checkpointing.interval' } },
        ], ['execution.checkpointing.interval', 'execution.checkpointing.min-pause'],
        { 'execution.checkpointing.interval': '1 s', 'execution.checkpointing.min-pause': '0 ms' }, slow.slice(0, 3),
        { interval_ms: 1000, p90_ms: 5400, min_pause_ms: 0 }, FLINK_DOCS + 'ops/state/large_state_tuning/'),
      ];
    }
    if (cluster === 'prod-flink' && job === jobs['prod-flink'][1].id) {
      const failed = ids((c) => c.status === 'FAILED');
      return [
        render('tolerable_failures', 'critical', { code: 'advice_tolerable_title' }, [
          { code: 'advice_tolerable_evidence', args: { n: String(failed.length), ids: idText(failed), tolerable: '0' } },
          { code: 'advice_tolerable_fix', args: { key: 'execution.checkpointing.tolerable-failed-checkpoints' } },
        ], ['execution.checkpointing.tolerable-failed-checkpoints'], {}, failed, { failed: failed.length, tolerable: 0 },
        FLINK_DOCS + 'dev/datastream/fault-tolerance/checkpointing/'),
      ];
    }
    return [];
  }

  // checkLanes mirrors app.CheckLanes: its errors name the lane.
  function checkLanes(input) {
    const lanes = input.lanes || [];
    if (!lanes.length) return;
    const pre = 'bad request: cluster "' + input.name + '": ';
    if (input.engine !== 'flink') throw new Error(pre + 'custom lanes are sampled for Flink clusters only');
    if (lanes.length > 8) throw new Error(pre + lanes.length + ' custom lanes: at most 8');
    const seen = new Set();
    for (const l of lanes) {
      const name = (l.name || '').trim();
      if (!name || name.length > 40) throw new Error(pre + 'lane "' + l.name + '": give a name of 1 to 40 characters');
      if (seen.has(name)) throw new Error(pre + 'lane "' + name + '": two lanes have this name');
      if (!l.promql === !l.metric) throw new Error(pre + 'lane "' + name + '": give either a PromQL query or a Flink metric name');
      if (l.promql && !input.prometheus_url) throw new Error(pre + 'lane "' + name + '": a PromQL lane needs the cluster\'s Prometheus URL');
      if (l.metric && /[, \t]/.test(l.metric)) throw new Error(pre + 'lane "' + name + '": metric "' + l.metric + '": give one Flink metric name, without commas or spaces');
      seen.add(name);
    }
  }

  // ---- Traces: Flink's checkpoint spans in prod-flink's Jaeger (app/traces.go) ----
  const TRACES_JOB = { id: '0123456789abcdef0123456789abcdef', name: 'nightly-compaction' };
  const TRACES_LOOKBACK = '7d';
  let tracesFilled = false; // the 3 details BackfillTraces fills, once
  /** what the spans hold of a job: checkpoint records, marked as from traces */
  function traceCheckpoints(cluster, job) {
    if (cluster !== 'prod-flink') return [];
    const fromTraces = { source: 'traces' };
    if (job === TRACES_JOB.id) {
      // A job Flink no longer lists: 48 checkpoints an hour apart, ending two days ago; #31 failed.
      return Array.from({ length: 48 }, (_, k) => {
        const i = k + 1;
        const failed = i === 31;
        return cp(cluster, job, i, now - 2 * 86_400_000 - (48 - i) * 3_600_000, 2500 + ((i * 53) % 1500), 80_000_000 + i * 100_000, failed ? 'FAILED' : 'COMPLETED',
          Object.assign({ num_subtasks: 6, num_acknowledged: failed ? 4 : 6 }, fromTraces, failed ? { failure_message: 'Checkpoint expired before completing.' } : {}));
      });
    }
    if (job === jobs['prod-flink'][0].id) {
      // orders-enrichment: the spans also hold the ids its gap skipped (#1200–#1230).
      const g = (gaps[key(cluster, job)] || [])[0] || { after_ms: now - 1800 * 10_000, before_ms: now - 1768 * 10_000 };
      return Array.from({ length: 31 }, (_, k) =>
        cp(cluster, job, 1200 + k, g.after_ms + 100 + k * Math.floor((g.before_ms - g.after_ms - 2000) / 31), 600 + ((k * 71) % 500), 45_000_000, 'COMPLETED', fromTraces));
    }
    return [];
  }
  function tracesCluster(cluster) {
    const s = sources.find((x) => x.name === cluster && x.kind === 'cluster');
    if (!s) throw new Error('bad request: no cluster named "' + cluster + '"');
    if (!s.traces_url) throw new Error('bad request: cluster "' + cluster + '" has no traces URL (a Jaeger query service Flink sends its checkpoint spans to)');
    return s;
  }
  /** merge adds the spans' checkpoints the cache lacks, in id order; it answers how many. */
  function mergeTraces(cluster, job, found) {
    const list = checkpoints[key(cluster, job)] || (checkpoints[key(cluster, job)] = []);
    const have = new Set(list.map((c) => c.id));
    const add = found.filter((c) => !have.has(c.id));
    if (add.length) {
      list.push(...add);
      list.sort((a, b) => a.id - b.id);
      gaps[key(cluster, job)] = (gaps[key(cluster, job)] || []).filter((g) => !add.some((c) => c.id >= g.from_id && c.id <= g.to_id));
    }
    return add.length;
  }
  function backfillTraces(cluster, job) {
    tracesCluster(cluster);
    if (!(jobs[cluster] || []).some((j) => j.id === job)) throw new Error('bad request: no job "' + job + '" cached for cluster "' + cluster + '" (open it from traces first)');
    const found = traceCheckpoints(cluster, job);
    const added = mergeTraces(cluster, job, found);
    const filled = cluster === 'prod-flink' && job === jobs['prod-flink'][0].id && !tracesFilled ? 3 : 0;
    if (filled) tracesFilled = true;
    if (added || filled) setTimeout(() => emit('checkpoints', { cluster, job }), 50);
    return { read: found.length, added, details_filled: filled, resolved: 0, windows: found.length ? 2 : 1, requests: added || filled ? 5 : 2, incomplete_windows: 0 };
  }
  function traceJobs(cluster) {
    tracesCluster(cluster);
    if (cluster !== 'prod-flink') return [];
    const cached = new Set((jobs[cluster] || []).map((j) => j.id));
    const entry = (id, name, list) => ({ id, name, checkpoints: list.length, first_trigger_ms: list[0].trigger_ms, latest_trigger_ms: list[list.length - 1].trigger_ms, cached: cached.has(id) });
    const live = jobs['prod-flink'].filter((j) => j.id !== TRACES_JOB.id).map((j) => entry(j.id, j.name, checkpoints[key(cluster, j.id)] || []));
    return [...live, entry(TRACES_JOB.id, TRACES_JOB.name, traceCheckpoints(cluster, TRACES_JOB.id))].sort((a, b) => b.latest_trigger_ms - a.latest_trigger_ms);
  }
  function openTracesJob(cluster, job) {
    if (!job) throw new Error('bad request: a job id is required');
    if (!/^[0-9a-f]{32}$/.test(job)) throw new Error('bad request: job id "' + job + '": a Flink job id is 32 hexadecimal digits');
    const s = tracesCluster(cluster);
    if ((jobs[cluster] || []).some((j) => j.id === job)) return backfillTraces(cluster, job);
    const found = traceCheckpoints(cluster, job);
    if (!found.length) throw new Error('bad request: the traces at ' + s.traces_url + ' hold no checkpoint of job ' + job + ' from the last ' + TRACES_LOOKBACK);
    jobs[cluster].push({ id: job, name: job === TRACES_JOB.id ? TRACES_JOB.name : '', state: 'UNKNOWN', engine: 'flink' });
    const added = mergeTraces(cluster, job, found);
    setTimeout(() => emit('checkpoints', { cluster, job }), 50);
    return { read: found.length, added, details_filled: 0, resolved: 0, windows: 1, requests: 3, incomplete_windows: 0 };
  }
  // checkTraces mirrors the backend's check of a cluster's traces fields.
  function checkTraces(input) {
    if (!input.traces_url && !input.traces_service) return;
    const pre = 'bad request: cluster "' + input.name + '": ';
    if (input.engine !== 'flink') throw new Error(pre + "a traces URL is for Flink's checkpoint spans");
    if (!/^https?:\/\/[^/]/.test(input.traces_url || '')) throw new Error(pre + 'traces (Jaeger query) URL "' + (input.traces_url || '') + '": give an http:// or https:// address');
    if (!(input.traces_service || '').trim()) throw new Error(pre + "traces: give the service name Flink's trace reporter sends (traces.reporter.<name>.service.name)");
  }

  // ---- Alerts: the rules SetAlertRules saved, checked as backend/alert/rule.go checks them ----
  const ALERT_KINDS = ['checkpoint_failed', 'failures_in_window', 'slower_than_baseline', 'no_completion'];
  let alertRules = []; // as AlertRules answers them: each with its name filled in
  const alertRuleName = (r) => {
    const job = (r.job_id || '') + (r.job_name || '');
    return r.name || r.kind + '@' + r.cluster + (job ? '/' + job : '');
  };
  /** alertRuleProblem is alert.Rule.Validate's error ("field: problem"), or ''. */
  function alertRuleProblem(r) {
    const kinds = ALERT_KINDS.join(', ');
    if (!r.kind) return 'kind: required (one of ' + kinds + ')';
    if (!ALERT_KINDS.includes(r.kind)) return 'kind: unknown ' + JSON.stringify(r.kind) + ' (want one of ' + kinds + ')';
    if (!(r.cluster || '').trim()) return 'cluster: required: the name of the cluster the rule watches';
    if (r.job_id && r.job_name) return 'job_name: set job_id or job_name, not both';
    if (/[\x00-\x1f\x7f]/.test(r.name || '')) return 'name: holds a control character';
    const outside = (v, lo, hi, unit) =>
      !Number.isFinite(v) ? 'must be a finite number' : !hi && v < lo ? 'must be at least ' + lo + ' ' + unit : hi && (v < lo || v > hi) ? 'must be ' + lo + ' to ' + hi + ' ' + unit : '';
    const params = [
      ['count', 'failures_in_window', r.count, 1, 30, 'failures'],
      ['window_ms', 'failures_in_window', r.window_ms, 1000, 0, 'ms'],
      ['factor', 'slower_than_baseline', r.factor, 1, 0, 'times the baseline p90'],
      ['for_ms', 'no_completion', r.for_ms, 1000, 0, 'ms'],
    ];
    for (const [field, kind, v, lo, hi, unit] of params) {
      if (kind !== r.kind && v) return field + ': only ' + kind + ' uses it, not ' + r.kind;
      const bad = kind === r.kind ? outside(v || 0, lo, hi, unit) : '';
      if (bad) return field + ': ' + bad + ' for ' + kind;
    }
    return '';
  }
  /** setAlertRules mirrors app.SetAlertRules: each rule checked, no two of one name, then kept. */
  function setAlertRules(rules) {
    const named = (rules || []).map((r) => Object.assign({}, r, { name: alertRuleName(r) }));
    named.forEach((r, i) => {
      const problem = alertRuleProblem(rules[i]);
      if (problem) throw new Error('bad request: rules[' + i + ']: ' + problem);
      const j = named.findIndex((o) => o.name === r.name);
      if (j < i) throw new Error('bad request: rules[' + i + ']: name: ' + JSON.stringify(r.name) + ' is also rules[' + j + "]'s name");
    });
    alertRules = named;
    return null;
  }

  const delay = (v, ms) => new Promise((res, rej) => setTimeout(() => (v instanceof Error ? rej(v.message) : res(v)), ms || 60 + Math.random() * 120));
  const attempt = (fn, ms) => { try { return delay(fn(), ms); } catch (e) { return delay(e instanceof Error ? e : new Error(String(e)), ms); } };

  const listeners = {};
  window.runtime = {
    EventsOn(name, cb) { (listeners[name] = listeners[name] || []).push(cb); return () => (listeners[name] = listeners[name].filter((x) => x !== cb)); },
    EventsOff(name) { delete listeners[name]; },
  };
  const emit = (name, payload) => (listeners[name] || []).forEach((cb) => cb(payload));
  // Tests send the events no fake call makes (e.g. a drop on the window that failed).
  window.__ceFakeEmit = emit;

  /** unknownJob is app.unknownJob's answer. */
  const unknownJob = (cluster, job) => new Error('bad request: the cache holds no job ' + job + ' on "' + cluster + '": `jobs` lists the known ones');

  const App = {
    Version: () => delay({ version: 'dev', commit: 'fake-bridge', go_version: 'go1.26.8' }),
    ListClusters: () => delay(JSON.parse(JSON.stringify(sources))),
    Fleet: (req) => delay(fleet(req)),
    // The fake fleet has no runs to match: a split only marks the row.
    SplitRun: (cluster, job, split) => attempt(() => {
      if (!(jobs[cluster] || []).some((j) => j.id === job)) throw unknownJob(cluster, job);
      window.__ceFleetSet(cluster, job, { split_job_id: split ? job : undefined });
    }),
    // Every fake job is a logical job of one run: its first checkpoint's trigger as its start.
    JobRuns: (cluster, job) => attempt(() => {
      const j = (jobs[cluster] || []).find((x) => x.id === job);
      if (!j) throw unknownJob(cluster, job);
      const first = (checkpoints[key(cluster, job)] || [])[0];
      return [{ job_id: job, start_ms: first ? first.trigger_ms : now, state: j.state }];
    }),
    AlertRules: () => delay(alertRules.map((r) => Object.assign({}, r))),
    SetAlertRules: (rules) => attempt(() => setAlertRules(rules)),
    ListJobs: (cluster) => attempt(() => {
      if (!jobs[cluster]) throw new Error('unknown cluster "' + cluster + '"');
      return jobs[cluster].map((j) => jobView(cluster, j));
    }),
    Checkpoints: (cluster, job, from, to) => delay((checkpoints[key(cluster, job)] || []).filter((c) => (!from || c.trigger_ms >= from) && (!to || c.trigger_ms <= to)).map((c) => {
      const r = Object.assign({}, c);
      delete r.cluster; delete r.job_id;
      return r;
    })),
    Timeline: (req) => delay(timeline(req)),
    Checkpoint: (cluster, job, pipeline, id) => attempt(() => detail(cluster, job, pipeline, id)),
    Retention: () => delay({ path: '/home/me/.local/share/checkpoint-explorer/cache.db', file_bytes: 187_000_000, checkpoints: 3085, subtask_rows: 92_000, ack_samples: 12_000, metric_samples: 340_000, gaps: 1, jobs: 4, limits: { max_checkpoints_per_job: 100_000, max_age_ms: 30 * 86_400_000, max_bytes: 1 << 30 }, pruned_total: { checkpoints: 12_345, subtask_rows: 400_000, ack_samples: 50_000, metric_samples: 1_000_000, gaps: 3, freed_bytes: 52_000_000 } }),
    SetRetention: () => delay(undefined),
    SaveCluster: (input) => attempt(() => {
      if (!/^https?:\/\//.test(input.base_url)) throw new Error('app: save cluster ' + input.name + ': base_url must be http(s)');
      if (input.jobmanager_log && input.engine !== 'flink') throw new Error('cluster "' + input.name + '": the JobManager log is Flink\'s; ' + input.engine + ' has none to read');
      checkLanes(input);
      checkTraces(input);
      const existing = sources.find((s) => s.name === input.name);
      const sv = { name: input.name, engine: input.engine, base_url: input.base_url, prometheus_url: input.prometheus_url, auth_kind: input.auth.kind, ca_file: input.ca_file, insecure_skip_verify: input.insecure_skip_verify, kind: 'cluster', read_only: false, health: { state: 'connecting', last_error: '', last_ok_ms: 0, requests_per_sec: 0 } };
      if (input.jobmanager_log && input.jobmanager_log !== 'auto') sv.jobmanager_log = input.jobmanager_log;
      if (input.lanes && input.lanes.length) sv.lanes = input.lanes.map((l) => Object.assign({}, l));
      if (input.traces_url) Object.assign(sv, { traces_url: input.traces_url, traces_service: input.traces_service });
      if (existing) { delete existing.traces_url; delete existing.traces_service; } // absent is none
      if (existing) delete existing.lanes; // absent clears them, as the backend does
      if (input.auth.kind === 'basic' && input.auth.username) sv.username = input.auth.username;
      if (existing) delete existing.jobmanager_log;
      if (existing) Object.assign(existing, sv); else { sources.push(sv); jobs[input.name] = []; }
      setTimeout(() => emit('sources', {}), 100);
    }),
    RemoveCluster: (name) => attempt(() => {
      const i = sources.findIndex((s) => s.name === name);
      if (i < 0) throw new Error('app: remove cluster ' + name + ': not found');
      sources.splice(i, 1);
    }),
    TestConnection: (input) => delay(!input.base_url.includes('8081')
      ? { ok: false, version: '', jobs: 0, message: 'Get "' + input.base_url + '/config": dial tcp: connect: connection refused' }
      : !input.traces_url ? { ok: true, version: '1.20.4', jobs: 2, message: '' }
        : input.traces_url.includes('16686') ? { ok: true, version: '1.20.4', jobs: 2, message: 'Flink 1.20.4, 2 jobs; Jaeger has spans of "' + input.traces_service + '"' }
          : { ok: false, version: '1.20.4', jobs: 2, message: 'Flink 1.20.4, 2 jobs; traces: Get "' + input.traces_url + '/api/services": dial tcp: connect: connection refused' }, 400),
    OpenCaptureDialog: () => delay({ sources: [], jobs: 0, checkpoints: 0, ack_samples: 0, metric_samples: 0, gaps: 0, skipped: 0 }),
    OpenCapture: () => delay(new Error('fake bridge: OpenCapture not implemented')),
    MergeCapture: () => delay(new Error('fake bridge: MergeCapture not implemented')),
    ExportCapture: () => delay(new Error('fake bridge: ExportCapture not implemented')),
    // The analysis methods are only stubbed here: try the views against `serve` with a capture
    // (frontend/testdata/gen-capture.mjs writes one) for real values.
    CheckpointView: (cluster, job, pipeline, id) => attempt(() => {
      const d = detail(cluster, job, pipeline, id);
      const analysis = { id: d.id, status: d.status, trigger_ms: d.trigger_ms, duration_ms: d.end_to_end_ms, checkpointed_size: d.checkpointed_size, phases: d.finalize_ms !== undefined ? { finalize: d.finalize_ms } : {} };
      if (d.source) analysis.source = d.source;
      const commit = commitFor(cluster, job, d.id);
      if (commit) analysis.commit = commit;
      if (d.status === 'FAILED') {
        analysis.failure = { signature: d.failure_message.replace(/\d+/g, 'N'), message: d.failure_message, basis: 'fake bridge: no analysis', after_ms: d.end_to_end_ms };
        if (d.failure_cause) analysis.failure.cause = d.failure_cause;
        if (d.declined?.task) analysis.failure.task = d.declined.task;
        if (d.declined?.vertex_id) analysis.failure.vertices = [{ vertex_id: d.declined.vertex_id, vertex_name: d.vertex_names[d.declined.vertex_id] }];
      }
      const logged = (checkpoints[key(cluster, job)] || []).filter((c) => c.source === 'jobmanager_log').length;
      const notes = ['fake bridge: no analysis'];
      const noteParts = [{ code: 'fake_bridge' }];
      if (logged) {
        notes.push(logged + " checkpoint(s) come from the JobManager log alone (they had left Flink's REST history): status, times, size, finalize and failure cause, no per-subtask stats");
        noteParts.push({ code: 'note_from_log', args: { n: String(logged) } });
      }
      // The items citing this checkpoint, as app.CheckpointView filters them.
      const advice = adviceFor(cluster, job).filter((a) => a.evidence.checkpoint_ids.includes(d.id));
      return { checkpoint: d, analysis, subtasks: [], phases_available: d.finalize_ms !== undefined ? ['finalize'] : [], notes, note_parts: noteParts, vertices: [], edges: [], advice };
    }),
    JobReconciliation: (cluster, job) => delay(reconciliation(cluster, job)),
    // What a Flink 2.3 knob job's REST reports (nil fields: not reported).
    JobConfig: (cluster, job) => delay({ cluster, job_id: job, seen_ms: Date.now() - 60000, mode: 'exactly_once',
      interval_ms: 1000, timeout_ms: 600000, min_pause_ms: 0, max_concurrent: 1, tolerable_failures: 1000000,
      unaligned: false, aligned_timeout_ms: 0, state_backend: 'hashmap', changelog: false, checkpoint_storage: 'filesystem',
      keys: { 'execution-config.job-parallelism': '1' } }),
    ReadJobManagerLog: (cluster) => attempt(() => {
      window.__ceReadJobManagerLog.push(cluster);
      const s = sources.find((x) => x.name === cluster);
      if (!s || s.read_only) throw new Error('bad request: cluster "' + cluster + '" is not being polled');
      if (s.engine !== 'flink') throw new Error('bad request: cluster "' + cluster + '" is not a Flink cluster: it has no JobManager log');
      if (s.jobmanager_log === 'off') throw new Error('bad request: cluster "' + cluster + '": reading the JobManager log is turned off in its settings');
    }),
    BackfillTraces: (cluster, job) => attempt(() => backfillTraces(cluster, job), 300),
    TraceJobs: (cluster) => attempt(() => traceJobs(cluster)),
    OpenTracesJob: (cluster, job) => attempt(() => openTracesJob(cluster, job), 300),
    Heatmap: (req) => delay({ kind: req.kind, [req.kind]: req.kind === 'vertex' ? { phase: req.phase || 'end_to_end', columns: [], rows: [] } : { buckets: { start_ms: 0, width_ms: 60000, count: 0 }, rows: [] } }),
    Compare: () => delay(new Error('fake bridge: Compare not implemented')),
    DefaultCompare: () => delay(new Error('fake bridge: DefaultCompare not implemented')),
    Report: (cluster, job) => delay(report(cluster, job)),
    Insights: (cluster, job) => delay(report(cluster, job)),
    Changes: (cluster, job) => delay(changesOf(cluster, job)),
    BeforeAfter: (cluster, job, atMs, windowMs) => attempt(() => {
      if (atMs <= 0 || windowMs < 0) throw new Error('bad request: the moment (' + atMs + ') must be an epoch millisecond and the window (' + windowMs + ') 0 or more');
      return beforeAfter(cluster, job, atMs, windowMs);
    }),
    AddNote: (cluster, job, timeMs, text) => attempt(() => {
      const t = (text || '').trim();
      if (timeMs <= 0) throw new Error("bad request: a note's time must be an epoch millisecond, not " + timeMs);
      if (!t || [...t].length > 2000) throw new Error('bad request: a note needs some text, at most 2000 characters (this one has ' + [...t].length + ')');
      const n = { kind: 'note', time_ms: timeMs, source: 'user', cluster, job_id: job, detail: { text: t } };
      const list = (notes[key(cluster, job)] ||= []);
      if (!list.some((x) => x.time_ms === timeMs && x.detail.text === t)) list.push(n);
      keepNotes();
      return n;
    }),
    DeleteNote: (cluster, job, timeMs, text) => attempt(() => {
      const list = notes[key(cluster, job)] || [];
      const i = list.findIndex((n) => n.time_ms === timeMs && n.detail.text === (text || '').trim());
      if (i < 0) throw new Error('bad request: job ' + job + ' on ' + cluster + ' has no note at ' + timeMs + ' saying "' + text + '"');
      list.splice(i, 1);
      keepNotes();
    }),
    Log: () => delay({ path: '/home/me/.cache/checkpoint-explorer/checkpoint-explorer.log', lines: ['time=2026-05-27T10:00:00Z level=INFO msg="fake bridge log line"'] }),
  };
  window.go = { app: { App } };

  // Live updates: a new checkpoint on orders-enrichment every 10 s.
  if (!params.has('static')) {
    setInterval(() => {
      const job = jobs['prod-flink'][0].id;
      const list = checkpoints[key('prod-flink', job)];
      const last = list[list.length - 1];
      if (last.status === 'IN_PROGRESS') { last.status = 'COMPLETED'; last.end_ms = Date.now(); last.end_to_end_ms = last.end_ms - last.trigger_ms; last.num_acknowledged = 8; }
      list.push(cp('prod-flink', job, last.id + 1, Date.now(), 0, 45e6, 'IN_PROGRESS'));
      emit('checkpoints', { cluster: 'prod-flink', job });
    }, 10_000);
  }
})();
