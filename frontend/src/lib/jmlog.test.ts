import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Decline, JobManagerLogState } from './api';
import { declinedText, declinedTitle, declinedWho, finalizeNote, fromLog, jobManagerLogLine, REASON_MAX } from './jmlog';
import { i18n, t } from './i18n.svelte';

beforeEach(() => i18n.set('en'));
afterEach(() => i18n.set('en'));

const names: Record<string, string> = { bc764cd8ddf7a0cff126f51c16239658: 'Snapshot Thrower' };
const vertexName = (id: string) => names[id];

// Local wall-clock times, as the UI shows them.
const readAt = new Date(2026, 4, 27, 10, 2, 3, 456).getTime();
const sameDay = new Date(2026, 4, 27, 10, 7, 0).getTime();
const nextDay = new Date(2026, 4, 28, 9, 0, 0).getTime();
const MiB = 1 << 20;

function log(p: Partial<JobManagerLogState>): JobManagerLogState {
  return { state: 'read', checkpoints: 0, ...p };
}

describe('fromLog', () => {
  it('is true only for a record the JobManager log alone gave', () => {
    expect(fromLog({ source: 'jobmanager_log' })).toBe(true);
    expect(fromLog({})).toBe(false);
    expect(fromLog({ source: '' })).toBe(false);
    expect(fromLog(null)).toBe(false);
    expect(fromLog(undefined)).toBe(false);
  });
});

describe('declined', () => {
  const withTask: Decline = { vertex_id: 'bc764cd8ddf7a0cff126f51c16239658', subtask: 0, attempt: 0, task: 'Snapshot Thrower (1/2)#0', message: 'java.lang.RuntimeException: boom' };

  it('names the task as the log gives it', () => {
    expect(declinedWho(withTask, vertexName, t)).toBe('Snapshot Thrower (1/2)#0');
    expect(declinedText(withTask, vertexName, t)).toBe('Declined by Snapshot Thrower (1/2)#0');
  });

  it('without a task name, names the vertex (by name where known, else its id) and subtask', () => {
    expect(declinedText({ vertex_id: 'bc764cd8ddf7a0cff126f51c16239658', subtask: 1, attempt: 2 }, vertexName, t)).toBe(
      'Declined by Snapshot Thrower subtask 1',
    );
    expect(declinedText({ vertex_id: 'cafe', subtask: 3, attempt: 0 }, vertexName, t)).toBe('Declined by cafe subtask 3');
    expect(declinedText({ subtask: 3, attempt: 0 }, vertexName, t)).toBe('Declined by subtask 3');
  });

  it('is undefined without a decline', () => {
    expect(declinedWho(undefined, vertexName, t)).toBeUndefined();
    expect(declinedText(null, vertexName, t)).toBeUndefined();
    expect(declinedTitle(undefined, vertexName, t)).toBeUndefined();
  });

  it('puts vertex, subtask, attempt and the decline message in the tooltip', () => {
    expect(declinedTitle(withTask, vertexName, t)).toBe('Vertex Snapshot Thrower, subtask 0, attempt 0\njava.lang.RuntimeException: boom');
    expect(declinedTitle({ subtask: 1, attempt: 4 }, vertexName, t)).toBe('Vertex —, subtask 1, attempt 4');
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    expect(declinedText(withTask, vertexName, t)).toBe('由 Snapshot Thrower (1/2)#0 拒绝');
    expect(declinedText({ vertex_id: 'bc764cd8ddf7a0cff126f51c16239658', subtask: 1, attempt: 0 }, vertexName, t)).toBe('由 Snapshot Thrower 子任务 1 拒绝');
  });
});

describe('finalizeNote', () => {
  const done = { status: 'COMPLETED' as const };

  it('says nothing when finalize is there, the checkpoint did not complete, it is not Flink, or there is no log state', () => {
    expect(finalizeNote({ ...done, finalize_ms: 12 }, 'flink', log({ state: 'waiting' }), t, 'en-US')).toBeNull();
    expect(finalizeNote({ ...done, finalize_ms: 0 }, 'flink', log({ state: 'off' }), t, 'en-US')).toBeNull();
    expect(finalizeNote({ status: 'FAILED' }, 'flink', log({ state: 'waiting' }), t, 'en-US')).toBeNull();
    expect(finalizeNote({ status: 'IN_PROGRESS' }, 'flink', log({ state: 'waiting' }), t, 'en-US')).toBeNull();
    expect(finalizeNote(done, 'seatunnel', log({ state: 'waiting' }), t, 'en-US')).toBeNull();
    expect(finalizeNote(done, undefined, log({ state: 'waiting' }), t, 'en-US')).toBeNull();
    expect(finalizeNote(done, 'flink', null, t, 'en-US')).toBeNull();
    expect(finalizeNote(done, 'flink', undefined, t, 'en-US')).toBeNull();
  });

  it('waiting: not read yet, finalize comes within a minute', () => {
    expect(finalizeNote({ ...done, finalize_ms: null }, 'flink', log({ state: 'waiting', limit_bytes: 16 * MiB }), t, 'en-US')).toEqual({
      state: 'waiting',
      text: 'Finalization not known yet: the JobManager log has not been read yet; finalize appears within a minute.',
      reason: undefined,
      canRead: false,
    });
  });

  it('off: turned off for the cluster (the backend’s reason says the same, so it is not repeated)', () => {
    const n = finalizeNote(done, 'flink', log({ state: 'off', reason: 'reading the JobManager log is turned off for this cluster' }), t, 'en-US')!;
    expect(n.text).toBe('Finalization not known: reading the JobManager log is turned off for this cluster.');
    expect(n.reason).toBeUndefined();
    expect(n.canRead).toBe(false);
  });

  it('unavailable and unrecognised carry the backend’s reason', () => {
    const reason = 'GET /jobmanager/logs answered 404: this JobManager does not serve its log';
    expect(finalizeNote(done, 'flink', log({ state: 'unavailable', reason }), t, 'en-US')).toEqual({
      state: 'unavailable',
      text: 'Finalization not known: the JobManager log cannot be read.',
      reason,
      canRead: false,
    });
    const n = finalizeNote(done, 'flink', log({ state: 'unrecognised', reason: ' 12 line(s) mention checkpoints ' }), t, 'en-US')!;
    expect(n.text).toBe('Finalization not known: no checkpoint line of the JobManager log is in a form this version knows.');
    expect(n.reason).toBe('12 line(s) mention checkpoints');
  });

  it('too_large: the reason and the offer to read it once', () => {
    const reason = 'the JobManager log is 45 MiB, over the 16 MiB cap: read it on demand, or set the cluster\'s JobManager log to on';
    expect(finalizeNote(done, 'flink', log({ state: 'too_large', reason, size_bytes: 47_400_000, limit_bytes: 16 * MiB }), t, 'en-US')).toEqual({
      state: 'too_large',
      text: 'Finalization not known: the JobManager log is too large for the automatic reads.',
      reason,
      canRead: true,
    });
  });

  it('read: the log as read does not have it', () => {
    expect(finalizeNote(done, 'flink', log({ state: 'read', read_ms: readAt, checkpoints: 12 }), t, 'en-US')!.text).toBe(
      'Finalization not known: it is not in the JobManager log as read at 05/27/2026, 10:02:03.456.',
    );
  });

  it('names a state this version does not know', () => {
    const n = finalizeNote(done, 'flink', log({ state: 'rotating' as JobManagerLogState['state'] }), t, 'en-US')!;
    expect(n.text).toBe('Finalization not known: the JobManager log is “rotating”.');
    expect(n.canRead).toBe(false);
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    expect(finalizeNote(done, 'flink', log({ state: 'waiting' }), t, 'zh-CN')!.text).toBe('收尾耗时暂未知：尚未读取 JobManager 日志；收尾耗时会在一分钟内出现。');
    expect(finalizeNote(done, 'flink', log({ state: 'too_large', reason: 'x' }), t, 'zh-CN')!.text).toBe('收尾耗时未知：JobManager 日志太大，超出自动读取的上限。');
  });
});

describe('jobManagerLogLine', () => {
  it('is null without a log state', () => {
    expect(jobManagerLogLine(null, t, 'en-US')).toBeNull();
    expect(jobManagerLogLine(undefined, t, 'en-US')).toBeNull();
  });

  it('read: the time of day when read today, the date too otherwise; size and checkpoints in the tooltip', () => {
    const st = log({ state: 'read', read_ms: readAt, size_bytes: 5_452_595, limit_bytes: 16 * MiB, checkpoints: 1234 });
    const l = jobManagerLogLine(st, t, 'en-US', sameDay)!;
    expect(l.text).toBe('JobManager log read 10:02:03');
    expect(l.problem).toBe(false);
    expect(l.tooltip.split('\n')).toEqual([
      'Flink’s JobManager log gives finalize times, failure causes and declining tasks, and the checkpoints that left the REST history (its last 10) before a poll saw them.',
      'Last read 05/27/2026, 10:02:03.456: 5.2 MiB, 1,234 of this job’s checkpoints.',
    ]);
    expect(jobManagerLogLine(st, t, 'en-US', nextDay)!.text).toBe('JobManager log read 05/27/2026, 10:02:03.456');
  });

  it('waiting and off', () => {
    const w = jobManagerLogLine(log({ state: 'waiting', limit_bytes: 16 * MiB }), t, 'en-US')!;
    expect([w.text, w.problem]).toEqual(['JobManager log not read yet', false]);
    expect(w.tooltip.split('\n')[1]).toBe('Not read yet: the first read comes within a minute of the job being followed.');
    const o = jobManagerLogLine(log({ state: 'off', reason: 'reading the JobManager log is turned off for this cluster' }), t, 'en-US')!;
    expect([o.text, o.problem]).toEqual(['JobManager log off', false]);
    expect(o.tooltip.split('\n')[1]).toBe('Reading it is turned off in the cluster’s settings (Clusters…).');
  });

  it('too_large: its size in the line, size against the cap and the reason in the tooltip', () => {
    const reason = 'the JobManager log is 45 MiB, over the 16 MiB cap: read it on demand, or set the cluster\'s JobManager log to on';
    const l = jobManagerLogLine(log({ state: 'too_large', size_bytes: 47_400_000, limit_bytes: 16 * MiB, reason }), t, 'en-US')!;
    expect(l.text).toBe('JobManager log too large (45.2 MiB): read on demand');
    expect(l.problem).toBe(true);
    expect(l.tooltip.split('\n').slice(1)).toEqual([
      'It is 45.2 MiB, over the 16 MiB cap of the automatic reads: read it once from a checkpoint’s view, or set the cluster’s JobManager log to On.',
      reason,
    ]);
    expect(jobManagerLogLine(log({ state: 'too_large' }), t, 'en-US')!.text).toBe('JobManager log too large: read on demand');
  });

  it('unavailable: the reason, shortened in the line and whole in the tooltip', () => {
    const reason = 'GET /jobmanager/logs answered 404: this JobManager does not serve its log (no log file configured, or the web UI\'s log access is off)';
    const l = jobManagerLogLine(log({ state: 'unavailable', reason }), t, 'en-US')!;
    expect(l.text).toBe(`JobManager log not read: ${reason.slice(0, REASON_MAX - 1)}…`);
    expect(l.problem).toBe(true);
    expect(l.tooltip.split('\n')[1]).toBe(reason);
    expect(jobManagerLogLine(log({ state: 'unavailable', reason: 'GET /jobmanager/logs failed: EOF' }), t, 'en-US')!.text).toBe(
      'JobManager log not read: GET /jobmanager/logs failed: EOF',
    );
  });

  it('unrecognised', () => {
    const l = jobManagerLogLine(log({ state: 'unrecognised', reason: '12 line(s) of the JobManager log mention checkpoints' }), t, 'en-US')!;
    expect([l.text, l.problem]).toEqual(['JobManager log not recognised', true]);
    expect(l.tooltip.split('\n')[1]).toBe('12 line(s) of the JobManager log mention checkpoints');
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    expect(jobManagerLogLine(log({ state: 'read', read_ms: readAt, checkpoints: 3 }), t, 'zh-CN', sameDay)!.text).toBe('JobManager 日志读取于 10:02:03');
    expect(jobManagerLogLine(log({ state: 'too_large', size_bytes: 47_400_000 }), t, 'zh-CN')!.text).toBe('JobManager 日志过大（45.2 MiB）：需手动读取');
    expect(jobManagerLogLine(log({ state: 'waiting' }), t, 'zh-CN')!.text).toBe('JobManager 日志尚未读取');
  });
});
