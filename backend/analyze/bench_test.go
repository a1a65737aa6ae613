package analyze

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"checkpoint-explorer/backend/model"
)

// benchInput is a job of 8 chained vertices × 64 subtasks with n
// checkpoints 10 s apart (one in ten failed, pending from a random vertex
// on), and a backpressure sample per vertex every 10 s.
func benchInput(n int) (model.Job, []model.Checkpoint, []model.MetricSample) {
	const vertices, parallelism = 8, 64
	r := rand.New(rand.NewPCG(1, 2))
	job := model.Job{ID: "bench", Name: "bench", Engine: model.EngineFlink}
	for v := range vertices {
		id := fmt.Sprintf("%032x", v+1)
		job.Vertices = append(job.Vertices, model.Vertex{ID: id, Name: fmt.Sprintf("Operator %d", v), Parallelism: parallelism})
		if v > 0 {
			job.Edges = append(job.Edges, model.Edge{Source: job.Vertices[v-1].ID, Target: id})
		}
	}
	cps := make([]model.Checkpoint, n)
	var ms []model.MetricSample
	for i := range cps {
		trig := int64(1_700_000_000_000 + i*10_000)
		failed := r.IntN(10) == 0
		stuck := vertices
		if failed {
			stuck = r.IntN(vertices)
		}
		c := model.Checkpoint{JobID: job.ID, ID: int64(i + 1), Kind: model.KindCheckpoint, TriggerMs: trig,
			NumSubtasks: vertices * parallelism, Tasks: make([]model.TaskStats, vertices)}
		var last int64
		for v := range vertices {
			ts := model.TaskStats{VertexID: job.Vertices[v].ID, NumSubtasks: parallelism, Subtasks: make([]model.SubtaskStats, parallelism)}
			for s := range parallelism {
				if v >= stuck && r.IntN(4) != 0 {
					ts.Subtasks[s] = model.SubtaskStats{Index: s, Status: model.SubtaskPendingOrFailed}
					continue
				}
				sd, al, sy, as := r.Int64N(20), r.Int64N(100), r.Int64N(10), r.Int64N(400)
				e2e := sd + al + sy + as + r.Int64N(10)
				ts.Subtasks[s] = model.SubtaskStats{Index: s, Status: model.SubtaskCompleted, AckMs: trig + e2e, EndToEndMs: e2e,
					StartDelayMs: sd, AlignmentMs: al, SyncMs: sy, AsyncMs: as, CheckpointedSize: 1 << 20, StateSize: 1 << 24}
				ts.NumAcknowledged++
				c.NumAcknowledged++
				last = max(last, trig+e2e)
			}
			c.Tasks[v] = ts
			ms = append(ms, model.MetricSample{JobID: job.ID, VertexID: ts.VertexID, Subtask: -1, Agg: model.AggMax,
				Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + 5_000, Value: float64(r.IntN(1000))})
		}
		c.LatestAckMs = last
		if failed {
			c.Status, c.FailureMs, c.EndToEndMs = model.StatusFailed, trig+9_000, 9_000
			c.FailureMessage = fmt.Sprintf("Checkpoint %d of job %s expired before completing.", c.ID, "0123456789abcdef0123456789abcdef")
		} else {
			c.Status, c.CompletionMs, c.EndToEndMs = model.StatusCompleted, last, last-trig
		}
		cps[i] = c
	}
	return job, cps, ms
}

// BenchmarkAnalyze10k is the full analysis of 10,000 checkpoints × 8
// vertices × 64 subtasks (5.12 M subtask stats). The input itself is built
// once, outside the timer; B/op is what the analysis allocates.
func BenchmarkAnalyze10k(b *testing.B) {
	job, cps, ms := benchInput(10_000)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ja := Analyze(job, cps, nil, ms, nil)
		if len(ja.Checkpoints) != len(cps) {
			b.Fatal("lost checkpoints")
		}
	}
}

// BenchmarkAnalyzeScaling shows how the time grows with checkpoints and parallelism.
func BenchmarkAnalyzeScaling(b *testing.B) {
	for _, n := range []int{1_000, 5_000, 10_000} {
		job, cps, ms := benchInput(n)
		b.Run(fmt.Sprintf("checkpoints=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Analyze(job, cps, nil, ms, nil)
			}
		})
	}
}
