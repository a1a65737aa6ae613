package collect

import (
	"context"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// runsEngine is a job id taken by one run after another: each run has its own
// start time and lists its own checkpoint ids.
type runsEngine struct {
	*rollingEngine
	mu    sync.Mutex
	start int64   // the current run's start
	ids   []int64 // the current run's listed checkpoints
}

func (e *runsEngine) run(start int64, ids ...int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.start, e.ids = start, ids
}

func (e *runsEngine) job() model.Job {
	e.mu.Lock()
	defer e.mu.Unlock()
	return model.Job{ID: "job-1", Name: "runs", State: "RUNNING", Engine: model.EngineFlink, StartMs: e.start,
		Vertices: []model.Vertex{{ID: "v1", Name: "Source", Parallelism: 1}}}
}

func (e *runsEngine) Jobs(context.Context) ([]model.Job, error) { return []model.Job{e.job()}, nil }

func (e *runsEngine) Job(context.Context, string) (model.Job, error) { return e.job(), nil }

func (e *runsEngine) History(context.Context, *model.Job) (model.History, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := model.History{Capacity: 10, IntervalMs: 1000}
	for _, id := range e.ids {
		trig := e.start + id*1000
		h.Checkpoints = append(h.Checkpoints, model.Checkpoint{ID: id, TriggerMs: trig, Kind: model.KindCheckpoint,
			Status: model.StatusCompleted, NumSubtasks: 1, NumAcknowledged: 1, EndToEndMs: 30, LatestAckMs: trig + 30, CompletionMs: trig + 30})
	}
	return h, nil
}

// A job id taken by a new run: when the new run's ids start again, the earlier
// run's checkpoints are kept apart under an id of their own (they were
// replaced by the new run's of the same ids); when they go on (a restore), the
// runs stay one job.
func TestCollectorKeepsAnEarlierRunOfAJobIdApart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		secondIDs []int64
		apart     bool
	}{
		{"ids start again", []int64{1, 2, 3}, true},
		{"ids go on (restored)", []int64{9, 10}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			ctx := context.Background()
			first := time.Now().Add(-time.Hour).UnixMilli()
			eng := &runsEngine{rollingEngine: &rollingEngine{capacity: 10, interval: time.Second, details: map[int64]int{}}}
			eng.run(first, 1, 2, 3, 4, 5, 6, 7, 8)
			opts := fastOptions(st, nil)
			opts.JobsEvery = 50 * time.Millisecond // the job list tells the new run's start
			m := startPolling(ctx, opts, eng)
			defer m.Stop()
			stored := func(jobID string) map[int64]model.Checkpoint {
				cps, err := st.Checkpoints(ctx, store.Query{Cluster: "c1", JobID: jobID})
				if err != nil {
					t.Fatal(err)
				}
				out := map[int64]model.Checkpoint{}
				for _, c := range cps {
					out[c.ID] = c
				}
				return out
			}
			waitWithin(t, 10*time.Second, "the first run's 8 checkpoints", func() bool { return len(stored("job-1")) == 8 })
			second := first + 30*60*1000
			eng.run(second, tc.secondIDs...)
			last := tc.secondIDs[len(tc.secondIDs)-1]
			waitWithin(t, 10*time.Second, "the second run's checkpoints", func() bool {
				c, ok := stored("job-1")[last]
				return ok && c.TriggerMs == second+last*1000
			})
			m.Stop()
			runID := store.RunID("job-1", first)
			earlier, now := stored(runID), stored("job-1")
			if !tc.apart {
				if len(earlier) != 0 || len(now) != 8+len(tc.secondIDs) {
					t.Errorf("restored run: %d checkpoints apart, %d in the job; want none apart, all %d in one", len(earlier), len(now), 8+len(tc.secondIDs))
				}
				return
			}
			if len(earlier) != 8 || len(now) != len(tc.secondIDs) {
				t.Fatalf("%d checkpoints kept under %s, %d under job-1; want the first run's 8 and the second's %d", len(earlier), runID, len(now), len(tc.secondIDs))
			}
			for id, c := range earlier {
				if c.TriggerMs != first+id*1000 {
					t.Errorf("kept checkpoint %d triggered at %d, want the first run's %d", id, c.TriggerMs, first+id*1000)
				}
			}
			for id, c := range now {
				if c.TriggerMs != second+id*1000 {
					t.Errorf("checkpoint %d triggered at %d, want the second run's %d", id, c.TriggerMs, second+id*1000)
				}
			}
			kept, err := st.Job(ctx, "c1", runID)
			if err != nil || kept.StartMs != first || kept.State != model.StateReplaced || kept.EndMs != second || kept.Name != "runs" {
				t.Errorf("kept run's job %+v (%v): want the first run's, state %s, ended at the second's start", kept, err, model.StateReplaced)
			}
			if j, err := st.Job(ctx, "c1", "job-1"); err != nil || j.StartMs != second {
				t.Errorf("job-1 is %+v (%v), want the second run", j, err)
			}
		})
	}
}
