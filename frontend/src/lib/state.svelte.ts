// Shared application state: sources, the selected source's jobs, retention,
// busy/toast indicators and per-job revision counters that views watch to
// refresh on live events. Views own their own view-specific state.
import {
  api,
  errorText,
  mode,
  on,
  uploadCapture,
  type ExportProgressEvent,
  type Fleet,
  type HealthState,
  type ImportProgressEvent,
  type ImportResult,
  type JobView,
  type RetentionStatus,
  type SourceView,
  type VersionInfo,
} from './api';
import { untrack } from 'svelte';
import { router } from './router.svelte';
import { FLEET_VIEW, forJob, isBlankHash } from './route';
import { debounce } from './debounce';
import { prefetchSettled } from './prefetch';
import { i18n, t } from './i18n.svelte';
import { formatNumber } from './format';
import { prefs } from './prefs.svelte';

const SOURCE_STORAGE_KEY = 'ce.source';

export interface Toast {
  kind: 'info' | 'error';
  text: string;
  id: number;
}

function jobKey(cluster: string, job: string): string {
  return `${cluster}\u0000${job}`;
}

class AppState {
  version = $state<VersionInfo | null>(null);

  sources = $state<SourceView[]>([]);
  sourcesLoaded = $state(false);
  sourcesError = $state('');

  jobs = $state<JobView[]>([]);
  jobsCluster = $state('');
  jobsLoading = $state(false);
  jobsError = $state('');

  retention = $state<RetentionStatus | null>(null);
  retentionError = $state('');

  /** dialogs opened from anywhere: the log viewer, the quick switcher, the shortcut list */
  logOpen = $state(false);
  switcherOpen = $state(false);
  helpOpen = $state(false);

  /** the capture being opened, while the backend reports progress */
  importing = $state<ImportProgressEvent | null>(null);
  /** the export under way, as its progress events tell it (null when none) */
  exporting = $state<ExportProgressEvent | null>(null);

  /** number of long calls in flight, for the loading indicator */
  busy = $state(0);
  toast = $state<Toast | null>(null);

  /** bumped per cluster/job when the backend stored new checkpoints */
  private revisions = $state<Record<string, number>>({});
  /** bumped whenever the backend stored new checkpoints, of any job (the fleet follows it) */
  stored = $state(0);

  /**
   * The fleet asked for at start when the address named no view: more than one job in it makes
   * the fleet the first screen, which then draws this answer (takeFirstFleet) rather than ask again.
   */
  private firstFleet: { windowMs: number; answer: Promise<Fleet> } | null = null;
  private firstScreenChosen = false;

  private toastTimer: ReturnType<typeof setTimeout> | undefined;
  private toastSeq = 0;
  private jobsSeq = 0;

  get selectedSource(): SourceView | undefined {
    return this.sources.find((s) => s.name === router.route.cluster);
  }

  get selectedJob(): JobView | undefined {
    return this.jobs.find((j) => j.id === router.route.job && j.cluster === router.route.cluster);
  }

  revision(cluster: string, job: string): number {
    return this.revisions[jobKey(cluster, job)] ?? 0;
  }

  /** track counts a call as busy for the loading indicator. */
  async track<T>(p: Promise<T>): Promise<T> {
    // untrack: callers run inside effects, which must not come to depend on busy.
    untrack(() => this.busy++);
    try {
      return await p;
    } finally {
      untrack(() => this.busy--);
    }
  }

  showToast(kind: Toast['kind'], text: string, ms = kind === 'error' ? 10_000 : 5000) {
    clearTimeout(this.toastTimer);
    this.toast = { kind, text, id: ++this.toastSeq };
    this.toastTimer = setTimeout(() => (this.toast = null), ms);
  }

  dismissToast() {
    clearTimeout(this.toastTimer);
    this.toast = null;
  }

  async loadSources() {
    const fleetFirst = this.fleetFirst();
    try {
      const list = await this.track(api.listClusters());
      if (fleetFirst && (await this.track(fleetFirst))) router.set({ view: FLEET_VIEW, cluster: '', job: '' }, true);
      this.sources = list;
      this.sourcesError = '';
    } catch (e) {
      this.sourcesError = errorText(e);
    } finally {
      this.sourcesLoaded = true;
    }
    this.ensureSourceSelected();
  }

  /**
   * fleetFirst, on the first load of an address that names no view, asks for the fleet and
   * answers whether it holds more than one job (the fleet is the first screen then); null
   * otherwise. With one job or none the app opens as it always has: a source, its first job.
   */
  private fleetFirst(): Promise<boolean> | null {
    if (this.firstScreenChosen) return null;
    this.firstScreenChosen = true;
    if (typeof location === 'undefined' || !isBlankHash(location.hash)) return null;
    const windowMs = prefs.fleetWindowMs;
    const answer = api.fleet({ window_ms: windowMs, cluster: '' });
    this.firstFleet = { windowMs, answer };
    // Without an answer the app opens as it did before the fleet. An answer the fleet will not
    // draw now is dropped: opened later, the fleet asks afresh.
    const first = (f: Fleet | null) => {
      const yes = !!f && f.jobs.length > 1 && isBlankHash(location.hash);
      if (!yes) this.firstFleet = null;
      return yes;
    };
    return answer.then(first, () => first(null));
  }

  /** takeFirstFleet hands the fleet asked for at start to the fleet view, once, if it is over windowMs. */
  takeFirstFleet(windowMs: number): Promise<Fleet> | null {
    const f = this.firstFleet;
    this.firstFleet = null;
    return f && f.windowMs === windowMs ? f.answer : null;
  }

  /** ensureSourceSelected keeps the route on an existing source: the last one used, else the first. */
  private ensureSourceSelected() {
    const names = this.sources.map((s) => s.name);
    const cur = router.route.cluster;
    if (cur && names.includes(cur)) {
      // The job the address opens is drawn first, its list after (lib/prefetch.ts).
      if (this.jobsCluster !== cur) void this.loadJobs(cur, prefetchSettled());
      return;
    }
    let remembered: string | null = null;
    try {
      remembered = localStorage.getItem(SOURCE_STORAGE_KEY);
    } catch {
      remembered = null;
    }
    const next = remembered && names.includes(remembered) ? remembered : (names[0] ?? '');
    this.selectSource(next, true, router.route.view === FLEET_VIEW);
  }

  /** selectSource shows the source's jobs; keepView stays on the view (the fleet) rather than open one of them. */
  selectSource(name: string, replace = false, keepView = false) {
    if (keepView) {
      router.navigate({ cluster: name }, replace);
    } else if (name !== router.route.cluster || router.route.view === FLEET_VIEW) {
      router.set(forJob(router.route, name, ''), replace);
    } else if (this.jobsCluster !== name) {
      router.navigate({ cluster: name }, replace);
    }
    this.remember(name);
    this.jobs = [];
    this.jobsError = '';
    this.jobsCluster = name;
    if (name) void this.loadJobs(name);
  }

  selectJob(id: string) {
    if (id === router.route.job && router.route.view !== FLEET_VIEW) return;
    router.set(forJob(router.route, router.route.cluster, id));
  }

  /** openJob opens a job of any source (from the fleet): its timeline, its source's jobs listed and remembered. */
  openJob(cluster: string, job: string) {
    router.set(forJob(router.route, cluster, job));
    this.remember(cluster);
    if (this.jobsCluster === cluster) return;
    this.jobs = [];
    this.jobsError = '';
    void this.loadJobs(cluster);
  }

  private remember(source: string) {
    try {
      if (source) localStorage.setItem(SOURCE_STORAGE_KEY, source);
    } catch {
      // not remembered across runs; harmless
    }
  }

  /** selectSourceByIndex switches to the n-th source (0-based) as listed; false when there is none. */
  selectSourceByIndex(n: number): boolean {
    const s = this.sources[n];
    if (!s) return false;
    if (s.name !== router.route.cluster) this.selectSource(s.name);
    return true;
  }

  /** loadJobs lists the cluster's jobs, once after has settled if given. */
  async loadJobs(cluster: string, after?: Promise<void>) {
    const seq = ++this.jobsSeq;
    this.jobsCluster = cluster;
    this.jobsLoading = true;
    try {
      if (after) {
        await after;
        if (seq !== this.jobsSeq) return;
      }
      const jobs = await this.track(api.listJobs(cluster));
      if (seq !== this.jobsSeq) return;
      this.jobs = jobs;
      this.jobsError = '';
      // Open a job straight away: the one in the route if it exists, else the first (the fleet opens none).
      const cur = router.route.job;
      if ((!cur || !jobs.some((j) => j.id === cur)) && jobs.length > 0 && router.route.cluster === cluster && router.route.view !== FLEET_VIEW) {
        router.set(forJob(router.route, cluster, jobs[0].id), true);
      }
    } catch (e) {
      if (seq !== this.jobsSeq) return;
      this.jobsError = errorText(e);
    } finally {
      if (seq === this.jobsSeq) this.jobsLoading = false;
    }
  }

  async loadRetention() {
    try {
      this.retention = await api.retention();
      this.retentionError = '';
    } catch (e) {
      this.retentionError = errorText(e);
    }
  }

  async loadVersion() {
    try {
      this.version = await api.version();
    } catch {
      this.version = null; // only shown in a tooltip; not worth an error
    }
  }

  /** openCapture asks the desktop for a file; the browser path goes through uploadFile. */
  async openCaptureDialog(): Promise<ImportResult | null> {
    try {
      const res = await this.track(api.openCaptureDialog());
      return this.afterImport(res);
    } catch (e) {
      this.showToast('error', errorText(e));
      return null;
    }
  }

  async uploadFile(file: File): Promise<ImportResult | null> {
    this.importing = { file: file.name, checkpoints: 0, metric_samples: 0, bytes: 0, size: file.size };
    try {
      const res = await this.track(uploadCapture(file, file.name));
      return this.afterImport(res);
    } catch (e) {
      this.showToast('error', errorText(e));
      return null;
    } finally {
      this.importing = null;
    }
  }

  private async afterImport(res: ImportResult): Promise<ImportResult | null> {
    this.importing = null;
    return (await this.showImported(res?.sources ?? [])) ? res : null;
  }

  // showImported selects the first source an import opened; false when none (a dialog cancelled).
  private async showImported(sources: readonly string[]): Promise<boolean> {
    if (sources.length === 0) return false;
    await this.loadSources();
    this.selectSource(sources[0]);
    void this.loadRetention();
    return true;
  }

  private refreshJobs = debounce(() => {
    if (this.jobsCluster) void this.loadJobs(this.jobsCluster);
  }, 500);

  private refreshRetention = debounce(() => void this.loadRetention(), 3000);

  private refreshSources = debounce(() => void this.loadSources(), 200);

  // Progress events stop when the import ends; drop a stale banner if no answer clears it.
  private clearImporting = debounce(() => (this.importing = null), 5000);
  private clearExporting = debounce(() => (this.exporting = null), 5000);

  /** listen wires the backend's events to refreshes of whatever is open. */
  listen(): () => void {
    const offs = [
      on('checkpoints', (ev) => {
        const k = jobKey(ev.cluster, ev.job);
        this.revisions[k] = (this.revisions[k] ?? 0) + 1;
        this.stored++;
        if (ev.cluster === this.jobsCluster) this.refreshJobs();
        this.refreshRetention();
      }),
      on('health', (ev) => {
        const s = this.sources.find((x) => x.name === ev.cluster);
        if (s) {
          // The wire's state is a string; the backend sends only HealthState's values.
          s.health = { ...s.health, state: ev.state as HealthState, last_error: ev.last_error ?? '' };
          if (ev.state === 'ok' || ev.state === 'partial') s.health.last_ok_ms = Date.now();
          // The event carries no problem list or missed count: ListClusters has them.
          this.refreshSources();
        }
      }),
      on('sources', () => this.refreshSources()),
      on('import-progress', (ev) => {
        this.importing = { file: ev.file ?? '', checkpoints: ev.checkpoints ?? 0, metric_samples: ev.metric_samples ?? 0, bytes: ev.bytes ?? 0, size: ev.size ?? 0 };
        this.clearImporting();
      }),
      on('export-progress', (ev) => {
        this.exporting = { file: ev.file ?? '', checkpoints: ev.checkpoints ?? 0 };
        this.clearExporting();
      }),
      on('import-done', (ev) => {
        this.importing = null;
        this.showToast('info', t('capture.opened', { file: ev.file ?? '', checkpoints: formatNumber(ev.checkpoints ?? 0, i18n.locale) }));
        void this.showImported(ev.sources ?? []);
      }),
      // The user clicked a job's alert notification (docs/alerts.md).
      on('open-job', (ev) => {
        if (ev.cluster && ev.job_id) this.openJob(ev.cluster, ev.job_id);
      }),
      on('import-error', (ev) => {
        this.importing = null;
        this.showToast('error', t('capture.openFailed', { file: ev.file ?? '', error: ev.error ?? '' }));
      }),
    ];
    return () => offs.forEach((off) => off());
  }

  get isBrowser(): boolean {
    return mode() === 'browser';
  }
}

export const appState = new AppState();
