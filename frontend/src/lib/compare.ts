// Formatting of the compare view's deltas. The backend computed a, b and
// b − a (backend/analyze/compare.go); here they become text and a tone.
import type { Delta } from './api';
import { formatBytes, formatMs } from './format';

/** worse: b took longer or is bigger than a; better: the reverse. */
export type DeltaTone = 'worse' | 'better' | 'same' | 'na';

export interface DeltaText {
  /** a's value, or '' when a does not show it */
  a: string;
  b: string;
  /** signed b − a, or '' when either side is absent */
  delta: string;
  /** signed change relative to a, or '' when a is absent or 0 */
  pct: string;
  tone: DeltaTone;
}

const pctFormats = new Map<string, Intl.NumberFormat>();

function pctFormat(locale: string): Intl.NumberFormat {
  let f = pctFormats.get(locale);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0, signDisplay: 'exceptZero' });
    pctFormats.set(locale, f);
  }
  return f;
}

function has(v: number | undefined | null): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** formatDelta renders one compared value in milliseconds or bytes. */
export function formatDelta(d: Delta, unit: 'ms' | 'bytes', locale: string): DeltaText {
  const fmt = (v: number) => (unit === 'ms' ? formatMs(v, locale) : formatBytes(v, locale));
  const a = has(d.a) ? fmt(d.a) : '';
  const b = has(d.b) ? fmt(d.b) : '';
  if (!has(d.delta)) return { a, b, delta: '', pct: '', tone: 'na' };
  const x = d.delta;
  const sign = x > 0 ? '+' : x < 0 ? '−' : '±';
  const delta = `${sign}${fmt(Math.abs(x))}`;
  const pct = has(d.a) && d.a !== 0 ? pctFormat(locale).format(x / d.a) : '';
  return { a, b, delta, pct, tone: x > 0 ? 'worse' : x < 0 ? 'better' : 'same' };
}

/**
 * deltaBar gives the share (0..1) of the widest |delta| in a table, so each
 * row can draw a proportional bar; 0 for an absent delta.
 */
export function deltaBars(deltas: readonly Delta[]): number[] {
  let max = 0;
  for (const d of deltas) if (has(d.delta)) max = Math.max(max, Math.abs(d.delta));
  return deltas.map((d) => (has(d.delta) && max > 0 ? Math.abs(d.delta) / max : 0));
}
