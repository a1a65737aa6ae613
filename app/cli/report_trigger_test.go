package cli

import (
	"testing"

	"checkpoint-explorer/backend/model"
)

// The report's reconciliation line says why triggers failed before they got an id, where the
// JobManager log told.
func TestReconciliationTextSaysWhyTriggersFailedBeforeAnID(t *testing.T) {
	r := &model.Reconciliation{FirstID: 1, LatestID: 39, IDs: 39, Stored: 39, EngineCounted: 44, WithoutID: 5}
	base := "ids 1–39: 39 stored, 0 gaps, 0 unaccounted; the engine counted 44 (5 failed before they got an id"
	if got, want := reconciliationText(r), base+")"; got != want {
		t.Errorf("without the log:\n got %q\nwant %q", got, want)
	}
	r.TriggerFailures = []model.TriggerFailureReason{
		{Reason: "Not all required tasks are currently running", Count: 4, FirstMs: 1, LastMs: 2, Example: "…"},
		{Reason: "", Count: 1, FirstMs: 3, LastMs: 3, Example: "…"},
	}
	if got, want := reconciliationText(r), base+": Not all required tasks are currently running (4); other reasons (1))"; got != want {
		t.Errorf("with the log:\n got %q\nwant %q", got, want)
	}
}
