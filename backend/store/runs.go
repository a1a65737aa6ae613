package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"checkpoint-explorer/backend/model"
)

// runTables are the tables whose rows belong to one run of a job by
// (cluster, job_id); task and subtask rows and metric samples follow their
// checkpoint or series. The job record stays: it is the new run's.
var runTables = []string{"checkpoints", "ack_samples", "metric_series", "gaps", "floors",
	"reconciliations", "job_counts", "job_configs", "job_notes", "restore_counts", "exports"}

// RunID is the id a run of jobID that started at startMs is kept under once
// a new run took jobID.
func RunID(jobID string, startMs int64) string { return fmt.Sprintf("%s@%d", jobID, startMs) }

// KeepRunApart keeps an earlier run of a job id apart from a new one that
// took the id and numbers its checkpoints from 1 again (a job resubmitted
// with --job-id without its state, Flink's application mode giving every job
// the same id): everything the cache holds of prev.ID moves to
// RunID(prev.ID, prev.StartMs), whose job record is prev, state
// model.StateReplaced unless it ended otherwise, so the new run's
// checkpoints never replace it. It returns that id, or "" when the cache held
// no checkpoint of prev.ID.
func (s *Store) KeepRunApart(ctx context.Context, prev model.Job, newStartMs int64) (string, error) {
	var kept string
	err := s.write(ctx, "keep run apart", func(w *txWriter) error {
		var n int64
		if err := w.tx.QueryRowContext(w.exec, `SELECT count(*) FROM checkpoints WHERE cluster = ? AND job_id = ?`,
			prev.Cluster, prev.ID).Scan(&n); err != nil || n == 0 {
			return err
		}
		kept = RunID(prev.ID, prev.StartMs)
		// The user's split is the earlier run's: it goes with it, and the new run starts without.
		var split bool
		if err := w.tx.QueryRowContext(w.exec, `SELECT run_split FROM jobs WHERE cluster = ? AND job_id = ?`,
			prev.Cluster, prev.ID).Scan(&split); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := w.tx.ExecContext(w.exec, `UPDATE jobs SET run_split = 0 WHERE cluster = ? AND job_id = ?`, prev.Cluster, prev.ID); err != nil {
			return err
		}
		for _, table := range runTables {
			if _, err := w.tx.ExecContext(w.exec, `UPDATE `+table+` SET job_id = ? WHERE cluster = ? AND job_id = ?`,
				kept, prev.Cluster, prev.ID); err != nil {
				return fmt.Errorf("%s of %s/%s: %w", table, prev.Cluster, prev.ID, err)
			}
		}
		run := prev
		run.ID, run.Split = kept, split
		if !model.JobEnded(run.State) {
			run.State = model.StateReplaced
		}
		if run.EndMs <= 0 {
			run.EndMs = newStartMs
		}
		return w.PutJob(run)
	})
	return kept, err
}

// SplitRun keeps the user's word on whether a run of a job follows the
// earlier runs of its name (split: it does not; model.Job.Split). ErrNotFound
// when the cache holds no such job.
func (s *Store) SplitRun(ctx context.Context, cluster, jobID string, split bool) error {
	return s.write(ctx, "split run", func(w *txWriter) error {
		res, err := w.tx.ExecContext(w.exec, `UPDATE jobs SET run_split = ? WHERE cluster = ? AND job_id = ?`, split, cluster, jobID)
		if err != nil {
			return fmt.Errorf("split run %s/%s: %w", cluster, jobID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: job %s/%s: %w", cluster, jobID, ErrNotFound)
		}
		return nil
	})
}
