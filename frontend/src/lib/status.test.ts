import { describe, expect, it } from 'vitest';
import { statusKey } from './status';

describe('statusKey', () => {
  it('names a checkpoint stored in progress that ended unseen so, and leaves the others as the engine said', () => {
    expect(statusKey({ status: 'IN_PROGRESS', ended_unseen: true })).toBe('ENDED_UNSEEN');
    expect(statusKey({ status: 'IN_PROGRESS', ended_unseen: false })).toBe('IN_PROGRESS');
    expect(statusKey({ status: 'IN_PROGRESS' })).toBe('IN_PROGRESS');
    // Only a checkpoint in progress can have ended unseen.
    expect(statusKey({ status: 'COMPLETED', ended_unseen: true })).toBe('COMPLETED');
    expect(statusKey({ status: 'FAILED' })).toBe('FAILED');
  });
});
