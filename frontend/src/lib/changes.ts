// A job's changes (configuration, restarts, rescales, resubmissions, the user's notes) as the
// timeline marks them: gathered by moment, placed on the time axis, named in the legend and in a
// marker's tooltip, and stepped through with [ and ]. The backend found them and measured their
// effect (docs/report-format.md, "changes[]"); this only places and words them.
import type { Change, ChangeEffect, ChangeKind } from './api';
import { timeScale, type Range } from './scale';

type Translate = (key: string, opts?: Record<string, unknown>) => string;

/**
 * The kinds in the order a moment names them, as the backend's finding does (analyze.changeAt):
 * a configuration change before a rescale, a resubmission, a restart, a note.
 */
export const MARKER_KINDS: readonly ChangeKind[] = ['config', 'rescale', 'resubmit', 'restart', 'note'];

/** Each kind's glyph on its marker and in the legend (text presentation, never an emoji). */
export const CHANGE_GLYPHS: Record<ChangeKind, string> = {
  config: '⚙\uFE0E',
  rescale: '⇅',
  resubmit: '▶\uFE0E',
  restart: '↻',
  note: '✎\uFE0E',
};

/**
 * A moment: the changes that took effect at the same instant (a resubmission with its new
 * configuration, say). One marker, one before/after: the effect is the moment's.
 */
export interface ChangeMoment {
  time_ms: number;
  /** by MARKER_KINDS, so the first is what the marker shows */
  changes: ChangeEffect[];
}

const kindRank = (k: ChangeKind) => MARKER_KINDS.indexOf(k);

/** changeMoments gathers changes by their time, oldest first. */
export function changeMoments(changes: readonly ChangeEffect[]): ChangeMoment[] {
  const byTime = new Map<number, ChangeEffect[]>();
  for (const c of changes) {
    const list = byTime.get(c.time_ms);
    if (list) list.push(c);
    else byTime.set(c.time_ms, [c]);
  }
  return [...byTime]
    .sort(([a], [b]) => a - b)
    .map(([time_ms, list]) => ({ time_ms, changes: list.sort((a, b) => kindRank(a.kind) - kindRank(b.kind)) }));
}

/** momentKind is the kind a moment's marker shows: its first change's. */
export function momentKind(m: ChangeMoment): ChangeKind {
  return m.changes[0].kind;
}

export interface MarkerPx {
  x: number;
  /** index into the moments */
  index: number;
}

/** layoutMarkers places the moments inside range on a width of pixels. */
export function layoutMarkers(moments: readonly ChangeMoment[], range: Range, width: number): MarkerPx[] {
  const s = timeScale(range, width);
  const out: MarkerPx[] = [];
  moments.forEach((m, index) => {
    if (m.time_ms >= range.from && m.time_ms <= range.to) out.push({ x: s.toPx(m.time_ms), index });
  });
  return out;
}

/** changeLegend is one entry per kind present, in MARKER_KINDS order, with how many changes of it. */
export function changeLegend(changes: readonly Change[]): { kind: ChangeKind; count: number }[] {
  return MARKER_KINDS.map((kind) => ({ kind, count: changes.filter((c) => c.kind === kind).length })).filter((e) => e.count > 0);
}

/** shown is a configuration value as said: "—" for a key not set (""), as the backend's finding says it. */
const shown = (v: string) => v || '—';

/**
 * changeLines says what a change changed, a line each: every key old → new, the vertex's
 * parallelism from → to, the restart's aborted checkpoint and restore count, the run a
 * resubmission followed and its savepoint, the note's text.
 */
export function changeLines(c: Change, t: Translate): string[] {
  const d = c.detail;
  switch (c.kind) {
    case 'config':
      return (d.keys ?? []).map((k) => t('changes.keyLine', { key: k.key, old: shown(k.old), new: shown(k.new) }));
    case 'rescale':
      return [t('changes.rescaleLine', { vertex: d.vertex_name || d.vertex_id || '—', from: d.from ?? '—', to: d.to ?? '—' })];
    case 'restart':
      return [
        // The reason is a failure's clause code (reason.f_job_region, …), said as the failure's basis is.
        ...(d.checkpoint_id ? [t('changes.restartAborted', { id: d.checkpoint_id, reason: d.reason ? t(`reason.${d.reason}`, { defaultValue: d.reason }) : '—' })] : []),
        ...(d.restored ? [t('changes.restartRestored', { count: d.restored, n: d.restored })] : []),
      ];
    case 'resubmit':
      return [
        ...(d.previous_job_id ? [t('changes.resubmitAfter', { job: d.previous_job_id })] : []),
        ...(d.savepoint ? [t('changes.resubmitSavepoint', { path: d.savepoint })] : []),
      ];
    case 'note':
      return [t('changes.noteLine', { text: d.text ?? '' })];
  }
  return [];
}

/** changeSummary is a change in one line: its kind and what it changed, for lists and aria labels. */
export function changeSummary(c: Change, t: Translate): string {
  const lines = changeLines(c, t);
  const kind = t(`changes.kind.${c.kind}`);
  return lines.length > 0 ? t('changes.summary', { kind, what: lines.join(t('reasonJoin.sep')) }) : kind;
}

/**
 * stepMoment is the moment [ (delta −1) or ] (+1) goes to among times (oldest first): from the
 * current one its neighbour, staying at either end; from none, the first at or after the view's
 * start going forward (else the last), the last at or before its end going back (else the first).
 * null without moments.
 */
export function stepMoment(times: readonly number[], current: number | null, delta: 1 | -1, range: Range): number | null {
  if (times.length === 0) return null;
  if (current !== null) return Math.min(times.length - 1, Math.max(0, current + delta));
  if (delta > 0) {
    const i = times.findIndex((t) => t >= range.from);
    return i >= 0 ? i : times.length - 1;
  }
  let i = times.length - 1;
  while (i >= 0 && times[i] > range.to) i--;
  return Math.max(0, i);
}

/** revealRange is range moved so that t is in its middle, or range itself when t is in view. */
export function revealRange(range: Range, t: number): Range {
  if (t >= range.from && t <= range.to) return range;
  const half = (range.to - range.from) / 2;
  return { from: t - half, to: t + half };
}

/** toLocalInput writes an instant for an <input type="datetime-local" step="1"> in local time. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** fromLocalInput reads what a datetime-local input holds (local time) as epoch ms; NaN when it holds no time. */
export function fromLocalInput(value: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return NaN;
  return new Date(value).getTime();
}
