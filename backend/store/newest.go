package store

import (
	"context"
	"fmt"
	"slices"

	"checkpoint-explorer/backend/model"
)

// NewestCompleted returns the newest n completed checkpoints (savepoints
// aside) of the job q names, triggered in q's range, oldest first and
// without their tasks: a fleet row's baseline (analyze.FleetRow). They are
// read backwards along the job's index, so a day of history costs n rows.
func (s *Store) NewestCompleted(ctx context.Context, q Query, n int) ([]model.Checkpoint, error) {
	tx, err := s.jobReadTx(ctx, q, "newest completed checkpoints")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	where, args := q.where("cluster", "job_id", "pipeline", "trigger_ms")
	rows, err := tx.QueryContext(ctx, "SELECT "+sqlCheckpointCols+" FROM checkpoints"+where+
		" AND status = ? AND kind != ? ORDER BY trigger_ms DESC, id DESC LIMIT ?",
		append(args, string(model.StatusCompleted), string(model.KindSavepoint), n)...)
	if err != nil {
		return nil, fmt.Errorf("store: newest completed checkpoints: %w", err)
	}
	defer rows.Close()
	var out []model.Checkpoint
	row := newCheckpointRow()
	for rows.Next() {
		var c model.Checkpoint
		if _, err := row.scan(rows, &c); err != nil {
			return nil, fmt.Errorf("store: newest completed checkpoints: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: newest completed checkpoints: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
