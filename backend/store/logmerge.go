package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"checkpoint-explorer/backend/model"
)

// MergeLogCheckpoints adds what Flink's JobManager log says about one job's
// checkpoints (pipeline 0). A checkpoint already stored from the engine's
// API keeps its record and gains what only the log has (finalize and
// completion time, failure cause, the declining task), when the trigger
// times agree. A checkpoint not stored is inserted, marked with its Source,
// only if its id is below insertBelow (ids the engine's API still lists
// come from there, with their per-subtask stats) and above the retention
// floor; gaps it falls in shrink.
func (s *Store) MergeLogCheckpoints(ctx context.Context, cluster, jobID string, cps []model.Checkpoint, insertBelow int64) (model.LogMerge, error) {
	var m model.LogMerge
	if len(cps) == 0 {
		return m, nil
	}
	for i := range cps {
		cps[i].Cluster, cps[i].JobID, cps[i].Pipeline = cluster, jobID, 0
		if err := validateCheckpoint(&cps[i]); err != nil {
			return m, fmt.Errorf("store: merge log checkpoints: %w", err)
		}
	}
	err := s.write(ctx, "merge log checkpoints", func(w *txWriter) error {
		m = model.LogMerge{}
		floor := int64(-1)
		var fid sql.NullInt64
		if err := w.tx.QueryRowContext(w.exec, `SELECT floor_id FROM floors WHERE cluster = ? AND job_id = ? AND pipeline = 0`,
			cluster, jobID).Scan(&fid); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if fid.Valid {
			floor = fid.Int64
		}
		find, err := w.stmt(sqlFindLogMatch)
		if err != nil {
			return err
		}
		for i := range cps {
			c := &cps[i]
			var pk, trigger int64
			var status, source string
			err := find.QueryRowContext(w.exec, cluster, jobID, c.ID).Scan(&pk, &trigger, &status, &source)
			switch {
			case err == nil:
				if !model.SameTrigger(trigger, c.TriggerMs) {
					continue // another run under the same job id
				}
				if !model.Status(status).Final() && c.Status.Final() {
					// Seen in flight, then gone from the engine's history before it
					// ended (the app stopped, or the history rolled past it between
					// polls): the log or the traces know its end. The record stays
					// the one first stored (its source), now ended.
					c.Source = model.CheckpointSource(source)
					if err := w.putCheckpoint(c); err != nil {
						return err
					}
					m.Resolved = append(m.Resolved, c.ID)
					continue
				}
				res, err := w.execStmt(sqlMergeLog, nullable(c.FinalizeMs), c.CompletionMs, c.FailureCause,
					declinedJSON(c.Declined), c.FailureMessage, pk)
				if err != nil {
					return fmt.Errorf("checkpoint %d: merge log: %w", c.ID, err)
				}
				if n, _ := res.RowsAffected(); n > 0 {
					m.Updated++
				}
			case errors.Is(err, sql.ErrNoRows):
				if c.ID >= insertBelow || c.ID <= floor {
					continue
				}
				if err := w.putCheckpoint(c); err != nil {
					return err
				}
				m.Added = append(m.Added, c.ID)
			default:
				return fmt.Errorf("checkpoint %d: look up: %w", c.ID, err)
			}
			if err := w.tick(); err != nil {
				return err
			}
		}
		filled, err := w.shrinkGaps(cluster, jobID, m.Added)
		m.FilledGaps = filled
		return err
	})
	return m, err
}

// shrinkGaps removes ids from the job's gaps (pipeline 0), splitting a gap
// around them; it returns how many of ids were in a gap.
func (w *txWriter) shrinkGaps(cluster, jobID string, ids []int64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	rows, err := w.tx.QueryContext(w.exec, `SELECT from_id, to_id, detected_ms, reason FROM gaps
		WHERE cluster = ? AND job_id = ? AND pipeline = 0 AND to_id >= ? AND from_id <= ?`,
		cluster, jobID, ids[0], ids[len(ids)-1])
	if err != nil {
		return 0, fmt.Errorf("gaps: %w", err)
	}
	var gaps []model.Gap
	for rows.Next() {
		g := model.Gap{Cluster: cluster, JobID: jobID}
		if err := rows.Scan(&g.FromID, &g.ToID, &g.DetectedMs, &g.Reason); err != nil {
			rows.Close()
			return 0, fmt.Errorf("gaps: %w", err)
		}
		gaps = append(gaps, g)
	}
	rows.Close()
	filled := 0
	for _, g := range gaps {
		lo := sort.Search(len(ids), func(i int) bool { return ids[i] >= g.FromID })
		hi := sort.Search(len(ids), func(i int) bool { return ids[i] > g.ToID })
		if lo == hi {
			continue
		}
		filled += hi - lo
		if _, err := w.tx.ExecContext(w.exec, `DELETE FROM gaps WHERE cluster = ? AND job_id = ? AND pipeline = 0
			AND from_id = ? AND to_id = ?`, cluster, jobID, g.FromID, g.ToID); err != nil {
			return 0, fmt.Errorf("gaps: %w", err)
		}
		from := g.FromID
		for _, id := range append(ids[lo:hi:hi], g.ToID+1) {
			if id > from {
				rest := g
				rest.FromID, rest.ToID = from, id-1
				if err := w.PutGap(rest); err != nil {
					return 0, err
				}
			}
			from = id + 1
		}
	}
	return filled, nil
}
