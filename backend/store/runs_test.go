// What the cache keeps of a job's runs: a run split by hand, the restore counts of its restarts.
package store

import (
	"context"
	"errors"
	"reflect"
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

// Each reconciliation's restore count is kept when it differs from the one
// before (count or last restore time): the polls between say nothing new. A
// job keeps at most MaxRestoreCounts; a run kept apart takes its counts
// along, and a deleted cluster's go.
func TestRestoreCounts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	recon := func(job string, atMs, restored, lastRestoreMs int64) {
		t.Helper()
		r := model.Reconciliation{Cluster: "c", JobID: job, AtMs: atMs,
			Engine: &model.EngineCounts{Triggered: 10, Restored: restored, LastRestoreMs: lastRestoreMs}}
		if err := s.PutReconciliation(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	recon("j", 1000, 0, 0)
	recon("j", 2000, 0, 0) // the same: not kept
	recon("j", 3000, 1, 2500)
	recon("j", 4000, 1, 2500)
	recon("j", 2000, 0, 0)    // a poll again: nothing new
	recon("j", 5000, 1, 4800) // restored again from the same count (the counter of another JobManager)
	recon("other", 1000, 3, 0)
	// A reconciliation without the engine's counts, or with a count no engine gives, says nothing of them.
	if err := s.PutReconciliation(ctx, model.Reconciliation{Cluster: "c", JobID: "j", AtMs: 6000}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutReconciliation(ctx, model.Reconciliation{Cluster: "c", JobID: "j", AtMs: 7000, Engine: &model.EngineCounts{Restored: -1}}); err != nil {
		t.Errorf("a reconciliation with a negative restore count: %v, want it kept", err)
	}
	want := []model.RestoreCount{
		{Cluster: "c", JobID: "j", AtMs: 1000},
		{Cluster: "c", JobID: "j", AtMs: 3000, Restored: 1, LastRestoreMs: 2500},
		{Cluster: "c", JobID: "j", AtMs: 5000, Restored: 1, LastRestoreMs: 4800},
	}
	got, err := s.RestoreCounts(ctx, "c", "j")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("restore counts %+v (%v), want %+v", got, err, want)
	}
	if err := s.PutRestoreCount(ctx, model.RestoreCount{Cluster: "c", JobID: "j", AtMs: 0, Restored: 1}); err == nil {
		t.Error("a restore count without a time was kept")
	}

	// A restart loop keeps the newest MaxRestoreCounts.
	for i := range int64(MaxRestoreCounts + 5) {
		if err := s.PutRestoreCount(ctx, model.RestoreCount{Cluster: "c", JobID: "loop", AtMs: 1000 + i, Restored: i}); err != nil {
			t.Fatal(err)
		}
	}
	loop, err := s.RestoreCounts(ctx, "c", "loop")
	if err != nil || len(loop) != MaxRestoreCounts || loop[0].Restored != 5 {
		t.Errorf("a restart loop kept %d counts from %+v (%v), want the newest %d", len(loop), first(loop), err, MaxRestoreCounts)
	}

	// The run kept apart under its run id takes them along.
	if err := s.PutJob(ctx, model.Job{Cluster: "c", ID: "j", Name: "j", StartMs: 500, State: "RUNNING"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{{Cluster: "c", JobID: "j", ID: 1, TriggerMs: 900, Status: model.StatusCompleted}}); err != nil {
		t.Fatal(err)
	}
	kept, err := s.KeepRunApart(ctx, model.Job{Cluster: "c", ID: "j", Name: "j", StartMs: 500, State: "RUNNING"}, 7000)
	if err != nil || kept == "" {
		t.Fatalf("keep run apart: %q, %v", kept, err)
	}
	if moved, err := s.RestoreCounts(ctx, "c", kept); err != nil || len(moved) != 3 {
		t.Errorf("the run kept apart has %d restore counts (%v), want 3", len(moved), err)
	}
	if left, _ := s.RestoreCounts(ctx, "c", "j"); len(left) != 0 {
		t.Errorf("the new run of j has the old run's restore counts %+v", left)
	}

	if err := s.DeleteCluster(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if gone, _ := s.RestoreCounts(ctx, "c", "other"); len(gone) != 0 {
		t.Errorf("a deleted cluster's restore counts stayed: %+v", gone)
	}
}

func first(rcs []model.RestoreCount) any {
	if len(rcs) == 0 {
		return nil
	}
	return rcs[0]
}
