package store

import (
	"context"
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

// A job's reconciliation reads back whole, the reasons of its trigger failures included; a
// later one replaces it.
func TestReconciliationReadsBackWhole(t *testing.T) {
	s := openTest(t, DefaultRetention())
	ctx := context.Background()
	if _, ok, err := s.Reconciliation(ctx, "c", "j"); ok || err != nil {
		t.Fatalf("a reconciliation before any was put (%v)", err)
	}
	r := model.Reconciliation{Cluster: "c", JobID: "j", AtMs: 1000, Polls: 3, FirstID: 1, LatestID: 5, IDs: 5, Stored: 5,
		EngineCounted: 9, WithoutID: 4, Engine: &model.EngineCounts{Triggered: 9, Completed: 5, Failed: 4},
		TriggerFailures: []model.TriggerFailureReason{{Reason: "Not all required tasks are currently running", Count: 4,
			FirstMs: 10, LastMs: 40, Task: "Source: Numbers (1/1)", Example: "Checkpoint triggering task Source: Numbers (1/1) of job j is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running."}}}
	for _, put := range []model.Reconciliation{{Cluster: "c", JobID: "j", AtMs: 500}, r} {
		if err := s.PutReconciliation(ctx, put); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := s.Reconciliation(ctx, "c", "j")
	if err != nil || !ok || !reflect.DeepEqual(got, r) {
		t.Errorf("read back %+v (%v, %v), want %+v", got, ok, err, r)
	}
}
