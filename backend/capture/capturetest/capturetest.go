// Package capturetest reads a capture file whole, for tests that replay a recording: one of the
// app's samples (app/sample) or one the test wrote; and writes one.
package capturetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
)

// Recording is what a capture file holds, each kind in file order.
type Recording struct {
	Summary       capture.Summary
	Jobs          []model.Job
	Checkpoints   []model.Checkpoint
	AckSamples    []model.AckSample
	MetricSamples []model.MetricSample
	Gaps          []model.Gap
}

// Read reads the capture at path with the default limits; the test fails when it does not read.
func Read(t testing.TB, path string) Recording {
	t.Helper()
	var r Recording
	var err error
	r.Summary, err = capture.ReadFile(context.Background(), path, capture.DefaultLimits(), capture.Visitor{
		Job:          func(j model.Job) error { r.Jobs = append(r.Jobs, j); return nil },
		Checkpoint:   func(c *model.Checkpoint) error { r.Checkpoints = append(r.Checkpoints, *c); return nil },
		AckSample:    func(s model.AckSample) error { r.AckSamples = append(r.AckSamples, s); return nil },
		MetricSample: func(m model.MetricSample) error { r.MetricSamples = append(r.MetricSamples, m); return nil },
		Gap:          func(g model.Gap) error { r.Gaps = append(r.Gaps, g); return nil },
	})
	if err != nil {
		t.Fatalf("capturetest: %v", err)
	}
	return r
}

// Sample is the path of the app's bundled sample name (app/sample/<name>).
func Sample(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "app", "sample", name)
}

// CheckpointsOf are the recording's checkpoints of one job.
func (r Recording) CheckpointsOf(jobID string) []model.Checkpoint {
	var out []model.Checkpoint
	for _, c := range r.Checkpoints {
		if c.JobID == jobID {
			out = append(out, c)
		}
	}
	return out
}

// Write writes at path a capture (gzip, a test's header) of what fill writes and returns path;
// the test fails when it does not write.
func Write(t testing.TB, path string, fill func(w *capture.Writer) error) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := capture.NewWriter(f, capture.Header{RecordedBy: "test", RecordedAt: time.Now().UTC(), AppVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(fill(w), w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}
