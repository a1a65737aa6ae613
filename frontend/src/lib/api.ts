// Typed access to the Go facade. The frontend talks ONLY to
// window.go.app.App.<Method> and window.runtime.EventsOn/EventsOff: Wails
// provides them in the desktop window, and `checkpoint-explorer serve` injects
// /bridge.js that provides the same shape over HTTP + server-sent events.
//
// Every type here is derived from contract.gen.ts, which `make generate`
// writes from the Go types: no Go type is copied by hand (a Go test fails if
// one is). A result type is the generated one through Normalized<T> (its
// nil slices and maps as empty ones, made by the generated normalize*
// functions); enums are the unions the generator reads from the Go constants.
import type * as wire from './contract.gen';
import type { Normalized } from './contract.gen';
import {
  AdviceSeverityValues,
  AttentionValues,
  ChangeKindValues,
  JobManagerLogModeValues,
  KindValues,
  LogStateKindValues,
  normalizeChangeEffect,
  normalizeCheckpointDetail,
  normalizeCheckpointView,
  normalizeEffect,
  normalizeCompareResult,
  normalizeFleet,
  normalizeHeatmap,
  normalizeImportResult,
  normalizeLogView,
  normalizeReport,
  normalizeTimeline,
} from './contract.gen';

export type { Normalized } from './contract.gen';

export type Engine = wire.Engine;
export type AuthKind = wire.AuthKind;
export type SourceKind = wire.SourceKind;
/** partial: polls work but some requests fail (details, metrics, finished jobs); Health.problems names them. */
export type HealthState = wire.HealthState;
/** Why a final checkpoint lacks (some of) the per-subtask stats its engine reports. */
export type DetailLoss = wire.DetailLoss;
export type Status = wire.Status;
export type CheckpointKind = wire.CheckpointKind;
/** Where a checkpoint's record came from: absent = the engine's checkpoint API (REST); jobmanager_log = only Flink's JobManager log had it (no per-subtask stats); traces = read from Flink's checkpoint spans in the cluster's traces (Jaeger). */
export type CheckpointSource = wire.CheckpointSource;
/** Whether a Flink cluster's JobManager log is read (absent = auto). */
export type JobManagerLogMode = wire.JobManagerLogMode;
/** The states of a job's JobManager log reader (ReconciliationView.log). */
export type JobManagerLogStateKind = wire.LogStateKind;
export const JOBMANAGER_LOG_STATES: readonly JobManagerLogStateKind[] = LogStateKindValues;
export const JOBMANAGER_LOG_MODES: readonly JobManagerLogMode[] = JobManagerLogModeValues;

export type VersionInfo = Normalized<wire.VersionInfo>;
export type Health = Normalized<wire.Health>;
/** A configured cluster, an opened capture or the sample (never a password or token). */
export type SourceView = Normalized<wire.SourceView>;

// Arguments are the generated types as they are: Go reads a field left out as its zero value.
export type AuthInput = wire.Auth;
/** prometheus_names, reporter_urls: absent keeps what is stored, empty clears it; lanes: absent or empty clears them. */
export type ClusterInput = wire.ClusterInput;

/**
 * A custom lane of a Flink cluster's timelines: either a PromQL query on the
 * cluster's Prometheus ("$job_id" stands for the job's id; needs the
 * cluster's Prometheus URL) or the name of a Flink metric of the job's
 * vertices (e.g. numRecordsOutPerSecond). The backend checks them and names
 * the lane in its errors.
 */
export type CustomLaneSpec = wire.Lane;

/** The backend's bound on a note's text, in characters (store.MaxNoteRunes). */
export const MAX_NOTE_CHARS = 2000;

/** The backend's bound on a cluster's custom lanes (app.MaxLanes). */
export const MAX_CUSTOM_LANES = 8;

export type ConnectionTest = Normalized<wire.ConnectionTest>;
export type JobView = Normalized<wire.JobSummary>;
export type CheckpointRow = Normalized<wire.CheckpointRow>;

/**
 * The task whose decline failed a checkpoint, as Flink's JobManager log says
 * ("Decline checkpoint N by task <attempt> of job J").
 */
export type Decline = Normalized<wire.Decline>;

export type TimelineRequest = wire.TimelineRequest;
/** count > 1 when the backend merged neighbours (worst status, max duration). */
export type TimelineBar = Normalized<wire.Bar>;
export type TimelineGap = Normalized<wire.GapSpan>;
export type LanePoint = Normalized<wire.Point>;
/** One custom lane's points (the largest per pixel column), values in the metric's own unit. */
export type CustomLane = Normalized<wire.CustomLane>;
/** commit: duration (ms) of the sink's last commit, sampled (about every 10 s); custom: the cluster's custom lanes with samples in the range, in the user's order. */
export type TimelineLanes = Normalized<wire.Lanes>;
export type Timeline = Normalized<wire.Timeline>;

export type SubtaskDetail = Normalized<wire.SubtaskStats>;
/** missing: its per-subtask stats were asked for and could not be fetched (detail_loss "partial"). */
export type TaskDetail = Normalized<wire.TaskStats>;
export type CheckpointDetail = Normalized<wire.CheckpointDetail>;

/** The engine's checkpoint counters for a job (summed over pipelines), since its JobManager started following it. */
export type EngineCounts = Normalized<wire.EngineCounts>;

/**
 * A job's reconciliation (JobReconciliation): the ids its engine reported
 * against what the app accounted for, as of the last successful poll. Every
 * id of first_id..latest_id is stored or a gap; unaccounted ids are neither.
 */
export type ReconciliationView = Normalized<wire.ReconciliationView>;

/** Whether a job's checkpoints come from Flink's JobManager log too and, when they do not, why. */
export type JobManagerLogState = Normalized<wire.LogState>;

/**
 * What one read of a Flink cluster's traces (its checkpoint spans in Jaeger) did for a job:
 * read in the ranges asked, added to the cache (marked source "traces"), details_filled
 * (cached checkpoints that gained their per-subtask stats); warning when some of the
 * windows were not read whole.
 */
export type TracesResult = Normalized<wire.TracesResult>;
/** A job whose checkpoint spans a cluster's traces hold; checkpoints is a lower bound; cached: the cache holds it. */
export type TraceJob = Normalized<wire.TraceJob>;

export type RetentionLimits = wire.RetentionLimits;
export type RetentionStatus = Normalized<wire.RetentionView>;
export type ImportResult = Normalized<wire.ImportResult>;
export type ExportRequest = wire.ExportRequest;
export type ExportResult = Normalized<wire.ExportResult>;

// ---- Analysis (backend/analyze): the UI shows these values, it never recomputes them. ----

/** end_to_end is not a phase: it names the whole trigger → last ack time in heatmaps and slow flags. */
export type PhaseOrE2E = wire.Phase;
/** The fixed phase vocabulary (docs/phases.md): analyze.Phase's constants but end_to_end. */
export type Phase = Exclude<wire.Phase, 'end_to_end'>;

export const SUBTASK_PHASES: readonly Phase[] = ['start_delay', 'alignment', 'sync', 'async', 'ack'];
export const ALL_PHASES: readonly Phase[] = [...SUBTASK_PHASES, 'finalize'];

/** Phase durations in ms. An absent key is a phase the data does not show — never 0. */
export type Phases = Normalized<wire.Phases>;

/** phase_ms is absent when the critical path is pending (the phase is inferred, not measured). */
export type Bottleneck = Normalized<wire.Bottleneck>;

/**
 * Where barriers queued for a start-delay or alignment bottleneck: the vertex
 * at whose input they waited, and that input. Often upstream of the vertex
 * the bottleneck names.
 */
export type Origin = Normalized<wire.Origin>;

/**
 * One part of a completed checkpoint's end-to-end time along the barrier path
 * (backend/analyze/causes.go). start_delay with an upstream: barriers queued at
 * the input of the vertex behind that upstream; without: at a source (the
 * trigger reached it late). alignment: the upstream is the input whose barrier
 * came last. finalize has no vertex.
 */
export type Cause = Normalized<wire.Cause>;
export type Straggler = Normalized<wire.Straggler>;
export type AckPoint = Normalized<wire.AckPoint>;
export type AckProgress = Normalized<wire.AckProgress>;
export type VertexRef = Normalized<wire.VertexRef>;
/** basis: how the phase was found, in English; basis_parts are its clauses (i18n "reason.<code>"). */
export type CheckpointFailure = Normalized<wire.CheckpointFailure>;
export type Pressure = Normalized<wire.Pressure>;
export type SlowFlag = Normalized<wire.SlowFlag>;

/**
 * The sink commit that followed a checkpoint, from its committer's metrics.
 * They are sampled (every 10 s), so it is the first sampling window after the
 * checkpoint completed in which the committed counters moved; checkpoints is
 * how many checkpoints completed in that window, sharing these counts.
 */
export type SinkCommit = Normalized<wire.Commit>;
export type CheckpointAnalysis = Normalized<wire.CheckpointAnalysis>;
export type SubtaskRow = Normalized<wire.SubtaskRow>;
export type Vertex = Normalized<wire.Vertex>;
export type Edge = Normalized<wire.Edge>;
export type CheckpointViewData = Normalized<wire.CheckpointView>;

export type HeatmapKind = wire.HeatmapKind;
export type HeatmapRequest = wire.HeatmapRequest;
export type Buckets = Normalized<wire.Buckets>;
export type PhaseCell = Normalized<wire.PhaseCell>;
export type PhaseHeatmap = Normalized<wire.PhaseHeatmap>;
export type FailureCell = Normalized<wire.FailureCell>;
export type FailureRow = Normalized<wire.FailureRow>;
export type FailureHeatmap = Normalized<wire.FailureHeatmap>;
export type VertexColumn = Normalized<wire.VertexColumn>;
/** cells: null where the vertex has no value in that column. */
export type VertexHeatmapRow = Normalized<wire.VertexRow>;
export type VertexHeatmap = Normalized<wire.VertexHeatmap>;
export type Heatmap = Normalized<wire.Heatmap>;

/** Delta is b − a; a side is absent when that checkpoint does not show the value. */
export type Delta = Normalized<wire.Delta>;
export type PhaseDelta = Normalized<wire.PhaseDelta>;
export type VertexDelta = Normalized<wire.VertexDelta>;
/** causes: the barrier-path causes, when the backend sends them with the brief (CheckpointAnalysis.causes). */
export type CheckpointBrief = Normalized<wire.CheckpointBrief>;
/** reason: why this pair, when DefaultCompare chose it. */
export type Comparison = Normalized<wire.CompareResult>;
export type Spearman = Normalized<wire.Spearman>;
export type Verdict = wire.Verdict;
/** What a verdict rests on (docs/phases.md, "Verdict"); absent when healthy or inconclusive. */
export type Basis = wire.Basis;
/** reason: in English (what reports print); reason_parts: its clauses, for the UI to say in the user's language. */
export type Correlation = Normalized<wire.Correlation>;
/** One clause of a reason: a template code (i18n key "reason.<code>") and its arguments. */
export type ReasonPart = Normalized<wire.ReasonPart>;
/** cause, task: the first root cause and declining task the JobManager log gave for the cluster's failures. */
export type FailureCluster = Normalized<wire.FailureCluster>;
export type SlowRun = Normalized<wire.SlowRun>;
export type Summary = Normalized<wire.Summary>;
/**
 * One thing to change (analyze.Advice): title/text in English, title_part/text_parts the same as
 * "reason" templates; config_keys in Flink 2.x's spelling then 1.x's; current: what the engine
 * reported for them (a key absent: not reported); evidence.checkpoint_ids: at most 20, clearest first.
 */
export type Advice = Normalized<wire.Advice>;
export type AdviceSeverity = wire.AdviceSeverity;
export const ADVICE_SEVERITIES: readonly AdviceSeverity[] = AdviceSeverityValues;
/** reconciliation: the collector's account of the job's ids against what was stored (absent if none). */
export type Report = Normalized<wire.Report>;

/**
 * Something that happened to a job at a moment (docs/report-format.md, "changes[]"): a configuration change
 * (detail.keys, each old → new, "" = not set), a restart, a rescale (a vertex's parallelism from → to), a
 * resubmission (a new run of the same job) or the user's note (detail.text).
 */
export type Change = Normalized<wire.Change>;
export type ChangeKind = wire.ChangeKind;
export const CHANGE_KINDS: readonly ChangeKind[] = ChangeKindValues;
/** A change with the before/after at its moment. */
export type ChangeEffect = Normalized<wire.ChangeEffect>;
/**
 * The checkpoints before a moment against those from it on: each side's counts, phase shares and medians, the
 * end-to-end p50/p90 shifts (fractions, null with too few checkpoints) and the finding (finding_parts: "reason.effect_*").
 */
export type Effect = Normalized<wire.Effect>;
export type EffectSide = Normalized<wire.EffectSide>;
export type Shift = Normalized<wire.Shift>;

/** How much a job of the fleet needs looking at (docs/fleet.md), most urgent first. */
export type Attention = wire.Attention;
export const ATTENTIONS: readonly Attention[] = AttentionValues;
/**
 * One job's row of the fleet (docs/fleet.md): its checkpoints over the window that ends at
 * window_end_ms, judged against its baseline; p50_ms, p90_ms, baseline_p90_ms and since_ms are
 * null when unknown; sparkline: the newest final checkpoints' end-to-end times, oldest first.
 */
export type FleetJob = Normalized<wire.FleetJob>;
/** Every job ranked by checkpoint health: jobs come in the "needs attention" order. */
export type Fleet = Normalized<wire.Fleet>;
export type FleetRequest = wire.FleetRequest;
/** One final checkpoint on a fleet row's sparkline: failed ones are marked. */
export type SparkPoint = Normalized<wire.SparkPoint>;
export type LogView = Normalized<wire.LogView>;

/**
 * An opt-in alert rule (docs/alerts.md): a kind, the configured cluster it watches, optionally one
 * job of it (job_id or job_name), the kind's parameters; AlertRules answers each with its name filled in.
 */
export type AlertRule = wire.Rule;
export type AlertKind = wire.Kind;
export const ALERT_KINDS: readonly AlertKind[] = KindValues;

// The events and their payloads are generated from app/events.go.
export type { CheckpointsEvent, EventPayloads, ExportProgressEvent, HealthEvent, ImportErrorEvent, ImportProgressEvent } from './contract.gen';

type Method = (...args: unknown[]) => Promise<unknown>;

interface Runtime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  EventsOff(name: string, ...more: string[]): void;
  /** Wails's: opens a URL in the system browser (the desktop window only). */
  BrowserOpenURL?(url: string): void;
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

/** What method M answers, as contract.gen.ts says (from the Go method). */
type Result<M extends keyof wire.AppMethods> = Awaited<ReturnType<wire.AppMethods[M]>>;

/**
 * call invokes a bound method. Its name, arguments and result are the
 * generated contract's (contract.gen.ts, from the Go methods). The bridge is
 * untyped JSON; this is the one place its answer takes the contract's type.
 */
async function call<M extends keyof wire.AppMethods>(method: M, ...args: Parameters<wire.AppMethods[M]>): Promise<Result<M>> {
  const bridge = await waitForBridge();
  const fn = bridge[method];
  if (typeof fn !== 'function') {
    throw new ApiError(method, `backend has no method ${String(method)}`);
  }
  try {
    return (await fn(...args)) as Result<M>;
  } catch (e) {
    throw new ApiError(method, errorText(e));
  }
}

/** A wrapper of bound method M for the views: the contract's arguments, the answer as R. */
type Wrapper<M extends keyof wire.AppMethods, R> = (...args: Parameters<wire.AppMethods[M]>) => Promise<R>;

/**
 * What the views may get from method M: its answer normalised (Go's nil slices and maps as
 * empty ones), a list it may answer null (a nil slice) as a list too; a null left is a nil pointer's.
 */
type ViewAnswer<M extends keyof wire.AppMethods> = Normalized<
  ReturnType<wire.AppMethods[M]> extends Promise<infer List extends readonly unknown[] | null> ? NonNullable<List> : Result<M>
>;

/**
 * bind makes the views' wrapper of a bound method: its answer through shape (a generated
 * normalize* function; orEmpty for a list Go may send as null), or as it comes, which only
 * a method whose answer is its ViewAnswer already may (for any other, method is never).
 * Either way the compiler holds the wrapper to the normalised type: views never branch on null.
 */
function bind<M extends keyof wire.AppMethods>(method: M & (Result<M> extends ViewAnswer<M> ? unknown : never)): Wrapper<M, Result<M>>;
function bind<M extends keyof wire.AppMethods, R extends ViewAnswer<M>>(method: M, shape: (answer: Result<M>) => R): Wrapper<M, R>;
function bind<M extends keyof wire.AppMethods>(method: M, shape?: (answer: Result<M>) => unknown): Wrapper<M, unknown> {
  return async (...args) => {
    const answer = await call(method, ...args);
    return shape ? shape(answer) : answer;
  };
}

/** orEmpty is a list Go may send as null (a nil slice) as an empty one. */
function orEmpty<T>(list: T[] | null | undefined): T[] {
  return list ?? [];
}

export const api = {
  version: bind('Version'),
  /** saves a file through the desktop's save dialog (the window cannot download); the path chosen, or '' */
  saveFile: bind('SaveFile'),
  /** fetches backpressure from the cluster's Prometheus for cached checkpoints that have none */
  backfillBackpressure: bind('BackfillBackpressure'),
  /** reads from the cluster's traces the job's checkpoints (and subtask details) the cache lacks */
  backfillTraces: bind('BackfillTraces'),
  /** the jobs whose checkpoint spans the cluster's traces hold, newest first */
  traceJobs: bind('TraceJobs', orEmpty),
  /** caches a job from the cluster's traces (even one the engine no longer lists) with its checkpoints */
  openTracesJob: bind('OpenTracesJob'),
  listClusters: bind('ListClusters', orEmpty),
  saveCluster: bind('SaveCluster'),
  removeCluster: bind('RemoveCluster'),
  testConnection: bind('TestConnection'),
  listJobs: bind('ListJobs', orEmpty),
  /** every job of every cluster and capture ranked by checkpoint health over the window (cluster "": all) */
  fleet: bind('Fleet', normalizeFleet),
  checkpoints: bind('Checkpoints', orEmpty),
  timeline: bind('Timeline', normalizeTimeline),
  checkpoint: bind('Checkpoint', normalizeCheckpointDetail),
  /** null when the job has no reconciliation (never polled by this version, an older capture, the sample) */
  jobReconciliation: bind('JobReconciliation', (r) => r ?? null),
  /** reads a Flink cluster's JobManager log once past its size cap, at the next poll (the log was too_large) */
  readJobManagerLog: bind('ReadJobManagerLog'),
  retention: bind('Retention'),
  setRetention: bind('SetRetention'),
  openCaptureDialog: bind('OpenCaptureDialog', normalizeImportResult),
  openCapture: bind('OpenCapture', normalizeImportResult),
  exportCapture: bind('ExportCapture'),
  checkpointView: bind('CheckpointView', normalizeCheckpointView),
  heatmap: bind('Heatmap', normalizeHeatmap),
  compare: bind('Compare', normalizeCompareResult),
  defaultCompare: bind('DefaultCompare', normalizeCompareResult),
  report: bind('Report', normalizeReport),
  // Insights is Report without the per-checkpoint analyses (checkpoints is empty): for panels.
  insights: bind('Insights', normalizeReport),
  /** the job's changes, oldest first, each with its before/after */
  changes: bind('Changes', (list) => orEmpty(list).map(normalizeChangeEffect)),
  /** the checkpoints before atMs against those from it on, each side bounded by the neighbouring changes and windowMs (0: the changes alone) */
  beforeAfter: bind('BeforeAfter', normalizeEffect),
  /** puts the user's note on the job's timeline; a note needs some text (at most MAX_NOTE_CHARS) */
  addNote: bind('AddNote'),
  /** removes the job's note at timeMs that says text */
  deleteNote: bind('DeleteNote'),
  log: bind('Log', normalizeLogView),
  alertRules: bind('AlertRules', orEmpty),
  /** checks, saves and applies the whole list; the error names the rule, e.g. "rules[1]: count: …" */
  setAlertRules: bind('SetAlertRules'),
};

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
  // The answer is OpenCapture's (app.ImportResult), as JSON.
  return normalizeImportResult(body as wire.ImportResult);
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
