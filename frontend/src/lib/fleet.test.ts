import { describe, expect, it } from 'vitest';
import type { FleetJob } from './api';
import {
  attentionCounts,
  filterFleet,
  fleetWindow,
  moveSelection,
  nextSort,
  NO_FILTER,
  oneAtATime,
  p90Text,
  revealScroll,
  rowKey,
  rowWindow,
  shortId,
  sinceText,
  sortFleet,
  sparkShape,
  type FleetColumn,
} from './fleet';

// A fake t: the key and its options, so the words the functions choose are visible.
const t = (key: string, opts?: Record<string, unknown>) => (opts ? `${key}(${Object.values(opts).join(',')})` : key);

function row(p: Partial<FleetJob> & Pick<FleetJob, 'cluster' | 'job_id' | 'name' | 'attention'>): FleetJob {
  return {
    engine: 'flink',
    state: 'RUNNING',
    window_end_ms: 10_000_000,
    completed: 0,
    failed: 0,
    expired: 0,
    in_progress: 0,
    missed: 0,
    p50_ms: null,
    p90_ms: null,
    baseline_p90_ms: null,
    since_ms: null,
    latest_failure: '',
    verdict: 'healthy',
    sparkline: [],
    ...p,
  };
}

// Five jobs in the backend's order (docs/fleet.md): failing, slow, slower than usual, healthy,
// then the two without data — one with no checkpoint at all, one whose only checkpoint is in
// progress (no_data: nothing completed or failed).
const failing = row({
  cluster: 'prod', job_id: '7a19c62c2fd77d69e40a9754f5e28fe4', name: 'orders', attention: 'failing',
  completed: 17, failed: 3, expired: 3, p50_ms: 40, p90_ms: 1900, baseline_p90_ms: 400, since_ms: 9_000_000,
  latest_failure: 'Checkpoint expired before completing.', verdict: 'inconclusive',
  sparkline: [{ trigger_ms: 9_000_000, ms: 40 }, { trigger_ms: 9_100_000, ms: 600_000, failed: true }],
});
const slow = row({
  cluster: 'prod', job_id: 'ffee00112233445566778899aabbccdd', name: 'clicks', attention: 'slow',
  completed: 10, missed: 2, p50_ms: 6000, p90_ms: 8000, since_ms: 9_500_000, verdict: 'backpressure',
  sparkline: [{ trigger_ms: 9_600_000, ms: 8000 }],
});
const slower = row({
  cluster: 'zeta', engine: 'seatunnel', job_id: '870213338743619585', name: 'mysql-to-doris', attention: 'slower_than_usual',
  completed: 20, failed: 1, p50_ms: 2000, p90_ms: 2500, baseline_p90_ms: 1000, since_ms: 9_200_000, verdict: 'storage',
  latest_failure: 'CheckpointCoordinator: checkpoint N timed out', sparkline: [{ trigger_ms: 9_700_000, ms: 2500 }],
});
const healthy = row({
  cluster: 'sample', job_id: '469237c073b0c1ea872fc0403694fc68', name: 'cdc', attention: 'healthy', state: 'FINISHED',
  completed: 7, missed: 5, p50_ms: 47, p90_ms: 54, baseline_p90_ms: 50, sparkline: [{ trigger_ms: 9_800_000, ms: 26 }],
});
const empty = row({ cluster: 'capture: old', job_id: 'aaaa0000bbbb1111cccc2222dddd3333', name: 'nightly', attention: 'no_data', state: '' });
const running = row({ cluster: 'prod', job_id: 'bbbb0000bbbb1111cccc2222dddd3333', name: '', attention: 'no_data', in_progress: 1 });
const API_ORDER = [failing, slow, slower, healthy, empty, running];

const names = (rows: FleetJob[]) => rows.map((r) => r.name || r.job_id.slice(0, 4));

describe('sortFleet', () => {
  it('keeps the backend order without a sort, in a new array', () => {
    const out = sortFleet(API_ORDER, null);
    expect(names(out)).toEqual(['orders', 'clicks', 'mysql-to-doris', 'cdc', 'nightly', 'bbbb']);
    expect(out).not.toBe(API_ORDER);
  });

  // Worked out by hand from the rows above; unknown values (null, no failure) last both ways,
  // ties in the backend's order.
  it.each<[FleetColumn, boolean, string[]]>([
    ['p90', false, ['cdc', 'orders', 'mysql-to-doris', 'clicks', 'nightly', 'bbbb']],
    ['p90', true, ['clicks', 'mysql-to-doris', 'orders', 'cdc', 'nightly', 'bbbb']],
    ['p50', false, ['orders', 'cdc', 'mysql-to-doris', 'clicks', 'nightly', 'bbbb']],
    ['since', false, ['orders', 'mysql-to-doris', 'clicks', 'cdc', 'nightly', 'bbbb']],
    ['since', true, ['clicks', 'mysql-to-doris', 'orders', 'cdc', 'nightly', 'bbbb']],
    ['failed', true, ['orders', 'mysql-to-doris', 'clicks', 'cdc', 'nightly', 'bbbb']],
    ['completed', false, ['nightly', 'bbbb', 'cdc', 'clicks', 'orders', 'mysql-to-doris']],
    ['missed', true, ['cdc', 'clicks', 'orders', 'mysql-to-doris', 'nightly', 'bbbb']],
    ['expired', true, ['orders', 'clicks', 'mysql-to-doris', 'cdc', 'nightly', 'bbbb']],
    ['attention', true, ['nightly', 'bbbb', 'cdc', 'mysql-to-doris', 'clicks', 'orders']],
    ['attention', false, ['orders', 'clicks', 'mysql-to-doris', 'cdc', 'nightly', 'bbbb']],
    ['cluster', false, ['nightly', 'orders', 'clicks', 'bbbb', 'cdc', 'mysql-to-doris']],
    ['engine', true, ['mysql-to-doris', 'orders', 'clicks', 'cdc', 'nightly', 'bbbb']],
    // A job without a name sorts by its id.
    ['name', false, ['bbbb', 'cdc', 'clicks', 'mysql-to-doris', 'nightly', 'orders']],
    // The state "" of a job the cache knows no state of is unknown.
    ['state', false, ['cdc', 'orders', 'clicks', 'mysql-to-doris', 'bbbb', 'nightly']],
    ['failure', false, ['orders', 'mysql-to-doris', 'clicks', 'cdc', 'nightly', 'bbbb']],
    ['verdict', false, ['clicks', 'cdc', 'nightly', 'bbbb', 'orders', 'mysql-to-doris']],
    // The newest point of the sparkline; none without one.
    ['recent', true, ['orders', 'clicks', 'mysql-to-doris', 'cdc', 'nightly', 'bbbb']],
  ])('by %s (descending: %s)', (column, desc, want) => {
    expect(names(sortFleet(API_ORDER, { column, desc }))).toEqual(want);
  });

  it('clicks on a header go ascending, descending, then back to the backend order', () => {
    let s = nextSort(null, 'p90');
    expect(s).toEqual({ column: 'p90', desc: false });
    s = nextSort(s, 'p90');
    expect(s).toEqual({ column: 'p90', desc: true });
    expect(nextSort(s, 'p90')).toBeNull();
    expect(nextSort(s, 'name')).toEqual({ column: 'name', desc: false });
  });
});

describe('filterFleet', () => {
  it.each<[string, Partial<typeof NO_FILTER>, string[]]>([
    ['nothing', {}, ['orders', 'clicks', 'mysql-to-doris', 'cdc', 'nightly', 'bbbb']],
    ['text in a name, any case', { text: '  ORD ' }, ['orders']],
    ['text in an id', { text: '8702133' }, ['mysql-to-doris']],
    ['text in a cluster', { text: 'capture:' }, ['nightly']],
    ['a cluster', { cluster: 'prod' }, ['orders', 'clicks', 'bbbb']],
    ['an engine', { engine: 'seatunnel' }, ['mysql-to-doris']],
    ['one attention', { attention: 'no_data' }, ['nightly', 'bbbb']],
    ['those needing attention', { attention: 'needs' }, ['orders', 'clicks', 'mysql-to-doris']],
    ['all at once', { text: 'cl', cluster: 'prod', attention: 'needs' }, ['clicks']],
  ])('by %s', (_, f, want) => {
    expect(names(filterFleet(API_ORDER, { ...NO_FILTER, ...f }))).toEqual(want);
  });

  it('counts each attention', () => {
    expect(attentionCounts(API_ORDER)).toEqual({ failing: 1, slow: 1, slower_than_usual: 1, healthy: 1, no_data: 2 });
  });
});

describe('the selection', () => {
  const keys = API_ORDER.slice(0, 3).map(rowKey);

  it('names a row by cluster and job id', () => {
    expect(rowKey(failing)).toBe('prod\u00007a19c62c2fd77d69e40a9754f5e28fe4');
  });

  it('moves by a row, stopping at the ends, from the first or last when none is shown', () => {
    expect(moveSelection(keys, '', 1)).toBe(keys[0]);
    expect(moveSelection(keys, 'gone', -1)).toBe(keys[2]);
    expect(moveSelection(keys, keys[0], 1)).toBe(keys[1]);
    expect(moveSelection(keys, keys[2], 1)).toBe(keys[2]);
    expect(moveSelection(keys, keys[0], -1)).toBe(keys[0]);
    expect(moveSelection([], keys[0], 1)).toBe('');
  });
});

describe('the words of the columns', () => {
  it('shows the p90 with the usual p90 beside it, when the baseline has one', () => {
    expect(p90Text(failing, 'en-GB', t)).toEqual({ value: '1.9 secs', usual: 'fleet.usually(400 ms)' });
    expect(p90Text(slow, 'en-GB', t)).toEqual({ value: '8 secs', usual: '' });
    expect(p90Text(empty, 'en-GB', t)).toEqual({ value: '—', usual: '' });
    expect(p90Text({ p90_ms: 61_000, baseline_p90_ms: 12_500 }, 'zh-CN', t)).toEqual({ value: '1分钟 1秒', usual: 'fleet.usually(12.5秒)' });
  });

  it('says since when, relative to now and as a local date (en-GB, zh-CN)', () => {
    const since = Date.UTC(2026, 5, 15, 12, 0, 0);
    const local = new Date(since);
    const hh = String(local.getHours()).padStart(2, '0');
    const mm = String(local.getMinutes()).padStart(2, '0');
    const day = local.getDate();
    // To the minute from a minute on; to the second below.
    expect(sinceText(since, since + 12 * 60_000 + 5000, 'en-GB', t)).toEqual({
      ago: 'fleet.ago(12 mins)',
      at: `${day} Jun 2026 ${hh}:${mm}:00`,
    });
    expect(sinceText(since, since + 2 * 3_600_000, 'zh-CN', t)).toEqual({ ago: 'fleet.ago(2小时)', at: `2026年6月${day}日 ${hh}:${mm}:00` });
    expect(sinceText(since, since + 3_600_000 + 5 * 60_000 + 59_000, 'en-GB', t).ago).toBe('fleet.ago(1 hr, 5 mins)');
    expect(sinceText(since, since + 40_900, 'en-GB', t).ago).toBe('fleet.ago(40 secs)');
    // A clock behind the data says 0, never a negative time.
    expect(sinceText(since, since - 1000, 'en-GB', t).ago).toBe('fleet.ago(0 ms)');
    expect(sinceText(null, since, 'en-GB', t)).toEqual({ ago: '', at: '' });
  });

  it('shortens an id to 8 characters', () => {
    expect(shortId('7a19c62c2fd77d69e40a9754f5e28fe4')).toBe('7a19c62c…');
    expect(shortId('1234')).toBe('1234');
  });

  it('keeps a remembered window only when it is one of the choices', () => {
    expect(fleetWindow(15 * 60_000)).toBe(15 * 60_000);
    expect(fleetWindow(24 * 3_600_000)).toBe(24 * 3_600_000);
    expect(fleetWindow(42)).toBe(3_600_000);
    expect(fleetWindow('900000')).toBe(3_600_000);
    expect(fleetWindow(undefined)).toBe(3_600_000);
  });
});

describe('sparkShape', () => {
  it('lays the points out by trigger time and duration, from 0 at the bottom', () => {
    const s = sparkShape([{ trigger_ms: 1000, ms: 0 }, { trigger_ms: 1010, ms: 100, failed: true }, { trigger_ms: 1020, ms: 50 }], 22, 12, 1);
    expect(s.line).toBe('1,11 11,1 21,6');
    expect(s.dots.map((d) => d.failed)).toEqual([false, true, false]);
    expect(s.maxMs).toBe(100);
  });

  it('puts a lone point in the middle; nothing without points', () => {
    expect(sparkShape([{ trigger_ms: 5, ms: 7 }], 20, 10, 2).line).toBe('10,2');
    expect(sparkShape([], 20, 10)).toEqual({ line: '', dots: [], maxMs: 0 });
  });
});

describe('rowWindow', () => {
  it('renders the rows in view and the overscan each side, within the table', () => {
    expect(rowWindow(2000, 40, 0, 400, 10)).toEqual([0, 20]);
    expect(rowWindow(2000, 40, 4000, 400, 10)).toEqual([90, 120]);
    expect(rowWindow(2000, 40, 79_800, 400, 10)).toEqual([1985, 2000]);
    // The table starts below the view's top: from the first row.
    expect(rowWindow(2000, 40, -300, 400, 10)).toEqual([0, 13]);
    expect(rowWindow(4, 40, 0, 900, 10)).toEqual([0, 4]);
    expect(rowWindow(0, 40, 0, 900, 10)).toEqual([0, 0]);
  });
});

describe('revealScroll', () => {
  it('moves as little as it can to show the row below the sticky header', () => {
    // In view: stays.
    expect(revealScroll(400, 300, 500, 40, 30)).toBe(400);
    // Above (or under the header): its top just below the header.
    expect(revealScroll(400, 300, 410, 40, 30)).toBe(380);
    expect(revealScroll(400, 300, 100, 40, 30)).toBe(70);
    expect(revealScroll(10, 300, 20, 40, 30)).toBe(0);
    // Below: its bottom at the view's bottom.
    expect(revealScroll(400, 300, 690, 40, 30)).toBe(430);
  });
});

describe('oneAtATime', () => {
  it('never overlaps loads, and runs once more after one for the calls that came meanwhile', async () => {
    const ends: (() => void)[] = [];
    let started = 0;
    const run = oneAtATime(() => {
      started++;
      return new Promise<void>((res) => ends.push(res));
    });
    run();
    run();
    run();
    expect(started).toBe(1);
    ends[0]();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toBe(2);
    ends[1]();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toBe(2);
    // A failed load does not stop the next.
    const failing = oneAtATime(() => {
      started++;
      return Promise.reject(new Error('no'));
    });
    failing();
    await new Promise((r) => setTimeout(r, 0));
    failing();
    expect(started).toBe(4);
  });
});
