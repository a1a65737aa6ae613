// The retention form: limits as the user types them (count, days, MiB) and
// back to the facade's units (count, ms, bytes), with the same checks the
// backend makes (app/config.go) so mistakes are named before sending.
import type { RetentionLimits } from './api';

export interface RetentionForm {
  /** checkpoints kept per job; '' or 0 = no limit */
  perJob: string;
  /** days; '' or 0 = no limit; decimals allowed */
  days: string;
  /** MiB; '' or 0 = no limit */
  mib: string;
}

export interface RetentionProblem {
  field: keyof RetentionForm;
  key: string;
}

const DAY_MS = 86_400_000;
const MIB = 1 << 20;

function trimNum(n: number): string {
  return String(Number(n.toFixed(3)));
}

export function formFromLimits(l: RetentionLimits): RetentionForm {
  return {
    perJob: l.max_checkpoints_per_job > 0 ? String(l.max_checkpoints_per_job) : '',
    days: l.max_age_ms > 0 ? trimNum(l.max_age_ms / DAY_MS) : '',
    mib: l.max_bytes > 0 ? trimNum(l.max_bytes / MIB) : '',
  };
}

function parse(v: string): number | null {
  const s = v.trim();
  if (s === '') return 0;
  // Accept a decimal comma as typed in many locales.
  const n = Number(s.replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

/** checkRetention lists what is wrong with the form; empty means limitsFromForm may be sent. */
export function checkRetention(f: RetentionForm): RetentionProblem[] {
  const out: RetentionProblem[] = [];
  const perJob = parse(f.perJob);
  if (perJob === null || perJob < 0 || !Number.isInteger(perJob)) out.push({ field: 'perJob', key: 'retention.err.perJob' });
  const days = parse(f.days);
  if (days === null || days < 0) out.push({ field: 'days', key: 'retention.err.days' });
  const mib = parse(f.mib);
  if (mib === null || mib < 0) out.push({ field: 'mib', key: 'retention.err.mib' });
  else if (mib > 0 && mib < 1) out.push({ field: 'mib', key: 'retention.err.mibSmall' });
  return out;
}

/** limitsFromForm converts a checked form to the facade's units. */
export function limitsFromForm(f: RetentionForm): RetentionLimits {
  return {
    max_checkpoints_per_job: Math.round(parse(f.perJob) ?? 0),
    max_age_ms: Math.round((parse(f.days) ?? 0) * DAY_MS),
    max_bytes: Math.round((parse(f.mib) ?? 0) * MIB),
  };
}
