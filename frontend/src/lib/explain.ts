// Sentences built from what the backend concluded: the bottleneck line and
// the plain-text summary a user copies into a ticket. The wording lives in the
// i18n catalogues; this picks the message and fills it with formatted values.
import { ALL_PHASES, type Bottleneck, type Cause, type CheckpointViewData, type Phase } from './api';
import { checkpointSize, formatBytes, formatDateTime, formatMs, formatNumber, formatPercent, formatSpan, truncate } from './format';
import { phaseValue } from './phases';
import { basisText, notesText } from './reason';
import { causesSentence, originText, SENTENCE_NAME_MAX, type Translate } from './causes';
import { declinedText, fromLog } from './jmlog';
import { fromTraces } from './traces';
import { commitLine } from './commit';

export { SENTENCE_NAME_MAX, type Translate };

/**
 * bottleneckSentence says where the time went, e.g. "alignment in Window(…)
 * subtask 3: 16.9 sec of 19 sec". Undefined when the backend named none.
 */
export function bottleneckSentence(b: Bottleneck | undefined, t: Translate, locale: string): string | undefined {
  if (!b) return undefined;
  const phase = t(`phase.${b.phase}`);
  const vertex = b.vertex_name || b.vertex_id ? truncate(b.vertex_name || b.vertex_id || '', SENTENCE_NAME_MAX) : '';
  const total = formatSpan(b.end_to_end_ms, locale);
  if (b.pending) {
    const n = b.pending_subtasks ?? 0;
    if (!vertex) return t('bottleneck.pendingNoVertex', { phase, count: n, n: formatNumber(n, locale) });
    return t(b.subtask !== undefined ? 'bottleneck.pending' : 'bottleneck.pendingVertex', {
      phase,
      vertex,
      subtask: b.subtask,
      count: n,
      n: formatNumber(n, locale),
    });
  }
  const value = b.phase_ms !== undefined ? formatSpan(b.phase_ms, locale) : '';
  if (!vertex) return t('bottleneck.checkpoint', { phase, value, total });
  if (b.subtask === undefined) return t('bottleneck.vertex', { phase, vertex, value, total });
  return t('bottleneck.subtask', { phase, vertex, subtask: b.subtask, value, total });
}

/**
 * explainBottleneck is the sentence a view shows for a checkpoint's
 * bottleneck: the causes when the backend sent them (origin first); else the
 * origin followed by the bottleneck; else the bottleneck sentence alone.
 * Undefined when there is none of these.
 */
export function explainBottleneck(a: { bottleneck?: Bottleneck; causes?: Cause[] }, t: Translate, locale: string): string | undefined {
  const b = a.bottleneck;
  if (!b?.pending) {
    const s = causesSentence(a.causes, b?.origin, t, locale);
    if (s) return s;
  }
  const plain = bottleneckSentence(b, t, locale);
  if (plain && b?.origin && !b.pending) {
    // The cause of a queued barrier is named only when it is elsewhere than the bottleneck says.
    const same = b.origin.vertex_id === b.vertex_id && !b.origin.upstream_vertex_id;
    if (!same) return t('cause.withOrigin', { origin: originText(b.origin, t), bottleneck: plain });
  }
  return plain;
}

/** checkpointSummaryText is the "copy summary" text of a checkpoint view, one fact per line. */
export function checkpointSummaryText(
  v: CheckpointViewData,
  ctx: { t: Translate; locale: string; jobName: string; cluster: string; clusterTime?: (ms: number) => string },
): string {
  const { t, locale } = ctx;
  const c = v.checkpoint;
  const a = v.analysis;
  const lines: string[] = [];
  lines.push(t('summary.heading', { id: formatNumber(c.id, locale), job: ctx.jobName, cluster: ctx.cluster }));
  if (c.pipeline) lines.push(`${t('table.pipeline')}: ${c.pipeline}`);
  lines.push(`${t('table.status')}: ${t(`status.${c.status}`)} (${t(`kind.${c.kind}`)})`);
  if (fromLog(c)) lines.push(t('jmlog.origin'));
  if (fromTraces(c)) lines.push(t('traces.origin'));
  const trig = formatDateTime(c.trigger_ms, locale);
  lines.push(`${t('table.trigger')}: ${trig}${ctx.clusterTime ? ` (${ctx.clusterTime(c.trigger_ms)})` : ''}`);
  lines.push(`${t('detail.endToEnd')}: ${formatMs(c.end_to_end_ms, locale)}`);
  const size = checkpointSize(c);
  lines.push(
    size.kind === 'blobs'
      ? `${t('detail.stateBlobs')}: ${t('size.blobs', { count: size.count, n: formatNumber(size.count, locale) })}`
      : `${t('table.size')}: ${formatBytes(size.bytes, locale)}`,
  );
  if (c.num_subtasks > 0) lines.push(`${t('table.acked')}: ${formatNumber(c.num_acknowledged, locale)} / ${formatNumber(c.num_subtasks, locale)}`);
  const b = explainBottleneck(a, t, locale);
  if (b) lines.push(`${t('checkpoint.bottleneck')}: ${b}`);
  const plain = bottleneckSentence(a.bottleneck, t, locale);
  if (plain && b !== plain && !b?.includes(plain)) lines.push(`${t('cause.lastAck')}: ${plain}`);
  const phases = ALL_PHASES.map((p: Phase) => {
    const val = phaseValue(a.phases, p);
    return `${t(`phase.${p}`)} ${val === undefined ? t('phase.notObservable') : formatMs(val, locale)}`;
  });
  lines.push(`${t('checkpoint.criticalPhases')}: ${phases.join(', ')}`);
  if (a.commit) lines.push(`${t('commit.title')}: ${commitLine(a.commit, t, locale)}`);
  const bp = a.backpressure;
  if (bp) {
    const up = bp.upstream ?? bp.max;
    if (up !== undefined) {
      lines.push(`${t('checkpoint.backpressure')}: ${formatPercent(up, locale, 0)} (${t('checkpoint.samples', { count: bp.samples, n: formatNumber(bp.samples, locale) })})`);
    }
  }
  for (const s of a.slow ?? []) {
    const where = s.vertex_id ? ` · ${v.vertices.find((x) => x.id === s.vertex_id)?.name ?? s.vertex_id}` : '';
    lines.push(
      `${t('checkpoint.slowFlag')}: ${t(`phase.${s.phase}`)}${where}: ${formatMs(s.value_ms, locale)} ${t('checkpoint.slowVs', {
        median: formatMs(s.median_ms, locale),
        threshold: formatMs(s.threshold_ms, locale),
      })}`,
    );
  }
  if (a.failure) {
    lines.push(`${t('checkpoint.failure')}: ${a.failure.message}`);
    // A missing message comes back as its key: then the English basis is used.
    const basis = basisText(a.failure, t, (k) => t(k) !== k);
    if (a.failure.phase) lines.push(`${t('checkpoint.failurePhase')}: ${t(`phase.${a.failure.phase}`)} (${basis})`);
    else if (a.failure.job_level) lines.push(`${t('checkpoint.failurePhase')}: ${t('checkpoint.jobLevel')} (${basis})`);
  }
  const cause = a.failure?.cause || c.failure_cause;
  if (cause) lines.push(t('jmlog.cause', { cause }));
  const vname = (id: string) => v.vertices.find((x) => x.id === id)?.name || c.vertex_names?.[id];
  const declined = c.declined ? declinedText(c.declined, vname, t) : a.failure?.task ? t('jmlog.declined', { who: a.failure.task }) : undefined;
  if (declined) lines.push(declined);
  for (const n of notesText(v, t, (k) => t(k) !== k)) lines.push(`${t('checkpoint.note')}: ${n}`);
  return lines.join('\n');
}
