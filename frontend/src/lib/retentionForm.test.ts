import { describe, expect, it } from 'vitest';
import { checkRetention, formFromLimits, limitsFromForm } from './retentionForm';

describe('retention form', () => {
  it('shows limits in days and MiB, empty for no limit', () => {
    expect(formFromLimits({ max_checkpoints_per_job: 5000, max_age_ms: 30 * 86_400_000, max_bytes: 512 << 20 })).toEqual({
      perJob: '5000',
      days: '30',
      mib: '512',
    });
    expect(formFromLimits({ max_checkpoints_per_job: 0, max_age_ms: 0, max_bytes: 0 })).toEqual({ perJob: '', days: '', mib: '' });
    expect(formFromLimits({ max_checkpoints_per_job: 1, max_age_ms: 36 * 3_600_000, max_bytes: 1536 << 10 })).toEqual({
      perJob: '1',
      days: '1.5',
      mib: '1.5',
    });
  });

  it('round-trips through the facade\'s units', () => {
    const f = { perJob: '200', days: '0.5', mib: '64' };
    expect(checkRetention(f)).toEqual([]);
    expect(limitsFromForm(f)).toEqual({ max_checkpoints_per_job: 200, max_age_ms: 43_200_000, max_bytes: 64 << 20 });
    expect(formFromLimits(limitsFromForm(f))).toEqual(f);
  });

  it('accepts a decimal comma and empty fields', () => {
    expect(checkRetention({ perJob: '', days: '1,5', mib: '' })).toEqual([]);
    expect(limitsFromForm({ perJob: '', days: '1,5', mib: '' })).toEqual({ max_checkpoints_per_job: 0, max_age_ms: 129_600_000, max_bytes: 0 });
  });

  it.each([
    [{ perJob: '-1', days: '', mib: '' }, [{ field: 'perJob', key: 'retention.err.perJob' }]],
    [{ perJob: '2.5', days: '', mib: '' }, [{ field: 'perJob', key: 'retention.err.perJob' }]],
    [{ perJob: '', days: 'soon', mib: '' }, [{ field: 'days', key: 'retention.err.days' }]],
    [{ perJob: '', days: '', mib: '-3' }, [{ field: 'mib', key: 'retention.err.mib' }]],
    [{ perJob: '', days: '', mib: '0.5' }, [{ field: 'mib', key: 'retention.err.mibSmall' }]],
  ])('names the problem in %j', (f, want) => {
    expect(checkRetention(f)).toEqual(want);
  });
});
