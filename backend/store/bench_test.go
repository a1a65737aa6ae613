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

// BenchmarkSubtaskRowsProductPath: one PutCheckpoints call (one
// transaction) per checkpoint, as the collector writes them.
func BenchmarkSubtaskRowsProductPath(b *testing.B) {
	ctx := context.Background()
	s := openTest(b, Retention{})
	cps := benchCheckpoints(b.N)
	b.ResetTimer()
	for i := range b.N {
		if err := s.PutCheckpoints(ctx, cps[i:i+1]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportRows(b, b.N)
}

// BenchmarkSubtaskRowsBulk: the capture-import path, all checkpoints in one Bulk.
func BenchmarkSubtaskRowsBulk(b *testing.B) {
	ctx := context.Background()
	s := openTest(b, Retention{})
	cps := benchCheckpoints(b.N)
	b.ResetTimer()
	err := s.Bulk(ctx, func(w Writer) error {
		for i := range cps {
			if err := w.PutCheckpoint(&cps[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportRows(b, b.N)
}

// BenchmarkSubtaskRowsMinimalLoop: the baseline, a bare prepared INSERT per
// row into the same table in one transaction.
func BenchmarkSubtaskRowsMinimalLoop(b *testing.B) {
	ctx := context.Background()
	s := openTest(b, Retention{})
	cps := benchCheckpoints(b.N)
	b.ResetTimer()
	if err := minimalSubtaskLoop(ctx, s, cps); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportRows(b, b.N)
}

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
