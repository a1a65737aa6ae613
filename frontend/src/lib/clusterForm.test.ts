import { describe, expect, it } from 'vitest';
import type { SourceView } from './api';
import { buildLanes, canAddLane, emptyCluster, fromSource, laneRows, normalise, parseNames, validateCluster, type LaneRow } from './clusterForm';

function valid() {
  return { ...emptyCluster(), name: 'prod', base_url: 'http://127.0.0.1:8081' };
}

/** source is a stored Flink cluster without options, as the backend lists it, with patch over it. */
function source(patch: Partial<SourceView> = {}): SourceView {
  return {
    name: 'prod',
    engine: 'flink',
    base_url: 'http://127.0.0.1:8081',
    prometheus_url: '',
    auth_kind: 'none',
    ca_file: '',
    insecure_skip_verify: false,
    kind: 'cluster',
    read_only: false,
    health: { state: 'ok', requests_per_sec: 0, last_error: '', last_ok_ms: 0 },
    ...patch,
  };
}

describe('validateCluster', () => {
  it('accepts a minimal valid cluster', () => {
    expect(validateCluster(valid(), [], false)).toEqual([]);
  });

  // One wrong field: its problem and no other.
  it.each([
    [{ name: '  ' }, 'name', 'clusters.err.nameRequired'],
    [{ base_url: '' }, 'base_url', 'clusters.err.baseUrlRequired'],
    [{ base_url: 'localhost:8081' }, 'base_url', 'clusters.err.baseUrlInvalid'],
    [{ base_url: 'ftp://host' }, 'base_url', 'clusters.err.baseUrlInvalid'],
    [{ prometheus_url: 'not a url' }, 'prometheus_url', 'clusters.err.prometheusUrlInvalid'],
    [{ engine: 'spark' }, 'engine', 'clusters.err.engine'],
    // Prometheus names: label=vertex_label lines, each label once.
    [{ names_text: 'task_label' }, 'names_text', 'clusters.err.namesInvalid'],
    [{ names_text: '=x' }, 'names_text', 'clusters.err.namesInvalid'],
    [{ names_text: 'Task_Label=x' }, 'names_text', 'clusters.err.namesInvalid'],
    [{ names_text: 'busy=a\nbusy=b' }, 'names_text', 'clusters.err.namesInvalid'],
    [{ names_text: 'busy=' }, 'names_text', 'clusters.err.namesInvalid'],
    // A reporter line that is not an http(s) URL.
    [{ reporters_text: 'http://a:9249/metrics\nb:9249' }, 'reporters_text', 'clusters.err.reportersInvalid'],
    // The request budget: 0.1 to 1000 requests a second, 1 to 64 in flight.
    [{ rps_text: '0' }, 'rps_text', 'clusters.err.budgetRps'],
    [{ rps_text: '0.05' }, 'rps_text', 'clusters.err.budgetRps'],
    [{ rps_text: '1001' }, 'rps_text', 'clusters.err.budgetRps'],
    [{ rps_text: 'fast' }, 'rps_text', 'clusters.err.budgetRps'],
    [{ in_flight_text: '0' }, 'in_flight_text', 'clusters.err.budgetInFlight'],
    [{ in_flight_text: '2.5' }, 'in_flight_text', 'clusters.err.budgetInFlight'],
    [{ in_flight_text: '65' }, 'in_flight_text', 'clusters.err.budgetInFlight'],
  ])('rejects %j on %s', (patch, field, key) => {
    const input = { ...valid(), ...patch } as ReturnType<typeof valid>;
    expect(validateCluster(input, [], false)).toEqual([{ field, key }]);
  });

  it('needs a user name for basic auth', () => {
    const input = valid();
    input.auth = { kind: 'basic', username: '', password: 'x', token: '' };
    expect(validateCluster(input, [], false)).toEqual([{ field: 'username', key: 'clusters.err.usernameRequired' }]);
  });

  it('rejects a duplicate name when adding but not when editing', () => {
    expect(validateCluster(valid(), ['prod'], false)).toEqual([{ field: 'name', key: 'clusters.err.nameTaken' }]);
    expect(validateCluster(valid(), ['prod'], true)).toEqual([]);
  });

  it('reports every problem at once', () => {
    expect(validateCluster(emptyCluster(), [], false).map((p) => p.field)).toEqual(['name', 'base_url']);
  });
});

describe('normalise', () => {
  it('trims and drops credentials the auth kind does not use', () => {
    const input = valid();
    input.name = ' prod ';
    input.auth = { kind: 'bearer', username: 'u', password: 'p', token: ' t ' };
    const n = normalise(input);
    expect(n.name).toBe('prod');
    // Tokens are sent verbatim: whitespace may be part of a secret.
    expect(n.auth).toEqual({ kind: 'bearer', username: '', password: '', token: ' t ' });
  });
});

describe('fromSource', () => {
  it('fills the form without secrets so the stored ones are kept', () => {
    const s = source({
      engine: 'seatunnel',
      base_url: 'https://zeta:5801',
      auth_kind: 'basic',
      username: 'ops',
      ca_file: '/ca.pem',
      insecure_skip_verify: true,
      health: { state: 'ok', last_error: '', last_ok_ms: 1, requests_per_sec: 0 },
    });
    const f = fromSource(s);
    // Every other field as a new cluster's: nothing else is configured.
    expect(f).toEqual({
      ...emptyCluster(),
      name: 'prod',
      engine: 'seatunnel',
      base_url: 'https://zeta:5801',
      auth: { kind: 'basic', username: 'ops', password: '', token: '' },
      ca_file: '/ca.pem',
      insecure_skip_verify: true,
    });
  });
});

describe('Prometheus names and reporter URLs', () => {
  it('round-trip between the stored values and the text the user edits', () => {
    const s = source({
      prometheus_url: 'http://127.0.0.1:9090',
      prometheus_names: { task_label: 'vertex_id', busy: '-' },
      reporter_urls: ['http://127.0.0.1:9249/metrics', 'http://127.0.0.1:9250/metrics'],
    });
    const form = fromSource(s);
    expect(form.names_text).toBe('busy=-\ntask_label=vertex_id');
    expect(form.reporters_text).toBe('http://127.0.0.1:9249/metrics\nhttp://127.0.0.1:9250/metrics');
    expect(validateCluster(form, [], true)).toEqual([]);
    const sent = normalise(form);
    expect(sent.prometheus_names).toEqual(s.prometheus_names);
    expect(sent.reporter_urls).toEqual(s.reporter_urls);
    expect(sent).not.toHaveProperty('names_text');
  });

  it('sends empty values when cleared, so the stored ones are removed', () => {
    const sent = normalise(valid());
    expect(sent.prometheus_names).toEqual({});
    expect(sent.reporter_urls).toEqual([]);
  });

  it('skips blank lines and comments in names', () => {
    expect(parseNames('# relabelled by ops\n\n task_label = vertex \n')).toEqual({ task_label: 'vertex' });
  });

  it('sends none for SeaTunnel, whatever was typed', () => {
    const form = { ...valid(), engine: 'seatunnel' as const, names_text: 'garbage', reporters_text: 'x' };
    expect(validateCluster(form, [], false)).toEqual([]);
    expect(normalise(form)).toMatchObject({ prometheus_names: {}, reporter_urls: [] });
  });
});

describe('request budget', () => {
  it('leaves the fields empty for the default and sends 0', () => {
    const sent = normalise(valid());
    expect(sent.requests_per_second).toBe(0);
    expect(sent.max_in_flight).toBe(0);
  });

  it('round-trips a configured budget', () => {
    const s = source({ name: 'busy', engine: 'seatunnel', base_url: 'http://127.0.0.1:8080', requests_per_second: 2.5, max_in_flight: 2 });
    const form = fromSource(s);
    expect([form.rps_text, form.in_flight_text]).toEqual(['2.5', '2']);
    expect(validateCluster(form, [], true)).toEqual([]);
    expect(normalise(form)).toMatchObject({ requests_per_second: 2.5, max_in_flight: 2 });
  });

  it('accepts the bounds, spaces around', () => {
    expect(validateCluster({ ...valid(), rps_text: ' 0.1 ', in_flight_text: '64' }, [], false)).toEqual([]);
    expect(validateCluster({ ...valid(), rps_text: '1000', in_flight_text: ' 1' }, [], false)).toEqual([]);
    expect(normalise({ ...valid(), rps_text: ' 0.1 ', in_flight_text: '64' })).toMatchObject({ requests_per_second: 0.1, max_in_flight: 64 });
  });
});

describe('JobManager log', () => {
  const flink = (jobmanager_log?: SourceView['jobmanager_log']) => source(jobmanager_log ? { jobmanager_log } : {});

  it('starts at automatic, which is sent as nothing (absent = auto)', () => {
    expect(emptyCluster().jm_log).toBe('auto');
    const sent = normalise(valid());
    expect(sent).not.toHaveProperty('jobmanager_log');
    expect(sent).not.toHaveProperty('jm_log');
  });

  it.each(['on', 'off'] as const)('round-trips %s for Flink', (mode) => {
    const form = fromSource(flink(mode));
    expect(form.jm_log).toBe(mode);
    expect(validateCluster(form, [], true)).toEqual([]);
    const sent = normalise(form);
    expect(sent.jobmanager_log).toBe(mode);
    expect(sent).not.toHaveProperty('jm_log');
  });

  it('reads a stored auto, or none, as automatic and sends nothing back', () => {
    expect(fromSource(flink('auto')).jm_log).toBe('auto');
    expect(fromSource(flink()).jm_log).toBe('auto');
    expect(normalise(fromSource(flink('auto')))).not.toHaveProperty('jobmanager_log');
  });

  it('going back to automatic drops the stored mode', () => {
    const form = fromSource(flink('off'));
    form.jm_log = 'auto';
    expect(normalise(form)).not.toHaveProperty('jobmanager_log');
  });

  it('sends none for SeaTunnel, which has no JobManager log (the backend rejects it)', () => {
    const form = { ...fromSource(flink('off')), engine: 'seatunnel' as const };
    expect(normalise(form)).not.toHaveProperty('jobmanager_log');
  });
});

describe('custom lanes', () => {
  const flink = (lanes?: SourceView['lanes'], prometheus_url = 'http://127.0.0.1:9090') => source({ prometheus_url, ...(lanes ? { lanes } : {}) });
  const stored = [
    { name: 'Kafka lag', promql: 'sum(kafka_consumergroup_lag{job_id="$job_id"})' },
    { name: 'Records out/s', metric: 'numRecordsOutPerSecond' },
  ];

  it('round-trip in order, PromQL and Flink metric', () => {
    const form = fromSource(flink(stored));
    expect(form.lane_rows).toEqual([
      { name: 'Kafka lag', kind: 'promql', expr: 'sum(kafka_consumergroup_lag{job_id="$job_id"})' },
      { name: 'Records out/s', kind: 'metric', expr: 'numRecordsOutPerSecond' },
    ]);
    expect(validateCluster(form, [], true)).toEqual([]);
    const sent = normalise(form);
    expect(sent.lanes).toEqual(stored);
    expect(sent).not.toHaveProperty('lane_rows');
  });

  it('are omitted when there are none (absent clears them)', () => {
    expect(emptyCluster().lane_rows).toEqual([]);
    expect(fromSource(flink()).lane_rows).toEqual([]);
    expect(normalise(valid())).not.toHaveProperty('lanes');
    const form = fromSource(flink(stored));
    form.lane_rows = [];
    expect(normalise(form)).not.toHaveProperty('lanes');
  });

  it('trim what is typed and drop rows left blank', () => {
    const rows: LaneRow[] = [
      { name: ' Lag ', kind: 'promql', expr: ' up ' },
      { name: ' ', kind: 'metric', expr: '' },
      { name: 'Out', kind: 'metric', expr: 'numRecordsOut' },
    ];
    expect(buildLanes(rows)).toEqual([
      { name: 'Lag', promql: 'up' },
      { name: 'Out', metric: 'numRecordsOut' },
    ]);
  });

  it('are sent for Flink only', () => {
    const form = { ...fromSource(flink(stored)), engine: 'seatunnel' as const };
    expect(validateCluster(form, [], true)).toEqual([]);
    expect(normalise(form)).not.toHaveProperty('lanes');
  });

  it('stop at the backend bound of 8', () => {
    const rows = laneRows(Array.from({ length: 7 }, (_, i) => ({ name: `m${i}`, metric: 'numRecordsOut' })));
    expect(canAddLane(rows)).toBe(true);
    rows.push({ name: 'm7', kind: 'metric', expr: 'x' });
    expect(canAddLane(rows)).toBe(false);
  });

  it('name the row that is wrong', () => {
    const form = fromSource(flink(stored, ''));
    form.lane_rows.push(
      { name: '', kind: 'metric', expr: 'numRecordsIn' },
      { name: 'Records out/s', kind: 'metric', expr: 'numRecordsOut' },
      { name: 'Empty', kind: 'promql', expr: ' ' },
      { name: 'Nothing', kind: 'metric', expr: '' },
      { name: 'x'.repeat(41), kind: 'metric', expr: 'a' },
    );
    expect(validateCluster(form, [], true)).toEqual([
      { field: 'lane_rows', key: 'clusters.err.lanePromNeedsUrl', index: 0 },
      { field: 'lane_rows', key: 'clusters.err.laneName', index: 2 },
      { field: 'lane_rows', key: 'clusters.err.laneNameTaken', index: 3 },
      { field: 'lane_rows', key: 'clusters.err.laneExprPromql', index: 4 },
      { field: 'lane_rows', key: 'clusters.err.laneExprMetric', index: 5 },
      { field: 'lane_rows', key: 'clusters.err.laneName', index: 6 },
    ]);
  });
});

describe('traces (Jaeger query URL and service)', () => {
  const flinkWithTraces = (traces_url?: string, traces_service?: string) =>
    source({ ...(traces_url !== undefined ? { traces_url } : {}), ...(traces_service !== undefined ? { traces_service } : {}) });

  it('starts empty and sends neither field', () => {
    const f = emptyCluster();
    expect([f.traces_url, f.traces_service]).toEqual(['', '']);
    const sent = normalise(valid());
    expect(sent).not.toHaveProperty('traces_url');
    expect(sent).not.toHaveProperty('traces_service');
  });

  it('accepts an http(s) URL with a service name, and sends both trimmed', () => {
    const form = { ...valid(), traces_url: '  http://localhost:16686  ', traces_service: ' flink-prod ' };
    expect(validateCluster(form, [], false)).toEqual([]);
    const sent = normalise(form);
    expect(sent.traces_url).toBe('http://localhost:16686');
    expect(sent.traces_service).toBe('flink-prod');
    expect(validateCluster({ ...valid(), traces_url: 'https://jaeger.example.com/jaeger', traces_service: 'flink' }, [], false)).toEqual([]);
  });

  it.each([
    ['localhost:16686', 'flink', [{ field: 'traces_url', key: 'clusters.err.tracesUrlInvalid' }]],
    ['ftp://jaeger:16686', 'flink', [{ field: 'traces_url', key: 'clusters.err.tracesUrlInvalid' }]],
    ['http://', 'flink', [{ field: 'traces_url', key: 'clusters.err.tracesUrlInvalid' }]],
    ['http://ops:secret@jaeger:16686', 'flink', [{ field: 'traces_url', key: 'clusters.err.tracesUrlCredentials' }]],
    ['http://localhost:16686', '   ', [{ field: 'traces_service', key: 'clusters.err.tracesServiceRequired' }]],
    ['', 'flink', [{ field: 'traces_url', key: 'clusters.err.tracesUrlRequired' }]],
    [
      'not a url',
      '',
      [
        { field: 'traces_url', key: 'clusters.err.tracesUrlInvalid' },
        { field: 'traces_service', key: 'clusters.err.tracesServiceRequired' },
      ],
    ],
  ])('URL %j with service %j: %j', (traces_url, traces_service, want) => {
    expect(validateCluster({ ...valid(), traces_url, traces_service }, [], false)).toEqual(want);
  });

  it('editing fills both from the stored cluster and sends them back unchanged', () => {
    const form = fromSource(flinkWithTraces('http://127.0.0.1:16686', 'flink'));
    expect([form.traces_url, form.traces_service]).toEqual(['http://127.0.0.1:16686', 'flink']);
    expect(validateCluster(form, [], true)).toEqual([]);
    expect(normalise(form)).toMatchObject({ traces_url: 'http://127.0.0.1:16686', traces_service: 'flink' });
    const none = fromSource(flinkWithTraces());
    expect([none.traces_url, none.traces_service]).toEqual(['', '']);
  });

  it('clearing both sends neither (absent: no traces)', () => {
    const form = fromSource(flinkWithTraces('http://127.0.0.1:16686', 'flink'));
    form.traces_url = ' ';
    form.traces_service = '';
    expect(validateCluster(form, [], true)).toEqual([]);
    const sent = normalise(form);
    expect(sent).not.toHaveProperty('traces_url');
    expect(sent).not.toHaveProperty('traces_service');
  });

  it('neither is checked nor sent for SeaTunnel (the fields are Flink’s)', () => {
    const form = { ...valid(), engine: 'seatunnel' as const, traces_url: 'not a url', traces_service: '' };
    expect(validateCluster(form, [], false)).toEqual([]);
    const sent = normalise({ ...form, traces_url: 'http://localhost:16686', traces_service: 'flink' });
    expect(sent).not.toHaveProperty('traces_url');
    expect(sent).not.toHaveProperty('traces_service');
  });
});
