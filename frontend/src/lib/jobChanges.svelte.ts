// The open job's changes, shared by its header and its timeline: read once per job and revision
// (new checkpoints may show a restart or a rescale), and again after a note is added or deleted.
import { api, errorText, type Change, type ChangeEffect } from './api';
import { changeMoments } from './changes';

class JobChanges {
  /** the job's changes, oldest first, each with its before/after */
  list = $state.raw<ChangeEffect[]>([]);
  /** the changes gathered by moment */
  moments = $derived(changeMoments(this.list));
  /** what the last read failed with, '' when it did not */
  error = $state('');

  private key = '';
  private revision = -1;
  private cluster = '';
  private job = '';
  /** a read is under way: one more waits for it, however many were asked for (live updates come faster than a report) */
  private busy = false;
  private again = false;

  /** follow reads the job's changes unless those of this job at this revision are already read. */
  follow(cluster: string, job: string, revision: number) {
    const key = `${cluster}\u0000${job}`;
    if (key === this.key && revision === this.revision) return;
    if (key !== this.key) {
      this.list = [];
      this.error = '';
    }
    this.key = key;
    this.revision = revision;
    this.cluster = cluster;
    this.job = job;
    void this.read();
  }

  /** addNote puts a note on the job's timeline and reads the changes again; its error is the backend's. */
  async addNote(timeMs: number, text: string): Promise<Change> {
    const n = await api.addNote(this.cluster, this.job, timeMs, text);
    await this.read();
    return n;
  }

  /** deleteNote removes a note of the job and reads the changes again. */
  async deleteNote(note: Change): Promise<void> {
    await api.deleteNote(this.cluster, this.job, note.time_ms, note.detail.text ?? '');
    await this.read();
  }

  private async read(): Promise<void> {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    const { cluster, job } = this;
    try {
      const list = await api.changes(cluster, job);
      // Another job may have been opened meanwhile: it reads its own.
      if (cluster === this.cluster && job === this.job) {
        this.list = list;
        this.error = '';
      }
    } catch (e) {
      if (cluster === this.cluster && job === this.job) this.error = errorText(e);
    } finally {
      this.busy = false;
    }
    if (this.again) {
      this.again = false;
      await this.read();
    }
  }
}

export const jobChanges = new JobChanges();
