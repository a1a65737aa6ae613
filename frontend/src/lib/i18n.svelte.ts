// The reactive language state. i18next holds the messages; a $state rune
// holds the current language so every t() call in a template re-renders when
// it changes.
import i18next from 'i18next';
import en from '../i18n/en.json';
import zh from '../i18n/zh.json';
import { detectLang, intlLocale, LANG_STORAGE_KEY, type Lang } from './lang';
import { tellWindowMenu } from './windowMenu';

function storedLang(): string | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage.getItem(LANG_STORAGE_KEY);
  } catch {
    return null; // storage disabled: fall back to the browser language
  }
}

function browserLangs(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

const instance = i18next.createInstance();
void instance.init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: detectLang(storedLang(), browserLangs()),
  fallbackLng: 'en',
  initAsync: false,
  interpolation: { escapeValue: false }, // Svelte escapes on output
  returnNull: false,
});

const initial = instance.language as Lang;
let current = $state<Lang>(initial);

function applyDocumentLang(lang: Lang) {
  if (typeof document !== 'undefined') document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
}
applyDocumentLang(initial);
tellWindowMenu(initial);

let localeOf: { lang: Lang; locale: string } | null = null;
if (typeof window !== 'undefined') window.addEventListener('languagechange', () => (localeOf = null));

export const i18n = {
  get lang(): Lang {
    return current;
  },
  /** the Intl locale for numbers and dates: the user's own (lang.ts) */
  get locale(): string {
    // Asked for every number shown: canonicalising the browser's languages
    // each time was a tenth of a first paint. They change only with a
    // languagechange event.
    if (localeOf?.lang !== current) localeOf = { lang: current, locale: intlLocale(current, browserLangs()) };
    return localeOf.locale;
  },
  set(lang: Lang) {
    current = lang;
    void instance.changeLanguage(lang);
    applyDocumentLang(lang);
    tellWindowMenu(lang);
    try {
      localStorage.setItem(LANG_STORAGE_KEY, lang);
    } catch {
      // not persisted; the choice still holds for this session
    }
  },
};

// Messages without options, per language: i18next takes some 10 µs a call
// (resolving fallbacks, nesting and interpolation), and a first screen makes
// thousands of calls. The catalogues never change while the page runs.
const plain = new Map<string, string>();

/** t translates key in the current language; reading `current` makes callers reactive. */
export function t(key: string, opts?: Record<string, unknown>): string {
  const lng = current;
  if (opts === undefined) {
    const k = `${lng}\u0000${key}`;
    let msg = plain.get(k);
    if (msg === undefined) {
      msg = instance.t(key, { lng }) as string;
      plain.set(k, msg);
    }
    return msg;
  }
  return instance.t(key, { ...opts, lng }) as string;
}

/** hasKey reports whether key has a message (in the current language or the fallback). */
export function hasKey(key: string): boolean {
  return instance.exists(key, { lng: current });
}
