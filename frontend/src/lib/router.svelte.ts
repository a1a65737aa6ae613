// A minimal hash router: the current Route as a rune, updated on hashchange
// and popstate. Entries pushed by the app carry their depth in history.state,
// so Esc can go back within the app and never leave it.
import { formatHash, parseHash, switchView, DEFAULT_VIEW, type Route } from './route';

let current = $state<Route>(parseHash(typeof location === 'undefined' ? '' : location.hash));

function sync() {
  current = parseHash(location.hash);
}

if (typeof window !== 'undefined') {
  window.addEventListener('hashchange', sync);
  window.addEventListener('popstate', sync);
}

function depth(): number {
  const d = (history.state as { ceDepth?: unknown } | null)?.ceDepth;
  return typeof d === 'number' ? d : 0;
}

function write(r: Route, replace: boolean) {
  const hash = formatHash(r);
  current = r;
  if (location.hash === hash) return;
  // replaceState/pushState do not fire hashchange, and keep ?token=... intact.
  const url = location.pathname + location.search + hash;
  if (replace) history.replaceState({ ...(history.state ?? {}), ceDepth: depth() }, '', url);
  else history.pushState({ ceDepth: depth() + 1 }, '', url);
}

export const router = {
  get route(): Route {
    return current;
  },
  /** navigate merges next into the route; replace avoids a history entry for automatic choices. */
  navigate(next: Partial<Route>, replace = false) {
    write({ ...current, ...next }, replace);
  },
  /** set replaces the whole route. */
  set(r: Route, replace = false) {
    write(r, replace);
  },
  /** go opens another view of the same job, keeping the range. */
  go(view: string, params: Partial<Route> = {}, replace = false) {
    write(switchView(current, view, params), replace);
  },
  /** canGoBack reports whether an earlier entry of this app is in the history. */
  get canGoBack(): boolean {
    return typeof history !== 'undefined' && depth() > 0;
  },
  /** back returns to the previous view of the app, or to the job's timeline when there is none. */
  back() {
    if (depth() > 0) history.back();
    else if (current.view !== DEFAULT_VIEW) write(switchView(current, DEFAULT_VIEW), true);
  },
};
