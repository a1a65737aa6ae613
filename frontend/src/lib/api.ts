// Typed access to the Go facade. The frontend talks ONLY to
// window.go.app.App.<Method> and window.runtime.EventsOn/EventsOff: Wails
// provides them in the desktop window, and `checkpoint-explorer serve` injects
// /bridge.js that provides the same shape over HTTP + server-sent events.
// Method names, arguments and events are checked against contract.gen.ts,
// generated from the Go types (`make generate`).
import type * as wire from './contract.gen';

export type Engine = 'flink' | 'seatunnel';
export type AuthKind = 'none' | 'basic' | 'bearer';
export type SourceKind = 'cluster' | 'capture' | 'sample';
/** partial: polls work but some requests fail (details, metrics, finished jobs); Health.problems names them. */
export type HealthState = 'ok' | 'partial' | 'error' | 'connecting' | 'idle' | 'offline';
/** Why a final checkpoint lacks (some of) the per-subtask stats its engine reports. */
export type DetailLoss = 'trimmed' | 'missed' | 'partial';
export type Status = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
export type CheckpointKind = 'checkpoint' | 'unaligned' | 'savepoint';
/** Where a checkpoint's record came from: absent = the engine's checkpoint API (REST); jobmanager_log = only Flink's JobManager log had it (no per-subtask stats). */
export type CheckpointSource = 'jobmanager_log';
/** Whether a Flink cluster's JobManager log is read (absent = auto). */
export type JobManagerLogMode = 'auto' | 'on' | 'off';
/** The states of a job's JobManager log reader (ReconciliationView.log). */
export type JobManagerLogStateKind = 'read' | 'off' | 'waiting' | 'unavailable' | 'too_large' | 'unrecognised';
export const JOBMANAGER_LOG_STATES: readonly JobManagerLogStateKind[] = ['read', 'off', 'waiting', 'unavailable', 'too_large', 'unrecognised'];
export const JOBMANAGER_LOG_MODES: readonly JobManagerLogMode[] = ['auto', 'on', 'off'];

export type VersionInfo = wire.VersionInfo;

export interface Health {
  state: HealthState;
  last_error: string;
  last_ok_ms: number;
  requests_per_sec: number;
  /** the cluster's request budget, requests/s (absent for captures) */
  budget_per_sec?: number;
  /** share (0..1) of the last minute's requests that waited for the budget */
  held_back?: number;
  /** the budget holds back enough requests that checkpoints may be missed */
  budget_limited?: boolean;
  /** a polled cluster's failing parts ("job …: endpoint: error"), when its health is partial or error */
  problems?: string[] | null;
  /** checkpoint ids its jobs' engines reported that were not stored this run (gaps and unaccounted) */
  missed?: number;
  /** requests made to the cluster this run */
  requests?: number;
}

export interface SourceView {
  name: string;
  engine: Engine;
  base_url: string;
  prometheus_url: string;
  auth_kind: AuthKind;
  /** the basic-auth user name, when one is configured (never a password or token) */
  username?: string;
  ca_file: string;
  insecure_skip_verify: boolean;
  /** relabelled Prometheus metric and label names (docs/prometheus.md) */
  prometheus_names?: Record<string, string>;
  /** Flink Prometheus reporter endpoints scraped directly for backpressure */
  reporter_urls?: string[];
  /** request budget as configured; absent or 0 means the default */
  requests_per_second?: number;
  max_in_flight?: number;
  /** Flink only: whether its JobManager log is read; absent = auto */
  jobmanager_log?: JobManagerLogMode;
  /** Flink only: the custom lanes of its jobs' timelines, in the user's order */
  lanes?: CustomLaneSpec[];
  kind: SourceKind;
  read_only: boolean;
  health: Health;
}

export interface AuthInput {
  kind: AuthKind;
  username: string;
  password: string;
  token: string;
}

export interface ClusterInput {
  name: string;
  engine: Engine;
  base_url: string;
  prometheus_url: string;
  auth: AuthInput;
  ca_file: string;
  insecure_skip_verify: boolean;
  /** absent keeps what is stored; empty clears it */
  prometheus_names?: Record<string, string>;
  reporter_urls?: string[];
  /** request budget; 0 takes the default (20/s, 4 in flight) */
  requests_per_second?: number;
  max_in_flight?: number;
  /** Flink only (the backend rejects it for SeaTunnel); absent = auto */
  jobmanager_log?: JobManagerLogMode;
  /** Flink only, at most MAX_CUSTOM_LANES; absent or empty clears them */
  lanes?: CustomLaneSpec[];
}

/**
 * A custom lane of a Flink cluster's timelines: either a PromQL query on the
 * cluster's Prometheus ("$job_id" stands for the job's id; needs the
 * cluster's Prometheus URL) or the name of a Flink metric of the job's
 * vertices (e.g. numRecordsOutPerSecond). The backend checks them and names
 * the lane in its errors.
 */
export interface CustomLaneSpec {
  name: string;
  promql?: string;
  metric?: string;
}

/** The backend's bound on a cluster's custom lanes (app.MaxLanes). */
export const MAX_CUSTOM_LANES = 8;

export type ConnectionTest = wire.ConnectionTest;

export interface JobView {
  cluster: string;
  id: string;
  name: string;
  engine: Engine;
  state: string;
  /** absent when the engine did not say */
  start_ms?: number;
  end_ms?: number;
  updated_ms?: number;
  total: number;
  completed: number;
  failed: number;
  in_progress: number;
  gaps: number;
  first_trigger_ms: number;
  last_trigger_ms: number;
}

export interface CheckpointRow {
  id: number;
  pipeline: number;
  kind: CheckpointKind;
  status: Status;
  trigger_ms: number;
  end_ms: number;
  end_to_end_ms: number;
  state_size: number;
  checkpointed_size: number;
  /** SeaTunnel only: a COUNT of state blobs, never bytes. */
  state_blobs?: number | null;
  num_subtasks: number;
  num_acknowledged: number;
  failure_message: string;
  /** where the record came from (absent = REST); see CheckpointSource */
  source?: CheckpointSource;
  failure_cause?: string;
  declined?: Decline;
}

/**
 * The task whose decline failed a checkpoint, as Flink's JobManager log says
 * ("Decline checkpoint N by task <attempt> of job J").
 */
export type Decline = wire.Decline;

export interface TimelineRequest {
  cluster: string;
  job: string;
  from_ms: number;
  to_ms: number;
  width_px: number;
}

export interface TimelineBar {
  start_ms: number;
  end_ms: number;
  status: Status;
  max_duration_ms: number;
  /** > 1 when the backend merged neighbours (worst status, max duration). */
  count: number;
  first_id: number;
  last_id: number;
  pipeline?: number;
}

export interface TimelineGap {
  from_id: number;
  to_id: number;
  after_ms: number;
  before_ms: number;
}

export interface LanePoint {
  t_ms: number;
  value: number;
}

/** One custom lane's points (the largest per pixel column), values in the metric's own unit. */
export interface CustomLane {
  name: string;
  points: LanePoint[] | null;
}

export interface TimelineLanes {
  backpressure: LanePoint[] | null;
  size: LanePoint[] | null;
  /** duration (ms) of the sink's last commit, sampled (about every 10 s); absent or empty without commit metrics */
  commit?: LanePoint[] | null;
  /** the cluster's custom lanes that have samples in the range, in the user's order */
  custom?: CustomLane[] | null;
}

export interface Timeline {
  from_ms: number;
  to_ms: number;
  extent: { min_ms: number; max_ms: number };
  bars: TimelineBar[] | null;
  gaps: TimelineGap[] | null;
  lanes: TimelineLanes | null;
  /** checkpoints in the range before merging */
  total?: number;
}

export interface SubtaskDetail {
  index: number;
  status: string;
  ack_ms: number;
  end_to_end_ms: number;
  start_delay_ms: number;
  alignment_ms: number;
  sync_ms: number;
  async_ms: number;
  state_size: number;
  checkpointed_size: number;
  processed_data: number;
  persisted_data: number;
  unaligned?: boolean;
  aborted?: boolean;
}

export interface TaskDetail {
  vertex_id: string;
  latest_ack_ms: number;
  end_to_end_ms: number;
  state_size: number;
  checkpointed_size: number;
  processed_data: number;
  persisted_data: number;
  num_subtasks: number;
  num_acknowledged: number;
  subtasks?: SubtaskDetail[] | null;
  /** its per-subtask stats were asked for and could not be fetched (detail_loss "partial") */
  missing?: boolean;
}

export interface CheckpointDetail {
  cluster: string;
  job_id: string;
  id: number;
  pipeline?: number;
  kind: CheckpointKind;
  status: Status;
  trigger_ms: number;
  latest_ack_ms?: number;
  completion_ms?: number;
  failure_ms?: number;
  end_to_end_ms: number;
  finalize_ms?: number | null;
  state_size: number;
  checkpointed_size: number;
  processed_data: number;
  persisted_data: number;
  state_blobs?: number | null;
  num_subtasks: number;
  num_acknowledged: number;
  failure_message?: string;
  /** the root cause the JobManager log gives for a failure (the innermost exception) */
  failure_cause?: string;
  /** the task whose decline failed it, where the JobManager log says */
  declined?: Decline;
  external_path?: string;
  /** where the record came from (absent = REST): jobmanager_log has status, times, size, finalize and failure cause, no per-subtask stats */
  source?: CheckpointSource;
  tasks?: TaskDetail[] | null;
  /** why a final checkpoint lacks the per-subtask stats its engine reports, or "partial": some vertices' did not come (tasks[].missing) */
  detail_loss?: DetailLoss;
  vertex_names?: Record<string, string> | null;
}

/** The engine's checkpoint counters for a job (summed over pipelines), since its JobManager started following it. */
export type EngineCounts = wire.EngineCounts;

/**
 * A job's reconciliation (JobReconciliation): the ids its engine reported
 * against what the app accounted for, as of the last successful poll. Every
 * id of first_id..latest_id is stored or a gap; unaccounted ids are neither.
 */
export interface ReconciliationView {
  cluster: string;
  job_id: string;
  at_ms: number;
  polls: number;
  failed_polls: number;
  first_id: number;
  latest_id: number;
  ids: number;
  stored: number;
  gaps: number;
  unaccounted: number;
  /** checkpoints the engine's counters say were triggered over the span; -1 when it sends no counters */
  engine_counted: number;
  /** triggers that failed before the checkpoint got an id (nothing to store) */
  without_id: number;
  engine?: EngineCounts | null;
  /** gaps + unaccounted, worked out by the backend */
  missed: number;
  /** ids of the span stored from the JobManager log: gaps it filled (0 or absent in older captures) */
  from_log: number;
  /** checkpoints before the span the JobManager log gave: history beyond the engine's REST history */
  earlier: number;
  /** the JobManager log reader's state; absent where there is none (SeaTunnel, older captures) */
  log?: JobManagerLogState | null;
}

/** Whether a job's checkpoints come from Flink's JobManager log too and, when they do not, why. */
export interface JobManagerLogState {
  state: JobManagerLogStateKind;
  /** why it is not read, in English (the backend's words) */
  reason?: string;
  /** when it was last read */
  read_ms?: number;
  /** its size when read, or the size that exceeded limit_bytes */
  size_bytes?: number;
  limit_bytes?: number;
  /** how many of the job's checkpoints the last read held */
  checkpoints: number;
}

export type RetentionLimits = wire.RetentionLimits;

export interface RetentionStatus {
  path: string;
  file_bytes: number;
  checkpoints: number;
  subtask_rows: number;
  ack_samples: number;
  metric_samples: number;
  gaps: number;
  jobs: number;
  limits: RetentionLimits;
  pruned_total: {
    checkpoints: number;
    subtask_rows: number;
    ack_samples: number;
    metric_samples: number;
    gaps: number;
    freed_bytes: number;
  };
}

export type ImportResult = wire.ImportResult;

export interface ExportRequest {
  cluster: string;
  job: string;
  from_ms: number;
  to_ms: number;
  path: string;
}

export interface ExportResult {
  path: string;
  checkpoints: number;
  records?: number;
  bytes: number;
}

// ---- Analysis (backend/analyze): the UI shows these values, it never recomputes them. ----

/** The fixed phase vocabulary (docs/phases.md). */
export type Phase = 'start_delay' | 'alignment' | 'sync' | 'async' | 'ack' | 'finalize';
/** end_to_end is not a phase: it names the whole trigger → last ack time in heatmaps and slow flags. */
export type PhaseOrE2E = Phase | 'end_to_end';

export const SUBTASK_PHASES: readonly Phase[] = ['start_delay', 'alignment', 'sync', 'async', 'ack'];
export const ALL_PHASES: readonly Phase[] = [...SUBTASK_PHASES, 'finalize'];

/** Phase durations in ms. An absent key is a phase the data does not show — never 0. */
export type Phases = Partial<Record<Phase, number>>;

export interface Bottleneck {
  phase: Phase;
  vertex_id?: string;
  vertex_name?: string;
  subtask?: number;
  /** absent when the critical path is pending (the phase is inferred, not measured) */
  phase_ms?: number;
  end_to_end_ms: number;
  pending?: boolean;
  pending_subtasks?: number;
  /** for a start-delay or alignment bottleneck: where the barriers queued (docs/phases.md, "Barrier path and causes") */
  origin?: Origin;
}

/**
 * Where barriers queued for a start-delay or alignment bottleneck: the vertex
 * at whose input they waited, and that input. Often upstream of the vertex
 * the bottleneck names.
 */
export type Origin = wire.Origin;

/**
 * One part of a completed checkpoint's end-to-end time along the barrier path
 * (backend/analyze/causes.go). start_delay with an upstream: barriers queued at
 * the input of the vertex behind that upstream; without: at a source (the
 * trigger reached it late). alignment: the upstream is the input whose barrier
 * came last. finalize has no vertex.
 */
export interface Cause {
  phase: Phase;
  vertex_id?: string;
  vertex_name?: string;
  upstream_vertex_id?: string;
  upstream_vertex_name?: string;
  subtask?: number;
  ms: number;
  /** of the sum of all causes (end to end plus finalize), 0..1 */
  share: number;
  /** for barriers queued behind an upstream: its backpressure and this vertex's busy ratio in the window, 0..1 */
  upstream_backpressure?: number;
  busy?: number;
}

export interface Straggler {
  vertex_id: string;
  vertex_name?: string;
  subtask: number;
  ack_after_ms?: number;
}

export type AckPoint = wire.AckPoint;

export interface AckProgress {
  total?: number;
  acknowledged?: number;
  pending?: number;
  p50_ms?: number;
  p90_ms?: number;
  p100_ms?: number;
  /** from polled in-flight counts (SeaTunnel) rather than per-subtask ack times */
  sampled?: boolean;
  stragglers?: Straggler[];
  curve?: AckPoint[];
}

export type VertexRef = wire.VertexRef;

export interface CheckpointFailure {
  signature: string;
  message: string;
  phase?: Phase;
  /** how the phase was found, in English; basis_parts are its clauses (i18n "reason.<code>") */
  basis: string;
  basis_parts?: ReasonPart[];
  expired?: boolean;
  /** Aborted because the job was stopping, failing or restarting: no phase is to blame. */
  job_level?: boolean;
  vertices?: VertexRef[];
  after_ms?: number;
  /** the root cause and the declining task ("Map (2/4)#0"), where the JobManager log gives them */
  cause?: string;
  task?: string;
}

export interface Pressure {
  max?: number;
  upstream?: number;
  upstream_of?: string;
  samples: number;
  nearest?: boolean;
  busy?: number;
  sampled_alignment_ms?: number;
  /** what the value is drawn from (the checkpoint's window, or a wider one) */
  basis?: string;
}

export interface SlowFlag {
  phase: PhaseOrE2E;
  vertex_id?: string;
  value_ms: number;
  median_ms: number;
  threshold_ms: number;
}

/**
 * The sink commit that followed a checkpoint, from its committer's metrics.
 * They are sampled (every 10 s), so it is the first sampling window after the
 * checkpoint completed in which the committed counters moved; checkpoints is
 * how many checkpoints completed in that window, sharing these counts.
 */
export interface SinkCommit {
  at_ms: number;
  /** the last commit's duration at at_ms (Iceberg's lastCommitDurationMs) */
  duration_ms?: number;
  files?: number;
  records?: number;
  committables?: number;
  checkpoints: number;
}

export interface CheckpointAnalysis {
  id: number;
  pipeline?: number;
  kind?: CheckpointKind;
  status: Status;
  trigger_ms: number;
  end_ms?: number;
  duration_ms: number;
  checkpointed_size: number;
  phases: Phases;
  bottleneck?: Bottleneck;
  /** the end-to-end time split along the barrier path, largest first; absent without per-subtask stats or for a failed checkpoint */
  causes?: Cause[];
  ack_progress?: AckProgress;
  failure?: CheckpointFailure;
  backpressure?: Pressure;
  slow?: SlowFlag[];
  /** the record's origin (CheckpointSource): absent = REST */
  source?: string;
  /** the sink commit that followed it; absent when the job has no commit metrics */
  commit?: SinkCommit;
}

export interface SubtaskRow {
  vertex_id: string;
  vertex_name?: string;
  subtask: number;
  acknowledged: boolean;
  end_to_end_ms?: number;
  phases: Phases;
  checkpointed_size?: number;
  unaligned?: boolean;
  critical?: boolean;
}

export type Vertex = wire.Vertex;

export type Edge = wire.Edge;

export interface CheckpointViewData {
  checkpoint: CheckpointDetail;
  analysis: CheckpointAnalysis;
  subtasks: SubtaskRow[];
  ack_progress?: AckProgress;
  phases_available: Phase[];
  notes: string[];
  /** the notes as clauses, for the UI to say in the user's language (i18n "reason.<code>") */
  note_parts?: ReasonPart[];
  vertices: Vertex[];
  edges: Edge[];
}

export type HeatmapKind = 'phase' | 'failure' | 'vertex';

export interface HeatmapRequest {
  cluster: string;
  job: string;
  kind: HeatmapKind;
  phase?: PhaseOrE2E;
  from_ms: number;
  to_ms: number;
  buckets: number;
}

export type Buckets = wire.Buckets;

export type PhaseCell = wire.PhaseCell;

export interface PhaseHeatmap {
  buckets: Buckets;
  rows: { phase: PhaseOrE2E; max_ms: number; cells: PhaseCell[] }[];
}

export interface FailureCell {
  bucket: number;
  count: number;
  checkpoint_ids: number[];
}

export interface FailureRow {
  signature: string;
  example: string;
  total: number;
  cells: FailureCell[];
}

export interface FailureHeatmap {
  buckets: Buckets;
  rows: FailureRow[];
}

export type VertexColumn = wire.VertexColumn;

export interface VertexHeatmapRow {
  vertex_id: string;
  vertex_name?: string;
  /** null where the vertex has no value in that column */
  cells: (number | null)[];
}

export interface VertexHeatmap {
  phase: PhaseOrE2E;
  columns: VertexColumn[];
  rows: VertexHeatmapRow[];
}

export interface Heatmap {
  kind: HeatmapKind;
  phase?: PhaseHeatmap;
  failure?: FailureHeatmap;
  vertex?: VertexHeatmap;
}

/** Delta is b − a; a side is absent when that checkpoint does not show the value. */
export interface Delta {
  a?: number;
  b?: number;
  delta?: number;
}

export interface PhaseDelta extends Delta {
  phase: Phase;
}

export interface VertexDelta {
  vertex_id: string;
  vertex_name?: string;
  end_to_end: Delta;
  checkpointed_size: Delta;
  phases: PhaseDelta[];
}

export interface CheckpointBrief {
  id: number;
  pipeline?: number;
  status: Status;
  trigger_ms: number;
  duration_ms: number;
  checkpointed_size: number;
  bottleneck?: Bottleneck;
  /** the barrier-path causes, when the backend sends them with the brief (CheckpointAnalysis.causes) */
  causes?: Cause[];
  detail_loss?: DetailLoss;
  source?: CheckpointSource;
}

export interface Comparison {
  a: CheckpointBrief;
  b: CheckpointBrief;
  end_to_end: Delta;
  checkpointed_size: Delta;
  phases: PhaseDelta[];
  vertices: VertexDelta[];
  /** why this pair, when DefaultCompare chose it */
  reason?: string;
}

export type Spearman = wire.Spearman;

export type Verdict = 'backpressure' | 'state_size' | 'storage' | 'inconclusive';

/** What a verdict rests on (docs/phases.md, "Verdict"); absent when inconclusive. */
export type Basis = 'correlation' | 'sustained_backpressure' | 'bottleneck' | 'slow_checkpoints';

export interface Correlation {
  backpressure: Spearman;
  alignment_backpressure: Spearman;
  checkpointed_size: Spearman;
  async_share?: number;
  verdict: Verdict;
  basis?: Basis;
  /** the reason in English (what reports print) */
  reason: string;
  /** its clauses, for the UI to say in the user's language (i18n "reason.<code>") */
  reason_parts?: ReasonPart[];
}

/** One clause of a reason: a template code (i18n key "reason.<code>") and its arguments. */
export interface ReasonPart {
  code: string;
  args?: Record<string, string>;
}

export interface FailureCluster {
  signature: string;
  example: string;
  count: number;
  phase?: Phase;
  job_level?: boolean;
  expired?: boolean;
  checkpoint_ids: number[];
  vertices: VertexRef[];
  first_ms: number;
  last_ms: number;
  /** the first root cause and declining task the JobManager log gave for the cluster's failures */
  cause?: string;
  task?: string;
}

export interface SlowRun {
  phase: PhaseOrE2E;
  vertex_id?: string;
  vertex_name?: string;
  pipeline?: number;
  checkpoint_ids: number[];
  first_ms: number;
  last_ms: number;
  max_ms: number;
  baseline_median_ms: number;
  threshold_ms: number;
  open?: boolean;
  new_normal?: boolean;
}

export type Summary = wire.Summary;

export interface Report {
  job: { cluster?: string; id: string; name: string; engine: Engine };
  from_ms: number;
  to_ms: number;
  missed: number;
  phases_available: Phase[];
  notes: string[];
  /** the notes as clauses, for the UI to say in the user's language (i18n "reason.<code>") */
  note_parts?: ReasonPart[];
  checkpoints: CheckpointAnalysis[];
  failures: FailureCluster[];
  slow_phases: SlowRun[];
  slow_checkpoints: SlowRun[];
  correlation: Correlation;
  summary: Summary;
  /** the collector's account of the job's ids against what was stored (absent if none) */
  reconciliation?: wire.Reconciliation | null;
}

export interface LogView {
  path: string;
  lines: string[];
}

// The events and their payloads are generated from app/events.go.
export type { CheckpointsEvent, EventPayloads, ExportProgressEvent, HealthEvent, ImportErrorEvent, ImportProgressEvent } from './contract.gen';

type Method = (...args: unknown[]) => Promise<unknown>;

interface Runtime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  EventsOff(name: string, ...more: string[]): void;
}

declare global {
  interface Window {
    go?: { app?: { App?: Record<string, Method> } };
    runtime?: Runtime;
    __CE_MODE?: string;
  }
}

/** ApiError carries the backend's own error text so the UI can show it verbatim. */
export class ApiError extends Error {
  readonly method: string;
  constructor(method: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.method = method;
  }
}

/**
 * errorText turns whatever a rejected call produced into the message to show:
 * Wails rejects with a plain string, the browser bridge with an Error.
 */
export function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e instanceof Error) return e.message;
  if (e && typeof e === 'object') {
    const o = e as { error?: unknown; message?: unknown };
    if (typeof o.error === 'string') return o.error;
    if (typeof o.message === 'string') return o.message;
  }
  return String(e);
}

/** mode is "browser" under `checkpoint-explorer serve`, "desktop" in the Wails window. */
export function mode(): 'browser' | 'desktop' {
  return typeof window !== 'undefined' && window.__CE_MODE === 'browser' ? 'browser' : 'desktop';
}

const bridgeWaitMs = 5000;
const bridgePollMs = 50;
let bridgeReady: Promise<Record<string, Method>> | null = null;

function currentBridge(): Record<string, Method> | undefined {
  return typeof window === 'undefined' ? undefined : window.go?.app?.App;
}

/**
 * waitForBridge resolves once window.go.app.App exists. The bridge script may
 * load after our module (Wails injects it, serve adds /bridge.js), so poll
 * briefly instead of failing the first call.
 */
export function waitForBridge(timeoutMs = bridgeWaitMs): Promise<Record<string, Method>> {
  const now = currentBridge();
  if (now) return Promise.resolve(now);
  if (bridgeReady) return bridgeReady;
  bridgeReady = new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const b = currentBridge();
      if (b) {
        clearInterval(timer);
        bridgeReady = null;
        resolve(b);
      } else if (Date.now() - started >= timeoutMs) {
        clearInterval(timer);
        bridgeReady = null;
        reject(new ApiError('bridge', `backend bridge not available: window.go.app.App missing after ${timeoutMs} ms`));
      }
    }, bridgePollMs);
  });
  return bridgeReady;
}

/**
 * call invokes a bound method. Its name and arguments are checked against the
 * generated contract (contract.gen.ts, from the Go methods): M is the method,
 * given explicitly since TypeScript cannot infer it beside an explicit T, the
 * type the view reads (the wire type, normalised by the caller).
 */
async function call<T, M extends keyof wire.AppMethods>(method: M, ...args: Parameters<wire.AppMethods[M]>): Promise<T> {
  const bridge = await waitForBridge();
  const fn = bridge[method];
  if (typeof fn !== 'function') {
    throw new ApiError(method, `backend has no method ${String(method)}`);
  }
  try {
    return (await fn(...args)) as T;
  } catch (e) {
    throw new ApiError(method, errorText(e));
  }
}

// Go encodes nil slices as null; normalise so views never branch on it.
function arr<T>(v: T[] | null | undefined): T[] {
  return Array.isArray(v) ? v : [];
}

function normaliseReport(r: Report): Report {
  return {
    ...r,
    phases_available: arr(r.phases_available),
    notes: arr(r.notes),
    checkpoints: arr(r.checkpoints),
    failures: arr(r.failures).map((f) => ({ ...f, checkpoint_ids: arr(f.checkpoint_ids), vertices: arr(f.vertices) })),
    slow_phases: arr(r.slow_phases).map((x) => ({ ...x, checkpoint_ids: arr(x.checkpoint_ids) })),
    slow_checkpoints: arr(r.slow_checkpoints).map((x) => ({ ...x, checkpoint_ids: arr(x.checkpoint_ids) })),
  };
}

export const api = {
  version: () => call<VersionInfo, 'Version'>('Version'),
  /** saves a file through the desktop's save dialog (the window cannot download); the path chosen, or '' */
  saveFile: (name: string, dataBase64: string) => call<string, 'SaveFile'>('SaveFile', name, dataBase64),
  /** fetches backpressure from the cluster's Prometheus for cached checkpoints that have none */
  backfillBackpressure: (cluster: string, job: string) => call<wire.BackfillResult, 'BackfillBackpressure'>('BackfillBackpressure', cluster, job),
  listClusters: async () => arr(await call<SourceView[] | null, 'ListClusters'>('ListClusters')).map((s) => ({ ...s, lanes: arr(s.lanes) })),
  saveCluster: (input: ClusterInput) => call<void, 'SaveCluster'>('SaveCluster', input),
  removeCluster: (name: string) => call<void, 'RemoveCluster'>('RemoveCluster', name),
  testConnection: (input: ClusterInput) => call<ConnectionTest, 'TestConnection'>('TestConnection', input),
  listJobs: async (cluster: string) => arr(await call<JobView[] | null, 'ListJobs'>('ListJobs', cluster)),
  checkpoints: async (cluster: string, job: string, fromMs: number, toMs: number) =>
    arr(await call<CheckpointRow[] | null, 'Checkpoints'>('Checkpoints', cluster, job, fromMs, toMs)),
  timeline: async (req: TimelineRequest): Promise<Timeline> => normaliseTimeline(await call<Timeline, 'Timeline'>('Timeline', req)),
  checkpoint: (cluster: string, job: string, pipeline: number, id: number) =>
    call<CheckpointDetail, 'Checkpoint'>('Checkpoint', cluster, job, pipeline, id),
  /** null when the job has no reconciliation (never polled by this version, an older capture, the sample) */
  jobReconciliation: async (cluster: string, job: string) => (await call<ReconciliationView | null, 'JobReconciliation'>('JobReconciliation', cluster, job)) ?? null,
  /** reads a Flink cluster's JobManager log once past its size cap, at the next poll (the log was too_large) */
  readJobManagerLog: (cluster: string) => call<void, 'ReadJobManagerLog'>('ReadJobManagerLog', cluster),
  retention: () => call<RetentionStatus, 'Retention'>('Retention'),
  setRetention: (limits: RetentionLimits) => call<void, 'SetRetention'>('SetRetention', limits),
  openCaptureDialog: () => call<ImportResult, 'OpenCaptureDialog'>('OpenCaptureDialog'),
  openCapture: (path: string) => call<ImportResult, 'OpenCapture'>('OpenCapture', path),
  exportCapture: (req: ExportRequest) => call<ExportResult, 'ExportCapture'>('ExportCapture', req),
  checkpointView: async (cluster: string, job: string, pipeline: number, id: number): Promise<CheckpointViewData> => {
    const v = await call<CheckpointViewData, 'CheckpointView'>('CheckpointView', cluster, job, pipeline, id);
    return {
      ...v,
      subtasks: arr(v.subtasks),
      phases_available: arr(v.phases_available),
      notes: arr(v.notes),
      vertices: arr(v.vertices),
      edges: arr(v.edges),
      analysis: { ...v.analysis, phases: v.analysis?.phases ?? {}, slow: arr(v.analysis?.slow) },
    };
  },
  heatmap: async (req: HeatmapRequest): Promise<Heatmap> => {
    const h = await call<Heatmap, 'Heatmap'>('Heatmap', req);
    if (h.phase) h.phase.rows = arr(h.phase.rows).map((r) => ({ ...r, cells: arr(r.cells) }));
    if (h.failure) {
      h.failure.rows = arr(h.failure.rows).map((r) => ({
        ...r,
        cells: arr(r.cells).map((c) => ({ ...c, checkpoint_ids: arr(c.checkpoint_ids) })),
      }));
    }
    if (h.vertex) {
      h.vertex.columns = arr(h.vertex.columns);
      h.vertex.rows = arr(h.vertex.rows).map((r) => ({ ...r, cells: arr(r.cells) }));
    }
    return h;
  },
  compare: async (cluster: string, job: string, pipelineA: number, idA: number, pipelineB: number, idB: number) =>
    normaliseComparison(await call<Comparison, 'Compare'>('Compare', cluster, job, pipelineA, idA, pipelineB, idB)),
  defaultCompare: async (cluster: string, job: string, fromMs: number, toMs: number) =>
    normaliseComparison(await call<Comparison, 'DefaultCompare'>('DefaultCompare', cluster, job, fromMs, toMs)),
  report: async (cluster: string, job: string, fromMs: number, toMs: number): Promise<Report> =>
    normaliseReport(await call<Report, 'Report'>('Report', cluster, job, fromMs, toMs)),
  // Insights is Report without the per-checkpoint analyses (checkpoints is empty): for panels.
  insights: async (cluster: string, job: string, fromMs: number, toMs: number): Promise<Report> =>
    normaliseReport(await call<Report, 'Insights'>('Insights', cluster, job, fromMs, toMs)),
  log: async (lines: number): Promise<LogView> => {
    const l = await call<LogView, 'Log'>('Log', lines);
    return { path: l?.path ?? '', lines: arr(l?.lines) };
  },
};

/** normaliseTimeline gives every lane an array, custom lanes included. */
export function normaliseTimeline(t: Timeline): Timeline {
  return {
    ...t,
    bars: arr(t.bars),
    gaps: arr(t.gaps),
    lanes: {
      backpressure: arr(t.lanes?.backpressure),
      size: arr(t.lanes?.size),
      commit: arr(t.lanes?.commit),
      custom: arr(t.lanes?.custom).map((c) => ({ name: c.name ?? '', points: arr(c.points) })),
    },
  };
}

function normaliseComparison(c: Comparison): Comparison {
  return {
    ...c,
    phases: arr(c.phases),
    vertices: arr(c.vertices).map((v) => ({ ...v, phases: arr(v.phases) })),
  };
}

/**
 * uploadCapture sends a capture file to `serve` (browser mode only): the raw
 * file as the body, authenticated by the same cookie as the API calls.
 */
export async function uploadCapture(file: Blob, name: string, fetchFn: typeof fetch = fetch): Promise<ImportResult> {
  let res: Response;
  try {
    res = await fetchFn(`./upload?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      body: file,
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/octet-stream' },
    });
  } catch (e) {
    throw new ApiError('upload', `upload ${name}: ${errorText(e)}`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: fall through and report the raw text below.
  }
  if (!res.ok) {
    const msg = body && typeof body === 'object' && 'error' in body ? errorText(body) : text || res.statusText;
    throw new ApiError('upload', `upload ${name}: ${msg} (HTTP ${res.status})`);
  }
  if (!body || typeof body !== 'object') {
    throw new ApiError('upload', `upload ${name}: unexpected answer: ${text.slice(0, 200)}`);
  }
  return body as ImportResult;
}

type Listener<T> = (payload: T) => void;
const listeners = new Map<string, Set<Listener<never>>>();

/**
 * on subscribes to a backend event. One runtime subscription per event name
 * fans out to every listener here, because the runtime's EventsOff(name)
 * drops all callbacks of that name at once.
 */
export function on<K extends keyof wire.EventPayloads>(name: K, cb: Listener<wire.EventPayloads[K]>): () => void {
  let set = listeners.get(name);
  if (!set) {
    set = new Set();
    listeners.set(name, set);
    const subscribe = () => {
      window.runtime?.EventsOn(name, (...data: unknown[]) => {
        const payload = (data[0] ?? {}) as wire.EventPayloads[K];
        for (const l of listeners.get(name) ?? []) (l as Listener<wire.EventPayloads[K]>)(payload);
      });
    };
    if (window.runtime) subscribe();
    else void waitForBridge().then(subscribe, () => undefined);
  }
  set.add(cb as Listener<never>);
  return () => {
    set?.delete(cb as Listener<never>);
  };
}
