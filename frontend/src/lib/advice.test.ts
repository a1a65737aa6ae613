import { describe, expect, it, vi } from 'vitest';
import i18next from 'i18next';
import en from '../i18n/en.json';
import zh from '../i18n/zh.json';
import type { Advice } from './api';
import { adviceText, adviceTitle, bySeverity, configRows, configUnknownLines, currentText, docsHref, openExternal, severityKey } from './advice';

function translator(lng: 'en' | 'zh', extra: Record<string, string> = {}) {
  const inst = i18next.createInstance();
  const withExtra = (m: typeof en | typeof zh) => ({ ...m, reason: { ...m.reason, ...extra } });
  void inst.init({
    resources: { en: { translation: withExtra(en) }, zh: { translation: withExtra(zh) } },
    lng,
    fallbackLng: 'en',
    initAsync: false,
    interpolation: { escapeValue: false },
  });
  return { t: (k: string, o?: Record<string, unknown>) => inst.t(k, o) as string, has: (k: string) => inst.exists(k) };
}

function item(over: Partial<Advice> = {}): Advice {
  return {
    code: 'timeout_vs_p99',
    severity: 'critical',
    title: 'Checkpoints expire: raise the timeout',
    text: '3 checkpoints expired; the timeout is 60000 ms',
    title_part: { code: 'advice_test_title', args: {} },
    text_parts: [{ code: 'advice_test_text', args: { n: '3', ms: '60000' } }],
    config_keys: ['execution.checkpointing.timeout'],
    current: { 'execution.checkpointing.timeout': '60000 ms' },
    evidence: { checkpoint_ids: [7], figures: {} },
    docs_url: 'https://nightlies.apache.org/flink/',
    ...over,
  };
}

describe('bySeverity', () => {
  it('puts critical before warning before info and keeps the backend order within one', () => {
    const list = [
      item({ code: 'interval_back_to_back', severity: 'info' }),
      item({ code: 'unaligned_checkpoints', severity: 'warning' }),
      item({ code: 'timeout_vs_p99', severity: 'critical' }),
      item({ code: 'sync_snapshot', severity: 'warning' }),
      item({ code: 'tolerable_failures', severity: 'critical' }),
    ];
    expect(bySeverity(list).map((a) => a.code)).toEqual([
      'timeout_vs_p99',
      'tolerable_failures',
      'unaligned_checkpoints',
      'sync_snapshot',
      'interval_back_to_back',
    ]);
  });

  it('puts a severity it does not know last and leaves its input alone', () => {
    const list = [item({ code: 'sync_snapshot', severity: 'fatal' as never }), item({ code: 'interval_back_to_back', severity: 'info' })];
    expect(bySeverity(list).map((a) => a.code)).toEqual(['interval_back_to_back', 'sync_snapshot']);
    expect(list[0].code).toBe('sync_snapshot');
    expect(severityKey('fatal')).toBe('advice.severity.info');
    expect(severityKey('warning')).toBe('advice.severity.warning');
  });
});

describe('adviceTitle and adviceText', () => {
  it('fall back to the English when the templates are unknown, in either language', () => {
    for (const lng of ['en', 'zh'] as const) {
      const { t, has } = translator(lng);
      expect(adviceTitle(item(), t, has)).toBe('Checkpoints expire: raise the timeout');
      expect(adviceText(item(), t, has)).toBe('3 checkpoints expired; the timeout is 60000 ms');
    }
  });

  it('fall back when there are no parts', () => {
    const { t, has } = translator('zh');
    const a = item({ title_part: { code: '', args: {} }, text_parts: [] });
    expect(adviceTitle(a, t, has)).toBe(a.title);
    expect(adviceText(a, t, has)).toBe(a.text);
  });

  it('say the templates, arguments filled, when they exist', () => {
    const extra = { advice_test_title: '检查点超时：调大超时时间', advice_test_text: '{{n}} 个检查点超时；超时时间为 {{ms}} 毫秒' };
    const { t, has } = translator('zh', extra);
    expect(adviceTitle(item(), t, has)).toBe('检查点超时：调大超时时间');
    expect(adviceText(item(), t, has)).toBe('3 个检查点超时；超时时间为 60000 毫秒。');
  });

  it('fall back to the English text when one of several clauses is unknown', () => {
    const { t, has } = translator('zh', { advice_test_text: '{{n}} 个检查点超时' });
    const a = item({ text_parts: [{ code: 'advice_test_text', args: { n: '3' } }, { code: 'advice_unknown', args: {} }] });
    expect(adviceText(a, t, has)).toBe(a.text);
  });
});

describe('configRows and currentText', () => {
  it('pairs each key with the value the engine reported, undefined where it did not', () => {
    const a = item({
      config_keys: ['execution.checkpointing.unaligned.enabled', 'execution.checkpointing.unaligned', 'taskmanager.network.memory.buffer-debloat.enabled'],
      current: { 'execution.checkpointing.unaligned': 'false' },
    });
    expect(configRows(a)).toEqual([
      { key: 'execution.checkpointing.unaligned.enabled', current: undefined },
      { key: 'execution.checkpointing.unaligned', current: 'false' },
      { key: 'taskmanager.network.memory.buffer-debloat.enabled', current: undefined },
    ]);
  });

  it('says "not reported" (未报告) for a value the engine did not report, and shows an empty one', () => {
    expect(currentText(undefined, translator('en').t)).toBe('not reported');
    expect(currentText(undefined, translator('zh').t)).toBe('未报告');
    expect(currentText('', translator('en').t)).toBe('""');
    expect(currentText('60000 ms', translator('zh').t)).toBe('60000 ms');
  });

  it('does not take a key from the prototype for a reported value', () => {
    expect(configRows(item({ config_keys: ['toString'], current: {} }))).toEqual([{ key: 'toString', current: undefined }]);
  });
});

describe('docsHref and openExternal', () => {
  it('links only http(s) addresses', () => {
    expect(docsHref('https://nightlies.apache.org/flink/')).toBe('https://nightlies.apache.org/flink/');
    expect(docsHref('javascript:alert(1)')).toBeUndefined();
    expect(docsHref('not a url')).toBeUndefined();
    expect(docsHref('')).toBeUndefined();
  });

  it('opens through the Wails runtime in the desktop window, and leaves the browser to the link', () => {
    const open = vi.fn();
    expect(openExternal('https://x.example/', { runtime: { BrowserOpenURL: open } })).toBe(true);
    expect(open).toHaveBeenCalledWith('https://x.example/');
    expect(openExternal('https://x.example/', { __CE_MODE: 'browser', runtime: { BrowserOpenURL: open } })).toBe(false);
    expect(openExternal('https://x.example/', { runtime: {} })).toBe(false);
    expect(open).toHaveBeenCalledTimes(1);
  });
});

// The development fake renders its advice's English from a copy of the Go
// side's templates: the copy must say what en.json says.
describe('the fake bridge advice', () => {
  it('copies the English templates exactly', async () => {
    const fs = await import('node:fs');
    const src = fs.readFileSync(new URL('../../dev/fake-bridge.js', import.meta.url), 'utf8');
    const body = src.match(/const EN = \{([\s\S]*?)\n {2}\};/)?.[1];
    expect(body).toBeTruthy();
    const copy = new Function(`return {${body}};`)() as Record<string, string>;
    const en = JSON.parse(fs.readFileSync(new URL('../i18n/en.json', import.meta.url), 'utf8')) as { reason: Record<string, string> };
    expect(Object.keys(copy).length).toBeGreaterThan(5);
    for (const [code, text] of Object.entries(copy)) expect([code, text]).toEqual([code, en.reason[code]]);
  });
});

describe('configUnknownLines', () => {
  const cfg = {
    cluster: 'c',
    job_id: 'j',
    seen_ms: 1,
    state_backend: 'hashmap',
    unknown: [
      { part: 'execution' as const, endpoint: 'GET /jobs/:jid/config', error: 'flink: GET /jobs/j/config: 404 Not Found' },
      { part: 'jobmanager' as const, endpoint: 'GET /jobmanager/config', error: 'flink: GET /jobmanager/config: 500 <x>' },
    ],
  };

  it('says each part that did not answer with its endpoint and error, in English and Chinese', () => {
    expect(configUnknownLines(cfg, translator('en').t)).toEqual([
      'unknown: GET /jobs/:jid/config — flink: GET /jobs/j/config: 404 Not Found',
      'unknown: GET /jobmanager/config — flink: GET /jobmanager/config: 500 <x>',
    ]);
    expect(configUnknownLines(cfg, translator('zh').t)).toEqual([
      '未知：GET /jobs/:jid/config — flink: GET /jobs/j/config: 404 Not Found',
      '未知：GET /jobmanager/config — flink: GET /jobmanager/config: 500 <x>',
    ]);
  });

  it('says nothing when every part answered or no configuration was read', () => {
    const { t } = translator('en');
    const answered = { cluster: 'c', job_id: 'j', seen_ms: 1, state_backend: 'rocksdb' };
    expect(configUnknownLines(answered, t)).toEqual([]);
    expect(configUnknownLines(undefined, t)).toEqual([]);
    expect(configUnknownLines(null, t)).toEqual([]);
  });
});
