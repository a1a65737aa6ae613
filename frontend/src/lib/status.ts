// A checkpoint's status as the views name it: the engine's, except a
// checkpoint stored in progress that has ended unseen (the backend marks it;
// docs/report-format.md) is named so, not "in progress".
import type { Status } from './api';

export type StatusKey = Status | 'ENDED_UNSEEN';

/** statusKey is the status a badge shows (its i18n key under status. and its CSS class). */
export function statusKey(c: { status: Status; ended_unseen?: boolean }): StatusKey {
  return c.status === 'IN_PROGRESS' && c.ended_unseen ? 'ENDED_UNSEEN' : c.status;
}
