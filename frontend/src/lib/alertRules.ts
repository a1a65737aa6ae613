// Alert rules as the Alerts dialog shows and edits them (docs/alerts.md): a rule in words, its
// durations typed as "10m" or "1h30m" and said in words, the form's fields back to a rule, and the
// backend's validation error ("rules[1]: count: …") mapped to the rule and the field it names.
// The backend judges the values (backend/alert/rule.go); here only what was typed is read.
import type { AlertKind, AlertRule } from './api';
import type { Translate } from './causes';
import { formatNumber } from './format';

/** Where the alert docs are read when none is installed (as the window's Help menu does). */
const ONLINE_DOCS = 'https://github.com/checkpoint-explorer/checkpoint-explorer/blob/main/';

/** alertsDocsUrl is the alerts documentation in the UI's language. */
export function alertsDocsUrl(lang: string): string {
  return ONLINE_DOCS + (lang === 'zh' ? 'docs-zh/alerts.md' : 'docs/alerts.md');
}

// ---- Durations ----

type DurationUnit = 'day' | 'hour' | 'minute' | 'second' | 'millisecond';

/** The units of a duration, largest first: the Intl unit, its size, its short spelling. */
const UNITS: ReadonlyArray<[DurationUnit, number, string]> = [
  ['day', 86_400_000, 'd'],
  ['hour', 3_600_000, 'h'],
  ['minute', 60_000, 'm'],
  ['second', 1000, 's'],
  ['millisecond', 1, 'ms'],
];

/** Every spelling a duration's unit may be typed in (English and Chinese), lower case. */
const SPELLINGS: Record<string, number> = (() => {
  const words: Record<DurationUnit, string[]> = {
    day: ['d', 'day', 'days', '天'],
    hour: ['h', 'hr', 'hrs', 'hour', 'hours', '时', '小时'],
    minute: ['m', 'min', 'mins', 'minute', 'minutes', '分', '分钟'],
    second: ['s', 'sec', 'secs', 'second', 'seconds', '秒', '秒钟'],
    millisecond: ['ms', 'millisecond', 'milliseconds', '毫秒'],
  };
  const out: Record<string, number> = {};
  for (const [unit, size] of UNITS) for (const w of words[unit]) out[w] = size;
  return out;
})();

/**
 * parseDuration reads a duration as typed: numbers each followed by a unit, e.g. "10m", "1h30m",
 * "1.5 h", "90 sec", "2d", "10分钟". A number without a unit, or anything else, is null.
 */
export function parseDuration(text: string): number | null {
  const s = text.trim().toLowerCase();
  if (!s) return null;
  const part = /\s*(\d+(?:[.,]\d+)?)\s*([a-z\u4e00-\u9fff]+)\s*,?/y;
  let total = 0;
  while (part.lastIndex < s.length) {
    const m = part.exec(s);
    const size = m ? SPELLINGS[m[2]] : undefined;
    if (!m || size === undefined) return null;
    total += Number(m[1].replace(',', '.')) * size;
  }
  return Math.round(total);
}

/** durationParts splits whole milliseconds into units, largest first, leaving out the zero ones. */
function durationParts(ms: number): Array<[DurationUnit, number, string]> {
  let rest = Math.max(0, Math.round(ms));
  const out: Array<[DurationUnit, number, string]> = [];
  for (const [unit, size, short] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) out.push([unit, n, short]);
  }
  return out;
}

/** durationText is a duration as the form's field shows it, the way parseDuration reads it: 5_400_000 → "1h30m". */
export function durationText(ms: number): string {
  const parts = durationParts(ms);
  return parts.length ? parts.map(([, n, short]) => `${n}${short}`).join('') : '0s';
}

/** durationWords says a duration in words in the locale: 5_400_000 → "1 hour, 30 minutes"; zh-CN "1小时30分钟". */
export function durationWords(ms: number, locale: string): string {
  const parts = durationParts(ms);
  const words = (parts.length ? parts : [['second', 0, 's'] as const]).map(([unit, n]) =>
    new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(n),
  );
  return new Intl.ListFormat(locale, { type: 'unit', style: 'long' }).format(words);
}

/** The durations offered to pick from, beside typing one. */
export const DURATION_CHOICES: readonly number[] = [60_000, 5 * 60_000, 10 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 6 * 3_600_000];

// ---- A rule in words ----

/** defaultName is the name the backend gives a rule without one (alert.Rule.DefaultName). */
export function defaultName(r: AlertRule): string {
  const job = (r.job_id ?? '') + (r.job_name ?? '');
  return `${r.kind}@${r.cluster}${job ? `/${job}` : ''}`;
}

/** withoutDefaultName is the rule as it is sent: a name that is only the default one left out. */
export function withoutDefaultName(r: AlertRule): AlertRule {
  if (r.name !== defaultName(r)) return r;
  const { name: _, ...rest } = r;
  return rest;
}

export interface RuleWords {
  /** what it watches: "Repeated failures" */
  kind: string;
  /** its parameters: "3 failures within 10 minutes" */
  params: string;
  /** what it watches it on: "orders-enrichment on prod-flink" */
  scope: string;
  /** its name, given or the default one */
  name: string;
  /** whether the name was given (not only the default) */
  named: boolean;
}

/**
 * describeRule says a rule in words. jobLabel names a job id (its job's name) when known; an
 * unknown id is shown shortened.
 */
export function describeRule(r: AlertRule, t: Translate, locale: string, jobLabel: (id: string) => string | undefined = () => undefined): RuleWords {
  const params =
    r.kind === 'failures_in_window'
      ? t('alerts.params.failures_in_window', { count: r.count ?? 0, n: formatNumber(r.count ?? 0, locale), window: durationWords(r.window_ms ?? 0, locale) })
      : t(`alerts.params.${r.kind}`, { factor: formatNumber(r.factor ?? 0, locale, 2), duration: durationWords(r.for_ms ?? 0, locale) });
  const scope = r.job_id
    ? t('alerts.scope.job', { cluster: r.cluster, job: jobLabel(r.job_id) || shortId(r.job_id) })
    : r.job_name
      ? t('alerts.scope.jobName', { cluster: r.cluster, name: r.job_name })
      : t('alerts.scope.cluster', { cluster: r.cluster });
  const named = !!r.name && r.name !== defaultName(r);
  return { kind: t(`alerts.kind.${r.kind}`), params, scope, name: r.name || defaultName(r), named };
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/**
 * coveringRule is the index of a checkpoint_failed rule that already watches the job (the cluster
 * as a whole, the job's id or its name), or -1: "Alert on failure" in a job header adds none then.
 */
export function coveringRule(rules: readonly AlertRule[], cluster: string, jobId: string, jobName: string): number {
  return rules.findIndex(
    (r) =>
      r.kind === 'checkpoint_failed' &&
      r.cluster === cluster &&
      (r.job_id ? r.job_id === jobId : r.job_name ? r.job_name === jobName : true),
  );
}

// ---- The form ----

/** Which jobs of the cluster the rule watches: all, one by id (picked), or those of a name (typed). */
export type JobScope = 'all' | 'id' | 'name';

/** RuleForm is what the form edits: the numbers and durations as typed. */
export interface RuleForm {
  kind: AlertKind;
  cluster: string;
  scope: JobScope;
  job_id: string;
  job_name: string;
  /** '' for the default name */
  name: string;
  count: string;
  window: string;
  factor: string;
  /** no_completion's T */
  duration: string;
}

/** The form's fields a problem can be shown next to. */
export type FormField = 'kind' | 'cluster' | 'job' | 'name' | 'count' | 'window' | 'factor' | 'duration';

export interface FormProblem {
  field: FormField;
  /** the message's i18n key */
  key: string;
}

/** What a new rule starts with: every kind's parameters filled, so that switching kinds keeps a sensible value. */
export function emptyForm(cluster: string): RuleForm {
  return { kind: 'checkpoint_failed', cluster, scope: 'all', job_id: '', job_name: '', name: '', count: '3', window: '10m', factor: '3', duration: '15m' };
}

/** formFromRule is a saved rule in the form; a name that is only the default one is left empty. */
export function formFromRule(r: AlertRule): RuleForm {
  const f = emptyForm(r.cluster);
  return {
    ...f,
    kind: r.kind,
    scope: r.job_id ? 'id' : r.job_name ? 'name' : 'all',
    job_id: r.job_id ?? '',
    job_name: r.job_name ?? '',
    name: withoutDefaultName(r).name ?? '',
    count: r.count ? String(r.count) : f.count,
    window: r.window_ms ? durationText(r.window_ms) : f.window,
    factor: r.factor ? String(r.factor) : f.factor,
    duration: r.for_ms ? durationText(r.for_ms) : f.duration,
  };
}

function parseNumber(text: string): number | null {
  const s = text.trim().replace(',', '.');
  const n = s === '' ? NaN : Number(s);
  return Number.isFinite(n) ? n : null;
}

/**
 * ruleFromForm is the rule the form makes: only its kind's parameters, the job by its scope, no
 * default name. problems lists what could not be read (a number, a duration, the job's name);
 * whether the values are allowed is the backend's to say.
 */
export function ruleFromForm(f: RuleForm): { rule: AlertRule; problems: FormProblem[] } {
  const problems: FormProblem[] = [];
  const rule: AlertRule = { kind: f.kind, cluster: f.cluster };
  const name = f.name.trim();
  if (name) rule.name = name;
  if (f.scope === 'id' && f.job_id) rule.job_id = f.job_id;
  if (f.scope === 'name') {
    if (f.job_name.trim()) rule.job_name = f.job_name.trim();
    else problems.push({ field: 'job', key: 'alerts.err.job' });
  }
  const read = <T>(field: FormField, value: T | null, set: (v: T) => void) => {
    if (value === null) problems.push({ field, key: `alerts.err.${field}` });
    else set(value);
  };
  switch (f.kind) {
    case 'failures_in_window': {
      const count = parseNumber(f.count);
      read('count', count !== null && Number.isInteger(count) ? count : null, (v) => (rule.count = v));
      read('window', parseDuration(f.window), (v) => (rule.window_ms = v));
      break;
    }
    case 'slower_than_baseline':
      read('factor', parseNumber(f.factor), (v) => (rule.factor = v));
      break;
    case 'no_completion':
      read('duration', parseDuration(f.duration), (v) => (rule.for_ms = v));
      break;
  }
  return { rule, problems };
}

// ---- The backend's error ----

/** The backend's fields (JSON names) as the form's. */
const FORM_FIELD: Record<string, FormField> = {
  kind: 'kind',
  cluster: 'cluster',
  job_id: 'job',
  job_name: 'job',
  name: 'name',
  count: 'count',
  window_ms: 'window',
  factor: 'factor',
  for_ms: 'duration',
};

export interface RuleError {
  /** the rule's place in the list sent */
  index: number;
  /** the field as the backend names it (JSON), e.g. window_ms */
  field: string;
  /** the form's field it is, when the form has it */
  formField?: FormField;
  /** what is wrong, as the backend says it: "must be 1 to 30 failures for failures_in_window" */
  problem: string;
}

/**
 * ruleError reads the backend's validation error, e.g. "bad request: rules[1]: count: must be 1
 * to 30 failures for failures_in_window"; null when it names no rule (then it is shown as it is).
 */
export function ruleError(message: string): RuleError | null {
  const m = /rules\[(\d+)\]: ([a-z_]+): ([\s\S]+)$/.exec(message);
  if (!m) return null;
  return { index: Number(m[1]), field: m[2], formField: FORM_FIELD[m[2]], problem: m[3].trim() };
}
