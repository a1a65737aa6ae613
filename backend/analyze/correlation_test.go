package analyze

import (
	"math/rand/v2"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestSeriesWindow(t *testing.T) {
	// Samples every 10 s: lag 10 s.
	se := &series{t: []int64{10_000, 20_000, 30_000, 40_000, 100_000}, v: []float64{0.1, 0.7, 0.3, 0.2, 0.9}}
	se.sortAndLag()
	if se.lag != 10_000 {
		t.Fatalf("lag = %d, want the median spacing 10000", se.lag)
	}
	for _, tc := range []struct {
		name        string
		from, to    int64
		v           float64
		n           int
		nearest, ok bool
	}{
		{"samples inside: the max", 15_000, 25_000, 0.7, 2, false, true}, // 20 s, and 30 s within one interval after the end
		{"sample one interval after the end counts", 12_000, 13_000, 0.7, 1, false, true},
		{"none inside: the last one before, within the lag", 41_000, 42_000, 0.2, 1, true, true},
		{"too far from any sample", 60_000, 65_000, 0, 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, n, nearest, ok := se.window(tc.from, tc.to)
			if v != tc.v || n != tc.n || nearest != tc.nearest || ok != tc.ok {
				t.Errorf("window = (%v, %d, %v, %v), want (%v, %d, %v, %v)", v, n, nearest, ok, tc.v, tc.n, tc.nearest, tc.ok)
			}
		})
	}
}

func TestVerdict(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f := func(v float64) *float64 { return &v }
	gen := func(n int, mk func(i int) corrInput) []corrInput {
		in := make([]corrInput, n)
		for i := range in {
			in[i] = mk(i)
			in[i].id, in[i].completed = int64(i+1), true
		}
		return in
	}
	for _, tc := range []struct {
		name   string
		in     []corrInput
		want   Verdict
		reason []string
	}{
		{"duration rises with upstream backpressure", gen(20, func(i int) corrInput {
			return corrInput{e2e: int64(1000 + 500*i + r.IntN(200)), upstream: f(float64(i) / 25), size: 5000 + int64(r.IntN(100))}
		}), VerdictBackpressure, []string{"end-to-end duration rises with upstream backpressure", "n=20"}},
		{"alignment rises with backpressure while duration is noisy", gen(20, func(i int) corrInput {
			return corrInput{e2e: int64(5000 + r.IntN(3000)), upstream: f(float64(i) / 25), hasPhases: true, alignDelay: int64(100 * i), size: 4000}
		}), VerdictBackpressure, []string{"start_delay + alignment rises with upstream backpressure"}},
		{"duration rises with size", gen(20, func(i int) corrInput {
			return corrInput{e2e: int64(1000 + 300*i), upstream: f(0.05), size: int64(1 << (10 + i%20))}
		}), VerdictStateSize, []string{"rises with checkpointed size"}},
		{"async dominates the slowest, size flat", gen(20, func(i int) corrInput {
			c := corrInput{e2e: int64(1000 + 100*i), size: int64(5000 + r.IntN(5000)), bottleneck: PhaseSync, hasPhases: true}
			if i >= 14 {
				c.bottleneck = PhaseAsync
			}
			return c
		}), VerdictStorage, []string{"async is the bottleneck in 100% of the slowest quarter"}},
		{"sustained backpressure, barriers wait", gen(20, func(i int) corrInput {
			return corrInput{e2e: int64(1100 + r.IntN(100)), upstream: f(1), hasPhases: true, alignDelay: 1050, bottleneck: PhaseStartDelay, size: int64(r.IntN(1000))}
		}), VerdictBackpressure, []string{"the bottleneck is start_delay or alignment while upstream backpressure is at least 50%", "sustained"}},
		{"barriers slow but nothing backpressured", gen(20, func(i int) corrInput {
			return corrInput{e2e: int64(1100 + r.IntN(100)), upstream: f(0.1), hasPhases: true, alignDelay: 1050, bottleneck: PhaseStartDelay, size: int64(r.IntN(1000))}
		}), VerdictInconclusive, []string{"upstream backpressure"}},
		{"too few checkpoints", gen(7, func(i int) corrInput {
			return corrInput{e2e: int64(1000 * (i + 1)), upstream: f(float64(i) / 10), size: int64(i)}
		}), VerdictInconclusive, []string{"only 7 completed checkpoints have backpressure samples", "need 8"}},
		{"weak evidence", gen(30, func(i int) corrInput {
			return corrInput{e2e: int64(1000 + r.IntN(1000)), upstream: f(r.Float64()), size: int64(r.IntN(1000))}
		}), VerdictInconclusive, []string{"is too weak (need ρ ≥ 0.4 and p ≤ 0.05)"}},
		{"duration falls as backpressure rises", gen(20, func(i int) corrInput {
			return corrInput{e2e: int64(20000 - 900*i), upstream: f(float64(i) / 25), size: 100}
		}), VerdictInconclusive, []string{"duration falls as upstream backpressure rises", "not a cause"}},
		{"no backpressure samples at all", gen(12, func(i int) corrInput {
			return corrInput{e2e: int64(1000 + i), size: int64(r.IntN(100))}
		}), VerdictInconclusive, []string{"no completed checkpoint has backpressure samples"}},
		// Too few to correlate: the checkpoints judged slow say where the time went.
		{"one slow checkpoint, alignment its bottleneck, no gauge", gen(6, func(i int) corrInput {
			c := corrInput{e2e: 50, size: 100, hasPhases: true, bottleneck: PhaseAsync}
			if i == 4 {
				c = corrInput{e2e: 9000, size: 100, hasPhases: true, bottleneck: PhaseAlignment, alignDelay: 8800, slow: true}
			}
			return c
		}), VerdictBackpressure, []string{"checkpoint 5, the one judged slow, spent its time waiting for barriers", "no backpressure gauge was recorded", "a correlation cannot confirm it"}},
		{"one slow checkpoint, sampled alignment only", gen(7, func(i int) corrInput {
			c := corrInput{e2e: 45, size: 100, sampledAlig: f(float64(i))}
			if i == 3 {
				c = corrInput{e2e: 19000, size: 100, sampledAlig: f(9900), slow: true}
			}
			return c
		}), VerdictBackpressure, []string{"the sampled alignment time reached 9900 ms of checkpoint 4's 19000 ms"}},
		{"sampled alignment below a quarter of the duration", gen(7, func(i int) corrInput {
			c := corrInput{e2e: 45, size: 100, sampledAlig: f(1)}
			if i == 3 {
				c = corrInput{e2e: 19000, size: 100, sampledAlig: f(4000), slow: true}
			}
			return c
		}), VerdictInconclusive, nil},
		{"slow in alignment but measured backpressure is quiet", gen(7, func(i int) corrInput {
			c := corrInput{e2e: 45, size: 100, upstream: f(0), samples: 1}
			if i == 3 {
				c = corrInput{e2e: 19000, size: 100, hasPhases: true, bottleneck: PhaseAlignment, upstream: f(0.02), samples: 2, slow: true}
			}
			return c
		}), VerdictInconclusive, nil},
		{"slow unaligned checkpoint", gen(7, func(i int) corrInput {
			c := corrInput{e2e: 45, size: 100}
			if i == 3 {
				c = corrInput{e2e: 19000, size: 100, hasPhases: true, bottleneck: PhaseAlignment, unaligned: true, slow: true}
			}
			return c
		}), VerdictInconclusive, nil},
		{"two slow, one waited for barriers, the other in async", gen(7, func(i int) corrInput {
			c := corrInput{e2e: 45, size: 100, hasPhases: true, bottleneck: PhaseSync}
			switch i {
			case 2:
				c = corrInput{e2e: 19000, size: 100, hasPhases: true, bottleneck: PhaseAsync, slow: true}
			case 3:
				c = corrInput{e2e: 19000, size: 100, hasPhases: true, bottleneck: PhaseAlignment, upstream: f(0.7), samples: 1, slow: true}
			}
			return c
		}), VerdictBackpressure, []string{"1 of the 2 checkpoints judged slow (4)", "upstream backpressure reached 0.7"}},
		{"slow in async", gen(7, func(i int) corrInput {
			c := corrInput{e2e: 45, size: 100, hasPhases: true, bottleneck: PhaseSync}
			if i == 3 {
				c = corrInput{e2e: 19000, size: 100, hasPhases: true, bottleneck: PhaseAsync, slow: true}
			}
			return c
		}), VerdictInconclusive, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := correlate(tc.in, nil)
			if c.Verdict != tc.want {
				t.Errorf("verdict = %s, want %s; reason: %s", c.Verdict, tc.want, c.Reason)
			}
			if c.Reason == "" {
				t.Error("no reason")
			}
			for _, s := range tc.reason {
				if !strings.Contains(c.Reason, s) {
					t.Errorf("reason %q does not say %q", c.Reason, s)
				}
			}
		})
	}
}

// End to end through Analyze: the Window's alignment grows with the Map's
// backpressure (the Map is upstream of the Window); the Sink, downstream,
// is always backpressured and must not count as upstream.
func TestAnalyzeLinksAlignmentToUpstreamBackpressure(t *testing.T) {
	job := flinkJob()
	var cps []model.Checkpoint
	var ms []model.MetricSample
	for i := range 16 {
		trig := int64(1_700_000_000_000 + i*60_000)
		al := int64(50 + i*1000)
		cps = append(cps, buildCP(int64(i+1), trig, []vtx{
			{vSrc, all4(healthy)}, {vMap, all4(healthy)},
			{vWin, with(2, ph{sd: 5, al: al, sy: 3, as: 30, ack: 2})}, {vSink, all4(healthy)},
		}, 0, ""))
		// Samples every 5 s from trigger to trigger + 55 s.
		for s := int64(0); s < 60_000; s += 5_000 {
			ms = append(ms,
				model.MetricSample{JobID: job.ID, VertexID: vMap, Subtask: -1, Agg: model.AggMax, Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + s, Value: float64(40 * i)},
				model.MetricSample{JobID: job.ID, VertexID: vSink, Subtask: -1, Agg: model.AggMax, Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + s, Value: 900},
				model.MetricSample{JobID: "another job", VertexID: vMap, Subtask: -1, Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + s, Value: 1000},
			)
		}
	}
	ja := Analyze(job, cps, nil, ms, nil)
	c := ja.Correlation
	if c.Verdict != VerdictBackpressure || c.Backpressure.N != 16 || c.Backpressure.Rho == nil || *c.Backpressure.Rho < 0.99 {
		t.Fatalf("correlation = %s", js(c))
	}
	p := ja.Checkpoints[10].Backpressure
	if p == nil || p.UpstreamOf != vWin || p.Upstream == nil || *p.Upstream != 0.4 || p.Max == nil || *p.Max != 0.9 || p.Basis != "window" {
		t.Errorf("pressure of checkpoint 11 = %s, want upstream 0.4 (the Map) of the Window, max 0.9 (the Sink)", js(p))
	}
}

// A checkpoint between two samples takes the last one within a sampling
// interval before it, and says so; inside its window it says "window".
func TestPressureSaysWhichSamplesItUsed(t *testing.T) {
	job := flinkJob()
	trig := int64(1_000_000)
	var ms []model.MetricSample
	for s := int64(0); s <= 40_000; s += 10_000 {
		ms = append(ms, model.MetricSample{JobID: job.ID, VertexID: vMap, Subtask: -1, Agg: model.AggMax,
			Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + s, Value: float64(100 + s/100)})
	}
	// 30 ms checkpoints: one on a sample, one between two (the next within an interval after its end:
	// "window"), one 5 s past the last sample (none after it: "nearest", the one before).
	cps := []model.Checkpoint{healthyCP(1, trig+10_000), healthyCP(2, trig+13_000), healthyCP(3, trig+45_000)}
	ja := Analyze(job, cps, nil, ms, nil)
	for i, want := range []struct {
		basis string
		v     float64
	}{{"window", 0.3}, {"window", 0.3}, {"nearest", 0.5}} {
		p := ja.Checkpoints[i].Backpressure
		if p == nil || p.Basis != want.basis || p.Max == nil || *p.Max != want.v || p.Nearest != (want.basis == "nearest") {
			t.Errorf("checkpoint %d pressure %s, want basis %s and %.1f", i+1, js(p), want.basis, want.v)
		}
	}
}

// AnalysedMetric names exactly the metrics the analysis reads: a report that
// reads only those gives the answer it gives over every sample.
func TestAnalysedMetricIsWhatTheAnalysisReads(t *testing.T) {
	names := []string{model.MetricBackPressuredMsPerSec, model.MetricSoftBackPressuredMsPerSec,
		model.MetricHardBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec, model.MetricBPRatio,
		model.MetricQueueFillRatio, model.MetricBusyRatio, model.MetricCommitDurationMs, model.MetricCommittedFiles,
		model.MetricCommittedRecords, model.MetricCommittedCommittables, MetricAlignmentTimeMs, model.MetricLanePrefix + "lag",
		"numRecordsInPerSecond"}
	for _, name := range names {
		s := model.MetricSample{JobID: "j", VertexID: "v", Subtask: -1, Metric: name, TimeMs: 1000, Value: 0.5}
		_, _, classified := classify(&s)
		read := classified || len(commitSamples([]model.MetricSample{s})) > 0
		if got := AnalysedMetric(name); got != read {
			t.Errorf("AnalysedMetric(%q) = %v, but the analysis reads it: %v", name, got, read)
		}
	}
}
