// Words for a job's reconciliation (the JobReconciliation facade method): the
// line in the job header and its tooltip. Display only — every figure,
// `missed` included, comes from the backend as it is.
import type { ReconciliationView } from './api';
import type { Translate } from './explain';
import { formatDateTime, formatNumber } from './format';

/** One reason of the triggers that failed before an id, from the JobManager log. */
type TriggerFailureReason = NonNullable<ReconciliationView['trigger_failures']>[number];

export interface ReconciliationLine {
  /** the compact line, e.g. "Engine counted 243 · stored 233 · 2 gap ids filled from the log · missed 7 (gaps) · 3 failed before an id: Not all required tasks are currently running (3) · 40 earlier from the JobManager log" */
  text: string;
  /** one explanation per line, for the tooltip */
  tooltip: string;
  /** something was not stored: show it as a warning */
  warn: boolean;
}

/** reconciliationLine words r in the current language; null when there is none. */
export function reconciliationLine(r: ReconciliationView | null | undefined, t: Translate, locale: string): ReconciliationLine | null {
  if (!r) return null;
  const n = (v: number) => formatNumber(v, locale);
  const parts: string[] = [];
  if (r.engine_counted >= 0) parts.push(t('recon.engineCounted', { n: n(r.engine_counted) }));
  parts.push(t(parts.length ? 'recon.stored' : 'recon.storedFirst', { n: n(r.stored) }));
  if (r.from_log > 0) parts.push(t('recon.fromLog', { count: r.from_log, n: n(r.from_log) }));
  if (r.gaps > 0 && r.unaccounted > 0) {
    parts.push(t('recon.missedBoth', { n: n(r.missed), gaps: n(r.gaps), unaccounted: n(r.unaccounted) }));
  } else if (r.gaps > 0) {
    parts.push(t('recon.missedGaps', { n: n(r.missed) }));
  } else if (r.unaccounted > 0) {
    parts.push(t('recon.missedUnaccounted', { n: n(r.missed) }));
  } else {
    parts.push(t('recon.missedNone'));
  }
  const why = r.trigger_failures ?? [];
  const reason = (g: TriggerFailureReason) => g.reason || t('recon.otherReasons');
  if (r.without_id > 0 && why.length > 0) {
    const reasons = why.map((g) => t('recon.reasonCount', { reason: reason(g), n: n(g.count) })).join(t('recon.reasonSeparator'));
    parts.push(t('recon.withoutIdWhy', { n: n(r.without_id), reasons }));
  } else if (r.without_id > 0) {
    parts.push(t('recon.withoutId', { n: n(r.without_id) }));
  }
  if (r.earlier > 0) parts.push(t('recon.earlier', { n: n(r.earlier) }));
  const forgot = r.engine_forgot_ms ?? 0;
  if (forgot > 0) parts.push(t('recon.engineForgot', { time: formatDateTime(forgot, locale) }));

  const tip: string[] = [
    t('recon.tipSpan', { first: n(r.first_id), last: n(r.latest_id), ids: n(r.ids), time: formatDateTime(r.at_ms, locale) }),
    r.engine_counted >= 0 ? t('recon.tipEngineCounted') : t('recon.tipNoCounters'),
    t('recon.tipStored'),
    t('recon.tipGaps'),
    t('recon.tipUnaccounted'),
  ];
  if (r.from_log > 0) tip.push(t('recon.tipFromLog'));
  if (r.without_id > 0) tip.push(t('recon.tipWithoutId'));
  if (why.length > 0) {
    tip.push(t('recon.tipTriggerFailures'));
    for (const g of why) {
      const args = { reason: reason(g), n: n(g.count), example: g.example };
      tip.push(
        g.first_ms > 0
          ? t('recon.tipTriggerFailure', { ...args, first: formatDateTime(g.first_ms, locale), last: formatDateTime(g.last_ms, locale) })
          : t('recon.tipTriggerFailureUntimed', args),
      );
    }
  }
  if (r.earlier > 0) tip.push(t('recon.tipEarlier', { first: n(r.first_id) }));
  if (forgot > 0) tip.push(t('recon.tipEngineForgot', { time: formatDateTime(forgot, locale) }));
  if (r.engine) {
    const e = r.engine;
    tip.push(
      t('recon.tipCounters', {
        triggered: n(e.triggered),
        completed: n(e.completed),
        failed: n(e.failed),
        in_progress: n(e.in_progress),
        restored: n(e.restored),
      }),
    );
  }
  if (r.polls > 0) tip.push(t('recon.tipPolls', { polls: n(r.polls), failed: n(r.failed_polls) }));
  return { text: parts.join(' · '), tooltip: tip.join('\n'), warn: r.missed > 0 || r.unaccounted > 0 };
}
