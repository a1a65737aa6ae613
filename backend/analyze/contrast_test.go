package analyze

import (
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// millis turns 0..1 ratios into sorted per-mille values.
func millis(vs ...float64) []int32 {
	out := make([]int32, len(vs))
	for i, v := range vs {
		out[i] = perMille(v)
	}
	return out
}

// The Hodges–Lehmann shift and its interval, worked out by hand.
func TestPairDiffs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		s, o     []int32
		median   float64
		k        int64
		lo, hi   int32
		countLE0 int64
	}{
		// 15 differences 0.4 0.5 0.5 0.6 0.6 0.6 0.7 0.7 0.7 0.8 0.8 0.8 0.9 0.9 1.0:
		// the 8th is 0.7; at k = 1 the interval is the extremes.
		{"3 against 5", millis(0.8, 0.9, 1.0), millis(0, 0.1, 0.2, 0.3, 0.4), 700, 1, 400, 1000, 0},
		// 0.3 0.4 0.4 0.5: the median of an even count is the mean of the middle two.
		{"even count", millis(0.5, 0.6), millis(0.1, 0.2), 400, 2, 400, 400, 0},
		// −0.6 −0.4 −0.4 −0.2 −0.2 −0.2 0 0 0 0 0.2 0.2 0.2 0.4 0.4 0.6.
		{"the same values", millis(0.1, 0.3, 0.5, 0.7), millis(0.1, 0.3, 0.5, 0.7), 0, 1, -600, 600, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := pairDiffs{tc.s, tc.o}
			if got := d.median(); got != tc.median {
				t.Errorf("median = %v, want %v", got, tc.median)
			}
			if lo, hi := d.kth(tc.k), d.kth(d.n()+1-tc.k); lo != tc.lo || hi != tc.hi {
				t.Errorf("D(%d), D(%d) = %d, %d; want %d, %d", tc.k, d.n()+1-tc.k, lo, hi, tc.lo, tc.hi)
			}
			if got := d.countLE(0); got != tc.countLE0 {
				t.Errorf("countLE(0) = %d, want %d", got, tc.countLE0)
			}
		})
	}
}

// mannWhitneyK against the tables of Mann–Whitney's U (two-sided, α = 0.05:
// reject when U ≤ the critical value, so k is that value + 1; "–" is 0).
func TestMannWhitneyK(t *testing.T) {
	for _, tc := range []struct {
		m, n int
		k    int64
	}{
		{3, 4, 0}, {3, 5, 1}, {4, 4, 1}, {5, 5, 3}, {6, 6, 6}, {7, 7, 9}, {7, 8, 11}, {8, 8, 14},
		{3, 9, 3}, {10, 10, 24}, {20, 20, 128},
	} {
		if got := mannWhitneyK(tc.m, tc.n, 0.05); got != tc.k {
			t.Errorf("k(%d, %d) = %d, want %d", tc.m, tc.n, got, tc.k)
		}
		if got := mannWhitneyK(tc.n, tc.m, 0.05); got != tc.k {
			t.Errorf("k(%d, %d) = %d, want %d (symmetric)", tc.n, tc.m, got, tc.k)
		}
	}
	// U for 2 and 2 values: of the 6 orderings, U = 0, 1, 2, 3, 4 in 1, 1, 2, 1, 1.
	if got := mannWhitneyCounts(2, 2, 4); !reflect.DeepEqual(got, []float64{1, 1, 2, 1, 1}) {
		t.Errorf("counts(2, 2) = %v", got)
	}
	// Where the exact count stops, the normal approximation is as good.
	for _, mn := range [][2]int{{100, 100}, {50, 200}, {20, 500}} {
		m, n := mn[0], mn[1]
		exact, approx := mannWhitneyK(m, n, 0.05), mannWhitneyKNormal(m, n, 0.05)
		if d := approx - exact; d < -3 || d > 3 {
			t.Errorf("%d×%d: exact k %d, approximation %d", m, n, exact, approx)
		}
	}
}

// phaseless builds completed checkpoints without phases: slow ones (judged
// so, 20 s and more) and others (about 1 s), with their backpressure; nil
// for a checkpoint without a sample.
func phaseless(slow, others []*float64) []corrInput {
	var in []corrInput
	id := int64(100)
	for i, bp := range others {
		id++
		in = append(in, corrInput{id: id, completed: true, e2e: int64(1400 - 50*i), size: 100, upstream: bp, maxBP: bp, samples: samplesOf(bp),
			medianE2E: 1200})
	}
	for i, bp := range slow {
		id++
		in = append(in, corrInput{id: id, completed: true, e2e: int64(30_000 - 2000*i), size: 100, upstream: bp, maxBP: bp,
			samples: samplesOf(bp), medianE2E: 1200, slow: true})
	}
	return in
}

func samplesOf(bp *float64) int {
	if bp == nil {
		return 0
	}
	return 1
}

func ratios(vs ...float64) []*float64 {
	out := make([]*float64, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

// The verdict from the slow checkpoints set against the others, where no
// checkpoint has phases (SeaTunnel Zeta), with values worked out by hand.
func TestContrastVerdict(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name   string
		in     []corrInput
		want   Verdict
		basis  Basis
		reason []string
		codes  []string // the contrast's reason codes, in order
	}{
		// The replay of issue #28: 7 slow checkpoints under 0.75–0.9 backpressure, 8 others
		// under 0.05 (and one without a sample), sparse samples. The rank correlation is
		// too weak (durations fall with backpressure within each group), as it was there.
		// Slow (per mille) 750 780 800 820 850 880 900, others 0 0 10 20 20 30 40 40: the
		// 56 differences' 28th and 29th are 800; with k = 11 (7 and 8 values) the interval
		// is D(11) = 750 (710 ×2, 720, 730 ×2, 740 ×3, 750 ×3) to D(46) = 860 (the 11th largest:
		// 900 ×2, 890, 880 ×4, 870 ×2, 860 ×4).
		{"the replay: slow ones far more backpressured", phaseless(
			ratios(0.75, 0.78, 0.80, 0.82, 0.85, 0.88, 0.90),
			append(ratios(0, 0, 0.01, 0.02, 0.02, 0.03, 0.04, 0.04), nil)),
			VerdictBackpressure, BasisContrast, []string{
				"the 7 slow checkpoints with samples (110, 111, 112, 113, 114, 115, 116) had a median backpressure of 0.82 against 0.02 for the 8 others: 0.80 higher (95% interval 0.75 to 0.86; 7 samples in the slow ones' windows, 8 in the others')",
				"upstream backpressure: ρ=",
			}, []string{"contrast_bp"}},
		// Under the same backpressure, slow or not: 16 differences −0.6 … 0.6, median 0,
		// the interval at k = 1 the extremes.
		{"slow and fast under the same backpressure", phaseless(ratios(0.1, 0.3, 0.5, 0.7), ratios(0.1, 0.3, 0.5, 0.7)),
			VerdictInconclusive, "", []string{
				"the slow checkpoints' backpressure and the others' overlap (median 0.40 over 4 against 0.40 over 4; difference 0.00, 95% interval -0.60 to 0.60)",
			}, []string{"contrast_overlap"}},
		{"sustained everywhere", phaseless(ratios(0.8, 0.8, 0.8, 0.8), ratios(0.8, 0.8, 0.8, 0.8, 0.8)),
			VerdictInconclusive, "", []string{"overlap (median 0.80 over 4 against 0.80 over 5; difference 0.00, 95% interval 0.00 to 0.00)"},
			[]string{"contrast_overlap"}},
		// 20 differences −0.9 ×2, −0.8 ×5, −0.7 ×5, −0.6 ×4, −0.5 ×3, −0.4: the 10th and 11th
		// are −0.7; k = 2 for 4 and 5 values (U ≤ 1 in 2 of 126 orderings).
		{"slow ones less backpressured", phaseless(ratios(0, 0.1, 0.1, 0.2), ratios(0.6, 0.7, 0.8, 0.9, 0.9)),
			VerdictInconclusive, "", []string{"the slow checkpoints had less backpressure than the others (median 0.10 over 4 against 0.80 over 5; difference -0.70, 95% interval -0.90 to -0.50): it is not what slows them"},
			[]string{"contrast_lower"}},
		// Clearly higher (every slow one above every other) but by 0.1: 16 differences 0.05 … 0.2.
		{"higher, but too little", phaseless(ratios(0.2, 0.25, 0.3, 0.3), ratios(0.1, 0.1, 0.15, 0.15)),
			VerdictInconclusive, "", []string{"difference 0.15, 95% interval 0.05 to 0.20), too little to explain them (need a difference of 0.30 and a median of 0.50)"},
			[]string{"contrast_small"}},
		// 5 of the 7 slow checkpoints fell between samples.
		{"too few slow checkpoints sampled", phaseless(
			[]*float64{f(0.9), nil, nil, f(0.8), nil, nil, nil},
			ratios(0, 0, 0.01, 0.02, 0.02, 0.03, 0.04, 0.04)),
			VerdictInconclusive, "", []string{
				"5 of the 7 slow checkpoints have no backpressure sample in or just before their window (110, 111, 113, 114, 115): too few are left to set against the others (need at least 3 of them, and 50%)",
			}, []string{"contrast_slow_unsampled"}},
		// 3 of 7 without samples: the 4 that have them still decide, and the reason says which lacked them.
		{"some slow checkpoints unsampled", phaseless(
			[]*float64{f(0.9), nil, f(0.85), f(0.8), nil, nil, f(0.95)},
			ratios(0, 0, 0.01, 0.02, 0.02, 0.03, 0.04, 0.04)),
			VerdictBackpressure, BasisContrast, []string{"the 4 slow checkpoints with samples (109, 111, 112, 115)",
				"3 of the 7 slow checkpoints have no backpressure sample (110, 113, 114)"},
			[]string{"contrast_bp", "contrast_unsampled"}},
		{"too few others sampled", phaseless(ratios(0.9, 0.8, 0.85), []*float64{f(0), nil, nil, f(0), nil}),
			VerdictInconclusive, "", []string{"only 2 of the 5 other checkpoints have backpressure samples: too few to set the slow ones against (need 3)"},
			[]string{"contrast_others_few"}},
		{"too few for an interval", phaseless(ratios(0.9, 0.8, 0.85), ratios(0, 0, 0.01, 0.02)),
			VerdictInconclusive, "", []string{"3 slow and 4 other checkpoints with backpressure samples are too few for a 95% interval of their difference"},
			[]string{"contrast_no_interval"}},
		{"two slow checkpoints", phaseless(ratios(0.9, 0.8), ratios(0, 0, 0.01, 0.02, 0.02)),
			VerdictInconclusive, "", []string{"only 2 checkpoint(s) are slow: too few to set against the others (need 3)"},
			[]string{"contrast_slow_few"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := correlate(tc.in, nil)
			if c.Verdict != tc.want || c.Basis != tc.basis {
				t.Errorf("verdict = %s (%s), want %s (%s); reason: %s", c.Verdict, c.Basis, tc.want, tc.basis, c.Reason)
			}
			for _, s := range tc.reason {
				if !strings.Contains(c.Reason, s) {
					t.Errorf("reason %q\ndoes not say %q", c.Reason, s)
				}
			}
			var codes []string
			for _, p := range c.ReasonParts {
				if strings.HasPrefix(p.Code, "contrast_") {
					codes = append(codes, p.Code)
				}
			}
			if !reflect.DeepEqual(codes, tc.codes) {
				t.Errorf("contrast clauses %v, want %v", codes, tc.codes)
			}
		})
	}
}

// The replay's rank correlation is what left it inconclusive before: too
// weak at n = 15, as in issue #28 (ρ 0.42–0.46, p 0.07–0.12).
func TestTheReplayDefeatsTheRankCorrelation(t *testing.T) {
	in := phaseless(ratios(0.75, 0.78, 0.80, 0.82, 0.85, 0.88, 0.90), append(ratios(0, 0, 0.01, 0.02, 0.02, 0.03, 0.04, 0.04), nil))
	c := correlate(in, nil)
	if s := c.Backpressure; s.N != 15 || strong(s) {
		t.Errorf("backpressure correlation %s is strong: the case does not reproduce the issue", describe(s))
	}
}

// None judged slow: the slowest quarter stands for the slow ones. Within
// each group duration falls as backpressure rises, so the rank correlation
// is too weak.
func TestContrastTakesTheSlowestQuarter(t *testing.T) {
	var in []corrInput
	for i := range 12 {
		bp := 0.07 - 0.01*float64(i)
		e2e := int64(1000 + 10*i)
		if i >= 8 {
			bp, e2e = 0.95-0.05*float64(i-8), int64(5000+100*i)
		}
		in = append(in, corrInput{id: int64(i + 1), completed: true, e2e: e2e, size: 100, upstream: &bp, samples: 1})
	}
	c := correlate(in, nil)
	if strong(c.Backpressure) {
		t.Fatalf("the correlation (%s) decides: the case tests nothing", describe(c.Backpressure))
	}
	// The quarter: e2e ≥ the 9th of 12 (5800 ms), 4 checkpoints.
	for _, s := range []string{"no checkpoint was judged slow against its baseline, so the slowest quarter (4 checkpoints of at least 5800 ms)",
		"the 4 slow checkpoints with samples (9, 10, 11, 12) had a median backpressure of 0.88 against"} {
		if !strings.Contains(c.Reason, s) {
			t.Errorf("reason %q\ndoes not say %q", c.Reason, s)
		}
	}
	if c.Verdict != VerdictBackpressure {
		t.Errorf("verdict %s: %s", c.Verdict, c.Reason)
	}
}

// Where the slow checkpoints have phases (Flink's REST API), the phases say
// where the time went and the contrast does not apply: a slow sync under
// high backpressure stays what the phase rules say, word for word.
func TestContrastLeavesCheckpointsWithPhasesAlone(t *testing.T) {
	in := phaseless(ratios(0.75, 0.78, 0.80, 0.82, 0.85, 0.88, 0.90), ratios(0, 0, 0.01, 0.02, 0.02, 0.03, 0.04, 0.04))
	for i := range in {
		in[i].hasPhases, in[i].bottleneck = true, PhaseSync
	}
	if ct := contrastOf(in); ct.run || ct.decided() || ct.parts() != nil {
		t.Errorf("contrast ran over checkpoints with phases: %+v", ct)
	}
	c := correlate(in, nil)
	if c.Verdict != VerdictInconclusive || strings.Contains(c.Reason, "slow checkpoints with samples") {
		t.Errorf("verdict %s: %s", c.Verdict, c.Reason)
	}
	// What the rules before the contrast said of it, word for word.
	want := "in 100% of the slowest quarter of checkpoints the bottleneck is sync, which neither backpressure, state size nor storage explains: " +
		"that is where the time goes; upstream backpressure: ρ=0.51, n=15, p=0.054 is too weak (need ρ ≥ 0.4 and p ≤ 0.05); " +
		"checkpointed size (or duration) did not vary across 15 checkpoints, so it cannot explain them; checkpointed size read 100 for every one of them; " +
		"async is the bottleneck in only 0% of the slowest quarter (needs 50% for storage); the slowest checkpoint, 109, took 30000 ms " +
		"(25× the median of 1200 ms before it); its bottleneck is sync; backpressure in its window peaked at 0.75 over 1 sample(s)."
	if c.Reason != want {
		t.Errorf("reason %q\nwant the phase rules' %q", c.Reason, want)
	}
}

// The vertices of sourceToSink's job.
const stSource, stSink = "source", "sink"

// sourceToSink is a SeaTunnel-shaped job: a source writing into a sink.
func sourceToSink(name string) model.Job {
	return model.Job{ID: "st", Name: name, Engine: model.EngineSeaTunnel,
		Vertices: []model.Vertex{{ID: stSource, Name: "Source"}, {ID: stSink, Name: "Sink"}},
		Edges:    []model.Edge{{Source: stSource, Target: stSink}}}
}

// End to end on a SeaTunnel-shaped job: no phases, bpRatio and
// queueFillRatio sampled every 5 s on the edge into the sink. Two slow
// checkpoints fall where only the queue was sampled: its fill is their
// evidence (a full queue blocks the writer), while their backpressure,
// which the queue's fill is not, stays absent.
func TestAnalyzeSeaTunnelContrast(t *testing.T) {
	job := sourceToSink("replay")
	var cps []model.Checkpoint
	var ms []model.MetricSample
	sample := func(metric string, t int64, v float64) {
		ms = append(ms, model.MetricSample{JobID: job.ID, VertexID: stSource, Target: stSink, Subtask: -1, Metric: metric, TimeMs: t, Value: v})
	}
	slow := map[int]float64{4: 0.9, 6: 0.75, 8: 0.8, 9: 0.85, 11: 0.78, 13: 0.88, 15: 0.82}
	queueOnly := map[int]bool{9: true, 13: true}
	// Two quick checkpoints went unsampled, so the rank correlation over the 14 that were stays
	// too weak to decide (ρ≈0.45, p≈0.1), as in the replay.
	unsampled := map[int]bool{1: true, 2: true}
	base := int64(1_700_000_000_000)
	for i := range 16 {
		trig := base + int64(i)*60_000
		// Within each group duration falls as backpressure rises, as in the replay.
		bp := 0.01 * float64(i%4)
		e2e := int64(1100 - 2000*bp)
		if v, ok := slow[i]; ok {
			bp, e2e = v, int64(20_000+100_000*(0.9-v))
		}
		cps = append(cps, model.Checkpoint{JobID: job.ID, ID: int64(i + 1), Kind: model.KindCheckpoint, Status: model.StatusCompleted,
			TriggerMs: trig, EndToEndMs: e2e, CompletionMs: trig + e2e, LatestAckMs: trig + e2e, CheckpointedSize: 100})
		// Sparse: the 5 s buckets of the checkpoint's first 25 s.
		for s := int64(5_000); s <= 25_000; s += 5_000 {
			v := bp
			if s > e2e+5_000 {
				v = 0.01 // after it: quiet again
			}
			if unsampled[i] {
				continue
			}
			if !queueOnly[i] || s > e2e+5_000 {
				sample(model.MetricBPRatio, trig+s, v)
			}
			sample(model.MetricQueueFillRatio, trig+s, v)
		}
	}
	ja := Analyze(job, cps, nil, ms, nil)
	c := ja.Correlation
	if strong(c.Backpressure) {
		t.Fatalf("the correlation (%s) decides: the case tests nothing", describe(c.Backpressure))
	}
	if c.Verdict != VerdictBackpressure || c.Basis != BasisContrast {
		t.Fatalf("verdict %s (%s): %s", c.Verdict, c.Basis, c.Reason)
	}
	want := "the 7 slow checkpoints with samples (5, 7, 9, 10, 12, 14, 16) had a median backpressure of 0.82 against 0.02 for the 7 others"
	if !strings.Contains(c.Reason, want) {
		t.Errorf("reason %q\ndoes not say %q", c.Reason, want)
	}
	for _, ca := range ja.Checkpoints {
		if ca.ID == 10 || ca.ID == 14 {
			if ca.Backpressure != nil && ca.Backpressure.Upstream != nil {
				t.Errorf("checkpoint %d backpressure %s: only its queue was sampled", ca.ID, js(ca.Backpressure))
			}
		}
	}
	if !AnalysedMetric(model.MetricQueueFillRatio) {
		t.Error("the report must read queueFillRatio: the verdict does")
	}
}

// A SeaTunnel 2.3.13 job behind a slow sink: only the queue into the sink is sampled (no realtime
// bpRatio), and it fills as the checkpoints slow down, round after round (the pipeline restored
// after an expiry empties it). The queue's fill is the evidence the rank correlation reads.
func TestQueueFillAloneCorrelates(t *testing.T) {
	job := sourceToSink("slow sink")
	// Two rounds: 1.1 s at 0.10 full, 3.5 s at 0.25, 6.3 s at 0.45, 16.7 s at 0.90; then again.
	rounds := []struct {
		e2e  int64
		fill float64
	}{{1100, 0.10}, {3500, 0.25}, {6300, 0.45}, {16700, 0.90}, {1200, 0.12}, {3400, 0.24}, {6200, 0.44}, {12800, 0.80}}
	var cps []model.Checkpoint
	var ms []model.MetricSample
	base := int64(1_700_000_000_000)
	for i, r := range rounds {
		trig := base + int64(i)*30_000
		cps = append(cps, model.Checkpoint{JobID: job.ID, ID: int64(i + 1), Kind: model.KindCheckpoint, Status: model.StatusCompleted,
			TriggerMs: trig, EndToEndMs: r.e2e, CompletionMs: trig + r.e2e, LatestAckMs: trig + r.e2e})
		// Sampled every second: at the checkpoint's fill while it runs, nearly empty between.
		for at := trig + 1000; at < trig+30_000; at += 1000 {
			v := 0.02
			if at <= trig+r.e2e {
				v = r.fill
			}
			ms = append(ms, model.MetricSample{JobID: job.ID, VertexID: stSource, Target: stSink, Subtask: -1,
				Metric: model.MetricQueueFillRatio, TimeMs: at, Value: v})
		}
	}
	c := Analyze(job, cps, nil, ms, nil).Correlation
	// Fill and duration rank alike: ρ = 1 over 8 checkpoints.
	if c.Backpressure.N != 8 || c.Backpressure.Rho == nil || *c.Backpressure.Rho < 0.99 {
		t.Fatalf("backpressure correlation %s, want ρ=1 over the 8 queue fills", describe(c.Backpressure))
	}
	if c.Verdict != VerdictBackpressure || c.Basis != BasisCorrelation {
		t.Errorf("verdict %s (%s): %s, want backpressure by correlation", c.Verdict, c.Basis, c.Reason)
	}
	// The slowest, checkpoint 4 (16.7 s), is named with the queue its barrier waited in.
	if want := "the queue into the vertex its barrier waited for was up to 0.9 full over 17 sample(s)"; !strings.Contains(c.Reason, want) ||
		strings.Contains(c.Reason, "no backpressure samples cover it") {
		t.Errorf("reason %q\nwant %q", c.Reason, want)
	}
}
