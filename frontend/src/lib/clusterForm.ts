// The cluster form's model: defaults, editing an existing source, and the
// checks done before anything is sent (the backend validates again).
import { MAX_CUSTOM_LANES, type ClusterInput, type CustomLaneSpec, type JobManagerLogMode, type SourceView } from './api';

/** What a custom lane samples: a PromQL query or a Flink metric of the job's vertices (the lane's field holding it). */
export type LaneKind = Exclude<keyof CustomLaneSpec, 'name'>;
export const LANE_KINDS: readonly LaneKind[] = ['promql', 'metric'];

/** One custom lane as the form edits it (Flink only). */
export interface LaneRow {
  name: string;
  kind: LaneKind;
  /** the PromQL query or the metric name, by kind */
  expr: string;
}

/** The longest lane name the backend takes (app.CheckLanes). */
export const LANE_NAME_MAX = 40;

/**
 * ClusterForm is what the form edits: the input, with the Prometheus names and
 * reporter URLs as the text the user types (one per line).
 */
export interface ClusterForm extends ClusterInput {
  /** "key=value" per line, keys as in docs/prometheus.md */
  names_text: string;
  /** one URL per line */
  reporters_text: string;
  /** request budget as typed; empty takes the default */
  rps_text: string;
  in_flight_text: string;
  /** Flink only: whether the JobManager log is read; auto (the default) is sent as nothing */
  jm_log: JobManagerLogMode;
  /** Flink only: the custom lanes, in the order they are drawn */
  lane_rows: LaneRow[];
  /** Flink only: the Jaeger query URL holding Flink's checkpoint spans; empty for none */
  traces_url: string;
  /** Flink only: the service name Flink's trace reporter sends (required with traces_url) */
  traces_service: string;
}

/** The request budget's bounds, as the backend checks them (collect.CheckBudget). */
export const BUDGET = { minRps: 0.1, maxRps: 1000, maxInFlight: 64, defaultRps: 20, defaultInFlight: 4 } as const;

export function emptyCluster(): ClusterForm {
  return {
    name: '',
    engine: 'flink',
    base_url: '',
    prometheus_url: '',
    auth: { kind: 'none', username: '', password: '', token: '' },
    ca_file: '',
    insecure_skip_verify: false,
    names_text: '',
    reporters_text: '',
    rps_text: '',
    in_flight_text: '',
    jm_log: 'auto',
    lane_rows: [],
    traces_url: '',
    traces_service: '',
  };
}

/** laneRows turns stored lanes into rows: a lane with a query is PromQL, else a Flink metric. */
export function laneRows(lanes: readonly CustomLaneSpec[] | null | undefined): LaneRow[] {
  return (lanes ?? []).map((l) => (l.promql ? { name: l.name, kind: 'promql', expr: l.promql } : { name: l.name, kind: 'metric', expr: l.metric ?? '' }));
}

/** blankRow is a row the user added and left empty: it is dropped rather than sent. */
function blankRow(r: LaneRow): boolean {
  return r.name.trim() === '' && r.expr.trim() === '';
}

/** buildLanes turns the rows into what is sent, in order; blank rows are left out. */
export function buildLanes(rows: readonly LaneRow[]): CustomLaneSpec[] {
  return rows
    .filter((r) => !blankRow(r))
    .map((r) => (r.kind === 'promql' ? { name: r.name.trim(), promql: r.expr.trim() } : { name: r.name.trim(), metric: r.expr.trim() }));
}

/** canAddLane says whether another row fits under the backend's bound. */
export function canAddLane(rows: readonly LaneRow[]): boolean {
  return rows.length < MAX_CUSTOM_LANES;
}

/** parseRps reads the requests-per-second field: 0 when empty (the default), null when out of range. */
export function parseRps(text: string): number | null {
  const v = text.trim();
  if (!v) return 0;
  const n = Number(v);
  if (!Number.isFinite(n) || n < BUDGET.minRps || n > BUDGET.maxRps) return null;
  return n;
}

/** parseInFlight reads the in-flight field: 0 when empty (the default), null unless a whole number in range. */
export function parseInFlight(text: string): number | null {
  const v = text.trim();
  if (!v) return 0;
  if (!/^\d+$/.test(v)) return null;
  const n = Number(v);
  if (n < 1 || n > BUDGET.maxInFlight) return null;
  return n;
}

/** formatNames writes names one "key=value" per line, keys sorted. */
export function formatNames(names: Record<string, string> | undefined): string {
  return Object.keys(names ?? {})
    .sort()
    .map((k) => `${k}=${names![k]}`)
    .join('\n');
}

/** parseNames reads "key=value" lines (blank lines and "# comments" skipped); null if a line is malformed or a key repeats. */
export function parseNames(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return null;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!/^[a-z_]+$/.test(key) || !value || key in out) return null;
    out[key] = value;
  }
  return out;
}

/** parseReporters reads one URL per line, blank lines skipped. */
export function parseReporters(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/**
 * fromSource fills the form for editing. Secrets are never sent to the UI, so
 * password/token start empty (the user name is not a secret and comes along) — the backend keeps the stored ones when they
 * come back empty.
 */
export function fromSource(s: SourceView): ClusterForm {
  return {
    name: s.name,
    engine: s.engine,
    base_url: s.base_url,
    prometheus_url: s.prometheus_url ?? '',
    auth: { kind: s.auth_kind || 'none', username: s.username ?? '', password: '', token: '' },
    ca_file: s.ca_file ?? '',
    insecure_skip_verify: !!s.insecure_skip_verify,
    names_text: formatNames(s.prometheus_names),
    reporters_text: (s.reporter_urls ?? []).join('\n'),
    rps_text: s.requests_per_second ? String(s.requests_per_second) : '',
    in_flight_text: s.max_in_flight ? String(s.max_in_flight) : '',
    jm_log: s.jobmanager_log === 'on' || s.jobmanager_log === 'off' ? s.jobmanager_log : 'auto',
    lane_rows: laneRows(s.lanes),
    traces_url: s.traces_url ?? '',
    traces_service: s.traces_service ?? '',
  };
}

/** A problem with one field: the i18n key of the message and the field it names. */
export interface FieldProblem {
  field: keyof ClusterForm | 'username';
  key: string;
  /** for a lane_rows problem: the row it is about */
  index?: number;
}

/** urlCredentials reports whether an http(s) URL carries a user name or password. */
function urlCredentials(v: string): boolean {
  try {
    const u = new URL(v);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}

function httpURL(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    return false;
  }
}

/**
 * validateCluster lists what is wrong with the input; empty means it may be
 * sent. existing names are the other clusters, to catch a duplicate on add.
 */
export function validateCluster(input: ClusterForm, existing: string[], editing: boolean): FieldProblem[] {
  const out: FieldProblem[] = [];
  const name = input.name.trim();
  if (!name) out.push({ field: 'name', key: 'clusters.err.nameRequired' });
  else if (!editing && existing.includes(name)) out.push({ field: 'name', key: 'clusters.err.nameTaken' });
  if (input.engine !== 'flink' && input.engine !== 'seatunnel') out.push({ field: 'engine', key: 'clusters.err.engine' });
  if (!input.base_url.trim()) out.push({ field: 'base_url', key: 'clusters.err.baseUrlRequired' });
  else if (!httpURL(input.base_url.trim())) out.push({ field: 'base_url', key: 'clusters.err.baseUrlInvalid' });
  if (input.prometheus_url.trim() && !httpURL(input.prometheus_url.trim())) {
    out.push({ field: 'prometheus_url', key: 'clusters.err.prometheusUrlInvalid' });
  }
  if (input.auth.kind === 'basic' && !(input.auth.username ?? '').trim()) {
    out.push({ field: 'username', key: 'clusters.err.usernameRequired' });
  }
  if (parseRps(input.rps_text) === null) out.push({ field: 'rps_text', key: 'clusters.err.budgetRps' });
  if (parseInFlight(input.in_flight_text) === null) out.push({ field: 'in_flight_text', key: 'clusters.err.budgetInFlight' });
  if (input.engine === 'flink') {
    if (parseNames(input.names_text) === null) out.push({ field: 'names_text', key: 'clusters.err.namesInvalid' });
    if (!parseReporters(input.reporters_text).every(httpURL)) {
      out.push({ field: 'reporters_text', key: 'clusters.err.reportersInvalid' });
    }
    out.push(...laneProblems(input.lane_rows ?? [], input.prometheus_url.trim() !== ''));
    out.push(...tracesProblems(input.traces_url, input.traces_service));
  }
  return out;
}

/**
 * tracesProblems checks a Flink cluster's traces fields as the backend will
 * (app's cluster check): both empty is none; otherwise the URL must be an
 * http(s) address without credentials and the service name is required.
 */
export function tracesProblems(url: string, service: string): FieldProblem[] {
  const u = url.trim();
  const svc = service.trim();
  if (!u && !svc) return [];
  const out: FieldProblem[] = [];
  if (!u) out.push({ field: 'traces_url', key: 'clusters.err.tracesUrlRequired' });
  else if (!httpURL(u)) out.push({ field: 'traces_url', key: 'clusters.err.tracesUrlInvalid' });
  else if (urlCredentials(u)) out.push({ field: 'traces_url', key: 'clusters.err.tracesUrlCredentials' });
  if (!svc) out.push({ field: 'traces_service', key: 'clusters.err.tracesServiceRequired' });
  return out;
}

/**
 * laneProblems checks the custom lanes as the backend will (app.CheckLanes),
 * one problem per row at most, so the form can say it in the user's language.
 * Blank rows are ignored (they are not sent).
 */
export function laneProblems(rows: readonly LaneRow[], hasPrometheus: boolean): FieldProblem[] {
  const out: FieldProblem[] = [];
  const seen = new Set<string>();
  rows.forEach((r, index) => {
    if (blankRow(r)) return;
    const name = r.name.trim();
    const expr = r.expr.trim();
    const p = (key: string) => out.push({ field: 'lane_rows', key, index });
    if (!name || name.length > LANE_NAME_MAX) p('clusters.err.laneName');
    else if (seen.has(name)) p('clusters.err.laneNameTaken');
    else if (r.kind === 'promql' && !expr) p('clusters.err.laneExprPromql');
    else if (r.kind === 'metric' && !expr) p('clusters.err.laneExprMetric');
    else if (r.kind === 'promql' && !hasPrometheus) p('clusters.err.lanePromNeedsUrl');
    if (name) seen.add(name);
  });
  return out;
}

/**
 * normalise turns the form into what is sent: text fields trimmed, the names
 * and reporters parsed (always sent, so clearing them clears them; SeaTunnel
 * has none), the budget as numbers (0: the default), the JobManager log mode
 * only when Flink's is not auto (absent is auto; SeaTunnel has no such log and
 * the backend rejects it), the custom lanes only when Flink has some (absent
 * clears them; the backend rejects them for SeaTunnel), the traces URL and service trimmed and only
 * for Flink when either is given (absent is none; the backend rejects them for SeaTunnel), and
 * credentials the chosen auth kind does not use dropped.
 */
export function normalise(form: ClusterForm): ClusterInput {
  const { names_text, reporters_text, rps_text, in_flight_text, jm_log, lane_rows, traces_url, traces_service, ...input } = form;
  delete input.jobmanager_log;
  delete input.lanes;
  const lanes = input.engine === 'flink' ? buildLanes(lane_rows ?? []) : [];
  const kind = input.auth.kind;
  const flink = input.engine === 'flink';
  const traces = { traces_url: (traces_url ?? '').trim(), traces_service: (traces_service ?? '').trim() };
  return {
    ...input,
    ...(flink && jm_log !== 'auto' ? { jobmanager_log: jm_log } : {}),
    ...(flink && (traces.traces_url || traces.traces_service) ? traces : {}),
    // Absent clears them (the backend stores none); SeaTunnel has none.
    ...(lanes.length > 0 ? { lanes } : {}),
    prometheus_names: flink ? (parseNames(names_text) ?? {}) : {},
    reporter_urls: flink ? parseReporters(reporters_text) : [],
    requests_per_second: parseRps(rps_text) ?? 0,
    max_in_flight: parseInFlight(in_flight_text) ?? 0,
    name: input.name.trim(),
    base_url: input.base_url.trim(),
    prometheus_url: input.prometheus_url.trim(),
    ca_file: input.ca_file.trim(),
    auth: {
      kind,
      username: kind === 'basic' ? (input.auth.username ?? '').trim() : '',
      password: kind === 'basic' ? input.auth.password : '',
      token: kind === 'bearer' ? input.auth.token : '',
    },
  };
}
