// The location hash carries which view and which cluster/job are open, so a
// reload (or the desktop window restoring) comes back to the same place and
// every view has its own address: #/<view>?cluster=..&job=..&from=..&to=..
//
// from/to are the explicitly chosen time range of the job; every view of the
// job reads it, so the range is kept when switching views. View-specific
// parameters (a checkpoint, a compared pair, a heatmap kind) ride along.

export interface Route {
  view: string;
  cluster: string;
  job: string;
  /** the chosen range in epoch ms; absent = the whole job */
  from?: number;
  to?: number;
  /** checkpoint view: which checkpoint */
  id?: number;
  pipeline?: number;
  /** compare view: the two checkpoints, as checkpoint refs ("28" or "28@2") */
  a?: string;
  b?: string;
  /** heatmap view: which heatmap and phase */
  kind?: string;
  phase?: string;
  /** compare view: the moment of a before/after (epoch ms) and its window each side (ms; 0: up to the neighbouring changes) */
  at?: number;
  win?: number;
}

export const DEFAULT_VIEW = 'job';

/**
 * The fleet: every job of every cluster and capture, ranked by checkpoint health. It needs no
 * job, and is the first screen when more than one job is known.
 */
export const FLEET_VIEW = 'fleet';

/** isBlankHash reports whether an address names no view: the app chooses the first screen then. */
export function isBlankHash(hash: string): boolean {
  return /^#?\/*$/.test(hash);
}

/** Parameters that belong to one view: dropped when going to another view. */
export const VIEW_PARAMS = ['id', 'pipeline', 'a', 'b', 'kind', 'phase', 'at', 'win'] as const;

function num(v: string | null): number | undefined {
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function str(v: string | null): string | undefined {
  return v === null || v === '' ? undefined : v;
}

export function parseHash(hash: string): Route {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  const [path, query = ''] = h.split('?', 2);
  const view = path.replace(/^\/+|\/+$/g, '') || DEFAULT_VIEW;
  const q = new URLSearchParams(query);
  const r: Route = { view, cluster: q.get('cluster') ?? '', job: q.get('job') ?? '' };
  const from = num(q.get('from'));
  const to = num(q.get('to'));
  // A range is only a range with both ends in order.
  if (from !== undefined && to !== undefined && to > from) {
    r.from = from;
    r.to = to;
  }
  const id = num(q.get('id'));
  if (id !== undefined) r.id = id;
  for (const k of ['pipeline', 'at', 'win'] as const) {
    const v = num(q.get(k));
    if (v !== undefined) r[k] = v;
  }
  for (const k of ['a', 'b', 'kind', 'phase'] as const) {
    const v = str(q.get(k));
    if (v !== undefined) r[k] = v;
  }
  return r;
}

export function formatHash(r: Route): string {
  const q = new URLSearchParams();
  if (r.cluster) q.set('cluster', r.cluster);
  if (r.job) q.set('job', r.job);
  if (r.from !== undefined && r.to !== undefined && r.to > r.from) {
    q.set('from', String(Math.floor(r.from)));
    q.set('to', String(Math.ceil(r.to)));
  }
  if (r.id !== undefined) q.set('id', String(r.id));
  if (r.pipeline) q.set('pipeline', String(r.pipeline));
  if (r.at) q.set('at', String(Math.round(r.at)));
  if (r.win !== undefined && r.win >= 0 && r.at) q.set('win', String(Math.round(r.win)));
  for (const k of ['a', 'b', 'kind', 'phase'] as const) {
    const v = r[k];
    if (v) q.set(k, v);
  }
  const qs = q.toString();
  return `#/${r.view || DEFAULT_VIEW}${qs ? `?${qs}` : ''}`;
}

/** A checkpoint as the routes and lists name it. */
export interface CheckpointRef {
  pipeline: number;
  id: number;
}

/** formatRef writes "28" for pipeline 0 (Flink) and "28@2" for a SeaTunnel pipeline. */
export function formatRef(r: CheckpointRef): string {
  return r.pipeline ? `${r.id}@${r.pipeline}` : String(r.id);
}

/** parseRef reads what formatRef wrote; anything else is undefined. */
export function parseRef(s: string | undefined): CheckpointRef | undefined {
  if (!s) return undefined;
  const m = /^(\d+)(?:@(\d+))?$/.exec(s.trim());
  if (!m) return undefined;
  return { id: Number(m[1]), pipeline: m[2] ? Number(m[2]) : 0 };
}

/**
 * switchView returns the route for another view of the same job: the range
 * stays, the previous view's own parameters go, next's are applied.
 */
export function switchView(cur: Route, view: string, params: Partial<Route> = {}): Route {
  const r: Route = { ...cur, view };
  for (const k of VIEW_PARAMS) delete r[k];
  return { ...r, ...params };
}

/** Views that stay open when another job or cluster is chosen; the others are about one checkpoint. */
const JOB_LEVEL_VIEWS = new Set(['job', 'heatmap', 'retention']);

/**
 * forJob is the route after choosing another cluster or job: the same kind of
 * view when it makes sense for any job, without the previous job's range or
 * checkpoints.
 */
export function forJob(cur: Route, cluster: string, job: string): Route {
  const view = JOB_LEVEL_VIEWS.has(cur.view) ? cur.view : DEFAULT_VIEW;
  const r: Route = { view, cluster, job };
  if (view === 'heatmap') {
    if (cur.kind) r.kind = cur.kind;
    if (cur.phase) r.phase = cur.phase;
  }
  return r;
}
