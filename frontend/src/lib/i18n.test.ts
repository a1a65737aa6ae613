import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import en from '../i18n/en.json';
import zh from '../i18n/zh.json';
import { detectLang, flattenKeys, intlLocale } from './lang';
import { i18n, t } from './i18n.svelte';
import { JOBMANAGER_LOG_MODES, JOBMANAGER_LOG_STATES } from './api';
import { LANE_KINDS } from './clusterForm';

const enKeys = flattenKeys(en);
const zhKeys = flattenKeys(zh);

function placeholders(s: unknown): string[] {
  return [...String(s).matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
}

describe('message catalogues', () => {
  it('have identical key sets in English and Chinese', () => {
    const onlyEn = [...enKeys.keys()].filter((k) => !zhKeys.has(k));
    const onlyZh = [...zhKeys.keys()].filter((k) => !enKeys.has(k));
    expect({ onlyEn, onlyZh }).toEqual({ onlyEn: [], onlyZh: [] });
  });

  it('have no empty values', () => {
    for (const [name, keys] of [
      ['en', enKeys],
      ['zh', zhKeys],
    ] as const) {
      const empty = [...keys].filter(([, v]) => typeof v !== 'string' || v.trim() === '').map(([k]) => k);
      expect(empty, `${name} has empty messages`).toEqual([]);
    }
  });

  it('use the same placeholders in both languages', () => {
    const mismatched = [...enKeys.keys()].filter(
      (k) => placeholders(enKeys.get(k)).join() !== placeholders(zhKeys.get(k)).join(),
    );
    expect(mismatched).toEqual([]);
  });

  it('write every placeholder as i18next fills it: {{name}}, never {name}', () => {
    // A single-brace {n} shows as written: the fleet's runs badge read "{n} runs".
    const single = (v: unknown) => /(^|[^{])\{\s*\w+\s*\}(?!\})/.test(String(v));
    const bad = [...enKeys, ...zhKeys].filter(([, v]) => single(v)).map(([k, v]) => `${k}: ${v}`);
    expect(bad).toEqual([]);
  });

  it('translate to Chinese rather than copying English (except names and units)', () => {
    const same = [...enKeys.keys()].filter((k) => enKeys.get(k) === zhKeys.get(k));
    // Product, engine and format names, abbreviations and the ID column stay as they are.
    expect(same.sort()).toEqual(
      ['app.title', 'engine.flink', 'engine.seatunnel', 'export.formats.csv', 'kind.short.checkpoint', 'kind.short.savepoint', 'kind.short.unaligned', 'table.id'].sort(),
    );
  });
});

/** Every t('literal') in the sources must name an existing message (plural keys by their base). */
describe('keys used in the sources', () => {
  const srcDir = fileURLToPath(new URL('..', import.meta.url));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(svelte|ts)$/.test(name) && !name.endsWith('.test.ts')) files.push(p);
    }
  };
  walk(srcDir);

  const exists = (key: string) => enKeys.has(key) || enKeys.has(`${key}_one`) || enKeys.has(`${key}_other`);

  it('exist in the catalogue', () => {
    const used = new Set<string>();
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z][\w.]*)'/g)) used.add(m[1]);
      // Keys carried as data, e.g. validation problems.
      for (const m of readFileSync(f, 'utf8').matchAll(/key: '([a-zA-Z][\w.]*)'/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(50);
    expect([...used].filter((k) => !exists(k))).toEqual([]);
  });

  it('cover every value of the enumerations built into keys', () => {
    const dynamic = [
      ...['COMPLETED', 'FAILED', 'IN_PROGRESS'].map((s) => `status.${s}`),
      ...['checkpoint', 'unaligned', 'savepoint'].flatMap((k) => [`kind.${k}`, `kind.short.${k}`]),
      ...['cluster', 'capture', 'sample'].map((k) => `sources.kind.${k}`),
      ...['flink', 'seatunnel'].map((e) => `engine.${e}`),
      ...['ok', 'partial', 'error', 'connecting', 'idle', 'offline'].map((h) => `health.${h}`),
      ...JOBMANAGER_LOG_STATES.map((s) => `jmlog.finalize.${s}`),
      ...JOBMANAGER_LOG_MODES.map((m) => `clusters.jmLogMode.${m}`),
      ...LANE_KINDS.map((k) => `clusters.laneKindMode.${k}`),
      ...['files', 'records', 'committables'].map((k) => `commit.${k}`),
    ];
    expect(dynamic.filter((k) => !exists(k))).toEqual([]);
  });
});

describe('detectLang', () => {
  it.each([
    ['zh', ['en-US'], 'zh'],
    ['en', ['zh-CN'], 'en'],
    [null, ['zh-CN', 'en'], 'zh'],
    [null, ['zh-Hant-TW'], 'zh'],
    [null, ['fr-FR', 'zh-CN'], 'zh'],
    [null, ['fr-FR'], 'en'],
    ['klingon', [], 'en'],
  ])('stored %j, browser %j → %s', (stored, langs, want) => {
    expect(detectLang(stored, langs)).toBe(want);
  });

  it('maps languages to Intl locales', () => {
    expect(intlLocale('en')).toBe('en-US');
    expect(intlLocale('zh')).toBe('zh-CN');
    // The user's own locale, as the browser gives it.
    expect(intlLocale('en', ['en-GB', 'en-US'])).toBe('en-GB');
    expect(intlLocale('en', ['en-in'])).toBe('en-IN');
    expect(intlLocale('en', ['de-DE', 'en-US'])).toBe('en-US');
    expect(intlLocale('en', ['de-DE'])).toBe('en-US');
    expect(intlLocale('zh', ['en-GB', 'zh-TW'])).toBe('zh-TW');
    expect(intlLocale('zh', ['en-GB'])).toBe('zh-CN');
    expect(intlLocale('en', ['not a tag!', 'en-CA'])).toBe('en-CA');
    // What en-GB means for a date: day before month.
    expect(new Intl.DateTimeFormat(intlLocale('en', ['en-GB']), { dateStyle: 'short', timeZone: 'UTC' }).format(Date.UTC(2026, 11, 31))).toBe('31/12/2026');
  });
});

describe('t', () => {
  it('switches language and pluralises', () => {
    i18n.set('en');
    expect(t('table.title')).toBe('Checkpoints');
    expect(t('size.blobs', { count: 1, n: '1' })).toBe('1 blob');
    expect(t('size.blobs', { count: 5, n: '5' })).toBe('5 blobs');
    expect(i18n.locale).toBe('en-US');
    i18n.set('zh');
    expect(t('table.title')).toBe('检查点');
    expect(t('size.blobs', { count: 5, n: '5' })).toBe('5 个状态块');
    expect(i18n.locale).toBe('zh-CN');
    i18n.set('en');
    // Plain messages are kept per language: asked again, each is its own.
    expect(t('table.title')).toBe('Checkpoints');
    i18n.set('zh');
    expect(t('table.title')).toBe('检查点');
    i18n.set('en');
  });
});
