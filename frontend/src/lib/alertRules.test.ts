import { describe, expect, it } from 'vitest';
import en from '../i18n/en.json';
import zh from '../i18n/zh.json';
import { ALERT_KINDS, type AlertRule } from './api';
import { i18n, t } from './i18n.svelte';
import { flattenKeys } from './lang';
import { coveringRule, defaultName, describeRule, durationText, durationWords, emptyForm, formFromRule, parseDuration, ruleError, ruleFromForm, withoutDefaultName } from './alertRules';

describe('parseDuration', () => {
  it.each([
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['1h, 30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['1,5 h', 5_400_000],
    ['90 sec', 90_000],
    ['2d', 172_800_000],
    ['500ms', 500],
    ['1s500ms', 1500],
    [' 15 Minutes ', 900_000],
    ['10分钟', 600_000],
    ['1小时30分钟', 5_400_000],
    ['0m', 0],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '  ', '10', '10x', 'm10', '1h30', 'ten minutes', '-5m', '1e3s'])('%j is no duration', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('durations shown', () => {
  // Typed back in the form as parseDuration reads it, and said in words in English and Chinese.
  it.each([
    [600_000, '10m', '10 minutes', '10分钟'],
    [3_600_000, '1h', '1 hour', '1小时'],
    [5_400_000, '1h30m', '1 hour, 30 minutes', '1小时30分钟'],
    [90_000, '1m30s', '1 minute, 30 seconds', '1分钟30秒钟'],
    [1500, '1s500ms', '1 second, 500 milliseconds', '1秒钟500毫秒'],
    [86_400_000 + 60_000, '1d1m', '1 day, 1 minute', '1天1分钟'],
    [0, '0s', '0 seconds', '0秒钟'],
  ])('%d ms: %j, %j, %j', (ms, text, enWords, zhWords) => {
    expect(durationText(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
    expect([durationWords(ms, 'en-US'), durationWords(ms, 'zh-CN')]).toEqual([enWords, zhWords]);
  });
});

describe('a rule in words', () => {
  const jobs: Record<string, string> = { a1b2c3d4e5f60718293a4b5c6d7e8f90: 'orders-enrichment' };
  const label = (id: string) => jobs[id];

  it.each<[AlertRule, string, string, string, string, boolean]>([
    [{ kind: 'checkpoint_failed', cluster: 'prod' }, 'A checkpoint failed', 'the newest checkpoint failed', 'every job of prod', 'checkpoint_failed@prod', false],
    [
      { kind: 'failures_in_window', cluster: 'prod', job_name: 'orders', count: 3, window_ms: 600_000 },
      'Repeated failures',
      '3 failures within 10 minutes',
      'jobs named “orders” on prod',
      'failures_in_window@prod/orders',
      false,
    ],
    [{ kind: 'failures_in_window', cluster: 'prod', count: 1, window_ms: 5_400_000 }, 'Repeated failures', '1 failure within 1 hour, 30 minutes', 'every job of prod', 'failures_in_window@prod', false],
    [
      { name: 'slow orders', kind: 'slower_than_baseline', cluster: 'prod', job_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', factor: 2.5 },
      'Slower than usual',
      'end-to-end above 2.5× the usual p90',
      'orders-enrichment on prod',
      'slow orders',
      true,
    ],
    [
      { name: 'no_completion@staging/ffee00112233445566778899aabbccdd', kind: 'no_completion', cluster: 'staging', job_id: 'ffee00112233445566778899aabbccdd', for_ms: 900_000 },
      'No checkpoint completed',
      'none completed for 15 minutes',
      'ffee0011… on staging',
      'no_completion@staging/ffee00112233445566778899aabbccdd',
      false,
    ],
  ])('%j', (rule, kind, params, scope, name, named) => {
    i18n.set('en');
    expect(describeRule(rule, t, 'en-US', label)).toEqual({ kind, params, scope, name, named });
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    expect(describeRule({ kind: 'failures_in_window', cluster: 'prod', job_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', count: 3, window_ms: 600_000 }, t, 'zh-CN', label)).toEqual({
      kind: '多次失败',
      params: '10分钟内失败 3 次',
      scope: 'prod 上的 orders-enrichment',
      name: 'failures_in_window@prod/a1b2c3d4e5f60718293a4b5c6d7e8f90',
      named: false,
    });
    expect(describeRule({ kind: 'no_completion', cluster: 'prod', for_ms: 3_600_000 }, t, 'zh-CN').params).toBe('1小时内没有检查点完成');
    i18n.set('en');
  });

  it('has every kind in both languages', () => {
    const keys = [flattenKeys(en), flattenKeys(zh)];
    const want = ALERT_KINDS.flatMap((k) => [`alerts.kind.${k}`, `alerts.help.${k}`, k === 'failures_in_window' ? `alerts.params.${k}_other` : `alerts.params.${k}`]);
    for (const catalogue of keys) expect(want.filter((k) => !catalogue.has(k))).toEqual([]);
  });
});

describe('names', () => {
  it('makes the backend’s default name: kind@cluster, then /job', () => {
    expect(defaultName({ kind: 'checkpoint_failed', cluster: 'prod' })).toBe('checkpoint_failed@prod');
    expect(defaultName({ kind: 'no_completion', cluster: 'staging', job_id: 'a1b2' })).toBe('no_completion@staging/a1b2');
    expect(defaultName({ kind: 'checkpoint_failed', cluster: 'prod', job_name: 'orders' })).toBe('checkpoint_failed@prod/orders');
  });

  it('sends a rule without a name that is only the default one', () => {
    expect(withoutDefaultName({ name: 'checkpoint_failed@prod', kind: 'checkpoint_failed', cluster: 'prod' })).toEqual({ kind: 'checkpoint_failed', cluster: 'prod' });
    const named: AlertRule = { name: 'stuck', kind: 'checkpoint_failed', cluster: 'prod' };
    expect(withoutDefaultName(named)).toBe(named);
  });
});

describe('the form', () => {
  it('starts with every kind’s parameters filled', () => {
    expect(emptyForm('prod')).toEqual({
      kind: 'checkpoint_failed',
      cluster: 'prod',
      scope: 'all',
      job_id: '',
      job_name: '',
      name: '',
      count: '3',
      window: '10m',
      factor: '3',
      duration: '15m',
    });
  });

  it.each<AlertRule>([
    { kind: 'checkpoint_failed', cluster: 'prod' },
    { kind: 'failures_in_window', cluster: 'prod', job_name: 'orders', count: 3, window_ms: 600_000 },
    { name: 'slow', kind: 'slower_than_baseline', cluster: 'prod', job_id: 'a1b2', factor: 1.5 },
    { kind: 'no_completion', cluster: 'staging', for_ms: 5_400_000 },
  ])('round-trips %j', (rule) => {
    expect(ruleFromForm(formFromRule(rule))).toEqual({ rule, problems: [] });
  });

  it('shows a saved rule’s fields as typed, its default name empty', () => {
    expect(formFromRule({ name: 'no_completion@staging', kind: 'no_completion', cluster: 'staging', for_ms: 5_400_000 })).toEqual({
      ...emptyForm('staging'),
      kind: 'no_completion',
      duration: '1h30m',
    });
  });

  it('sends only the kind’s parameters and the job of its scope', () => {
    const f = { ...emptyForm('prod'), kind: 'failures_in_window' as const, count: ' 50 ', window: '1h', scope: 'id' as const, job_id: 'a1b2', job_name: 'left over', name: ' mine ' };
    // 50 is the backend's to refuse: the form only reads it.
    expect(ruleFromForm(f)).toEqual({ rule: { kind: 'failures_in_window', cluster: 'prod', name: 'mine', job_id: 'a1b2', count: 50, window_ms: 3_600_000 }, problems: [] });
    expect(ruleFromForm({ ...f, kind: 'slower_than_baseline', factor: '2,5', scope: 'all' }).rule).toEqual({ kind: 'slower_than_baseline', cluster: 'prod', name: 'mine', factor: 2.5 });
  });

  it.each([
    [{ kind: 'failures_in_window' as const, count: '2.5' }, [{ field: 'count', key: 'alerts.err.count' }]],
    [{ kind: 'failures_in_window' as const, count: '', window: '10' }, [{ field: 'count', key: 'alerts.err.count' }, { field: 'window', key: 'alerts.err.window' }]],
    [{ kind: 'slower_than_baseline' as const, factor: 'twice' }, [{ field: 'factor', key: 'alerts.err.factor' }]],
    [{ kind: 'no_completion' as const, duration: 'soon' }, [{ field: 'duration', key: 'alerts.err.duration' }]],
    [{ scope: 'name' as const, job_name: '  ' }, [{ field: 'job', key: 'alerts.err.job' }]],
    // Another kind's unreadable field does not matter.
    [{ kind: 'checkpoint_failed' as const, count: 'x', window: 'y', factor: 'z', duration: 'w' }, []],
  ])('names what cannot be read in %j', (patch, problems) => {
    expect(ruleFromForm({ ...emptyForm('prod'), ...patch }).problems).toEqual(problems);
  });
});

describe('the backend’s error', () => {
  it.each([
    [
      'bad request: rules[1]: count: must be 1 to 30 failures for failures_in_window',
      { index: 1, field: 'count', formField: 'count', problem: 'must be 1 to 30 failures for failures_in_window' },
    ],
    ['rules[0]: window_ms: must be at least 1000 ms for failures_in_window', { index: 0, field: 'window_ms', formField: 'window', problem: 'must be at least 1000 ms for failures_in_window' }],
    ['bad request: rules[12]: for_ms: must be at least 1000 ms for no_completion', { index: 12, field: 'for_ms', formField: 'duration', problem: 'must be at least 1000 ms for no_completion' }],
    ['bad request: rules[2]: job_name: set job_id or job_name, not both', { index: 2, field: 'job_name', formField: 'job', problem: 'set job_id or job_name, not both' }],
    ['bad request: rules[3]: name: "x" is also rules[0]\'s name', { index: 3, field: 'name', formField: 'name', problem: '"x" is also rules[0]\'s name' }],
  ])('%j names its rule and field', (message, want) => {
    expect(ruleError(message)).toEqual(want);
  });

  it('is null when it names no rule', () => {
    expect(ruleError('app: save config: permission denied')).toBeNull();
  });
});

describe('coveringRule', () => {
  const rules: AlertRule[] = [
    { kind: 'slower_than_baseline', cluster: 'prod', factor: 3 },
    { kind: 'checkpoint_failed', cluster: 'staging' },
    { kind: 'checkpoint_failed', cluster: 'prod', job_name: 'orders' },
    { kind: 'checkpoint_failed', cluster: 'prod', job_id: 'b2' },
  ];
  it.each([
    ['staging', 'x', 'anything', 1],
    ['prod', 'a1', 'orders', 2],
    ['prod', 'b2', 'other', 3],
    ['prod', 'c3', 'other', -1],
    ['dev', 'a1', 'orders', -1],
  ])('%s/%s (%s) → %d', (cluster, id, name, want) => {
    expect(coveringRule(rules, cluster, id, name)).toBe(want);
  });
});
