// A minimal hash router: the current Route as a rune, updated on hashchange.
import { formatHash, parseHash, type Route } from './route';

let current = $state<Route>(parseHash(typeof location === 'undefined' ? '' : location.hash));

if (typeof window !== 'undefined') {
  window.addEventListener('hashchange', () => {
    current = parseHash(location.hash);
  });
}

export const router = {
  get route(): Route {
    return current;
  },
  /** navigate merges next into the route; replace avoids a history entry for automatic choices. */
  navigate(next: Partial<Route>, replace = false) {
    const r: Route = { ...current, ...next };
    const hash = formatHash(r);
    current = r;
    if (location.hash === hash) return;
    // replaceState/pushState do not fire hashchange, and keep ?token=... intact.
    const url = location.pathname + location.search + hash;
    if (replace) history.replaceState(history.state, '', url);
    else history.pushState(history.state, '', url);
  },
};
