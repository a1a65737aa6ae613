// Words for what a Flink cluster's traces (Flink's checkpoint spans in Jaeger)
// add: which sources have them, where a checkpoint record came from, what a
// read of the traces did, and the job id the "open from traces" dialog takes.
// The backend reads the traces; this only says what it answered. Display only.
import type { CheckpointSource, SourceView, TraceJob, TracesResult } from './api';
import type { Translate } from './explain';
import { formatDateTime, formatNumber } from './format';

/** The Source of a checkpoint read from the cluster's traces. */
export const FROM_TRACES: CheckpointSource = 'traces';

/** fromTraces reports whether a record was read from the cluster's traces (Flink's checkpoint spans). */
export function fromTraces(c: { source?: string } | null | undefined): boolean {
  return c?.source === FROM_TRACES;
}

/**
 * hasTraces says whether the app can read traces for a source: a configured
 * (polled, not read-only) Flink cluster with a traces URL. Captures and the
 * sample never do.
 */
export function hasTraces(s: Pick<SourceView, 'kind' | 'engine' | 'read_only' | 'traces_url'> | null | undefined): boolean {
  return !!s && s.kind === 'cluster' && s.engine === 'flink' && !s.read_only && !!s.traces_url?.trim();
}

/** What one read of the traces did, in the user's language. */
export interface TracesSummary {
  /** e.g. "12 checkpoints added from traces, 3 gained subtask details (5 requests)" */
  text: string;
  /** the backend's warning (English) when some time ranges were not read whole */
  warning?: string;
  /** false when nothing was added or filled */
  changed: boolean;
}

/** tracesSummary says what BackfillTraces or OpenTracesJob answered. */
export function tracesSummary(r: TracesResult, t: Translate, locale: string): TracesSummary {
  const n = (v: number) => formatNumber(v, locale);
  const resolved = r.resolved;
  const parts: string[] = [];
  if (r.added > 0) parts.push(t('traces.added', { count: r.added, n: n(r.added) }));
  if (r.details_filled > 0) {
    const key = parts.length > 0 ? 'traces.filled' : 'traces.filledOnly';
    parts.push(t(key, { count: r.details_filled, n: n(r.details_filled) }));
  }
  if (resolved > 0) parts.push(t('traces.resolved', { count: resolved, n: n(resolved) }));
  const what = parts.length === 0 ? t('traces.nothing') : parts.reduce((a, b) => t('traces.join', { a, b }));
  const text = t('traces.result', { what, requests: t('traces.requests', { count: r.requests, n: n(r.requests) }) });
  const warning = r.warning?.trim();
  return { text, ...(warning ? { warning } : {}), changed: parts.length > 0 };
}

/**
 * parseJobId reads a typed job id: trimmed and lower-cased (Flink prints them
 * lower-case), null unless 32 hexadecimal digits (Flink) or a decimal number
 * of up to 20 digits (SeaTunnel, whose spans the app's export writes).
 */
export function parseJobId(text: string): string | null {
  const v = text.trim().toLowerCase();
  return /^([0-9a-f]{32}|[0-9]{1,20})$/.test(v) ? v : null;
}

/** jobIdProblem is the i18n key of what is wrong with a typed job id, or null when it may be sent. */
export function jobIdProblem(text: string): string | null {
  if (!text.trim()) return 'traces.err.jobIdRequired';
  return parseJobId(text) === null ? 'traces.err.jobId' : null;
}

/** One job of the traces as the dialog lists it. */
export interface TraceJobLine {
  id: string;
  /** the name its spans give, else its id */
  name: string;
  checkpoints: string;
  /** the latest checkpoint's trigger time in the user's locale; — when unknown */
  latest: string;
  cached: boolean;
}

/** traceJobLine formats one TraceJobs entry for the dialog. */
export function traceJobLine(j: TraceJob, locale: string): TraceJobLine {
  return {
    id: j.id,
    name: j.name?.trim() || j.id,
    checkpoints: formatNumber(j.checkpoints, locale),
    latest: formatDateTime(j.latest_trigger_ms, locale),
    cached: j.cached,
  };
}
