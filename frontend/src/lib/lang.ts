// Language choice, free of Svelte so it can be unit-tested.

export type Lang = 'en' | 'zh';

export interface LangInfo {
  code: Lang;
  /** shown in the switch, in its own language */
  label: string;
  /** the BCP 47 tag handed to Intl when the browser names no locale */
  intl: string;
}

export const LANGS: LangInfo[] = [
  { code: 'en', label: 'English', intl: 'en-US' },
  { code: 'zh', label: '中文', intl: 'zh-CN' },
];

export const LANG_STORAGE_KEY = 'ce.lang';

export function isLang(v: unknown): v is Lang {
  return v === 'en' || v === 'zh';
}

/**
 * detectLang picks the UI language: a stored choice wins, then the first
 * browser language we have (any zh-* is Chinese), then English.
 */
export function detectLang(stored: string | null | undefined, browserLangs: readonly string[]): Lang {
  if (isLang(stored)) return stored;
  for (const l of browserLangs) {
    const base = l.toLowerCase().split('-')[0];
    if (isLang(base)) return base;
  }
  return 'en';
}

/**
 * intlLocale is the locale for numbers and dates: the user's own, as the
 * browser gives them (navigator.languages), while the translation follows
 * lang. The first browser locale of the chosen language wins (en-GB for
 * English in Britain, en-IN in India); without one, the language's default
 * (Intl words units in the locale's language: a Chinese UI says 毫秒).
 */
export function intlLocale(lang: Lang, browserLangs: readonly string[] = []): string {
  const valid: string[] = [];
  for (const l of browserLangs) {
    try {
      const [canon] = Intl.getCanonicalLocales(l);
      if (canon) valid.push(canon);
    } catch {
      // not a BCP 47 tag: skip it
    }
  }
  const same = valid.find((l) => l.toLowerCase().split('-')[0] === lang);
  return same ?? LANGS.find((l) => l.code === lang)?.intl ?? 'en-US';
}

/** flattenKeys lists the dotted paths of every leaf in a nested messages object. */
export function flattenKeys(obj: Record<string, unknown>, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [kk, vv] of flattenKeys(v as Record<string, unknown>, path)) out.set(kk, vv);
    } else {
      out.set(path, v);
    }
  }
  return out;
}
