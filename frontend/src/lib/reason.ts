// A verdict's reason in the user's language: the clauses the analysis sends
// (reason_parts) said with the "reason" templates of the current locale. The
// English templates equal the ones reports print (a Go test checks), so the
// English UI and the CLI say the same words.
import type { CheckpointFailure, Correlation, Effect, ReasonPart } from './api';

type Translate = (key: string, opts?: Record<string, unknown>) => string;

/** reasonText says c's reason with t; the English text when there are no parts or a clause is unknown. */
export function reasonText(c: Pick<Correlation, 'reason' | 'reason_parts'>, t: Translate, has: (key: string) => boolean): string {
  return clausesText(c.reason_parts, c.reason, t, has, true);
}

/** findingText says a before/after's finding (one sentence) as reasonText does. */
export function findingText(e: Pick<Effect, 'finding' | 'finding_parts'>, t: Translate, has: (key: string) => boolean): string {
  return clausesText(e.finding_parts, e.finding, t, has, true);
}

/** basisText says how a failure's phase was found, as reasonText does (no full stop: it is a clause). */
export function basisText(f: Pick<CheckpointFailure, 'basis' | 'basis_parts'>, t: Translate, has: (key: string) => boolean): string {
  return clausesText(f.basis_parts, f.basis, t, has, false);
}

/** clausesText says parts with the reason templates, joined as a reason is (and ended when end); english when there are none or one is unknown. */
export function clausesText(parts: ReasonPart[] | undefined, english: string, t: Translate, has: (key: string) => boolean, end: boolean): string {
  if (!parts || parts.length === 0 || parts.some((p) => !has(`reason.${p.code}`))) return english;
  return parts.map((p) => t(`reason.${p.code}`, p.args ?? {})).join(t('reasonJoin.sep')) + (end ? t('reasonJoin.end') : '');
}

/** notesText says the notes in the user's language where every one has its clause; else the English. */
export function notesText(v: { notes: string[]; note_parts?: ReasonPart[] }, t: Translate, has: (key: string) => boolean): string[] {
  const parts = v.note_parts ?? [];
  if (parts.length !== v.notes.length) return v.notes;
  return v.notes.map((english, i) => clausesText([parts[i]], english, t, has, false));
}
