import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SourceView, TraceJob, TracesResult } from './api';
import { fromTraces, hasTraces, jobIdProblem, parseJobId, traceJobLine, tracesSummary } from './traces';
import { fromLog } from './jmlog';
import { i18n, t } from './i18n.svelte';

beforeEach(() => i18n.set('en'));
afterEach(() => i18n.set('en'));

function res(p: Partial<TracesResult>): TracesResult {
  return { read: 0, added: 0, details_filled: 0, resolved: 0, windows: 1, requests: 1, incomplete_windows: 0, ...p };
}

describe('fromTraces', () => {
  it('is true only for a record read from the traces', () => {
    expect(fromTraces({ source: 'traces' })).toBe(true);
    expect(fromTraces({ source: 'jobmanager_log' })).toBe(false);
    expect(fromTraces({})).toBe(false);
    expect(fromTraces(null)).toBe(false);
    expect(fromTraces(undefined)).toBe(false);
    // and the JobManager log's mark is not the traces'
    expect(fromLog({ source: 'traces' })).toBe(false);
  });
});

describe('hasTraces', () => {
  const src = (p: Partial<SourceView>) =>
    ({ kind: 'cluster', engine: 'flink', read_only: false, traces_url: 'http://localhost:16686', ...p }) as SourceView;

  it('is true for a polled Flink cluster with a traces URL', () => {
    expect(hasTraces(src({}))).toBe(true);
  });

  it('is false without a URL, for SeaTunnel, a capture, the sample or a read-only source', () => {
    expect(hasTraces(src({ traces_url: undefined }))).toBe(false);
    expect(hasTraces(src({ traces_url: '  ' }))).toBe(false);
    expect(hasTraces(src({ engine: 'seatunnel' }))).toBe(false);
    expect(hasTraces(src({ kind: 'capture' }))).toBe(false);
    expect(hasTraces(src({ kind: 'sample' }))).toBe(false);
    expect(hasTraces(src({ read_only: true }))).toBe(false);
    expect(hasTraces(undefined)).toBe(false);
    expect(hasTraces(null)).toBe(false);
  });
});

describe('tracesSummary', () => {
  it('added and filled: both, then the requests', () => {
    expect(tracesSummary(res({ read: 40, added: 12, details_filled: 3, requests: 5 }), t, 'en-US')).toEqual({
      text: '12 checkpoints added from traces, 3 gained subtask details (5 requests)',
      changed: true,
    });
  });

  it('one of each, singular', () => {
    expect(tracesSummary(res({ read: 1, added: 1, details_filled: 1, requests: 1 }), t, 'en-US').text).toBe(
      '1 checkpoint added from traces, 1 gained subtask details (1 request)',
    );
  });

  it('added only, with the locale’s digit grouping', () => {
    expect(tracesSummary(res({ read: 2000, added: 1234, requests: 17 }), t, 'en-US').text).toBe('1,234 checkpoints added from traces (17 requests)');
  });

  it('details only', () => {
    expect(tracesSummary(res({ read: 9, details_filled: 3, requests: 2 }), t, 'en-US')).toEqual({
      text: '3 checkpoints gained subtask details from traces (2 requests)',
      changed: true,
    });
    expect(tracesSummary(res({ details_filled: 1, requests: 2 }), t, 'en-US').text).toBe('1 checkpoint gained subtask details from traces (2 requests)');
  });

  it('checkpoints left in progress that the traces ended, alone and after the others', () => {
    expect(tracesSummary(res({ resolved: 1, requests: 1 }), t, 'en-US')).toEqual({
      text: '1 left in progress got its end (1 request)',
      changed: true,
    });
    expect(tracesSummary(res({ added: 2, details_filled: 1, resolved: 3, requests: 4 }), t, 'en-US').text).toBe(
      '2 checkpoints added from traces, 1 gained subtask details, 3 left in progress got their end (4 requests)',
    );
  });

  it('nothing missing', () => {
    expect(tracesSummary(res({ read: 40, requests: 3 }), t, 'en-US')).toEqual({
      text: 'Nothing missing: the traces hold no checkpoint the cache lacks (3 requests)',
      changed: false,
    });
  });

  it('carries the backend’s warning, trimmed; a blank one is none', () => {
    const warning = '2 time ranges were not read whole (at most 64 requests per read)';
    expect(tracesSummary(res({ added: 5, requests: 64, incomplete_windows: 2, warning: ` ${warning} ` }), t, 'en-US')).toEqual({
      text: '5 checkpoints added from traces (64 requests)',
      warning,
      changed: true,
    });
    expect(tracesSummary(res({ warning: '  ' }), t, 'en-US')).not.toHaveProperty('warning');
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    expect(tracesSummary(res({ added: 12, details_filled: 3, requests: 5 }), t, 'zh-CN').text).toBe('从链路追踪补入 12 个检查点，3 个补全了子任务详情（5 次请求）');
    expect(tracesSummary(res({ details_filled: 3, requests: 2 }), t, 'zh-CN').text).toBe('3 个检查点从链路追踪补全了子任务详情（2 次请求）');
    expect(tracesSummary(res({ requests: 1 }), t, 'zh-CN').text).toBe('没有缺失：链路追踪中没有缓存缺少的检查点（1 次请求）');
  });
});

describe('job ids', () => {
  const id = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

  it('takes 32 hexadecimal digits, trimmed and lower-cased', () => {
    expect(parseJobId(id)).toBe(id);
    expect(parseJobId(`  ${id}\n`)).toBe(id);
    expect(parseJobId('A1B2C3D4E5F60718293A4B5C6D7E8F90')).toBe(id);
    expect(jobIdProblem(id)).toBeNull();
  });

  it('takes a SeaTunnel job id, a number', () => {
    expect(parseJobId(' 870213338743619585 ')).toBe('870213338743619585');
    expect(jobIdProblem('870213338743619585')).toBeNull();
  });

  it.each([
    ['', 'traces.err.jobIdRequired'],
    ['   ', 'traces.err.jobIdRequired'],
    [id.slice(1), 'traces.err.jobId'], // 31 digits
    [id + '0', 'traces.err.jobId'], // 33
    ['g1b2c3d4e5f60718293a4b5c6d7e8f90', 'traces.err.jobId'], // g is not hexadecimal
    ['a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90', 'traces.err.jobId'], // a UUID's dashes
    ['8702133387436195851234', 'traces.err.jobId'], // a number longer than SeaTunnel's
  ])('%j: %s', (text, key) => {
    expect(parseJobId(text)).toBeNull();
    expect(jobIdProblem(text)).toBe(key);
  });
});

describe('traceJobLine', () => {
  const latest = new Date(2026, 4, 27, 10, 2, 3, 456).getTime();
  const job = (p: Partial<TraceJob>): TraceJob => ({
    id: 'ffee00112233445566778899aabbccdd',
    name: 'clickstream-sessionize',
    checkpoints: 1234,
    first_trigger_ms: latest - 86_400_000,
    latest_trigger_ms: latest,
    cached: false,
    ...p,
  });

  it('gives the name, the count and the latest time in the user’s locale', () => {
    expect(traceJobLine(job({}), 'en-US')).toEqual({
      id: 'ffee00112233445566778899aabbccdd',
      name: 'clickstream-sessionize',
      checkpoints: '1,234',
      latest: '05/27/2026, 10:02:03.456',
      cached: false,
    });
    expect(traceJobLine(job({ cached: true }), 'de-DE')).toMatchObject({ checkpoints: '1.234', latest: '27.05.2026, 10:02:03,456', cached: true });
  });

  it('names the job by its id when the spans give no name, and has no time without one', () => {
    expect(traceJobLine(job({ name: ' ', latest_trigger_ms: 0 }), 'en-US')).toMatchObject({ name: 'ffee00112233445566778899aabbccdd', latest: '—' });
  });
});
