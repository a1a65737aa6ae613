import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SinkCommit } from './api';
import { commitDuration, commitFacts, commitLine, commitShared } from './commit';
import { formatDateTime } from './format';
import { i18n, t } from './i18n.svelte';

beforeEach(() => i18n.set('en'));
afterEach(() => i18n.set('en'));

const at = new Date(2026, 4, 27, 10, 2, 3).getTime();
const slow: SinkCommit = { at_ms: at, duration_ms: 1900, files: 8, records: 8869, committables: 8, checkpoints: 2 };

describe('commitDuration', () => {
  it('gives the exact milliseconds, and the compact span from a second on', () => {
    expect(commitDuration(326, 'en-US')).toBe('326 ms');
    expect(commitDuration(1900, 'en-US')).toBe('1,900 ms (1.9 sec)');
    expect(commitDuration(1900, 'zh-CN')).toBe('1,900毫秒 (1.9秒)');
  });
});

describe('commitFacts', () => {
  it('lists what is present, in order', () => {
    expect(commitFacts(slow, t, 'en-US')).toEqual([
      { kind: 'duration', label: 'Commit duration', value: '1,900 ms (1.9 sec)' },
      { kind: 'files', label: 'Files committed', value: '8' },
      { kind: 'records', label: 'Records committed', value: '8,869' },
      { kind: 'committables', label: 'Committables', value: '8' },
      { kind: 'seenAt', label: 'Sampled at', value: formatDateTime(at, 'en-US') },
    ]);
  });

  it('leaves out what the committer did not report', () => {
    expect(commitFacts({ at_ms: at, committables: 0, checkpoints: 1 }, t, 'en-US').map((f) => f.kind)).toEqual(['committables', 'seenAt']);
  });
});

describe('commitShared', () => {
  it('speaks only when several checkpoints share the window', () => {
    expect(commitShared({ ...slow, checkpoints: 1 }, t, 'en-US')).toBeUndefined();
    expect(commitShared(slow, t, 'en-US')).toBe('Shared by 2 checkpoints (sampled every 10 s): the counts are theirs together.');
    i18n.set('zh');
    expect(commitShared(slow, t, 'zh-CN')).toBe('由 2 个检查点共享（每 10 秒采样一次）：这些计数是它们的合计。');
  });
});

describe('commitLine', () => {
  it('says the commit in one line', () => {
    expect(commitLine({ ...slow, checkpoints: 1 }, t, 'en-US')).toBe('1,900 ms (1.9 sec) · Files committed 8 · Records committed 8,869 · Committables 8');
    expect(commitLine({ at_ms: at, files: 3, checkpoints: 1 }, t, 'en-US')).toBe('no duration reported · Files committed 3');
    expect(commitLine(slow, t, 'en-US')).toMatch(/ · Shared by 2 checkpoints /);
  });
});
