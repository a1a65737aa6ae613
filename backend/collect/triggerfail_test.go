package collect

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// triggerFailingEngine is a logging engine whose counters count triggers
// that failed before they got an id, and whose log says why
// (TriggerFailureReader).
type triggerFailingEngine struct {
	*loggingEngine
	startMs  int64
	mu       sync.Mutex
	failures []model.TriggerFailure
}

func newTriggerFailingEngine(start time.Time, failures ...model.TriggerFailure) *triggerFailingEngine {
	return &triggerFailingEngine{loggingEngine: &loggingEngine{rollingEngine: &rollingEngine{start: start, interval: 40 * time.Millisecond,
		dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}, withoutID: int64(len(failures))}},
		startMs: start.UnixMilli(), failures: failures}
}

func (e *triggerFailingEngine) Jobs(ctx context.Context) ([]model.Job, error) {
	jobs, err := e.rollingEngine.Jobs(ctx)
	for i := range jobs {
		jobs[i].StartMs = e.startMs
	}
	return jobs, err
}

func (e *triggerFailingEngine) Job(ctx context.Context, id string) (model.Job, error) {
	j, err := e.rollingEngine.Job(ctx, id)
	j.StartMs = e.startMs
	return j, err
}

func (e *triggerFailingEngine) LogTriggerFailures(*model.Job) ([]model.TriggerFailure, bool) {
	e.loggingEngine.mu.Lock()
	off := e.off
	e.loggingEngine.mu.Unlock()
	if off {
		return nil, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]model.TriggerFailure(nil), e.failures...), true
}

// failLater makes n more triggers fail now, counted and logged.
func (e *triggerFailingEngine) failLater(n int, reason string) {
	now := time.Now().UnixMilli()
	e.mu.Lock()
	for i := 0; i < n; i++ {
		e.failures = append(e.failures, model.TriggerFailure{AtMs: now, Reason: reason, Message: reason + "."})
	}
	e.mu.Unlock()
	e.rollingEngine.mu.Lock()
	e.withoutID += int64(n)
	e.rollingEngine.mu.Unlock()
}

func notRunningAt(ms int64, task string) model.TriggerFailure {
	return model.TriggerFailure{AtMs: ms, Reason: "Not all required tasks are currently running", Task: task,
		Message: "Checkpoint triggering task " + task + " of job job-1 is not being executed at the moment. Aborting checkpoint. Failure reason: Not all required tasks are currently running."}
}

// untilReconciled polls eng into st until the stored reconciliation satisfies done (or 10 s
// passed, for a loaded machine), and returns it.
func untilReconciled(t *testing.T, st *store.Store, done func(model.Reconciliation) bool) model.Reconciliation {
	t.Helper()
	var r model.Reconciliation
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, ok, err := st.Reconciliation(context.Background(), "c1", "job-1")
		if err != nil {
			t.Fatal(err)
		}
		if r = got; ok && done(r) {
			break
		}
	}
	return r
}

func reconciled(t *testing.T, eng Source, done func(model.Reconciliation) bool) model.Reconciliation {
	t.Helper()
	st := openStore(t)
	m := startPolling(t.Context(), fastOptions(st, nil), eng)
	defer m.Stop()
	return untilReconciled(t, st, done)
}

// A job followed from its start: the 4 triggers that failed while its tasks were not running
// yet, before checkpoint 1, are counted (the engine's total less the ids) and explained by the
// log; a trigger failure of an earlier run under the same job id is not.
func TestReconciliationCountsAndExplainsTheTriggersThatFailedAtTheJobsStart(t *testing.T) {
	start := time.Now()
	s := start.UnixMilli()
	eng := newTriggerFailingEngine(start,
		notRunningAt(s+1, "Source: Numbers (1/1)"), notRunningAt(s+2, "Source: Numbers (1/1)"),
		notRunningAt(s+3, "Map (1/2)"), notRunningAt(s+4, "Source: Numbers (1/1)"))
	eng.failures = append([]model.TriggerFailure{notRunningAt(s-3_600_000, "Old (1/1)")}, eng.failures...)
	eng.capacity = 100 // a 4 s history: the first poll sees #1 even on a starved machine
	r := reconciled(t, eng, func(r model.Reconciliation) bool { return r.IDs >= 3 && r.TriggerFailures != nil })
	if r.FirstID != 1 || r.WithoutID != 4 || r.EngineCounted != r.IDs+4 {
		t.Errorf("reconciliation %+v: want ids from #1, the engine counting 4 more than them, 4 failed before an id", r)
	}
	last := notRunningAt(s+4, "Source: Numbers (1/1)")
	want := []model.TriggerFailureReason{{Reason: "Not all required tasks are currently running", Count: 4, FirstMs: s + 1, LastMs: s + 4,
		Task: last.Task, Example: last.Message}}
	if !reflect.DeepEqual(r.TriggerFailures, want) {
		t.Errorf("trigger failures %+v, want %+v", r.TriggerFailures, want)
	}
}

// A job followed long after its start: the triggers that failed before the first poll are
// outside the span (neither counted nor listed); those after it are both, with their reason.
func TestReconciliationExplainsOnlyTheTriggerFailuresItCounted(t *testing.T) {
	start := time.Now().Add(-30 * 40 * time.Millisecond)
	s := start.UnixMilli()
	eng := newTriggerFailingEngine(start, notRunningAt(s+1, "Source: Numbers (1/1)"), notRunningAt(s+2, "Source: Numbers (1/1)"))
	st := openStore(t)
	m := startPolling(t.Context(), fastOptions(st, nil), eng)
	defer m.Stop()
	// Once the counters are followed (and the log read), 3 triggers fail.
	untilReconciled(t, st, func(r model.Reconciliation) bool {
		return r.Engine != nil && r.Log != nil && r.Log.State == model.LogRead
	})
	eng.failLater(3, "Periodic checkpoint scheduler is shut down")
	r := untilReconciled(t, st, func(r model.Reconciliation) bool { return r.WithoutID >= 3 && r.TriggerFailures != nil })
	if r.FirstID <= 1 || r.WithoutID != 3 {
		t.Errorf("reconciliation %+v: want a span after #1 and the 3 later failures counted", r)
	}
	if len(r.TriggerFailures) != 1 || r.TriggerFailures[0].Reason != "Periodic checkpoint scheduler is shut down" || r.TriggerFailures[0].Count != 3 {
		t.Errorf("trigger failures %+v, want the 3 counted ones", r.TriggerFailures)
	}
}

// Where the log is not read, the count stands alone.
func TestReconciliationCountsTriggerFailuresWithoutTheLog(t *testing.T) {
	s := time.Now().UnixMilli()
	eng := newTriggerFailingEngine(time.Now(), notRunningAt(s+1, "Source: Numbers (1/1)"), notRunningAt(s+2, "Source: Numbers (1/1)"))
	eng.off = true
	eng.capacity = 100 // a 4 s history: the first poll sees #1 even on a starved machine
	r := reconciled(t, eng, func(r model.Reconciliation) bool {
		return r.WithoutID > 0 && r.Log != nil && r.Log.State != model.LogWaiting
	})
	if r.WithoutID != 2 || r.TriggerFailures != nil || r.Log == nil || r.Log.State != model.LogUnavailable {
		t.Errorf("reconciliation %+v (log %+v): want 2 failed before an id, no reasons, the log unavailable", r, r.Log)
	}
}
