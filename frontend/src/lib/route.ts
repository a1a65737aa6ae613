// The location hash carries which view and which cluster/job are open, so a
// reload (or the desktop window restoring) comes back to the same place and
// later views get their own addresses: #/<view>?cluster=..&job=..

export interface Route {
  view: string;
  cluster: string;
  job: string;
}

export const DEFAULT_VIEW = 'job';

export function parseHash(hash: string): Route {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  const [path, query = ''] = h.split('?', 2);
  const view = path.replace(/^\/+|\/+$/g, '') || DEFAULT_VIEW;
  const q = new URLSearchParams(query);
  return { view, cluster: q.get('cluster') ?? '', job: q.get('job') ?? '' };
}

export function formatHash(r: Route): string {
  const q = new URLSearchParams();
  if (r.cluster) q.set('cluster', r.cluster);
  if (r.job) q.set('job', r.job);
  const qs = q.toString();
  return `#/${r.view || DEFAULT_VIEW}${qs ? `?${qs}` : ''}`;
}
