package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// Opened captures are exempt from the age and count limits: a colleague's
// capture from last quarter must not vanish the moment it is opened.
func TestRetentionKeepsOpenedCapturesOutOfAgeAndCountLimits(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), Retention{MaxCheckpointsPerJob: 3, MaxAge: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutCluster(ctx, model.Cluster{Name: "capture: old", Engine: model.EngineFlink, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCluster(ctx, model.Cluster{Name: "live", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-90 * 24 * time.Hour).UnixMilli()
	var cps []model.Checkpoint
	for _, cl := range []string{"capture: old", "live"} {
		for i := int64(1); i <= 10; i++ {
			cps = append(cps, modeltest.Checkpoint(cl, "j", i, old+i*1000, 1, 2))
		}
	}
	if err := s.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMetricSamples(ctx, []model.MetricSample{
		{Cluster: "capture: old", JobID: "j", Metric: model.MetricBusyMsPerSec, Subtask: -1, TimeMs: old, Value: 1},
		{Cluster: "live", JobID: "j", VertexID: "v", Metric: model.MetricBusyMsPerSec, Subtask: -1, TimeMs: old, Value: 1},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyRetention(ctx); err != nil {
		t.Fatal(err)
	}
	for cl, want := range map[string]int{"capture: old": 10, "live": 0} {
		got, err := s.Checkpoints(ctx, Query{Cluster: cl, JobID: "j"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("%s: %d checkpoints kept, want %d", cl, len(got), want)
		}
		ms, _ := s.MetricSamples(ctx, Query{Cluster: cl, JobID: "j"})
		if (want > 0) != (len(ms) > 0) {
			t.Errorf("%s: %d metric samples kept", cl, len(ms))
		}
	}
}
