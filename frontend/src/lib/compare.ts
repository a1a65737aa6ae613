// Formatting of the compare view's deltas. The backend computed a, b and
// b − a (backend/analyze/compare.go), and a before/after's shifts
// (backend/analyze/beforeafter.go); here they become text and a tone.
import { ALL_PHASES, type Delta, type Effect, type EffectSide, type Phase, type Shift } from './api';
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

// ---- Before/after: the checkpoints before a moment against those from it on ----

/**
 * The windows a before/after can be bounded by, each side. 0, by the neighbouring changes alone, is the
 * default: the effect the job's changes come with (App.Changes) is measured so.
 */
export const BEFORE_AFTER_WINDOWS: readonly { ms: number; key: string }[] = [
  { ms: 15 * 60_000, key: 'beforeAfter.window.m15' },
  { ms: 60 * 60_000, key: 'beforeAfter.window.h1' },
  { ms: 6 * 60 * 60_000, key: 'beforeAfter.window.h6' },
  { ms: 0, key: 'beforeAfter.window.changes' },
];
export const DEFAULT_BEFORE_AFTER_WINDOW_MS = 0;

export interface ShiftText {
  /** the percentile before and after, or '' with too few checkpoints */
  before: string;
  after: string;
  /** after / before − 1 as a signed percentage, or '' */
  change: string;
  /** the 95 % interval of the change, "low … high", or '' */
  interval: string;
  /** better: the interval lies below zero; worse: above; same: it spans zero */
  tone: DeltaTone;
}

/** formatShift says an end-to-end percentile's shift, its interval and whether it is measurable. */
export function formatShift(s: Shift, locale: string): ShiftText {
  const ms = (v: number | null) => (has(v) ? formatMs(v, locale) : '');
  const pct = (v: number | null) => (has(v) ? pctFormat(locale).format(v) : '');
  const interval = has(s.low) && has(s.high) ? `${pct(s.low)} … ${pct(s.high)}` : '';
  const tone: DeltaTone = !has(s.low) || !has(s.high) ? 'na' : s.high < 0 ? 'better' : s.low > 0 ? 'worse' : 'same';
  return { before: ms(s.before), after: ms(s.after), change: pct(s.change), interval, tone };
}

/**
 * tooFew says which sides have too few completed checkpoints for a percentile: the finding says
 * so (effect_few) with how many a side needs.
 */
export function tooFew(e: Pick<Effect, 'before' | 'after' | 'finding_parts'>): { before: boolean; after: boolean; need: number } {
  const few = e.finding_parts.find((p) => p.code === 'effect_few');
  const need = Number(few?.args?.need);
  if (!few || !Number.isFinite(need)) return { before: false, after: false, need: 0 };
  return { before: e.before.completed < need, after: e.after.completed < need, need };
}

/** sharePairs pairs each phase's share of the critical path before and after (0 where a side has none), in phase order. */
export function sharePairs(before: EffectSide, after: EffectSide): { phase: Phase; before: number; after: number }[] {
  const share = (side: EffectSide, p: Phase) => side.phase_shares.find((x) => x.phase === p)?.share ?? 0;
  return ALL_PHASES.map((phase) => ({ phase, before: share(before, phase), after: share(after, phase) })).filter(
    (x) => x.before > 0 || x.after > 0,
  );
}
