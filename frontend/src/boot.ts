// The page's entry, small: a page opened on a job's timeline asks for it now
// (lib/prefetch.ts), then loads the app. The app's bundle is fetched beside
// this one (vite.config.ts preloads it), and compiling it no longer holds
// the request back.
import { prefetchTimeline } from './lib/prefetch';

prefetchTimeline(location.hash, window.innerWidth);
// The page's first number formatter loads the browser's locale data (some
// 30 ms); made while the app's bundle is still on its way, it is not made in
// the middle of the first render.
new Intl.NumberFormat().format(0);
void import('./main');
