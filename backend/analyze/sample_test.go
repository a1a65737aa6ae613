package analyze

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
)

// samplePath finds the shared phase-2.3 sample beside the repository (as in
// the workplace and CI), or where CAPTURE_SAMPLE points.
func samplePath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CAPTURE_SAMPLE"), "../../../shared/samples/phase-2.3-checkpoint-metrics.json", "/work/shared/samples/phase-2.3-checkpoint-metrics.json"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("the phase-2.3 sample is not in shared/samples beside the repository; set CAPTURE_SAMPLE to its path")
	return ""
}

type sampleData struct {
	job     model.Job
	cps     []model.Checkpoint
	metrics []model.MetricSample
	gaps    []model.Gap
}

func readSample(t testing.TB) sampleData {
	rec := capturetest.Read(t, samplePath(t))
	d := sampleData{cps: rec.Checkpoints, metrics: rec.MetricSamples, gaps: rec.Gaps}
	if n := len(rec.Jobs); n > 0 {
		d.job = rec.Jobs[n-1]
	}
	return d
}

// The shared sample: a Flink CDC job under induced load. Checkpoint 28 took
// 19,022 ms against ~45 ms for the others. The sample has no per-subtask
// stats, and it recorded only soft backpressure (softBackPressuredTimeMsPerSecond,
// 0 at every point), not the total; what marks checkpoint 28 is the sampled
// alignment-time gauge, which reads 9.9 s just after it.
func TestSampleSinglesOutCheckpoint28(t *testing.T) {
	d := readSample(t)
	ja := Analyze(d.job, d.cps, nil, d.metrics, d.gaps)
	if len(ja.Checkpoints) != 7 || ja.Missed != 43 {
		t.Fatalf("%d checkpoints, %d missed; want 7 and 43", len(ja.Checkpoints), ja.Missed)
	}

	// Singled out as slow, alone.
	want := []SlowRun{{Phase: EndToEnd, CheckpointIDs: []int64{28}, FirstMs: 1779924618333, LastMs: 1779924618333,
		MaxMs: 19022, BaselineMedianMs: 44.5, ThresholdMs: 1044.5}}
	if !reflect.DeepEqual(ja.SlowCheckpoints, want) {
		t.Errorf("slow checkpoints = %s\nwant %s", js(ja.SlowCheckpoints), js(want))
	}
	for _, c := range ja.Checkpoints {
		if (len(c.Slow) > 0) != (c.ID == 28) {
			t.Errorf("checkpoint %d slow flags = %s", c.ID, js(c.Slow))
		}
		// No subtask stats: phases and bottlenecks absent, not zero.
		if len(c.Phases.Present()) != 0 || c.Bottleneck != nil {
			t.Errorf("checkpoint %d invents phases %v / bottleneck %s", c.ID, c.Phases.Present(), js(c.Bottleneck))
		}
		if c.AckProgress == nil || c.AckProgress.P100Ms == nil || *c.AckProgress.P100Ms != c.DurationMs || c.AckProgress.P50Ms != nil {
			t.Errorf("checkpoint %d ack progress = %s, want only p100 = its duration", c.ID, js(c.AckProgress))
		}
	}
	if len(ja.SlowPhases) != 0 || len(ja.PhasesAvailable) != 0 {
		t.Errorf("slow phases %s, phases available %v: the sample has no phases", js(ja.SlowPhases), ja.PhasesAvailable)
	}

	// Linked through what was sampled in its window.
	var c28 *CheckpointAnalysis
	for i := range ja.Checkpoints {
		if ja.Checkpoints[i].ID == 28 {
			c28 = &ja.Checkpoints[i]
		}
	}
	p := c28.Backpressure
	if p == nil || p.SampledAlignmentMs == nil || *p.SampledAlignmentMs < 9900 {
		t.Fatalf("checkpoint 28 pressure = %s, want the sampled alignment of ~9.9 s", js(p))
	}
	for _, c := range ja.Checkpoints {
		if c.ID == 28 {
			continue
		}
		if c.Backpressure == nil || c.Backpressure.SampledAlignmentMs == nil || *c.Backpressure.SampledAlignmentMs*40 > *p.SampledAlignmentMs {
			t.Errorf("checkpoint %d sampled alignment %s is not far below checkpoint 28's", c.ID, js(c.Backpressure))
		}
		// The artifact recorded soft backpressure only (0 throughout): that is
		// not the total, so no backpressure value may be reported.
		if c.Backpressure.Max != nil || c.Backpressure.Upstream != nil {
			t.Errorf("checkpoint %d backpressure = %s: the file has no total backpressure", c.ID, js(c.Backpressure))
		}
	}

	// Seven checkpoints are too few for a correlation, but the one judged slow
	// spent half its time in barrier alignment: backpressure, on that basis,
	// and the reason says both.
	c := ja.Correlation
	if c.Verdict != VerdictBackpressure || c.Basis != BasisSlowCheckpoints || c.Backpressure.N != 0 || c.Backpressure.Rho != nil {
		t.Errorf("correlation = %s", js(c))
	}
	for _, s := range []string{"checkpoint 28, the one judged slow, spent its time waiting for barriers", "9925 ms of checkpoint 28's 19022 ms",
		"mark of backpressure", "no backpressure gauge was recorded", "a correlation cannot confirm it", "the slowest checkpoint, 28, took 19022 ms (427× the median"} {
		if !strings.Contains(c.Reason, s) {
			t.Errorf("reason does not say %q: %s", s, c.Reason)
		}
	}
	if again := Analyze(d.job, d.cps, nil, d.metrics, d.gaps); !reflect.DeepEqual(ja, again) {
		t.Error("two analyses of the sample differ")
	}
}
