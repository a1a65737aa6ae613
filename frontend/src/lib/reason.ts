// A verdict's reason in the user's language: the clauses the analysis sends
// (reason_parts) said with the "reason" templates of the current locale. The
// English templates equal the ones reports print (a Go test checks), so the
// English UI and the CLI say the same words.
import type { Correlation } from './api';

type Translate = (key: string, opts?: Record<string, unknown>) => string;

/** reasonText says c's reason with t; the English text when there are no parts or a clause is unknown. */
export function reasonText(c: Pick<Correlation, 'reason' | 'reason_parts'>, t: Translate, has: (key: string) => boolean): string {
  const parts = c.reason_parts ?? [];
  if (parts.length === 0 || parts.some((p) => !has(`reason.${p.code}`))) return c.reason;
  return parts.map((p) => t(`reason.${p.code}`, p.args ?? {})).join(t('reasonJoin.sep')) + t('reasonJoin.end');
}
