package collect

import (
	"context"
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
	time.Sleep(400 * time.Millisecond)
	// Hold the poller back: the list rolls past ~20 checkpoints unseen, which
	// the log gives back at its next read.
	eng.rollingEngine.mu.Lock()
	eng.frozen = true
	eng.rollingEngine.mu.Unlock()
	time.Sleep(30 * interval)
	eng.rollingEngine.mu.Lock()
	eng.frozen = false
	eng.rollingEngine.mu.Unlock()
	time.Sleep(600 * time.Millisecond)
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
