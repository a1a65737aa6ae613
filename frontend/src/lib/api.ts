// Typed access to the Go facade. The frontend talks ONLY to
// window.go.app.App.<Method> and window.runtime.EventsOn/EventsOff: Wails
// provides them in the desktop window, and `checkpoint-explorer serve` injects
// /bridge.js that provides the same shape over HTTP + server-sent events.
//
// Every type here comes from what `make generate` writes from the Go types:
// contract.gen.ts (the JSON as the doors send it) and types.gen.ts (each of
// its types as the views read it, with its Go doc comment, re-exported here
// whole). No Go type is copied or aliased by hand (a Go test fails if one
// is): what api.ts adds is the UI's names for some of them and a narrowing.
// A method's answer is the generated type through Normalized<T> (its nil
// slices and maps as empty ones, made by the generated normalize* functions);
// enums are the unions the generator reads from the Go constants.
import type * as wire from './contract.gen';
import type { Normalized } from './contract.gen';
import {
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
import type { ImportResult } from './types.gen';

export type { EventPayloads, Normalized } from './contract.gen';
export type * from './types.gen';

// The UI's names for some of the generated types (each with its Go doc comment).
export type {
  // An argument: Go reads a field left out as its zero value.
  Auth as AuthInput,
  Bar as TimelineBar,
  CheckpointView as CheckpointViewData,
  Commit as SinkCommit,
  // reason: why this pair, when DefaultCompare chose it.
  CompareResult as Comparison,
  GapSpan as TimelineGap,
  JobSummary as JobView,
  Kind as AlertKind,
  // The backend checks them and names the lane in its errors.
  Lane as CustomLaneSpec,
  // custom: each lane's values are in its metric's own unit.
  Lanes as TimelineLanes,
  LogState as JobManagerLogState,
  LogStateKind as JobManagerLogStateKind,
  // end_to_end is not a phase: it names the whole trigger → last ack time in heatmaps and slow flags.
  Phase as PhaseOrE2E,
  Point as LanePoint,
  RetentionView as RetentionStatus,
  // AlertRules answers each with its name filled in.
  Rule as AlertRule,
  SubtaskStats as SubtaskDetail,
  // missing: its per-subtask stats were asked for and could not be fetched (detail_loss "partial").
  TaskStats as TaskDetail,
  VertexRow as VertexHeatmapRow,
} from './types.gen';

// The values of enums, in the order Go declares them.
export {
  AdviceSeverityValues as ADVICE_SEVERITIES,
  AttentionValues as ATTENTIONS,
  ChangeKindValues as CHANGE_KINDS,
  JobManagerLogModeValues as JOBMANAGER_LOG_MODES,
  KindValues as ALERT_KINDS,
  LogStateKindValues as JOBMANAGER_LOG_STATES,
} from './contract.gen';

/** The backend's bound on a note's text, in characters (store.MaxNoteRunes). */
export const MAX_NOTE_CHARS = 2000;

/** The backend's bound on a cluster's custom lanes (app.MaxLanes). */
export const MAX_CUSTOM_LANES = 8;

// ---- Analysis (backend/analyze): the UI shows these values, it never recomputes them. ----

/**
 * The fixed phase vocabulary (docs/phases.md): analyze.Phase's constants but end_to_end. It stands
 * for the generated Phase (PhaseOrE2E here) in what api.ts exports.
 */
export type Phase = Exclude<wire.Phase, 'end_to_end'>;

export const SUBTASK_PHASES: readonly Phase[] = ['start_delay', 'alignment', 'sync', 'async', 'ack'];
export const ALL_PHASES: readonly Phase[] = [...SUBTASK_PHASES, 'finalize'];

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
  /** prometheus_names, reporter_urls: absent keeps what is stored, empty clears it; lanes: absent or empty clears them */
  saveCluster: bind('SaveCluster'),
  removeCluster: bind('RemoveCluster'),
  testConnection: bind('TestConnection'),
  listJobs: bind('ListJobs', orEmpty),
  /** every job of every cluster and capture ranked by checkpoint health over the window (cluster "": all) */
  fleet: bind('Fleet', normalizeFleet),
  /** split: the run does not follow the earlier runs of its name (a logical job of its own); false matches it again */
  splitRun: bind('SplitRun'),
  /** the runs of the job's logical job, oldest first, the job among them (one when it has no other) */
  jobRuns: bind('JobRuns', orEmpty),
  checkpoints: bind('Checkpoints', orEmpty),
  timeline: bind('Timeline', normalizeTimeline),
  checkpoint: bind('Checkpoint', normalizeCheckpointDetail),
  /**
   * the ids the job's engine reported against what the app accounted for, as of the last successful poll: every id
   * of first_id..latest_id is stored or a gap, unaccounted ids are neither; null when the job has no reconciliation
   * (never polled by this version, an older capture, the sample)
   */
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
