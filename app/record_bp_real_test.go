package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/flinkenv"
)

// A 40 s capture of a backpressured job, started with the job: backpressure
// samples come within its first 12 s (metrics are asked for at every poll
// until the JobManager answers with values), and at least 90 % of the
// completed checkpoints carry a backpressure value in the report (from their
// window or the nearest sample).
func TestRecordSamplesBackpressureFromTheStart(t *testing.T) {
	env := flinkenv.Ensure(t)
	jid := flinkenv.SubmitJob(t, "--name", "ce-record-bp", "--interval-ms", "1000", "--rate", "2000", "--sleep-ms", "3")
	out := filepath.Join(t.TempDir(), "bp.ckpt.gz")
	start := time.Now()
	res, err := Record(context.Background(), RecordOptions{
		Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: env.RESTURL},
		JobID:   jid, Duration: 40 * time.Second, Out: out, JobsEvery: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var first int64
	_, err = capture.ReadFile(context.Background(), out, capture.DefaultLimits(), capture.Visitor{
		MetricSample: func(m model.MetricSample) error {
			if m.Metric == model.MetricBackPressuredMsPerSec && (first == 0 || m.TimeMs < first) {
				first = m.TimeMs
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if first == 0 || time.UnixMilli(first).Sub(start) > 12*time.Second {
		t.Errorf("first backpressure sample %v after the recording started, want within 12 s", time.UnixMilli(first).Sub(start))
	}

	a := newTestApp(t, Options{NoSample: true})
	if _, err := a.OpenCapture(out); err != nil {
		t.Fatal(err)
	}
	r, err := a.Report("capture: lab", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	completed, covered, nearest := 0, 0, 0
	for _, c := range r.Checkpoints {
		if c.Status != model.StatusCompleted {
			continue
		}
		completed++
		if c.Backpressure != nil && c.Backpressure.Max != nil {
			covered++
			if c.Backpressure.Basis == "nearest" {
				nearest++
			}
		}
	}
	if completed < 20 || covered*10 < completed*9 {
		t.Errorf("%d of %d completed checkpoints carry a backpressure value, want at least 90 %% (of 20 or more)", covered, completed)
	}
	t.Logf("first backpressure sample %v after the start; %d of %d completed checkpoints with backpressure (%d from the nearest sample); %d metric samples, %d requests",
		time.UnixMilli(first).Sub(start).Round(100*time.Millisecond), covered, completed, nearest, res.MetricSamples, res.Requests)
}
