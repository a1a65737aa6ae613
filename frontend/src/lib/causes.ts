// The causes of a checkpoint's end-to-end time along the barrier path
// (backend/analyze/causes.go, docs/phases.md "Barrier path and causes") said
// in words. The backend computes and orders them; this only picks which to
// show (the origin of queued barriers first, then the rest, largest first)
// and fills the "cause.*" templates of the current language. The English
// wording is the CLI's (report_cmd.go causeText).
import type { Bottleneck, Cause, Origin, PhaseOrE2E } from './api';
import { formatPercent, formatSpan, truncate } from './format';

export type Translate = (key: string, opts?: Record<string, unknown>) => string;

/** The longest vertex name a sentence shows; the full name goes in a tooltip. */
export const SENTENCE_NAME_MAX = 48;

/** A cause is listed when it takes at least this share of the time (the first is always listed). */
export const CAUSE_MIN_SHARE = 0.05;
/** How many causes the sentence names (as the CLI's text). */
export const SENTENCE_CAUSES = 3;
/** How many causes the list under the sentence shows. */
export const LIST_CAUSES = 4;

const name = (n: string | undefined, id: string | undefined) => truncate(n || id || '', SENTENCE_NAME_MAX);

/** isOriginCause tells whether c is the cause the origin was taken from (the largest start-delay or alignment cause there). */
export function isOriginCause(c: Cause, o: Origin | undefined): boolean {
  if (!o || (c.phase !== 'start_delay' && c.phase !== 'alignment')) return false;
  return (c.vertex_id ?? '') === o.vertex_id && (c.upstream_vertex_id ?? '') === (o.upstream_vertex_id ?? '');
}

/** originCause finds the cause the origin names (the first one that matches: causes come largest first). */
export function originCause(causes: readonly Cause[] | undefined, o: Origin | undefined): Cause | undefined {
  return (causes ?? []).find((c) => isOriginCause(c, o));
}

/**
 * shownCauses picks the causes to name: the origin's cause first (when there
 * is an origin), then the others in the backend's order; each after the first
 * must take at least minShare, and at most max are kept.
 */
export function shownCauses(causes: readonly Cause[] | undefined, o: Origin | undefined, max = LIST_CAUSES, minShare = CAUSE_MIN_SHARE): Cause[] {
  const all = causes ?? [];
  const first = originCause(all, o);
  const ordered = first ? [first, ...all.filter((c) => c !== first)] : [...all];
  const out: Cause[] = [];
  for (const c of ordered) {
    if (out.length >= max || (out.length > 0 && c.share < minShare)) break;
    out.push(c);
  }
  return out;
}

/** where names a vertex, with its subtask when known: "Slow Snapshot subtask 0". */
function where(vertex: string, subtask: number | undefined, t: Translate): string {
  return subtask === undefined ? vertex : t('cause.at', { vertex, subtask });
}

/**
 * causeText says one cause without its duration, e.g. "barriers queued at the
 * input of Slow Map (behind Source: Numbers)" or "sync in Slow Snapshot subtask 0".
 */
export function causeText(c: Cause, t: Translate): string {
  const vertex = name(c.vertex_name, c.vertex_id);
  const upstream = name(c.upstream_vertex_name, c.upstream_vertex_id);
  const phase = t(`phase.${c.phase}`);
  if (c.phase === 'finalize') return t('cause.finalize');
  if (!vertex) return phase;
  const at = where(vertex, c.subtask, t);
  if (c.phase === 'start_delay') return upstream ? t('cause.queued', { vertex, upstream }) : t('cause.sourceDelay', { where: at });
  if (c.phase === 'alignment' && upstream) return t('cause.alignmentWaiting', { where: at, upstream });
  return t('cause.phaseIn', { phase, where: at });
}

/**
 * causeEvidence says what the sampled metrics show of a queue: "Source: Numbers
 * backpressured 96% · Slow Map busy 100%" (the upstream is held back, the vertex
 * is the slow one); "" without samples or for other causes.
 */
export function causeEvidence(c: Cause, t: Translate, locale: string): string {
  const parts: string[] = [];
  const upstream = name(c.upstream_vertex_name, c.upstream_vertex_id);
  const vertex = name(c.vertex_name, c.vertex_id);
  if (c.upstream_backpressure != null && upstream) {
    parts.push(t('cause.evidenceBackpressure', { upstream, pct: formatPercent(c.upstream_backpressure, locale, 0) }));
  }
  if (c.busy != null && vertex) parts.push(t('cause.evidenceBusy', { vertex, pct: formatPercent(c.busy, locale, 0) }));
  return parts.join(t('cause.evidenceSep'));
}

/** causeItem is one cause with its duration: "890 ms: barriers queued at …". */
export function causeItem(c: Cause, t: Translate, locale: string): string {
  return t('cause.item', { ms: formatSpan(c.ms, locale), text: causeText(c, t) });
}

/** causeShare is a cause's share of the time, e.g. "72%". */
export function causeShare(c: Cause, locale: string): string {
  return formatPercent(c.share, locale, 0);
}

/**
 * causesSentence names the causes that took the time, origin first, e.g.
 * "890 ms: barriers queued at the input of Slow Map (behind Source: Numbers);
 * 302 ms: sync in Slow Snapshot subtask 0". Undefined without causes.
 */
export function causesSentence(causes: readonly Cause[] | undefined, o: Origin | undefined, t: Translate, locale: string, max = SENTENCE_CAUSES): string | undefined {
  const shown = shownCauses(causes, o, max);
  if (shown.length === 0) return undefined;
  return shown.map((c) => causeItem(c, t, locale)).join(t('cause.sep'));
}

/**
 * originText says where barriers queued when only the origin is known (no
 * causes): "barriers queued at the input of Slow Map (behind Source: Numbers)",
 * or, with no upstream, that the barrier reached the source late.
 */
export function originText(o: Origin, t: Translate): string {
  const vertex = name(o.vertex_name, o.vertex_id);
  const upstream = name(o.upstream_vertex_name, o.upstream_vertex_id);
  return upstream ? t('cause.queued', { vertex, upstream }) : t('cause.sourceDelay', { where: vertex });
}

/** What the Gantt marks for the origin: its vertex, the queued time on its row and the words of the tag. */
export interface GanttOriginInfo {
  vertexId: string;
  /** the subtask the time was measured on, when known */
  subtask?: number;
  /** the phase whose segment holds the queued time (start_delay or alignment), when known */
  phase?: PhaseOrE2E;
  /** how long barriers queued there (the cause's ms), when known */
  ms?: number;
  /** the tag: "barriers queued here" */
  tag: string;
  /** the edge: "← behind Source: Numbers"; empty at a source */
  edge: string;
  /** the whole cause, for the tooltip */
  tip: string;
}

/** ganttOrigin is what the Gantt marks for a checkpoint's origin; undefined without one. */
export function ganttOrigin(a: { bottleneck?: Bottleneck; causes?: Cause[] }, t: Translate, locale: string): GanttOriginInfo | undefined {
  const o = a.bottleneck?.origin;
  if (!o || a.bottleneck?.pending) return undefined;
  const c = originCause(a.causes, o);
  const upstream = name(o.upstream_vertex_name, o.upstream_vertex_id);
  const alignment = c?.phase === 'alignment';
  return {
    vertexId: o.vertex_id,
    subtask: c?.subtask,
    phase: c?.phase,
    ms: c?.ms,
    tag: t(alignment ? 'gantt.originAlignment' : upstream ? 'gantt.originQueued' : 'gantt.originSource'),
    edge: upstream ? t(alignment ? 'gantt.waitingFor' : 'gantt.behind', { upstream }) : '',
    tip: c ? causeItem(c, t, locale) : originText(o, t),
  };
}
