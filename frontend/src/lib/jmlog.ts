// Words for what Flink's JobManager log adds to a checkpoint (the backend
// reads the log; this only says what it sent): where a record came from, the
// failure's root cause and declining task, why a finalize time is missing, and
// the log reader's state in the job header. Display only.
import type { CheckpointSource, Decline, Engine, JobManagerLogState, Status } from './api';
import type { Translate } from './explain';
import { formatBytes, formatDateTime, formatNumber, formatTime, sameLocalDay, truncate } from './format';

/** The Source of a checkpoint read from the JobManager log alone. */
export const FROM_LOG: CheckpointSource = 'jobmanager_log';

/** fromLog reports whether a record came from the JobManager log alone (it had left Flink's REST history). */
export function fromLog(c: { source?: string } | null | undefined): boolean {
  return c?.source === FROM_LOG;
}

/**
 * declinedWho names who declined a checkpoint: the task as the log names it
 * ("Snapshot Thrower (1/2)#0"), else the vertex (its name where known) and
 * subtask. Undefined without a decline.
 */
export function declinedWho(d: Decline | null | undefined, vertexName: (id: string) => string | undefined, t: Translate): string | undefined {
  if (!d) return undefined;
  if (d.task) return d.task;
  const vertex = d.vertex_id ? vertexName(d.vertex_id) || d.vertex_id : '';
  return vertex ? t('jmlog.whoSubtask', { vertex, subtask: d.subtask }) : t('jmlog.whoAnySubtask', { subtask: d.subtask });
}

/** declinedText is the sentence, e.g. "Declined by Snapshot Thrower (1/2)#0"; undefined without a decline. */
export function declinedText(d: Decline | null | undefined, vertexName: (id: string) => string | undefined, t: Translate): string | undefined {
  const who = declinedWho(d, vertexName, t);
  return who === undefined ? undefined : t('jmlog.declined', { who });
}

/** declinedTitle is the tooltip of a decline: vertex, subtask, attempt and the decline's own message. */
export function declinedTitle(d: Decline | null | undefined, vertexName: (id: string) => string | undefined, t: Translate): string | undefined {
  if (!d) return undefined;
  const vertex = d.vertex_id ? vertexName(d.vertex_id) || d.vertex_id : '—';
  const lines = [t('jmlog.declinedTitle', { vertex, subtask: d.subtask, attempt: d.attempt })];
  if (d.message) lines.push(d.message);
  return lines.join('\n');
}

/** Why a completed Flink checkpoint has no finalize time, as the log reader's state says. */
export interface FinalizeNote {
  state: string;
  /** the sentence, in the user's language */
  text: string;
  /** the backend's reason (English), when it gave one */
  reason?: string;
  /** the log is too large for the automatic reads: it may be read once on demand */
  canRead: boolean;
}

const NOTE_STATES = new Set(['read', 'waiting', 'off', 'unavailable', 'unrecognised', 'too_large']);

/**
 * finalizeNote says why checkpoint c shows no finalize time: only for a
 * completed Flink checkpoint without finalize_ms whose job has a log state.
 * Null otherwise (finalize is there, the checkpoint did not complete, the
 * engine has no JobManager log, or the job has no reconciliation).
 */
export function finalizeNote(
  c: { status: Status; finalize_ms?: number | null },
  engine: Engine | undefined,
  log: JobManagerLogState | null | undefined,
  t: Translate,
  locale: string,
): FinalizeNote | null {
  if (engine !== 'flink' || c.status !== 'COMPLETED' || (c.finalize_ms !== undefined && c.finalize_ms !== null) || !log) return null;
  const state = log.state;
  const reason = log.reason?.trim() || undefined;
  let text: string;
  if (!NOTE_STATES.has(state)) text = t('jmlog.finalize.other', { state });
  else if (state === 'read') text = t('jmlog.finalize.read', { time: log.read_ms ? formatDateTime(log.read_ms, locale) : '—' });
  else text = t(`jmlog.finalize.${state}`);
  // "off" and "waiting" say it all; the others carry the backend's why.
  const withReason = state !== 'off' && state !== 'waiting' && state !== 'read';
  return { state, text, reason: withReason ? reason : undefined, canRead: state === 'too_large' };
}

/** The JobManager log's state for the job header: a short text and the tooltip. */
export interface LogStateLine {
  state: string;
  text: string;
  tooltip: string;
  /** the log cannot be read as things are: show it as a problem */
  problem: boolean;
}

/** REASON_MAX bounds the backend's reason in the header line; the tooltip has it whole. */
export const REASON_MAX = 60;

/** jobManagerLogLine words the log reader's state compactly; null without one. now decides whether the read time needs its date. */
export function jobManagerLogLine(log: JobManagerLogState | null | undefined, t: Translate, locale: string, now = Date.now()): LogStateLine | null {
  if (!log) return null;
  const state = log.state;
  const reason = log.reason?.trim() ?? '';
  const size = (b: number | undefined) => (b ? formatBytes(b, locale) : '');
  const tip: string[] = [t('jmlog.tip.about')];
  let text: string;
  switch (state) {
    case 'read': {
      const at = log.read_ms ?? 0;
      text = t('jmlog.state.read', { time: at && sameLocalDay(at, now) ? formatTime(at, locale) : formatDateTime(at, locale) });
      tip.push(t('jmlog.tip.readAt', { time: formatDateTime(at, locale), size: size(log.size_bytes) || '—', n: formatNumber(log.checkpoints ?? 0, locale) }));
      break;
    }
    case 'waiting':
      text = t('jmlog.state.waiting');
      tip.push(t('jmlog.tip.waiting'));
      break;
    case 'off':
      text = t('jmlog.state.off');
      tip.push(t('jmlog.tip.off'));
      break;
    case 'too_large':
      text = log.size_bytes ? t('jmlog.state.tooLargeSize', { size: size(log.size_bytes) }) : t('jmlog.state.too_large');
      if (log.size_bytes && log.limit_bytes) tip.push(t('jmlog.tip.tooLarge', { size: size(log.size_bytes), limit: size(log.limit_bytes) }));
      if (reason) tip.push(reason);
      break;
    case 'unavailable':
      text = t('jmlog.state.unavailable', { reason: truncate(reason || '—', REASON_MAX) });
      if (reason) tip.push(reason);
      break;
    case 'unrecognised':
      text = t('jmlog.state.unrecognised');
      if (reason) tip.push(reason);
      break;
    default:
      text = t('jmlog.state.other', { state });
      if (reason) tip.push(reason);
  }
  return { state, text, tooltip: tip.join('\n'), problem: state === 'unavailable' || state === 'unrecognised' || state === 'too_large' };
}
