// The sink commit that followed a checkpoint (CheckpointAnalysis.commit), as
// the views say it. The backend found the commit and its counts; this only
// picks the facts that are present and words them.
import type { SinkCommit } from './api';
import type { Translate } from './causes';
import { formatDateTime, formatMs, formatNumber, formatSpan } from './format';

export interface CommitFact {
  /** which fact (the testid suffix in the views) */
  kind: 'duration' | 'files' | 'records' | 'committables' | 'seenAt';
  label: string;
  value: string;
}

/** commitDuration is the exact duration, with the compact one after it from a second on: "1,900 ms (1.9 sec)". */
export function commitDuration(ms: number, locale: string): string {
  const exact = formatMs(ms, locale);
  return ms >= 1000 ? `${exact} (${formatSpan(ms, locale)})` : exact;
}

/** commitFacts lists the commit's facts that are present, in a fixed order. */
export function commitFacts(c: SinkCommit, t: Translate, locale: string): CommitFact[] {
  const out: CommitFact[] = [];
  if (c.duration_ms !== undefined && c.duration_ms !== null) {
    out.push({ kind: 'duration', label: t('commit.duration'), value: commitDuration(c.duration_ms, locale) });
  }
  for (const key of ['files', 'records', 'committables'] as const) {
    const v = c[key];
    if (v !== undefined && v !== null) out.push({ kind: key, label: t(`commit.${key}`), value: formatNumber(v, locale) });
  }
  if (c.at_ms > 0) out.push({ kind: 'seenAt', label: t('commit.seenAt'), value: formatDateTime(c.at_ms, locale) });
  return out;
}

/** commitShared says the counts belong to several checkpoints; undefined for one. */
export function commitShared(c: SinkCommit, t: Translate, locale: string): string | undefined {
  if (!(c.checkpoints > 1)) return undefined;
  return t('commit.shared', { count: c.checkpoints, n: formatNumber(c.checkpoints, locale) });
}

/** commitLine is the commit in one line, for the side panel and the copied summary: "1,900 ms · 12 files · …". */
export function commitLine(c: SinkCommit, t: Translate, locale: string): string {
  const facts = commitFacts(c, t, locale).filter((f) => f.kind !== 'seenAt');
  const parts = facts.map((f) => (f.kind === 'duration' ? f.value : `${f.label} ${f.value}`));
  if (parts.length === 0 || facts[0].kind !== 'duration') parts.unshift(t('commit.noDuration'));
  if (c.checkpoints > 1) parts.push(commitShared(c, t, locale)!);
  return parts.join(' · ');
}
