import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, errorText, mode, on, uploadCapture, waitForBridge } from './api';

// The "backend" here is a stand-in for window.go / window.runtime: api.ts is
// the thing under test, and these fakes only inject answers and faults.
type Win = { go?: unknown; runtime?: unknown; __CE_MODE?: string };
let win: Win;

beforeEach(() => {
  win = {};
  vi.stubGlobal('window', win);
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('errorText', () => {
  it.each([
    ['store: open /x: permission denied', 'store: open /x: permission denied'],
    [new Error('app: job "x" not found'), 'app: job "x" not found'],
    [{ error: 'bad request: from_ms > to_ms' }, 'bad request: from_ms > to_ms'],
    [{ message: 'm' }, 'm'],
    [42, '42'],
  ])('%j → %s', (e, want) => {
    expect(errorText(e)).toBe(want);
  });
});

describe('mode', () => {
  it('is browser only when the bridge says so', () => {
    expect(mode()).toBe('desktop');
    win.__CE_MODE = 'browser';
    expect(mode()).toBe('browser');
  });
});

describe('waitForBridge', () => {
  it('waits for window.go to appear', async () => {
    vi.useFakeTimers();
    const p = waitForBridge(5000);
    await vi.advanceTimersByTimeAsync(300);
    const App = { Version: async () => ({ version: 'v1', commit: 'c', go_version: 'go' }) };
    win.go = { app: { App } };
    await vi.advanceTimersByTimeAsync(100);
    await expect(p).resolves.toBe(App);
  });

  it('gives up with a clear error', async () => {
    vi.useFakeTimers();
    const p = waitForBridge(1000);
    const check = expect(p).rejects.toThrow(/window\.go\.app\.App missing after 1000 ms/);
    await vi.advanceTimersByTimeAsync(1100);
    await check;
  });
});

describe('calls', () => {
  it('passes positional arguments and returns the answer', async () => {
    const Checkpoint = vi.fn(async (...args: unknown[]) => ({ id: args[3], tasks: null }));
    win.go = { app: { App: { Checkpoint } } };
    const d = await api.checkpoint('sample', 'job1', 0, 28);
    expect(Checkpoint).toHaveBeenCalledWith('sample', 'job1', 0, 28);
    expect(d.id).toBe(28);
  });

  it('turns Go nil slices (null) into empty arrays', async () => {
    win.go = {
      app: {
        App: {
          ListClusters: async () => null,
          Timeline: async () => ({ from_ms: 1, to_ms: 2, extent: { min_ms: 0, max_ms: 0 }, bars: null, gaps: null, lanes: null }),
        },
      },
    };
    expect(await api.listClusters()).toEqual([]);
    const tl = await api.timeline({ cluster: 'c', job: 'j', from_ms: 0, to_ms: 0, width_px: 100 });
    expect(tl.bars).toEqual([]);
    expect(tl.gaps).toEqual([]);
    expect(tl.lanes).toEqual({ backpressure: [], size: [], commit: [], custom: [] });
  });

  it('gives the commit and custom lanes arrays too, in the order sent', async () => {
    const p = { t_ms: 5, value: 1900 };
    win.go = {
      app: {
        App: {
          // lanes is omitempty in Go: left out when there are none, never null.
          ListClusters: async () => [{ name: 'a' }, { name: 'b', lanes: [{ name: 'Lag', promql: 'up' }] }],
          Timeline: async () => ({
            from_ms: 1,
            to_ms: 2,
            extent: { min_ms: 0, max_ms: 0 },
            bars: [],
            gaps: [],
            lanes: { backpressure: null, size: null, commit: [p], custom: [{ name: 'Lag', points: null }, { name: 'Out', points: [p] }] },
          }),
        },
      },
    };
    expect((await api.listClusters()).map((s) => s.lanes)).toEqual([undefined, [{ name: 'Lag', promql: 'up' }]]);
    const tl = await api.timeline({ cluster: 'c', job: 'j', from_ms: 0, to_ms: 0, width_px: 100 });
    expect(tl.lanes).toEqual({
      backpressure: [],
      size: [],
      commit: [p],
      custom: [
        { name: 'Lag', points: [] },
        { name: 'Out', points: [p] },
      ],
    });
  });

  it('empties the null slices and maps Go sends at any depth, and leaves omitted fields and null pointers alone', async () => {
    const spearman = { rho: null, n: 0, p: null };
    win.go = {
      app: {
        App: {
          Report: async () => ({
            job: { id: 'j', name: 'n', engine: 'flink' },
            phases_available: null,
            notes: null,
            note_parts: null,
            checkpoints: [{ id: 1, status: 'FAILED', failure: { signature: 's', message: 'm', basis: 'b', basis_parts: null } }],
            failures: [{ signature: 's', checkpoint_ids: null, vertices: null }],
            slow_phases: null,
            slow_checkpoints: [{ phase: 'sync', checkpoint_ids: null }],
            correlation: { backpressure: spearman, alignment_backpressure: spearman, checkpointed_size: spearman, verdict: 'inconclusive', reason: 'r', reason_parts: null },
            summary: { total: 0, slowest: null },
          }),
          Checkpoint: async () => ({ id: 2, vertex_names: null }),
          Heatmap: async () => ({ kind: 'failure', failure: { buckets: { start_ms: 0, width_ms: 1, count: 1 }, rows: [{ signature: 's', cells: [{ bucket: 0, count: 1, checkpoint_ids: null }] }] } }),
          CheckpointView: async () => ({ checkpoint: { id: 3, vertex_names: null }, analysis: { id: 3, phases: {} }, subtasks: null, phases_available: null, notes: null, note_parts: null, vertices: null, edges: null }),
        },
      },
    };
    const r = await api.report('c', 'j', 0, 0);
    expect([r.phases_available, r.notes, r.note_parts, r.slow_phases]).toEqual([[], [], [], []]);
    expect(r.checkpoints[0].failure?.basis_parts).toEqual([]);
    expect(r.checkpoints[0].causes).toBeUndefined(); // omitempty: absent means none
    expect(r.failures[0]).toMatchObject({ checkpoint_ids: [], vertices: [] });
    expect(r.slow_checkpoints[0].checkpoint_ids).toEqual([]);
    expect(r.correlation.reason_parts).toEqual([]);
    expect(r.correlation.backpressure.rho).toBeNull(); // a pointer: null stays null
    expect(r.summary.slowest).toEqual([]);
    expect((await api.checkpoint('c', 'j', 0, 2)).vertex_names).toEqual({});
    const h = await api.heatmap({ cluster: 'c', job: 'j', kind: 'failure', from_ms: 0, to_ms: 0, buckets: 1 });
    expect(h.failure?.rows[0].cells[0].checkpoint_ids).toEqual([]);
    expect(h.phase).toBeUndefined();
    const v = await api.checkpointView('c', 'j', 0, 3);
    expect([v.subtasks, v.phases_available, v.notes, v.note_parts, v.vertices, v.edges]).toEqual([[], [], [], [], [], []]);
    expect(v.checkpoint.vertex_names).toEqual({});
    expect(v.analysis.failure).toBeUndefined();
  });

  it("keeps the backend's error text whether Wails rejects with a string or the bridge with an Error", async () => {
    win.go = {
      app: {
        App: {
          ListJobs: () => Promise.reject('app: list jobs of "x": unknown cluster'),
          Retention: () => Promise.reject(new Error('store: stat cache: no such file')),
        },
      },
    };
    await expect(api.listJobs('x')).rejects.toThrow('app: list jobs of "x": unknown cluster');
    const err = await api.retention().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.method).toBe('Retention');
    expect(err.message).toBe('store: stat cache: no such file');
  });

  it('names a method the backend does not have', async () => {
    win.go = { app: { App: {} } };
    await expect(api.version()).rejects.toThrow('backend has no method Version');
  });
});

describe('uploadCapture', () => {
  const result = { sources: ['capture-1'], jobs: 1, checkpoints: 7, ack_samples: 0, metric_samples: 0, gaps: 0, skipped: 0 };

  it('posts the raw file with its name and returns the import result', async () => {
    const fetchFn = vi.fn(async () => new Response(JSON.stringify(result), { status: 200 }));
    const body = new Blob(['{"format":"ce"}\n']);
    expect(await uploadCapture(body, 'my run #1.ce.gz', fetchFn as typeof fetch)).toEqual(result);
    const [url, init] = fetchFn.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('./upload?name=my%20run%20%231.ce.gz');
    expect(init.method).toBe('POST');
    expect(init.body).toBe(body);
    expect(init.credentials).toBe('same-origin');
  });

  it("shows the server's error and status", async () => {
    const fetchFn = async () =>
      new Response(JSON.stringify({ error: 'capture: line 3: unknown format "x"' }), { status: 400 });
    await expect(uploadCapture(new Blob(['x']), 'a.gz', fetchFn as typeof fetch)).rejects.toThrow(
      'upload a.gz: capture: line 3: unknown format "x" (HTTP 400)',
    );
  });

  it('reports a non-JSON failure as text', async () => {
    const fetchFn = async () => new Response('request entity too large', { status: 413 });
    await expect(uploadCapture(new Blob(['x']), 'big.gz', fetchFn as typeof fetch)).rejects.toThrow(
      'upload big.gz: request entity too large (HTTP 413)',
    );
  });

  it('reports a network failure', async () => {
    const fetchFn = async () => {
      throw new TypeError('Failed to fetch');
    };
    await expect(uploadCapture(new Blob(['x']), 'a.gz', fetchFn as typeof fetch)).rejects.toThrow(
      'upload a.gz: Failed to fetch',
    );
  });
});

describe('on', () => {
  it('subscribes once per event name and fans out to every listener', async () => {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const EventsOn = vi.fn((name: string, cb: (...d: unknown[]) => void) => void handlers.set(name, cb));
    win.runtime = { EventsOn, EventsOff: vi.fn() };
    win.go = { app: { App: {} } };
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = on('health', (p) => a.push(p));
    on('health', (p) => b.push(p));
    expect(EventsOn).toHaveBeenCalledTimes(1);
    handlers.get('health')!({ cluster: 'c', state: 'error', last_error: 'refused' });
    offA();
    handlers.get('health')!({ cluster: 'c', state: 'ok', last_error: '' });
    expect(a).toEqual([{ cluster: 'c', state: 'error', last_error: 'refused' }]);
    expect(b.length).toBe(2);
  });
});
