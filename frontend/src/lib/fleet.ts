// The fleet view's table as pure functions: its columns and their sort, its filters, the
// selection moved by the keyboard, and the words of the "since" and p90 columns. The rows and
// their order are the backend's (docs/fleet.md): nothing here judges a job.
import { ATTENTIONS, type Attention, type FleetJob, type FleetRun, type SparkPoint } from './api';
import { formatDateTime, formatInstant, formatSpan, truncate } from './format';

type Translate = (key: string, opts?: Record<string, unknown>) => string;

/** The windows the fleet judges over, shortest first; the default is an hour. */
export const FLEET_WINDOWS = [
  { ms: 15 * 60_000, key: 'fleet.windows.15m' },
  { ms: 60 * 60_000, key: 'fleet.windows.1h' },
  { ms: 6 * 60 * 60_000, key: 'fleet.windows.6h' },
  { ms: 24 * 60 * 60_000, key: 'fleet.windows.24h' },
] as const;
export const DEFAULT_FLEET_WINDOW_MS = 60 * 60_000;

/** fleetWindow keeps ms when it is one of FLEET_WINDOWS, else the default (a remembered value gone stale). */
export function fleetWindow(ms: unknown): number {
  return FLEET_WINDOWS.some((w) => w.ms === ms) ? (ms as number) : DEFAULT_FLEET_WINDOW_MS;
}

/** rowKey names a row across refreshes: its cluster and job id. */
export function rowKey(r: Pick<FleetJob, 'cluster' | 'job_id'>): string {
  return `${r.cluster}\u0000${r.job_id}`;
}

/** The sortable columns, in the table's order. */
export const FLEET_COLUMNS = [
  'attention',
  'cluster',
  'engine',
  'name',
  'state',
  'completed',
  'failed',
  'expired',
  'missed',
  'p50',
  'p90',
  'since',
  'failure',
  'verdict',
  'recent',
] as const;
export type FleetColumn = (typeof FLEET_COLUMNS)[number];

/** A column's value to sort by: null (unknown, none) sorts last either way. */
function columnValue(r: FleetJob, c: FleetColumn): string | number | null {
  switch (c) {
    case 'attention':
      return ATTENTIONS.indexOf(r.attention);
    case 'cluster':
      return r.cluster;
    case 'engine':
      return r.engine;
    case 'name':
      return r.name || r.job_id;
    case 'state':
      return r.state || null;
    case 'completed':
    case 'failed':
    case 'expired':
    case 'missed':
      return r[c];
    case 'p50':
      return r.p50_ms;
    case 'p90':
      return r.p90_ms;
    case 'since':
      return r.since_ms;
    case 'failure':
      return r.latest_failure || null;
    case 'verdict':
      return r.verdict;
    case 'recent':
      return r.sparkline.length ? r.sparkline[r.sparkline.length - 1].ms : null;
  }
}

/** How the table is sorted: by a column, ascending or not; null is the backend's order. */
export type FleetSort = { column: FleetColumn; desc: boolean } | null;

/** nextSort is the sort after a click on column's header: ascending, then descending, then the backend's order. */
export function nextSort(cur: FleetSort, column: FleetColumn): FleetSort {
  if (!cur || cur.column !== column) return { column, desc: false };
  return cur.desc ? null : { column, desc: true };
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * sortFleet returns the rows sorted by the column (a new array). Unknown values (no p90, no
 * failure, no trouble) come last in both directions; rows that tie keep the backend's order.
 */
export function sortFleet(rows: readonly FleetJob[], sort: FleetSort): FleetJob[] {
  if (!sort) return [...rows];
  const dir = sort.desc ? -1 : 1;
  return rows
    .map((r, i) => ({ r, i, v: columnValue(r, sort.column) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : collator.compare(String(a.v), String(b.v));
      return c !== 0 ? c * dir : a.i - b.i;
    })
    .map((x) => x.r);
}

/** The attention filter's choices: any, the three that need looking at, or one attention. */
export const NEEDS_ATTENTION = 'needs';
export type AttentionFilter = '' | typeof NEEDS_ATTENTION | Attention;
const NEEDS: readonly Attention[] = ['failing', 'slow', 'slower_than_usual'];

/** What the rows are filtered by; '' is any. */
export interface FleetFilter {
  /** part of the job's name or id, or of its cluster's name, in any case */
  text: string;
  cluster: string;
  engine: string;
  attention: AttentionFilter;
}

export const NO_FILTER: FleetFilter = { text: '', cluster: '', engine: '', attention: '' };

/** filterFleet keeps the rows the filter lets through, in their order. */
export function filterFleet(rows: readonly FleetJob[], f: FleetFilter): FleetJob[] {
  const q = f.text.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (!q || r.name.toLowerCase().includes(q) || r.job_id.toLowerCase().includes(q) || r.cluster.toLowerCase().includes(q)) &&
      (!f.cluster || r.cluster === f.cluster) &&
      (!f.engine || r.engine === f.engine) &&
      (!f.attention || (f.attention === NEEDS_ATTENTION ? NEEDS.includes(r.attention) : r.attention === f.attention)),
  );
}

/** attentionCounts counts the rows per attention, for the summary above the table. */
export function attentionCounts(rows: readonly FleetJob[]): Record<Attention, number> {
  const out = Object.fromEntries(ATTENTIONS.map((a) => [a, 0])) as Record<Attention, number>;
  for (const r of rows) out[r.attention]++;
  return out;
}

/**
 * moveSelection is the key selected after moving by delta rows from cur: the first row (down)
 * or the last (up) when cur is not shown; it stops at either end. '' when there are no rows.
 */
export function moveSelection(keys: readonly string[], cur: string, delta: number): string {
  if (keys.length === 0) return '';
  const i = keys.indexOf(cur);
  if (i < 0) return delta > 0 ? keys[0] : keys[keys.length - 1];
  return keys[Math.max(0, Math.min(keys.length - 1, i + delta))];
}

/** shortId shows a job id in a narrow column: its first 8 characters (the whole id goes in a tooltip). */
export function shortId(id: string): string {
  return truncate(id, 9);
}

/** A duration of the table: "—" when unknown. */
export function durationText(ms: number | null, locale: string): string {
  return ms === null ? '—' : formatSpan(ms, locale);
}

/**
 * p90Text is the p90 column's words: the window's p90 and, beside it, the job's usual p90 when
 * its baseline has one ("1.9 secs" and "usually 400 ms").
 */
export function p90Text(r: Pick<FleetJob, 'p90_ms' | 'baseline_p90_ms'>, locale: string, t: Translate): { value: string; usual: string } {
  return {
    value: durationText(r.p90_ms, locale),
    usual: r.baseline_p90_ms === null ? '' : t('fleet.usually', { ms: formatSpan(r.baseline_p90_ms, locale) }),
  };
}

/**
 * sinceText is the "since" column's words: how long ago the trouble began, to the minute from a
 * minute on ("12 mins ago", "1 hr, 5 mins ago", "40 secs ago"), and when, as a local date and
 * time; both empty when there is no trouble.
 */
export function sinceText(sinceMs: number | null, nowMs: number, locale: string, t: Translate): { ago: string; at: string } {
  if (sinceMs === null) return { ago: '', at: '' };
  const ago = Math.max(0, nowMs - sinceMs);
  const unit = ago >= 60_000 ? 60_000 : 1000;
  return {
    ago: t('fleet.ago', { span: formatSpan(Math.floor(ago / unit) * unit, locale) }),
    at: formatInstant(sinceMs, locale),
  };
}

/** runLine is one run of a logical job in words: its id, start and end (or now), and state. */
export function runLine(run: FleetRun, locale: string, t: Translate): string {
  const end = run.end_ms ? formatDateTime(run.end_ms, locale) : t('fleet.runNow');
  return t('fleet.runLine', { id: run.job_id, start: formatDateTime(run.start_ms, locale), end, state: run.state });
}

/** A sparkline's shape in a w × h box: the polyline's points and a dot per checkpoint (failed ones marked). */
export interface SparkShape {
  line: string;
  dots: { x: number; y: number; failed: boolean }[];
  maxMs: number;
}

/**
 * sparkShape lays the points out as the backend gives them: x by trigger time, y by end-to-end
 * time from 0 (bottom) to the largest (top), pad pixels inside the box; one point sits in the middle.
 */
export function sparkShape(points: readonly SparkPoint[], w: number, h: number, pad = 2): SparkShape {
  if (points.length === 0) return { line: '', dots: [], maxMs: 0 };
  const t0 = points[0].trigger_ms;
  const span = points[points.length - 1].trigger_ms - t0;
  const maxMs = Math.max(...points.map((p) => p.ms));
  const round = (v: number) => Math.round(v * 10) / 10;
  const dots = points.map((p) => ({
    x: round(span > 0 ? pad + ((p.trigger_ms - t0) / span) * (w - 2 * pad) : w / 2),
    y: round(maxMs > 0 ? h - pad - (p.ms / maxMs) * (h - 2 * pad) : h - pad),
    failed: !!p.failed,
  }));
  return { line: dots.map((d) => `${d.x},${d.y}`).join(' '), dots, maxMs };
}

/**
 * rowWindow is the part of a long table to render, [start, end): the rows in view and overscan
 * more each side. viewTop is how far the view's top is below the first row's top (negative while
 * the table starts lower down), viewHeight the view's height; every row is rowHeight high.
 */
export function rowWindow(count: number, rowHeight: number, viewTop: number, viewHeight: number, overscan = 10): [number, number] {
  const clamp = (i: number) => Math.max(0, Math.min(count, i));
  const first = Math.floor(Math.max(0, viewTop) / rowHeight);
  const last = Math.ceil(Math.max(0, viewTop + viewHeight) / rowHeight);
  return [clamp(first - overscan), clamp(last + overscan)];
}

/**
 * revealScroll is the scroll position that shows a row (rowTop from the scrolled content's top,
 * rowHeight high) under a sticky header headerHeight high, moving as little as it can: the
 * position as it is when the row is in view.
 */
export function revealScroll(scrollTop: number, viewHeight: number, rowTop: number, rowHeight: number, headerHeight: number): number {
  if (rowTop - headerHeight < scrollTop) return Math.max(0, rowTop - headerHeight);
  if (rowTop + rowHeight > scrollTop + viewHeight) return rowTop + rowHeight - viewHeight;
  return scrollTop;
}

/**
 * oneAtATime wraps a load so that loads never overlap: a call while one runs starts none, and
 * the load runs once more after it ends (however many calls came meanwhile). Over a large fleet
 * an answer takes longer than the live updates' second: overlapping loads would each cost the
 * backend a whole fleet, and each answer would be dropped for a newer call's.
 */
export function oneAtATime(load: () => Promise<unknown>): () => void {
  let running = false;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void load()
      .catch(() => {})
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}
