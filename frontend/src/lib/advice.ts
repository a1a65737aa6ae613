// Advice as the analysis sends it (Report.advice, CheckpointView.advice), said
// in the user's language. The backend chose, ordered and wrote every item;
// these helpers only pick the words, the rows and the link to show.
import type { Advice, AdviceSeverity, Report } from './api';
import { mode } from './api';
import { clausesText } from './reason';

type Translate = (key: string, opts?: Record<string, unknown>) => string;

const SEVERITY_RANK: Record<AdviceSeverity, number> = { critical: 0, warning: 1, info: 2 };

/**
 * bySeverity lists the items most severe first, keeping the backend's order
 * within a severity (it already sends them so: this only holds the panel to it).
 * A severity the UI does not know goes last.
 */
export function bySeverity<T extends Pick<Advice, 'severity'>>(items: readonly T[]): T[] {
  const rank = (s: string) => SEVERITY_RANK[s as AdviceSeverity] ?? 3;
  return items
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank(x.a.severity) - rank(y.a.severity) || x.i - y.i)
    .map((x) => x.a);
}

/** severityKey is the message naming a severity (an unknown one is said as info). */
export function severityKey(s: string): string {
  return `advice.severity.${s in SEVERITY_RANK ? s : 'info'}`;
}

/** adviceTitle says an item's title in the user's language; the English title when its template is unknown. */
export function adviceTitle(a: Pick<Advice, 'title' | 'title_part'>, t: Translate, has: (key: string) => boolean): string {
  return clausesText(a.title_part?.code ? [a.title_part] : [], a.title, t, has, false);
}

/** adviceText says an item's text as a reason is said (clauses, a full stop); the English text when a template is unknown. */
export function adviceText(a: Pick<Advice, 'text' | 'text_parts'>, t: Translate, has: (key: string) => boolean): string {
  return clausesText(a.text_parts ?? [], a.text, t, has, true);
}

/** A configuration key to change and what the engine reported for it (undefined: not reported). */
export interface ConfigRow {
  key: string;
  current: string | undefined;
}

/** configRows pairs each key with its current value; a key absent from current was not reported. */
export function configRows(a: Pick<Advice, 'config_keys' | 'current'>): ConfigRow[] {
  const current = a.current ?? {};
  return (a.config_keys ?? []).map((key) => ({
    key,
    current: Object.prototype.hasOwnProperty.call(current, key) ? current[key] : undefined,
  }));
}

/**
 * configUnknownLines says each part of the job's configuration read that did not answer
 * (Report.config.unknown) as "unknown: <endpoint> — <error>": the settings only that part
 * says show as not reported although the engine may set them.
 */
export function configUnknownLines(cfg: Report['config'] | null, t: Translate): string[] {
  return (cfg?.unknown ?? []).map((g) => t('advice.configUnknown', { endpoint: g.endpoint, error: g.error }));
}

/** currentText is what the key table shows for a value: "not reported" when the engine did not say, "" quoted. */
export function currentText(v: string | undefined, t: Translate): string {
  if (v === undefined) return t('advice.notReported');
  return v === '' ? '""' : v;
}

/** docsHref is the item's documentation link when it is an http(s) address, else undefined (no link). */
export function docsHref(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

interface OpenerWindow {
  __CE_MODE?: string;
  runtime?: { BrowserOpenURL?: (url: string) => void };
}

/**
 * openExternal opens an external link outside the app: in the desktop window
 * through the Wails runtime's BrowserOpenURL (the system browser; the window
 * itself never navigates away), and returns true when it did. In the browser
 * (serve) it returns false and the link's own target="_blank" opens a tab.
 */
export function openExternal(url: string, w: OpenerWindow | undefined = typeof window === 'undefined' ? undefined : (window as OpenerWindow)): boolean {
  if (!w || mode() === 'browser' || w.__CE_MODE === 'browser') return false;
  const open = w.runtime?.BrowserOpenURL;
  if (typeof open !== 'function') return false;
  open(url);
  return true;
}
