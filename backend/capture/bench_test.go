package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"testing"

	"checkpoint-explorer/backend/model"
)

// benchCheckpoint is a typical Flink checkpoint: 4 vertices of parallelism 8,
// with timings that vary like real ones so compression is not flattered.
func benchCheckpoint(id int64) *model.Checkpoint {
	seed := uint64(id)*6364136223846793005 + 1442695040888963407
	rnd := func(n int64) int64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int64(seed>>33) % n
	}
	cp := &model.Checkpoint{Cluster: "prod-flink", JobID: "469237c073b0c1ea872fc0403694fc68", ID: id,
		Kind: model.KindCheckpoint, Status: model.StatusCompleted, TriggerMs: 1779924600000 + id*1000,
		LatestAckMs: 1779924600000 + id*1000 + 120, EndToEndMs: 120, StateSize: 1 << 30, CheckpointedSize: 4 << 20,
		NumSubtasks: 32, NumAcknowledged: 32, ExternalPath: fmt.Sprintf("s3://bucket/chk-%d", id)}
	for v := 0; v < 4; v++ {
		t := model.TaskStats{VertexID: fmt.Sprintf("cbc357ccb763df2852fee8c4fc7d55f%d", v), LatestAckMs: cp.LatestAckMs,
			EndToEndMs: 120, StateSize: 1 << 28, CheckpointedSize: 1 << 20, NumSubtasks: 8, NumAcknowledged: 8}
		for s := 0; s < 8; s++ {
			e2e := 20 + rnd(200)
			t.Subtasks = append(t.Subtasks, model.SubtaskStats{Index: s, Status: model.SubtaskCompleted,
				AckMs: cp.TriggerMs + e2e, EndToEndMs: e2e, StartDelayMs: rnd(10), AlignmentMs: rnd(e2e),
				SyncMs: rnd(5), AsyncMs: rnd(e2e), StateSize: 1<<25 + rnd(1<<20), CheckpointedSize: 1<<17 + rnd(1<<16),
				ProcessedData: rnd(1 << 12)})
		}
		cp.Tasks = append(cp.Tasks, t)
	}
	return cp
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkWrite reports records/s and uncompressed bytes/s (MB/s) for
// checkpoints of 32 subtasks, and the compression ratio.
func BenchmarkWrite(b *testing.B) {
	cp := benchCheckpoint(1)
	line := lineSize(b, cp)
	out := &countingWriter{}
	w, err := NewWriter(out, testHeader())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(line))
	b.ReportAllocs()
	b.ResetTimer()
	cps := make([]*model.Checkpoint, 256)
	for i := range cps {
		cps[i] = benchCheckpoint(int64(i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cp := cps[i%len(cps)]
		cp.ID = int64(i)
		if err := w.Checkpoint(cp); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(int64(b.N)*int64(line))/float64(out.n), "compression-ratio")
}

// BenchmarkRead reports records/s and uncompressed bytes/s for the same
// records, and the peak live heap the read holds on top of the file in memory
// (sampled every 1000 records), for two file sizes: it must not grow with the
// file.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{2_000, 20_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, testHeader())
			if err != nil {
				b.Fatal(err)
			}
			cp := benchCheckpoint(0)
			for i := 0; i < n; i++ {
				cp = benchCheckpoint(int64(i))
				if err := w.Checkpoint(cp); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			file := buf.Bytes()
			b.SetBytes(int64(n * lineSize(b, cp)))
			b.ReportAllocs()

			var peak, base uint64
			var ms runtime.MemStats
			seen := 0
			v := Visitor{Checkpoint: func(*model.Checkpoint) error {
				seen++
				if seen%1000 == 0 {
					// Live heap only: collect first, so GC pacing does not count.
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&ms)
					b.StartTimer()
					if ms.HeapAlloc-base > peak && ms.HeapAlloc > base {
						peak = ms.HeapAlloc - base
					}
				}
				return nil
			}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&ms)
				base = ms.HeapAlloc
				b.StartTimer()
				sum, err := Read(context.Background(), bytes.NewReader(file), Limits{}, v)
				if err != nil || sum.Checkpoints != int64(n) {
					b.Fatal(sum, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

func lineSize(b *testing.B, cp *model.Checkpoint) int {
	var buf bytes.Buffer
	w, err := NewWriter(io.Discard, testHeader())
	if err != nil {
		b.Fatal(err)
	}
	w.enc.Encode(cp) // same encoder settings as the records
	buf.Write(w.buf.Bytes())
	return buf.Len() + len(`{"type":"checkpoint",`) - 1
}
