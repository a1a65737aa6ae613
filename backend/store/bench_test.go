package store

import (
	"context"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// Both benchmarks write realistic checkpoints (8 vertices × 64 subtasks)
// and report subtask rows per second; their ratio is what
// MeasureWriteThroughput prints for `make bench`.

func benchCheckpoints(n int) []model.Checkpoint {
	cps := make([]model.Checkpoint, n)
	for i := range cps {
		cps[i] = modeltest.Checkpoint("bench", "job", int64(i+1), 1_000_000+int64(i)*10_000, throughputVertices, throughputSubtasks)
	}
	return cps
}

func reportRows(b *testing.B, checkpoints int) {
	rows := float64(checkpoints * throughputVertices * throughputSubtasks)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
}

// benchSubtaskRows times write of b.N checkpoints into an empty store and
// reports subtask rows per second.
func benchSubtaskRows(b *testing.B, write func(ctx context.Context, s *Store, cps []model.Checkpoint) error) {
	ctx := context.Background()
	s := openTest(b, Retention{})
	cps := benchCheckpoints(b.N)
	b.ResetTimer()
	if err := write(ctx, s, cps); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportRows(b, b.N)
}

// BenchmarkSubtaskRowsProductPath: one PutCheckpoints call (one
// transaction) per checkpoint, as the collector writes them.
func BenchmarkSubtaskRowsProductPath(b *testing.B) {
	benchSubtaskRows(b, func(ctx context.Context, s *Store, cps []model.Checkpoint) error {
		for i := range cps {
			if err := s.PutCheckpoints(ctx, cps[i:i+1]); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkSubtaskRowsBulk: the capture-import path, all checkpoints in one Bulk.
func BenchmarkSubtaskRowsBulk(b *testing.B) {
	benchSubtaskRows(b, func(ctx context.Context, s *Store, cps []model.Checkpoint) error {
		return s.Bulk(ctx, func(w Writer) error {
			for i := range cps {
				if err := w.PutCheckpoint(&cps[i]); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// BenchmarkSubtaskRowsMinimalLoop: the baseline, a bare prepared INSERT per
// row into the same table in one transaction.
func BenchmarkSubtaskRowsMinimalLoop(b *testing.B) { benchSubtaskRows(b, minimalSubtaskLoop) }

// BenchmarkReadCheckpointWithDetail: one Checkpoint() read of 512 subtask rows.
func BenchmarkReadCheckpointWithDetail(b *testing.B) {
	ctx := context.Background()
	s := openTest(b, Retention{})
	cps := benchCheckpoints(100)
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Checkpoint(ctx, cps[i%len(cps)].Key()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportRows(b, b.N)
}
