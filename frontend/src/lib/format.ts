// Locale-aware formatting of numbers, sizes, durations and times. Every
// function takes the locale explicitly so tests pin it and the UI passes the
// current one; nothing here reads global state except the time zone.

/**
 * cachedFormat returns the formatter cache holds for locale and opts, made once: building an Intl
 * formatter costs far more than formatting with it.
 */
function cachedFormat<O, F>(cache: Map<string, F>, make: new (locale: string, opts: O) => F, locale: string, opts: O): F {
  const key = locale + JSON.stringify(opts);
  let f = cache.get(key);
  if (!f) {
    f = new make(locale, opts);
    cache.set(key, f);
  }
  return f;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

function nf(locale: string, opts: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return cachedFormat(numberFormats, Intl.NumberFormat, locale, opts);
}

/** formatNumber groups digits for the locale: 19022 → "19,022". */
export function formatNumber(n: number, locale: string, maxFractionDigits = 0): string {
  if (!Number.isFinite(n)) return '—';
  return nf(locale, { maximumFractionDigits: maxFractionDigits }).format(n);
}

/**
 * formatCompact shows a value of unknown unit (a custom lane's) short:
 * 12_345 → "12.3K" ("1.23万" in Chinese), 0.5 → "0.5", three significant digits.
 */
export function formatCompact(n: number, locale: string): string {
  if (!Number.isFinite(n)) return '—';
  return nf(locale, { notation: 'compact', maximumSignificantDigits: 3 }).format(n);
}

/** formatPercent shows a 0..1 ratio as a percentage. */
export function formatPercent(ratio: number, locale: string, maxFractionDigits = 1): string {
  if (!Number.isFinite(ratio)) return '—';
  return nf(locale, { style: 'percent', maximumFractionDigits: maxFractionDigits }).format(ratio);
}

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/**
 * formatBytes renders a byte count with binary units and three significant
 * digits at most ("4.27 KiB", "12 MiB"); exact bytes below 1 KiB.
 */
export function formatBytes(bytes: number, locale: string): string {
  if (!Number.isFinite(bytes)) return '—';
  const sign = bytes < 0 ? '-' : '';
  let v = Math.abs(bytes);
  let u = 0;
  while (v >= 1024 && u < byteUnits.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${sign}${formatNumber(v, locale)} B`;
  // Round first so 1023.99 KiB does not print as "1,024 KiB".
  let digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  let rounded = Number(v.toFixed(digits));
  if (rounded >= 1024 && u < byteUnits.length - 1) {
    rounded = 1;
    u++;
    digits = 2;
  }
  return `${sign}${nf(locale, { maximumFractionDigits: digits }).format(rounded)} ${byteUnits[u]}`;
}

/** formatMs renders an exact duration in milliseconds: 19022 → "19,022 ms". */
export function formatMs(ms: number, locale: string): string {
  if (!Number.isFinite(ms)) return '—';
  return nf(locale, { style: 'unit', unit: 'millisecond', unitDisplay: 'short', maximumFractionDigits: 0 }).format(ms);
}

type SpanUnit = 'day' | 'hour' | 'minute' | 'second' | 'millisecond';
const spanUnits: Array<[SpanUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
  ['millisecond', 1],
];

/**
 * formatSpan renders a duration compactly with its two largest units:
 * 91_000 → "1 min, 31 sec"; 1500 → "1.5 sec"; 42 → "42 ms".
 */
export function formatSpan(ms: number, locale: string): string {
  if (!Number.isFinite(ms)) return '—';
  const neg = ms < 0;
  let rest = Math.round(Math.abs(ms));
  const unit = (u: SpanUnit, v: number, frac = 0) =>
    nf(locale, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: frac }).format(v);
  let out: string;
  if (rest < 1000) {
    out = unit('millisecond', rest);
  } else if (rest < 60_000) {
    out = unit('second', rest / 1000, rest < 10_000 ? 2 : 1);
  } else {
    const i = spanUnits.findIndex(([, size]) => rest >= size);
    const [u1, s1] = spanUnits[i];
    const q1 = Math.floor(rest / s1);
    rest -= q1 * s1;
    const parts = [unit(u1, q1)];
    const [u2, s2] = spanUnits[i + 1];
    const q2 = Math.floor(rest / s2);
    if (u2 !== 'millisecond' && q2 > 0) parts.push(unit(u2, q2));
    out = parts.join(locale.startsWith('zh') ? ' ' : ', ');
  }
  return neg ? `-${out}` : out;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** df returns a cached DateTimeFormat: building one costs far more than formatting with it. */
export function df(locale: string, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cachedFormat(dateFormats, Intl.DateTimeFormat, locale, opts);
}

/** A date and a 24-hour time with milliseconds, as formatDateTime shows an instant. */
export const DATE_TIME_MS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hourCycle: 'h23',
};

/** formatDateTime renders an epoch-ms instant in local time with milliseconds. */
export function formatDateTime(ms: number, locale: string): string {
  if (!ms || !Number.isFinite(ms)) return '—';
  return df(locale, DATE_TIME_MS).format(ms);
}

/** formatTime renders only the local time of day, with or without milliseconds. */
export function formatTime(ms: number, locale: string, withMs = false): string {
  if (!Number.isFinite(ms)) return '—';
  return df(locale, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    ...(withMs ? { fractionalSecondDigits: 3 as const } : {}),
    hourCycle: 'h23',
  }).format(ms);
}

/** formatDate renders the local calendar date. */
export function formatDate(ms: number, locale: string): string {
  if (!Number.isFinite(ms)) return '—';
  return df(locale, { year: 'numeric', month: 'short', day: 'numeric' }).format(ms);
}

/** formatInstant renders an instant as its local date and time of day ("5 Dec 2026 09:30:00"). */
export function formatInstant(ms: number, locale: string, withMs = false): string {
  return `${formatDate(ms, locale)} ${formatTime(ms, locale, withMs)}`;
}

/** sameLocalDay reports whether two instants fall on the same local calendar day. */
export function sameLocalDay(a: number, b: number): boolean {
  const da = new Date(a);
  const db = new Date(b);
  return da.getFullYear() === db.getFullYear() && da.getMonth() === db.getMonth() && da.getDate() === db.getDate();
}

/**
 * formatRange labels a visible time range: the full start, the end without
 * repeating the date when it is the same day, and the span.
 */
export function formatRange(fromMs: number, toMs: number, locale: string): string {
  const withMs = toMs - fromMs < 10_000;
  const start = formatInstant(fromMs, locale, withMs);
  const end = sameLocalDay(fromMs, toMs) ? formatTime(toMs, locale, withMs) : formatInstant(toMs, locale, withMs);
  return `${start} – ${end} (${formatSpan(toMs - fromMs, locale)})`;
}

/** truncate shortens text to max characters with an ellipsis; the caller keeps the full text for a title. */
export function truncate(text: string, max: number): string {
  if (!text) return '';
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return chars.slice(0, Math.max(1, max - 1)).join('') + '…';
}

/** Size of a checkpoint as the engine reported it: bytes, or a SeaTunnel blob count. */
export type SizeValue = { kind: 'bytes'; bytes: number } | { kind: 'blobs'; count: number };

/**
 * checkpointSize picks what to show as a checkpoint's size. SeaTunnel's
 * state_blobs is a COUNT of state blobs, never bytes, so when it is present it
 * wins and no byte figure is shown.
 */
export function checkpointSize(row: { checkpointed_size: number; state_blobs?: number | null }): SizeValue {
  if (row.state_blobs !== undefined && row.state_blobs !== null) {
    return { kind: 'blobs', count: row.state_blobs };
  }
  return { kind: 'bytes', bytes: row.checkpointed_size };
}
