package analyze

import (
	"testing"

	"checkpoint-explorer/backend/model"
)

// A checkpoint stored in progress with a later completed one of its
// pipeline has ended unseen on Flink (Flink aborts pending checkpoints as
// subsumed), whether analysed whole or streamed; a savepoint, the newest
// running one, another pipeline's and any SeaTunnel checkpoint stay as seen.
func TestEndedUnseen(t *testing.T) {
	cp := func(pipeline int, id int64, st model.Status, kind model.CheckpointKind) model.Checkpoint {
		c := model.Checkpoint{Pipeline: pipeline, ID: id, Status: st, Kind: kind, TriggerMs: 10_000 * id, EndToEndMs: 500}
		if st.Final() {
			c.CompletionMs = c.TriggerMs + 500
		}
		return c
	}
	cps := []model.Checkpoint{
		cp(1, 1, model.StatusCompleted, ""),
		cp(1, 2, model.StatusInProgress, ""), // ended: 3 completed after it
		cp(1, 3, model.StatusCompleted, ""),
		cp(1, 4, model.StatusInProgress, model.KindSavepoint), // a savepoint is not subsumed
		cp(1, 5, model.StatusFailed, ""),
		cp(1, 6, model.StatusCompleted, ""),
		cp(1, 7, model.StatusInProgress, ""), // the newest: still running
		cp(2, 5, model.StatusInProgress, ""), // pipeline 2 completed nothing after it
	}
	for _, tc := range []struct {
		engine model.Engine
		want   map[[2]int64]bool // pipeline, id
	}{
		{model.EngineFlink, map[[2]int64]bool{{1, 2}: true}},
		{model.EngineSeaTunnel, map[[2]int64]bool{}},
	} {
		job := model.Job{Cluster: "c", ID: "j", Engine: tc.engine}
		whole := Analyze(job, cps, nil, nil, nil)
		streamed, revised := streamedInOrder(t, job, cps, nil, nil, nil)
		for name, ja := range map[string]JobAnalysis{"whole": whole, "streamed": streamed} {
			if len(ja.Checkpoints) != len(cps) {
				t.Fatalf("%s %s: %d analyses for %d checkpoints", tc.engine, name, len(ja.Checkpoints), len(cps))
			}
			for _, ca := range ja.Checkpoints {
				if got, want := ca.EndedUnseen, tc.want[[2]int64{int64(ca.Pipeline), ca.ID}]; got != want {
					t.Errorf("%s %s: checkpoint %d/%d ended unseen %v, want %v", tc.engine, name, ca.Pipeline, ca.ID, got, want)
				}
				if ca.EndedUnseen && ca.Status != model.StatusInProgress {
					t.Errorf("%s %s: checkpoint %d's status became %s; it stays the last one seen", tc.engine, name, ca.ID, ca.Status)
				}
			}
		}
		if want := len(tc.want); revised != want {
			t.Errorf("%s: %d analyses revised, want %d", tc.engine, revised, want)
		}
	}
}
