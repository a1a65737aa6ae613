package collect

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// loggingEngine is a rolling engine that also keeps a log of every
// checkpoint since it started, with its finalize time (as Flink's
// JobManager log does), readable whenever the collector asks.
type loggingEngine struct {
	*rollingEngine
	mu    sync.Mutex
	reads int
	off   bool // the log cannot be read
}

const logFinalizeMs = 7

func (e *loggingEngine) LogCheckpoints(_ context.Context, job *model.Job, _ bool) ([]model.Checkpoint, model.LogState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.off {
		return nil, model.LogState{State: model.LogUnavailable, Reason: "injected"}, nil
	}
	e.reads++
	now := time.Now()
	var out []model.Checkpoint
	for id := int64(1); id <= e.triggered(now); id++ {
		c := e.checkpoint(id, now)
		if c.Status != model.StatusCompleted {
			continue
		}
		f := int64(logFinalizeMs)
		c.FinalizeMs = &f
		c.CompletionMs += f
		c.Source = model.OriginJobManagerLog
		out = append(out, c)
	}
	return out, model.LogState{State: model.LogRead, ReadMs: now.UnixMilli(), Checkpoints: len(out)}, nil
}

func TestCollectorTakesHistoryBeyondTheEngineListAndFinalizeFromItsLog(t *testing.T) {
	st := openStore(t)
	// 30 checkpoints happened before the job is followed; the list holds 10.
	interval := 40 * time.Millisecond
	eng := &loggingEngine{rollingEngine: &rollingEngine{start: time.Now().Add(-30 * interval), interval: interval,
		dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := fastOptions(st, nil)
	m := startPolling(ctx, opts, eng)
	// The list has been polled before the freeze: the ids it rolls past unseen
	// are then gaps the log fills, not history from before the job was followed.
	waitFor(t, "a poll of the list", func() bool {
		cps, _ := storedJob(t, st)
		return slices.ContainsFunc(cps, func(c model.Checkpoint) bool { return c.Source == "" })
	})
	time.Sleep(200 * time.Millisecond)
	// Hold the poller back: the list rolls past ~20 checkpoints unseen, which
	// the log gives back at its next read.
	eng.rollingEngine.mu.Lock()
	eng.frozen = true
	eng.rollingEngine.mu.Unlock()
	time.Sleep(30 * interval)
	eng.rollingEngine.mu.Lock()
	eng.frozen = false
	eng.rollingEngine.mu.Unlock()
	thawed, _, _ := st.Reconciliation(context.Background(), "c1", "job-1")
	// The log is read in the background; on a loaded machine its read after
	// the freeze comes late, so wait for what it fills rather than a fixed time.
	waitWithin(t, 30*time.Second, "the log to fill the gaps and end the in-flight checkpoints", func() bool {
		// Two polls after the thaw: one to see the list roll past, one after the log's read.
		if r, _, _ := st.Reconciliation(context.Background(), "c1", "job-1"); r.Polls < thawed.Polls+2 {
			return false
		}
		cps, gaps := storedJob(t, st)
		if len(gaps) != 0 {
			return false
		}
		var maxID int64
		for _, c := range cps {
			maxID = max(maxID, c.ID)
		}
		return !slices.ContainsFunc(cps, func(c model.Checkpoint) bool {
			return c.Status == model.StatusInProgress && c.ID < maxID-15
		})
	})
	m.Stop()

	cps, gaps := storedJob(t, st)
	if len(gaps) != 0 {
		t.Errorf("gaps %+v remain although the log holds every checkpoint", gaps)
	}
	var maxID int64
	byID := map[int64]model.Checkpoint{}
	fromLog := 0
	for _, c := range cps {
		byID[c.ID] = c
		maxID = max(maxID, c.ID)
		if c.Source == model.OriginJobManagerLog {
			fromLog++
			if c.ID > 30 && c.ID < maxID-12 {
				continue // a gap the log filled
			}
		}
	}
	for id := int64(1); id < maxID; id++ {
		c, ok := byID[id]
		if !ok {
			t.Fatalf("checkpoint %d not stored", id)
		}
		// The newest may not have been in the log when it was last read (in the background).
		if c.Status == model.StatusCompleted && (c.FinalizeMs == nil || *c.FinalizeMs != logFinalizeMs) && id < maxID-15 {
			t.Errorf("checkpoint %d (%s): finalize %v, want %d from the log", id, c.Source, c.FinalizeMs, logFinalizeMs)
		}
	}
	// The first 20 left the list before the job was followed: from the log,
	// without details; the ones the list showed have their details.
	for id := int64(1); id <= 19; id++ {
		if byID[id].Source != model.OriginJobManagerLog {
			t.Errorf("checkpoint %d: source %q, want the log", id, byID[id].Source)
		}
	}
	shown := byID[maxID-3]
	full, err := st.Checkpoint(context.Background(), shown.Key())
	if err != nil || len(full.Tasks) == 0 || full.Source != "" {
		t.Errorf("a checkpoint the list showed: source %q, %d tasks (%v)", full.Source, len(full.Tasks), err)
	}
	r, ok, err := st.Reconciliation(context.Background(), "c1", "job-1")
	if err != nil || !ok {
		t.Fatalf("no reconciliation: %v", err)
	}
	if r.Earlier < 19 || r.FromLog == 0 || r.Gaps != 0 || r.Unaccounted != 0 || r.Log == nil || r.Log.State != model.LogRead {
		t.Errorf("reconciliation %+v (log %+v): want ≥19 earlier, some gap ids from the log, no gaps or unaccounted ids", r, r.Log)
	}
	if int64(fromLog) != r.Earlier+r.FromLog {
		t.Errorf("%d stored from the log, reconciliation says %d earlier + %d filled", fromLog, r.Earlier, r.FromLog)
	}
	// A checkpoint seen in flight before the freeze, gone from the list by the next poll, has
	// its end from the log.
	for id, c := range byID {
		if c.Status == model.StatusInProgress && id < maxID-15 {
			t.Errorf("checkpoint %d stays in progress although the log has its end", id)
		}
	}
}

func TestCollectorSaysWhyTheLogIsNotRead(t *testing.T) {
	st := openStore(t)
	eng := &loggingEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 40 * time.Millisecond,
		dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}}, off: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, fastOptions(st, nil), eng)
	time.Sleep(400 * time.Millisecond)
	h, _ := m.Health("c1")
	m.Stop()
	r, ok, err := st.Reconciliation(context.Background(), "c1", "job-1")
	if err != nil || !ok || r.Log == nil || r.Log.State != model.LogUnavailable || r.Log.Reason != "injected" {
		t.Fatalf("reconciliation %+v, %v: want the log's state unavailable with its reason", r, err)
	}
	if h.State != "ok" {
		t.Errorf("health %+v: a log the engine does not serve (mode auto) is not a problem of the cluster", h)
	}
}

// restoredEngine is a job resubmitted from a retained checkpoint after its
// JobManager died: the new JobManager numbers on from the restored id and its
// list stays empty while the job restores, but its log already names the
// first checkpoint of the new run.
type restoredEngine struct {
	*rollingEngine
	mu      sync.Mutex
	listing bool // the new run's checkpoints are listed
	logged  int  // log reads
}

func (e *restoredEngine) History(context.Context, *model.Job) (model.History, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := model.History{Capacity: 10, IntervalMs: 1000, Counts: map[int]model.EngineCounts{0: {Restored: 1}}}
	if e.listing {
		h.Counts[0] = model.EngineCounts{Triggered: 2, Completed: 2, Restored: 1}
		h.Checkpoints = []model.Checkpoint{restoredCheckpoint(15), restoredCheckpoint(16)}
	}
	return h, nil
}

func (e *restoredEngine) LogCheckpoints(context.Context, *model.Job, bool) ([]model.Checkpoint, model.LogState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logged++
	c := restoredCheckpoint(15)
	c.Source = model.OriginJobManagerLog
	return []model.Checkpoint{c}, model.LogState{State: model.LogRead, ReadMs: time.Now().UnixMilli(), Checkpoints: 1}, nil
}

func restoredCheckpoint(id int64) model.Checkpoint {
	trig := time.Now().Add(-time.Minute).Add(time.Duration(id) * time.Second).UnixMilli()
	return model.Checkpoint{ID: id, TriggerMs: trig, Kind: model.KindCheckpoint, NumSubtasks: 1, NumAcknowledged: 1,
		Status: model.StatusCompleted, EndToEndMs: 20, LatestAckMs: trig + 20, CompletionMs: trig + 20}
}

// The ids the old JobManager completed after the last poll before it died are
// gaps, even when the new run's log is merged before its list shows anything:
// the log's checkpoints must not move the point the gaps are counted from.
func TestCollectorMarksTheIdsAJobManagerTookWithItAsGapsWhenTheLogComesFirst(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	var before []model.Checkpoint
	for id := int64(1); id <= 7; id++ {
		c := restoredCheckpoint(id)
		c.Cluster, c.JobID, c.TriggerMs = "c1", "job-1", c.TriggerMs-int64(time.Hour/time.Millisecond)
		before = append(before, c)
	}
	if err := st.PutCheckpoints(ctx, before); err != nil {
		t.Fatal(err)
	}
	eng := &restoredEngine{rollingEngine: &rollingEngine{capacity: 10, interval: time.Second, details: map[int64]int{}}}
	m := startPolling(ctx, fastOptions(st, nil), eng)
	defer m.Stop()
	waitWithin(t, 10*time.Second, "checkpoint 15 stored from the log", func() bool {
		cps, _ := storedJob(t, st)
		return slices.ContainsFunc(cps, func(c model.Checkpoint) bool { return c.ID == 15 })
	})
	eng.mu.Lock()
	eng.listing = true
	eng.mu.Unlock()
	// Stored, and reconciled: a stop cancels a poll's writes under way.
	waitWithin(t, 10*time.Second, "checkpoint 16 stored from the list and reconciled", func() bool {
		r, ok, _ := st.Reconciliation(ctx, "c1", "job-1")
		return ok && r.LatestID >= 16
	})
	m.Stop()
	cps, gaps := storedJob(t, st)
	stored := map[int64]bool{}
	for _, c := range cps {
		stored[c.ID] = true
	}
	gapped := map[int64]bool{}
	for _, g := range gaps {
		for id := g.FromID; id <= g.ToID; id++ {
			gapped[id] = true
		}
	}
	for id := int64(1); id <= 16; id++ {
		switch {
		case id >= 8 && id <= 14 && !gapped[id]:
			t.Errorf("checkpoint %d, taken by the old JobManager unseen, is not a gap (gaps %+v)", id, gaps)
		case (id < 8 || id > 14) && !stored[id]:
			t.Errorf("checkpoint %d not stored", id)
		}
	}
	r, ok, err := st.Reconciliation(ctx, "c1", "job-1")
	if err != nil || !ok {
		t.Fatalf("no reconciliation (%v)", err)
	}
	if r.FirstID != 8 || r.LatestID != 16 || r.Gaps != 7 || r.Unaccounted != 0 {
		t.Errorf("reconciliation %d–%d, %d gaps, %d unaccounted; want 8–16, 7 gaps, 0 unaccounted", r.FirstID, r.LatestID, r.Gaps, r.Unaccounted)
	}
}
