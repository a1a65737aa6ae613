import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReconciliationView } from './api';
import { reconciliationLine } from './reconcile';
import { formatDateTime } from './format';
import { i18n, t } from './i18n.svelte';

beforeEach(() => i18n.set('en'));
afterEach(() => i18n.set('en'));

/** 120 triggered over ids 1..117: 115 stored, 2 in a gap, 3 triggers that never got an id. */
function recon(p: Partial<ReconciliationView> = {}): ReconciliationView {
  return {
    cluster: 'prod',
    job_id: 'j',
    at_ms: Date.UTC(2026, 4, 27, 10, 0, 0),
    polls: 1440,
    failed_polls: 2,
    first_id: 1,
    latest_id: 117,
    ids: 117,
    stored: 115,
    gaps: 2,
    unaccounted: 0,
    engine_counted: 120,
    without_id: 3,
    engine: { triggered: 1120, completed: 1100, failed: 20, in_progress: 0, restored: 1 },
    missed: 2,
    from_log: 0,
    earlier: 0,
    ...p,
  };
}

describe('reconciliationLine', () => {
  it('is null without a reconciliation', () => {
    expect(reconciliationLine(null, t, 'en-US')).toBeNull();
    expect(reconciliationLine(undefined, t, 'en-US')).toBeNull();
  });

  it('says what the engine counted, what is stored, what was missed and why', () => {
    const l = reconciliationLine(recon(), t, 'en-US')!;
    expect(l.text).toBe('Engine counted 120 · stored 115 · missed 2 (gaps) · 3 failed before an id');
    expect(l.warn).toBe(true);
  });

  it('tells gaps from unaccounted ids, and both together', () => {
    expect(reconciliationLine(recon({ gaps: 0, unaccounted: 1, stored: 116, missed: 1 }), t, 'en-US')!.text).toBe(
      'Engine counted 120 · stored 116 · missed 1 (unaccounted) · 3 failed before an id',
    );
    expect(reconciliationLine(recon({ gaps: 2, unaccounted: 1, stored: 114, missed: 3 }), t, 'en-US')!.text).toBe(
      'Engine counted 120 · stored 114 · missed 3 (2 in gaps, 1 unaccounted) · 3 failed before an id',
    );
  });

  it('is plain when nothing was missed, and leaves out what the engine does not send', () => {
    const l = reconciliationLine(recon({ gaps: 0, stored: 117, missed: 0, without_id: 0, engine_counted: -1, engine: undefined }), t, 'en-US')!;
    expect(l.text).toBe('Stored 117 · none missed');
    expect(l.warn).toBe(false);
    expect(l.tooltip).toContain('The engine sends no checkpoint counters');
    expect(l.tooltip).not.toContain('Engine counters:');
    expect(l.tooltip).not.toContain('Failed before an id');
  });

  it('says when the engine dropped the history the cache still holds, in both languages', () => {
    const at = Date.UTC(2026, 4, 27, 10, 5, 0);
    const when = formatDateTime(at, 'en-US');
    const l = reconciliationLine(recon({ engine_forgot_ms: at, gaps: 0, missed: 0 }), t, 'en-US')!;
    expect(l.text).toBe(`Engine counted 120 · stored 115 · none missed · 3 failed before an id · the engine no longer has them (since ${when})`);
    expect(l.tooltip).toContain('the cache is now the only record');
    expect(reconciliationLine(recon(), t, 'en-US')!.text).not.toContain('no longer has them');
    i18n.set('zh');
    const zh = reconciliationLine(recon({ engine_forgot_ms: at }), t, 'zh-CN')!;
    expect(zh.text).toContain(`引擎已不再保留它们（自 ${formatDateTime(at, 'zh-CN')} 起）`);
  });

  it('warns on unaccounted ids even if a caller left missed at 0', () => {
    expect(reconciliationLine(recon({ gaps: 0, unaccounted: 1, missed: 0 }), t, 'en-US')!.warn).toBe(true);
  });

  it('formats numbers for the locale', () => {
    const l = reconciliationLine(recon({ engine_counted: 12_345, stored: 12_000, ids: 12_342, latest_id: 12_342, gaps: 342, missed: 342 }), t, 'en-US')!;
    expect(l.text).toBe('Engine counted 12,345 · stored 12,000 · missed 342 (gaps) · 3 failed before an id');
  });

  it('explains each figure in the tooltip', () => {
    const tip = reconciliationLine(recon(), t, 'en-US')!.tooltip.split('\n');
    expect(tip[0]).toMatch(/^Checkpoints #1 to #117 \(117 ids\), as of the last successful poll \(.+\)\./);
    expect(tip[1]).toMatch(/^Engine counted: .*since the JobManager started following the job\.$/);
    expect(tip[2]).toMatch(/^Stored: /);
    expect(tip[3]).toMatch(/^Gaps: ids the engine’s history evicted before a poll saw them/);
    expect(tip[4]).toBe('Unaccounted: ids neither stored nor recorded as a gap. 0 unless something was lost.');
    expect(tip[5]).toMatch(/^Failed before an id: /);
    expect(tip[6]).toBe('Engine counters: 1,120 triggered, 1,100 completed, 20 failed, 0 in progress, 1 restored.');
    expect(tip[7]).toBe('Polls of the job list this run: 1,440, of which 2 failed.');
    expect(tip).toHaveLength(8);
  });

  it('says what the JobManager log added: gap ids it filled and checkpoints before the span', () => {
    // ids 41..157 (117): 109 stored from REST + 4 from the log + 2 gaps + 2 unaccounted; 40 before #41 from the log.
    const r = recon({ first_id: 41, latest_id: 157, stored: 109, from_log: 4, gaps: 2, unaccounted: 2, missed: 4, earlier: 40 });
    const l = reconciliationLine(r, t, 'en-US')!;
    expect(l.text).toBe(
      'Engine counted 120 · stored 109 · 4 gap ids filled from the log · missed 4 (2 in gaps, 2 unaccounted) · 3 failed before an id · 40 earlier from the JobManager log',
    );
    const tip = l.tooltip.split('\n');
    expect(tip[5]).toMatch(/^Gap ids filled from the log: ids of these that had left Flink’s REST history/);
    expect(tip[6]).toMatch(/^Failed before an id: /);
    expect(tip[7]).toBe(
      'Earlier from the JobManager log: checkpoints before #41, from before the app followed the job, that only the JobManager log still had. They are stored, outside these ids.',
    );
    expect(tip).toHaveLength(10);
  });

  it('says one gap id in the singular', () => {
    expect(reconciliationLine(recon({ stored: 114, from_log: 1, gaps: 2, missed: 2, earlier: 1 }), t, 'en-US')!.text).toBe(
      'Engine counted 120 · stored 114 · 1 gap id filled from the log · missed 2 (gaps) · 3 failed before an id · 1 earlier from the JobManager log',
    );
  });

  it('leaves the log out when it added nothing', () => {
    const l = reconciliationLine(recon({ from_log: 0, earlier: 0 }), t, 'en-US')!;
    expect(l.text).not.toMatch(/log/);
    expect(l.tooltip).not.toMatch(/from the (JobManager )?log/);
  });

  it('says what the log added in Chinese', () => {
    i18n.set('zh');
    const l = reconciliationLine(recon({ stored: 111, from_log: 4, gaps: 2, missed: 2, earlier: 1234 }), t, 'zh-CN')!;
    expect(l.text).toBe('引擎计数 120 · 已缓存 111 · 4 个缺口 id 由日志补全 · 缺失 2（缺口） · 3 个在获得 id 前失败 · 另有 1,234 个更早的来自 JobManager 日志');
    expect(l.tooltip).toContain('#1 之前');
  });

  it('says why triggers failed before an id, from the JobManager log', () => {
    // 4 triggers failed while the job's tasks were starting, 1 more when the job was cancelled.
    const first = Date.UTC(2026, 11, 5, 3, 13, 29, 219);
    const last = Date.UTC(2026, 11, 5, 3, 13, 31, 7);
    const stop = Date.UTC(2026, 11, 5, 3, 32, 44, 723);
    const r = recon({
      without_id: 5,
      engine_counted: 122,
      trigger_failures: [
        {
          reason: 'Not all required tasks are currently running',
          count: 4,
          first_ms: first,
          last_ms: last,
          task: 'Source: Numbers (1/1)',
          example: 'Checkpoint triggering task Source: Numbers (1/1) of job c08f48e107da07283598ddd8516c3ac4 is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running.',
        },
        { reason: 'Periodic checkpoint scheduler is shut down', count: 1, first_ms: stop, last_ms: stop, example: 'Periodic checkpoint scheduler is shut down.' },
      ],
    });
    const l = reconciliationLine(r, t, 'en-US')!;
    expect(l.text).toBe(
      'Engine counted 122 · stored 115 · missed 2 (gaps) · 5 failed before an id: Not all required tasks are currently running (4); Periodic checkpoint scheduler is shut down (1)',
    );
    const tip = l.tooltip.split('\n');
    expect(tip[5]).toMatch(/^Failed before an id: /);
    expect(tip[6]).toBe('Why, from the JobManager log (the failed triggers it logged over these ids):');
    expect(tip[7]).toBe(
      `• Not all required tasks are currently running: 4, ${formatDateTime(first, 'en-US')} to ${formatDateTime(last, 'en-US')}. The latest: Checkpoint triggering task Source: Numbers (1/1) of job c08f48e107da07283598ddd8516c3ac4 is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running.`,
    );
    expect(tip[8]).toBe(
      `• Periodic checkpoint scheduler is shut down: 1, ${formatDateTime(stop, 'en-US')} to ${formatDateTime(stop, 'en-US')}. The latest: Periodic checkpoint scheduler is shut down.`,
    );
    expect(tip).toHaveLength(11);

    i18n.set('zh');
    const zh = reconciliationLine(r, t, 'zh-CN')!;
    expect(zh.text).toBe(
      '引擎计数 122 · 已缓存 115 · 缺失 2（缺口） · 5 个在获得 id 前失败：Not all required tasks are currently running（4）；Periodic checkpoint scheduler is shut down（1）',
    );
    expect(zh.tooltip).toContain('原因，来自 JobManager 日志');
    expect(zh.tooltip).toContain(`• Periodic checkpoint scheduler is shut down：1 次，${formatDateTime(stop, 'zh-CN')} 至 ${formatDateTime(stop, 'zh-CN')}。最近一次：Periodic checkpoint scheduler is shut down.`);
  });

  it('names the reasons beyond the kept ones "other reasons", and a failure of unknown time without times', () => {
    const r = recon({
      without_id: 3,
      trigger_failures: [
        { reason: 'Not all required tasks are currently running', count: 2, first_ms: 0, last_ms: 0, example: 'x.' },
        { reason: '', count: 1, first_ms: 0, last_ms: 0, example: 'y.' },
      ],
    });
    const l = reconciliationLine(r, t, 'en-US')!;
    expect(l.text).toBe('Engine counted 120 · stored 115 · missed 2 (gaps) · 3 failed before an id: Not all required tasks are currently running (2); other reasons (1)');
    expect(l.tooltip).toContain('• other reasons: 1. The latest: y.');
    i18n.set('zh');
    expect(reconciliationLine(r, t, 'zh-CN')!.text).toContain('其他原因（1）');
  });

  it('counts the failures before an id alone where the log told no reason', () => {
    const l = reconciliationLine(recon({ trigger_failures: [] }), t, 'en-US')!;
    expect(l.text).toBe('Engine counted 120 · stored 115 · missed 2 (gaps) · 3 failed before an id');
    expect(l.tooltip).not.toContain('Why, from the JobManager log');
  });

  it('speaks Chinese', () => {
    i18n.set('zh');
    const l = reconciliationLine(recon(), t, 'zh-CN')!;
    expect(l.text).toBe('引擎计数 120 · 已缓存 115 · 缺失 2（缺口） · 3 个在获得 id 前失败');
    expect(l.tooltip).toContain('下落不明');
  });
});
