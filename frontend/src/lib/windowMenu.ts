// The desktop window's native menu speaks the page's language: the window binds
// its menu (app/window/menu.go) as window.go.window.Menu. A browser has no such
// menu, and nothing is called.
import type { Lang } from './lang';

interface WindowMenu {
  SetLanguage(lang: string): Promise<void>;
}

/** tellWindowMenu asks the window's menu to speak lang, if there is a window. */
export function tellWindowMenu(lang: Lang): void {
  const menu = (globalThis as { go?: { window?: { Menu?: WindowMenu } } }).go?.window?.Menu;
  // A refusal (a language the menu lacks) leaves the menu as it was; the page goes on.
  menu?.SetLanguage(lang).catch(() => undefined);
}
