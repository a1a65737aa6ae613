import { describe, expect, it } from 'vitest';
import { FLEET_VIEW, forJob, formatHash, formatRef, isBlankHash, parseHash, parseRef, switchView, type Route } from './route';

describe('routes of the views', () => {
  it.each([
    ['#/heatmap?cluster=c&job=j&from=1000&to=2000&kind=failure', { view: 'heatmap', cluster: 'c', job: 'j', from: 1000, to: 2000, kind: 'failure' }],
    ['#/checkpoint?cluster=c&job=j&id=97&pipeline=2', { view: 'checkpoint', cluster: 'c', job: 'j', id: 97, pipeline: 2 }],
    ['#/compare?cluster=c&job=j&a=28&b=3%402', { view: 'compare', cluster: 'c', job: 'j', a: '28', b: '3@2' }],
    // A before/after: its moment and window (0: up to the neighbouring changes).
    ['#/compare?cluster=c&job=j&at=1767226200000&win=0', { view: 'compare', cluster: 'c', job: 'j', at: 1767226200000, win: 0 }],
    // A range needs both ends, in order; junk numbers are dropped.
    ['#/job?cluster=c&job=j&from=2000&to=1000', { view: 'job', cluster: 'c', job: 'j' }],
    ['#/job?cluster=c&job=j&from=1000', { view: 'job', cluster: 'c', job: 'j' }],
    ['#/checkpoint?cluster=c&job=j&id=x', { view: 'checkpoint', cluster: 'c', job: 'j' }],
  ])('parses %s', (hash, want) => {
    expect(parseHash(hash)).toStrictEqual(want);
  });

  it('round-trips every parameter and rounds the range outwards to whole ms', () => {
    const r: Route = { view: 'heatmap', cluster: 'prod/flink #1', job: 'a?b', from: 1000, to: 2000, kind: 'vertex', phase: 'alignment' };
    expect(parseHash(formatHash(r))).toStrictEqual(r);
    expect(parseHash(formatHash({ view: 'job', cluster: 'c', job: 'j', from: 10.7, to: 20.2 }))).toMatchObject({ from: 10, to: 21 });
  });

  it('round-trips a before/after and leaves a window without its moment out', () => {
    const r: Route = { view: 'compare', cluster: 'c', job: 'j', at: 1767226200000, win: 3_600_000 };
    expect(formatHash(r)).toBe('#/compare?cluster=c&job=j&at=1767226200000&win=3600000');
    expect(parseHash(formatHash(r))).toStrictEqual(r);
    expect(formatHash({ view: 'compare', cluster: 'c', job: 'j', win: 900_000 })).toBe('#/compare?cluster=c&job=j');
  });

  it('leaves pipeline 0 out of the address', () => {
    expect(formatHash({ view: 'checkpoint', cluster: 'c', job: 'j', id: 5, pipeline: 0 })).toBe('#/checkpoint?cluster=c&job=j&id=5');
  });
});

describe('checkpoint refs', () => {
  it.each([
    [{ id: 28, pipeline: 0 }, '28'],
    [{ id: 3, pipeline: 2 }, '3@2'],
    [{ id: 9223372036854, pipeline: 1 }, '9223372036854@1'],
  ])('%j ↔ %s', (ref, s) => {
    expect(formatRef(ref)).toBe(s);
    expect(parseRef(s)).toEqual(ref);
  });

  it.each(['', 'abc', '3@', '@2', '-1', '1.5'])('rejects %j', (s) => {
    expect(parseRef(s)).toBeUndefined();
  });
});

describe('switching', () => {
  const cur: Route = { view: 'checkpoint', cluster: 'c', job: 'j', from: 1, to: 9, id: 97, pipeline: 1, a: '1', b: '2', kind: 'vertex', phase: 'sync', at: 5, win: 0 };

  it('keeps the range and drops the previous view\'s parameters when switching views', () => {
    expect(switchView(cur, 'heatmap', { kind: 'failure' })).toStrictEqual({ view: 'heatmap', cluster: 'c', job: 'j', from: 1, to: 9, kind: 'failure' });
    expect(switchView(cur, 'job')).toStrictEqual({ view: 'job', cluster: 'c', job: 'j', from: 1, to: 9 });
  });

  it('forgets the range and checkpoints when choosing another job, keeping job-level views', () => {
    expect(forJob(cur, 'c2', 'j2')).toStrictEqual({ view: 'job', cluster: 'c2', job: 'j2' });
    expect(forJob({ ...cur, view: 'heatmap' }, 'c2', 'j2')).toStrictEqual({ view: 'heatmap', cluster: 'c2', job: 'j2', kind: 'vertex', phase: 'sync' });
    expect(forJob({ ...cur, view: 'retention' }, 'c2', '')).toStrictEqual({ view: 'retention', cluster: 'c2', job: '' });
    expect(forJob({ ...cur, view: 'compare' }, 'c', 'j3').view).toBe('job');
    // A job opened from the fleet opens on its timeline.
    expect(forJob({ view: FLEET_VIEW, cluster: 'c', job: '' }, 'c2', 'j2')).toStrictEqual({ view: 'job', cluster: 'c2', job: 'j2' });
  });
});

describe('the first screen', () => {
  it.each([
    ['', true],
    ['#', true],
    ['#/', true],
    ['#//', true],
    ['#/fleet', false],
    ['#/job?cluster=c&job=j', false],
    ['#?cluster=c', false],
  ])('%j names no view: %s', (hash, blank) => {
    expect(isBlankHash(hash)).toBe(blank);
  });
});
