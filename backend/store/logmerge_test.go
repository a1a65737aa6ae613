package store

import (
	"context"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestMergeLogCheckpointsCompletesStoredOnesAndFillsGaps(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	rest := []model.Checkpoint{
		{Cluster: "c", JobID: "j", ID: 5, Status: model.StatusCompleted, TriggerMs: 5000, EndToEndMs: 90, StateSize: 77},
		{Cluster: "c", JobID: "j", ID: 6, Status: model.StatusFailed, TriggerMs: 6000, FailureMessage: "Asynchronous task checkpoint failed."},
		// The same id from an earlier run of a reused job id: trigger times differ.
		{Cluster: "c", JobID: "j", ID: 7, Status: model.StatusCompleted, TriggerMs: 900_000},
	}
	if err := s.PutCheckpoints(ctx, rest); err != nil {
		t.Fatal(err)
	}
	if err := s.PutGaps(ctx, []model.Gap{{Cluster: "c", JobID: "j", FromID: 1, ToID: 4, Reason: "evicted"}}); err != nil {
		t.Fatal(err)
	}
	fin := func(v int64) *int64 { return &v }
	log := []model.Checkpoint{
		{ID: 2, Status: model.StatusCompleted, TriggerMs: 2000, CompletionMs: 2100, FinalizeMs: fin(4), Source: model.OriginJobManagerLog},
		{ID: 3, Status: model.StatusCompleted, TriggerMs: 3000, CompletionMs: 3100, FinalizeMs: fin(5), Source: model.OriginJobManagerLog},
		{ID: 5, Status: model.StatusCompleted, TriggerMs: 5001, CompletionMs: 5095, FinalizeMs: fin(5), Source: model.OriginJobManagerLog},
		{ID: 6, Status: model.StatusFailed, TriggerMs: 6000, FailureMessage: "Asynchronous task checkpoint failed.", FailureCause: "disk full",
			Declined: &model.Decline{VertexID: "v2", Subtask: 1, Task: "Map (2/2)#0"}, Source: model.OriginJobManagerLog},
		{ID: 7, Status: model.StatusCompleted, TriggerMs: 7000, FinalizeMs: fin(9), Source: model.OriginJobManagerLog},
		// Still listed by the engine's API: not inserted from the log.
		{ID: 8, Status: model.StatusCompleted, TriggerMs: 8000, FinalizeMs: fin(1), Source: model.OriginJobManagerLog},
	}
	m, err := s.MergeLogCheckpoints(ctx, "c", "j", log, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Added) != 2 || m.Added[0] != 2 || m.Added[1] != 3 || m.FilledGaps != 2 || m.Updated != 2 {
		t.Errorf("merge %+v: want 2 and 3 added (both in the gap), 5 and 6 updated", m)
	}
	cps, err := s.Checkpoints(ctx, Query{Cluster: "c", JobID: "j"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]model.Checkpoint{}
	for _, c := range cps {
		byID[c.ID] = c
	}
	if c := byID[5]; c.Source != "" || c.FinalizeMs == nil || *c.FinalizeMs != 5 || c.CompletionMs != 5095 || c.StateSize != 77 {
		t.Errorf("checkpoint 5 from REST gains finalize and completion, keeps the rest: %+v", c)
	}
	if c := byID[6]; c.FailureCause != "disk full" || c.Declined == nil || c.Declined.Task != "Map (2/2)#0" || c.Declined.VertexID != "v2" {
		t.Errorf("checkpoint 6 gains cause and decline: %+v %+v", c, c.Declined)
	}
	if c := byID[7]; c.FinalizeMs != nil {
		t.Errorf("checkpoint 7 of another run took the log's finalize: %+v", c)
	}
	if _, ok := byID[8]; ok {
		t.Error("checkpoint 8 is still listed by the API; the log must not insert it")
	}
	if c := byID[2]; c.Source != model.OriginJobManagerLog || *c.FinalizeMs != 4 {
		t.Errorf("checkpoint 2 from the log: %+v", c)
	}
	gaps, err := s.Gaps(ctx, Query{Cluster: "c", JobID: "j"})
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != 2 || gaps[0].FromID != 1 || gaps[0].ToID != 1 || gaps[1].FromID != 4 || gaps[1].ToID != 4 || gaps[1].Reason != "evicted" {
		t.Errorf("gap 1–4 with 2 and 3 filled: %+v, want 1–1 and 4–4", gaps)
	}
	// REST sending the summary again (deferred details) keeps what the log added.
	again := rest[0]
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{again}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Checkpoint(ctx, model.Key{Cluster: "c", JobID: "j", ID: 5})
	if err != nil || c.FinalizeMs == nil || *c.FinalizeMs != 5 || c.CompletionMs != 5095 {
		t.Errorf("after REST's summary again: %+v, %v", c, err)
	}
	// Merging again changes nothing more.
	m, err = s.MergeLogCheckpoints(ctx, "c", "j", log, 8)
	if err != nil || len(m.Added) != 0 || m.FilledGaps != 0 {
		t.Errorf("second merge %+v, %v", m, err)
	}
}

// A checkpoint stored in flight that left the engine's history before it ended is resolved by
// what the log or the traces say of its end; its stored per-subtask stats stay.
func TestMergeLogCheckpointsResolvesOnesStoredInProgress(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	inFlight := model.Checkpoint{Cluster: "c", JobID: "j", ID: 4, Status: model.StatusInProgress, TriggerMs: 4000, NumSubtasks: 2, NumAcknowledged: 1,
		Tasks: []model.TaskStats{{VertexID: "v1", NumSubtasks: 2, NumAcknowledged: 1, Subtasks: []model.SubtaskStats{
			{Index: 0, Status: model.SubtaskCompleted, AckMs: 4100, SyncMs: 3}, {Index: 1, Status: model.SubtaskPendingOrFailed}}}}}
	other := model.Checkpoint{Cluster: "c", JobID: "j", ID: 5, Status: model.StatusInProgress, TriggerMs: 5000}
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{inFlight, other}); err != nil {
		t.Fatal(err)
	}
	m, err := s.MergeLogCheckpoints(ctx, "c", "j", []model.Checkpoint{
		{ID: 4, Status: model.StatusFailed, TriggerMs: 4000, EndToEndMs: 60_000, FailureMessage: "Checkpoint expired before completing.", Source: model.OriginTraces},
		// Another run's id 5 (trigger times differ): not this one's end.
		{ID: 5, Status: model.StatusCompleted, TriggerMs: 900_000, Source: model.OriginTraces},
	}, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Resolved) != 1 || m.Resolved[0] != 4 || len(m.Added) != 0 {
		t.Errorf("merge %+v: want 4 resolved, nothing added", m)
	}
	got, err := s.Checkpoint(ctx, model.Key{Cluster: "c", JobID: "j", ID: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != model.StatusFailed || got.FailureMessage == "" || got.Source != "" || got.EndToEndMs != 60_000 {
		t.Errorf("checkpoint 4 after the merge: %+v", got)
	}
	if len(got.Tasks) != 1 || len(got.Tasks[0].Subtasks) != 2 || got.Tasks[0].Subtasks[0].SyncMs != 3 {
		t.Errorf("checkpoint 4 lost its stored subtask stats: %+v", got.Tasks)
	}
	five, err := s.Checkpoint(ctx, model.Key{Cluster: "c", JobID: "j", ID: 5})
	if err != nil {
		t.Fatal(err)
	}
	if five.Status != model.StatusInProgress {
		t.Errorf("checkpoint 5 took another run's end: %+v", five)
	}
}
