import { afterEach, describe, expect, it } from 'vitest';
import { i18n } from './i18n.svelte';

type Holder = { go?: { window?: { Menu?: { SetLanguage(lang: string): Promise<void> } } } };
const g = globalThis as Holder;

afterEach(() => {
  delete g.go;
  i18n.set('en');
});

describe('the window menu follows the language switch', () => {
  it('tells the desktop window each language the user picks', () => {
    const told: string[] = [];
    g.go = { window: { Menu: { SetLanguage: async (l) => void told.push(l) } } };
    i18n.set('zh');
    i18n.set('en');
    expect(told).toEqual(['zh', 'en']);
  });

  it('goes on when the menu refuses, and without a window (a browser)', async () => {
    g.go = { window: { Menu: { SetLanguage: () => Promise.reject(new Error('no')) } } };
    expect(() => i18n.set('zh')).not.toThrow();
    delete g.go;
    expect(() => i18n.set('en')).not.toThrow();
    await new Promise((r) => setTimeout(r, 0)); // an unhandled rejection would fail the run
  });
});
