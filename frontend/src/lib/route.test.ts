import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, formatHash, parseHash } from './route';

describe('route', () => {
  it.each([
    ['', { view: DEFAULT_VIEW, cluster: '', job: '' }],
    ['#', { view: DEFAULT_VIEW, cluster: '', job: '' }],
    ['#/job?cluster=sample&job=469237c0', { view: 'job', cluster: 'sample', job: '469237c0' }],
    ['#/heatmap/?cluster=a%20b%26c&job=x', { view: 'heatmap', cluster: 'a b&c', job: 'x' }],
  ])('parses %j', (hash, want) => {
    expect(parseHash(hash)).toEqual(want);
  });

  it('round-trips names with reserved characters', () => {
    const r = { view: 'job', cluster: 'prod/flink #1 (集群)', job: 'a?b=c&d' };
    expect(parseHash(formatHash(r))).toEqual(r);
  });

  it('omits empty parameters', () => {
    expect(formatHash({ view: 'job', cluster: '', job: '' })).toBe('#/job');
    expect(formatHash({ view: '', cluster: 'c', job: '' })).toBe(`#/${DEFAULT_VIEW}?cluster=c`);
  });
});
