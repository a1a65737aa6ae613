// Time-axis ticks aligned to the LOCAL wall clock (a 30-minute step lands on
// :00 and :30 local even in +05:45), with labels formatted for the locale.
import { df, formatDate, formatTime, sameLocalDay } from './format';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type StepUnit = 'ms' | 'hour' | 'day' | 'month' | 'year';

/** A tick step: fixed milliseconds below an hour, calendar units above. */
export interface TickStep {
  unit: StepUnit;
  /** How many units per step (ms for unit "ms"). */
  n: number;
  /** Approximate length in ms, for choosing a step. */
  approxMs: number;
}

const steps: TickStep[] = [
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500].map((n) => ({ unit: 'ms' as const, n, approxMs: n })),
  ...[1, 2, 5, 10, 15, 30].map((n) => ({ unit: 'ms' as const, n: n * SECOND, approxMs: n * SECOND })),
  ...[1, 2, 5, 10, 15, 30].map((n) => ({ unit: 'ms' as const, n: n * MINUTE, approxMs: n * MINUTE })),
  ...[1, 2, 3, 6, 12].map((n) => ({ unit: 'hour' as const, n, approxMs: n * HOUR })),
  ...[1, 2, 7, 14].map((n) => ({ unit: 'day' as const, n, approxMs: n * DAY })),
  ...[1, 2, 3, 6].map((n) => ({ unit: 'month' as const, n, approxMs: n * 30 * DAY })),
  ...[1, 2, 5, 10, 20, 50, 100].map((n) => ({ unit: 'year' as const, n, approxMs: n * 365 * DAY })),
];

/** chooseStep picks the smallest step whose ticks are at least minSpacingPx apart. */
export function chooseStep(spanMs: number, widthPx: number, minSpacingPx = 90): TickStep {
  if (!(spanMs > 0) || !(widthPx > 0)) return steps[0];
  const minMs = (spanMs * minSpacingPx) / widthPx;
  return steps.find((s) => s.approxMs >= minMs) ?? steps[steps.length - 1];
}

/** offsetMs is the local UTC offset at t (positive east of Greenwich). */
function offsetMs(t: number): number {
  return -new Date(t).getTimezoneOffset() * MINUTE;
}

/** Local days since the epoch, so multi-day steps align the same way in every view. */
function localDayNumber(t: number): number {
  return Math.floor((t + offsetMs(t)) / DAY);
}

function localMidnight(t: number): number {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/**
 * How tickTimes walks a calendar unit: where the walk starts (from local midnight
 * before the range), the unit's number that a step must divide, the next unit,
 * and a bound on the units walked per tick asked for.
 */
interface CalendarWalk {
  start(d: Date): void;
  number(d: Date): number;
  next(d: Date): void;
  unitsPerStep: number;
}

const calendarWalks: Record<Exclude<StepUnit, 'ms'>, CalendarWalk> = {
  hour: { start: () => {}, number: (d) => d.getHours(), next: (d) => d.setHours(d.getHours() + 1), unitsPerStep: 48 },
  day: { start: () => {}, number: (d) => localDayNumber(d.getTime()), next: (d) => d.setDate(d.getDate() + 1), unitsPerStep: 15 },
  month: {
    start: (d) => d.setDate(1),
    number: (d) => d.getFullYear() * 12 + d.getMonth(),
    next: (d) => d.setMonth(d.getMonth() + 1),
    unitsPerStep: 12,
  },
  year: { start: (d) => d.setMonth(0, 1), number: (d) => d.getFullYear(), next: (d) => d.setFullYear(d.getFullYear() + 1), unitsPerStep: 100 },
};

/** tickTimes lists the instants of step within [from, to], aligned to local time. */
export function tickTimes(from: number, to: number, step: TickStep, maxTicks = 1000): number[] {
  const out: number[] = [];
  if (!(to >= from)) return out;
  const push = (t: number) => {
    if (t >= from && t <= to && out.length < maxTicks) out.push(t);
  };
  if (step.unit === 'ms') {
    // Align on the local wall clock: shift by the offset, round, shift back.
    // Every step here divides 30 minutes and DST shifts are multiples of 30
    // minutes, so stepping in real time stays aligned across a change.
    const off = offsetMs(from);
    for (let t = Math.ceil((from + off) / step.n) * step.n - off; t <= to && out.length < maxTicks; t += step.n) {
      push(t);
    }
    return out;
  }
  // Calendar units: walk the local calendar a unit at a time from the unit's start
  // before `from`, keeping the instants whose unit number divides by the step.
  const walk = calendarWalks[step.unit];
  const d = new Date(localMidnight(from));
  walk.start(d);
  for (let i = 0; out.length < maxTicks && i < maxTicks * walk.unitsPerStep; i++) {
    const t = d.getTime();
    if (t > to) break;
    if (walk.number(d) % step.n === 0) push(t);
    walk.next(d);
  }
  return out;
}

export interface Tick {
  ms: number;
  label: string;
  /** Set on the first tick and where the local day changes; the axis shows it under the label. */
  dateLabel?: string;
}

function tickLabel(ms: number, step: TickStep, locale: string): string {
  if (step.unit === 'year') return df(locale, { year: 'numeric' }).format(ms);
  if (step.unit === 'month') return df(locale, { year: 'numeric', month: 'short' }).format(ms);
  if (step.unit === 'day') return formatDate(ms, locale);
  if (step.unit === 'hour' || step.n >= MINUTE) {
    return df(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ms);
  }
  return formatTime(ms, locale, step.n < SECOND);
}

/** timeTicks generates labelled ticks for a visible range drawn widthPx wide. */
export function timeTicks(from: number, to: number, widthPx: number, locale: string, minSpacingPx = 90): Tick[] {
  const step = chooseStep(to - from, widthPx, minSpacingPx);
  const times = tickTimes(from, to, step);
  const showDates = step.unit === 'ms' || step.unit === 'hour';
  return times.map((ms, i) => {
    const tick: Tick = { ms, label: tickLabel(ms, step, locale) };
    if (showDates && (i === 0 || !sameLocalDay(times[i - 1], ms))) tick.dateLabel = formatDate(ms, locale);
    return tick;
  });
}
