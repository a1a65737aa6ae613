package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// ThroughputResult compares the product write path with a bare insert loop
// into the same schema, both in subtask rows per second.
type ThroughputResult struct {
	Rows                int64   `json:"rows"`
	Vertices            int     `json:"vertices"`
	SubtasksPerVertex   int     `json:"subtasks_per_vertex"`
	CheckpointsPerBatch int     `json:"checkpoints_per_batch"`
	ProductSeconds      float64 `json:"product_seconds"`
	ProductRowsPerSec   float64 `json:"product_rows_per_sec"`
	MinimalSeconds      float64 `json:"minimal_seconds"`
	MinimalRowsPerSec   float64 `json:"minimal_rows_per_sec"`
	// Ratio is product / minimal rows per second.
	Ratio float64 `json:"ratio"`
}

func (r ThroughputResult) String() string {
	return fmt.Sprintf("subtask rows: %d (%d vertices × %d subtasks, %d checkpoint(s) per PutCheckpoints)\n"+
		"product path (PutCheckpoints): %.0f rows/s (%.2fs)\n"+
		"minimal prepared-insert loop:  %.0f rows/s (%.2fs)\n"+
		"ratio product/minimal: %.2f",
		r.Rows, r.Vertices, r.SubtasksPerVertex, r.CheckpointsPerBatch,
		r.ProductRowsPerSec, r.ProductSeconds, r.MinimalRowsPerSec, r.MinimalSeconds, r.Ratio)
}

// Shape of the realistic checkpoint used for measuring.
const (
	throughputVertices = 8
	throughputSubtasks = 64
	throughputBatch    = 1 // the collector writes each checkpoint as it becomes final
)

// MeasureWriteThroughput writes about rows subtask rows through the product
// path (PutCheckpoints of checkpoints with 8 vertices × 64 subtasks, one per
// call, as the collector does) and the same rows through a minimal prepared
// INSERT loop in one transaction, each into a fresh database under dir, and
// reports both rates and their ratio. The databases are removed afterwards.
func MeasureWriteThroughput(ctx context.Context, dir string, rows int) (ThroughputResult, error) {
	perCheckpoint := throughputVertices * throughputSubtasks
	n := max(1, (rows+perCheckpoint-1)/perCheckpoint)
	res := ThroughputResult{
		Rows:                int64(n * perCheckpoint),
		Vertices:            throughputVertices,
		SubtasksPerVertex:   throughputSubtasks,
		CheckpointsPerBatch: throughputBatch,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("store: measure throughput: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "store-throughput-")
	if err != nil {
		return res, fmt.Errorf("store: measure throughput: %w", err)
	}
	defer os.RemoveAll(tmp)

	cps := make([]model.Checkpoint, n)
	base := time.Now().Add(-24 * time.Hour).UnixMilli()
	for i := range cps {
		cps[i] = modeltest.Checkpoint("bench", "job", int64(i+1), base+int64(i)*10_000, throughputVertices, throughputSubtasks)
	}

	// Product path.
	s, err := Open(ctx, filepath.Join(tmp, "product.db"), Retention{})
	if err != nil {
		return res, fmt.Errorf("store: measure throughput: %w", err)
	}
	start := time.Now()
	for i := 0; i < n; i += throughputBatch {
		if err := s.PutCheckpoints(ctx, cps[i:min(i+throughputBatch, n)]); err != nil {
			s.Close()
			return res, fmt.Errorf("store: measure throughput: product path: %w", err)
		}
	}
	res.ProductSeconds = time.Since(start).Seconds()
	if err := s.Close(); err != nil {
		return res, fmt.Errorf("store: measure throughput: %w", err)
	}

	// Minimal loop: one prepared single-row INSERT, one transaction.
	m, err := Open(ctx, filepath.Join(tmp, "minimal.db"), Retention{})
	if err != nil {
		return res, fmt.Errorf("store: measure throughput: %w", err)
	}
	defer m.Close()
	start = time.Now()
	if err := minimalSubtaskLoop(ctx, m, cps); err != nil {
		return res, fmt.Errorf("store: measure throughput: minimal loop: %w", err)
	}
	res.MinimalSeconds = time.Since(start).Seconds()

	res.ProductRowsPerSec = float64(res.Rows) / res.ProductSeconds
	res.MinimalRowsPerSec = float64(res.Rows) / res.MinimalSeconds
	res.Ratio = res.ProductRowsPerSec / res.MinimalRowsPerSec
	return res, nil
}

// minimalSubtaskLoop is the baseline: the same rows (checkpoint, vertices,
// their packed subtask stats) through bare prepared INSERTs, with no look-up,
// no validation and one transaction for everything.
func minimalSubtaskLoop(ctx context.Context, s *Store, cps []model.Checkpoint) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var stmts [3]*sql.Stmt
	for i, q := range []string{sqlInsertCheckpoint, sqlInsertTask, sqlInsertPack} {
		if stmts[i], err = tx.Prepare(q); err != nil {
			return err
		}
		defer stmts[i].Close()
	}
	var buf []byte
	for ci := range cps {
		c := &cps[ci]
		taskRows, subRows, mx := detailCounts(c)
		res, err := stmts[0].Exec(c.Cluster, c.JobID, c.Pipeline, c.ID, string(c.Kind),
			string(c.Status), c.TriggerMs, c.LatestAckMs, c.CompletionMs, c.FailureMs, c.EndToEndMs,
			nullable(c.FinalizeMs), c.StateSize, c.CheckpointedSize, c.ProcessedData, c.PersistedData,
			nullable(c.StateBlobs), c.NumSubtasks, c.NumAcknowledged, c.FailureMessage, c.ExternalPath,
			1, taskRows, subRows, mx.get(0), mx.get(1), mx.get(2), mx.get(3), lossNone, c.Source, c.FailureCause, nil)
		if err != nil {
			return err
		}
		pk, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for ord, t := range c.Tasks {
			if _, err := stmts[1].Exec(pk, ord, t.VertexID, t.LatestAckMs, t.EndToEndMs, t.StateSize,
				t.CheckpointedSize, t.ProcessedData, t.PersistedData, t.NumSubtasks, t.NumAcknowledged, len(t.Subtasks)); err != nil {
				return err
			}
			buf = encodeSubtasks(buf[:0], t.Subtasks)
			if _, err := stmts[2].Exec(packKey(pk, ord), buf); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}
