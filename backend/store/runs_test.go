package store

import (
	"context"
	"errors"
	"testing"

	"checkpoint-explorer/backend/model"
)

// A split run stays split whatever the engine reports of the job after; a
// job the cache does not hold cannot be split; when a new run takes the id,
// the split goes with the earlier run.
func TestSplitRun(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	job := model.Job{Cluster: "c", ID: "j", Name: "orders", Engine: model.EngineFlink, State: "RUNNING", StartMs: 1000}
	if err := s.PutJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	if err := s.SplitRun(ctx, "c", "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("splitting a job the cache does not hold: %v, want ErrNotFound", err)
	}
	if err := s.SplitRun(ctx, "c", "j", true); err != nil {
		t.Fatal(err)
	}
	job.State = "CANCELED" // a poll's report of the job, without the user's word
	if err := s.PutJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	got, err := s.Job(ctx, "c", "j")
	if err != nil || !got.Split || got.State != "CANCELED" {
		t.Fatalf("after a report of the job: %+v (%v), want it split and CANCELED", got, err)
	}
	if js, err := s.Jobs(ctx, "c"); err != nil || len(js) != 1 || !js[0].Split {
		t.Errorf("Jobs: %+v (%v), want the job split", js, err)
	}

	// A new run takes the id: the earlier run, kept apart, stays split; the new one is not.
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{{Cluster: "c", JobID: "j", ID: 1, TriggerMs: 1500, Status: model.StatusCompleted}}); err != nil {
		t.Fatal(err)
	}
	kept, err := s.KeepRunApart(ctx, job, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if old, err := s.Job(ctx, "c", kept); err != nil || !old.Split {
		t.Errorf("the run kept apart: %+v (%v), want it split", old, err)
	}
	if now, err := s.Job(ctx, "c", "j"); err != nil || now.Split {
		t.Errorf("the new run of the id: %+v (%v), want it not split", now, err)
	}
	if err := s.SplitRun(ctx, "c", kept, false); err != nil {
		t.Fatal(err)
	}
	if old, _ := s.Job(ctx, "c", kept); old.Split {
		t.Error("joined again: still split")
	}
}
