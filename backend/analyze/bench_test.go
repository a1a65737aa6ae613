package analyze

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// benchGen makes the benchmark's job: 8 chained vertices × 64 subtasks,
// checkpoints 10 s apart (one in ten failed, pending from a random vertex
// on), and a backpressure sample per vertex every 10 s. Checkpoints come one
// at a time so a streamed analysis can be measured without holding them all.
type benchGen struct {
	r   *rand.Rand
	job model.Job
	i   int
}

const benchVertices, benchParallelism = 8, 64

func newBenchGen() *benchGen {
	g := &benchGen{r: rand.New(rand.NewPCG(1, 2)), job: model.Job{ID: "bench", Name: "bench", Engine: model.EngineFlink}}
	for v := range benchVertices {
		id := fmt.Sprintf("%032x", v+1)
		g.job.Vertices = append(g.job.Vertices, model.Vertex{ID: id, Name: fmt.Sprintf("Operator %d", v), Parallelism: benchParallelism})
		if v > 0 {
			g.job.Edges = append(g.job.Edges, model.Edge{Source: g.job.Vertices[v-1].ID, Target: id})
		}
	}
	return g
}

// next fills c with the next checkpoint and appends its metric samples to ms.
func (g *benchGen) next(c *model.Checkpoint, ms []model.MetricSample) []model.MetricSample {
	r, i := g.r, g.i
	g.i++
	trig := int64(1_700_000_000_000 + i*10_000)
	failed := r.IntN(10) == 0
	stuck := benchVertices
	if failed {
		stuck = r.IntN(benchVertices)
	}
	*c = model.Checkpoint{JobID: g.job.ID, ID: int64(i + 1), Kind: model.KindCheckpoint, TriggerMs: trig,
		NumSubtasks: benchVertices * benchParallelism, Tasks: make([]model.TaskStats, benchVertices)}
	var last int64
	for v := range benchVertices {
		ts := model.TaskStats{VertexID: g.job.Vertices[v].ID, NumSubtasks: benchParallelism, Subtasks: make([]model.SubtaskStats, benchParallelism)}
		for s := range benchParallelism {
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
		ms = append(ms, model.MetricSample{JobID: g.job.ID, VertexID: ts.VertexID, Subtask: -1, Agg: model.AggMax,
			Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + 5_000, Value: float64(r.IntN(1000))})
	}
	c.LatestAckMs = last
	if failed {
		c.Status, c.FailureMs, c.EndToEndMs = model.StatusFailed, trig+9_000, 9_000
		c.FailureMessage = fmt.Sprintf("Checkpoint %d of job %s expired before completing.", c.ID, "0123456789abcdef0123456789abcdef")
	} else {
		c.Status, c.CompletionMs, c.EndToEndMs = model.StatusCompleted, last, last-trig
	}
	return ms
}

// benchInput is n of the benchmark's checkpoints, all in memory.
func benchInput(n int) (model.Job, []model.Checkpoint, []model.MetricSample) {
	g := newBenchGen()
	cps := make([]model.Checkpoint, n)
	var ms []model.MetricSample
	for i := range cps {
		ms = g.next(&cps[i], ms)
	}
	return g.job, cps, ms
}

// BenchmarkAnalyze10k is the full analysis of 10,000 checkpoints × 8
// vertices × 64 subtasks (5.12 M subtask stats) held in memory. The input is
// built once, outside the timer; B/op is what the analysis allocates, and
// peak-RSS-MiB the process's peak with the input.
func BenchmarkAnalyze10k(b *testing.B) {
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS(b)
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
	// Input included: this is what holding every subtask stat costs.
	b.ReportMetric(peakRSSMiB(b), "peak-RSS-MiB")
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

// benchMetricsFirst generates the metric samples of n checkpoints, and a
// generator for the same checkpoints: the analyzer takes the metrics first.
func benchMetricsFirst(n int) ([]model.MetricSample, *benchGen) {
	var ms []model.MetricSample
	var c model.Checkpoint
	for g, i := newBenchGen(), 0; i < n; i++ {
		ms = g.next(&c, ms)
	}
	return ms, newBenchGen()
}

// BenchmarkAnalyzeStream10k is the same analysis with the checkpoints fed
// one at a time, as the app streams them from its cache: the peak resident
// memory of the whole process (input included) is what a user's machine
// needs. It reports peak-RSS-MiB, read from the kernel (VmHWM, reset before
// each run); run it alone (-bench 'Stream10k$') so no earlier benchmark's
// memory is counted.
func BenchmarkAnalyzeStream10k(b *testing.B) {
	streamPeak(b, func() {
		ms, g := benchMetricsFirst(10_000)
		var c model.Checkpoint
		a := NewAnalyzer(g.job, nil, ms)
		for range 10_000 {
			g.next(&c, nil)
			a.Add(&c)
		}
		ja, _ := a.Finish(nil)
		if len(ja.Checkpoints) != 10_000 {
			b.Fatal("lost checkpoints")
		}
	})
}

// streamPeak runs one streamed run per iteration, each from a clean heap and
// a reset high-water mark, and reports the highest peak RSS.
func streamPeak(b *testing.B, run func()) {
	var peak float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS(b)
		b.StartTimer()
		run()
		peak = max(peak, peakRSSMiB(b))
	}
	b.ReportMetric(peak, "peak-RSS-MiB")
}

// BenchmarkHeatmapStream10k feeds the same 10,000 checkpoints one at a time
// to a HeatmapBuilder, as the app's Heatmap streams them from its cache, and
// builds the phase, failure and vertex (end_to_end) heatmaps over them all.
// It reports peak-RSS-MiB like BenchmarkAnalyzeStream10k; run it alone
// (-bench 'HeatmapStream10k$').
func BenchmarkHeatmapStream10k(b *testing.B) {
	streamPeak(b, func() {
		g := newBenchGen()
		hb := NewHeatmapBuilder(g.job)
		var ms []model.MetricSample
		var c model.Checkpoint
		for range 10_000 {
			ms = g.next(&c, ms[:0]) // the heatmaps read no metrics
			hb.Add(&c)
		}
		ph := hb.Phase(0, 0, DefaultHeatmapBuckets)
		fh := hb.Failure(0, 0, DefaultHeatmapBuckets)
		vh, err := hb.Vertex(EndToEnd, 0, 0, DefaultVertexColumns)
		if err != nil || len(ph.Rows) == 0 || len(fh.Rows) == 0 || len(vh.Columns) != DefaultVertexColumns || len(vh.Rows) != benchVertices {
			b.Fatalf("heatmaps: %d phase rows, %d failure rows, %d×%d vertex cells (%v)", len(ph.Rows), len(fh.Rows), len(vh.Rows), len(vh.Columns), err)
		}
	})
}

// resetPeakRSS sets the kernel's high-water mark of resident memory to the
// current size (Linux: "5" to clear_refs).
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS here: %v", err)
	}
}

func peakRSSMiB(b *testing.B) float64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// BenchmarkBenchGen10k is the generator alone: subtract it from
// BenchmarkAnalyzeStream10k for the streamed analysis's own time.
func BenchmarkBenchGen10k(b *testing.B) {
	for b.Loop() {
		g := newBenchGen()
		var ms []model.MetricSample
		var c model.Checkpoint
		for range 10_000 {
			ms = g.next(&c, ms)
		}
	}
}

// BenchmarkAnalyzeStreamEmit10k is the report command's analysis: each
// checkpoint's analysis handed over as it is made and not kept, so the
// peak-RSS-MiB beside BenchmarkAnalyzeStream10k's is what streaming saves.
func BenchmarkAnalyzeStreamEmit10k(b *testing.B) {
	streamPeak(b, func() {
		ms, g := benchMetricsFirst(10_000)
		var c model.Checkpoint
		a := NewAnalyzer(g.job, nil, ms)
		emitted := 0
		keep := func(int, *CheckpointAnalysis) error { return nil }
		a.Stream(Streaming{Emit: func(int, *CheckpointAnalysis) error { emitted++; return nil }, Revise: keep})
		for range 10_000 {
			g.next(&c, nil)
			if err := a.Add(&c); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := a.Finish(nil); err != nil || emitted != 10_000 {
			b.Fatalf("emitted %d: %v", emitted, err)
		}
	})
}
