package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// faultPlan injects failures into the rolling engine's calls: a share of
// History and Detail calls fail, and History can stall until the caller's
// deadline. Deterministic for a seed. A nil plan injects nothing.
type faultPlan struct {
	mu           sync.Mutex
	rnd          *rand.Rand
	historyShare float64 // share of History calls that fail
	detailShare  float64 // share of Detail calls that fail
	stallShare   float64 // share of History calls that hang until ctx ends
	failHistory  bool    // every History call fails (a cut connection)
}

func newFaultPlan(seed uint64, historyShare, detailShare, stallShare float64) *faultPlan {
	return &faultPlan{rnd: rand.New(rand.NewPCG(seed, 1)), historyShare: historyShare, detailShare: detailShare, stallShare: stallShare}
}

func (f *faultPlan) history(ctx context.Context) error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	cut, r := f.failHistory, f.rnd.Float64()
	f.mu.Unlock()
	switch {
	case cut:
		return errors.New("injected: connection refused")
	case r < f.stallShare:
		<-ctx.Done()
		return fmt.Errorf("injected stall: %w", ctx.Err())
	case r < f.stallShare+f.historyShare:
		return errors.New("injected: 503 Service Unavailable (an HTML page)")
	}
	return nil
}

func (f *faultPlan) detail(context.Context) error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	r := f.rnd.Float64()
	f.mu.Unlock()
	if r < f.detailShare {
		return errors.New("injected: unexpected EOF (truncated JSON)")
	}
	return nil
}

func (f *faultPlan) cut(on bool) {
	f.mu.Lock()
	f.failHistory = on
	f.mu.Unlock()
}

// realBackoffOptions are fastOptions with the real backoff limits: only the
// history span may keep retries short.
func realBackoffOptions(st *store.Store) Options {
	opts := fastOptions(st, nil)
	opts.MaxBackoff, opts.MaxPoll = time.Minute, 10*time.Second
	return opts
}

// accountedFor checks that every id from the first stored to the last is
// either stored or in a gap, never both, and returns the counts.
func accountedFor(t *testing.T, cps []model.Checkpoint, gaps []model.Gap) (stored, gapped int64) {
	t.Helper()
	if len(cps) == 0 {
		t.Fatal("nothing stored")
	}
	seen := map[int64]string{}
	var lo, hi int64 = cps[0].ID, 0
	for _, c := range cps {
		seen[c.ID] = "stored"
		lo, hi = min(lo, c.ID), max(hi, c.ID)
	}
	for _, g := range gaps {
		for id := g.FromID; id <= g.ToID; id++ {
			if seen[id] != "" {
				t.Errorf("checkpoint %d is both %s and in gap %d–%d", id, seen[id], g.FromID, g.ToID)
			}
			seen[id] = "gap"
			gapped++
		}
	}
	for id := lo; id <= hi; id++ {
		if seen[id] == "" {
			t.Errorf("checkpoint %d neither stored nor marked as a gap", id)
		}
	}
	return int64(len(cps)), gapped
}

// A flaky link: a fifth of the list polls fail or stall, a fifth of the
// detail fetches fail. The poller keeps its pace, retries within the
// engine's history span, stores every checkpoint (or says which it missed),
// fetches each checkpoint's details once, and its reconciliation matches
// what the store holds.
func TestCollectorLosesNothingSilentlyOnAFlakyLink(t *testing.T) {
	st := openStore(t)
	goroutines := runtime.NumGoroutine()
	// 20 checkpoints/s with a history of 40: a 2 s window, so that what a starved machine's
	// scheduler adds to the faults' delays (seen: most of a second) costs no id. (With 10, a
	// 500 ms window, a loaded run stored 93 % of them.)
	eng := &rollingEngine{start: time.Now(), interval: 50 * time.Millisecond, dur: 10 * time.Millisecond, capacity: 40,
		details: map[int64]int{}, faults: newFaultPlan(7, 0.15, 0.2, 0.05)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := realBackoffOptions(st)
	opts.MinRequestTimeout = 50 * time.Millisecond
	m := startPolling(ctx, opts, eng)
	time.Sleep(1500 * time.Millisecond)
	// The engine counts 3 triggers that failed before they got an id.
	eng.mu.Lock()
	eng.withoutID = 3
	eng.mu.Unlock()
	time.Sleep(1500 * time.Millisecond)
	m.Stop()

	cps, gaps := storedJob(t, st)
	stored, gapped := accountedFor(t, cps, gaps)
	eng.detailsFetchedOnce(t)
	eng.mu.Lock()
	total := eng.triggered(time.Now())
	calls := eng.historyCalls
	eng.mu.Unlock()
	if share := float64(stored) / float64(stored+gapped); share < 0.95 {
		t.Errorf("stored %d of %d ids (%.0f %%), want at least 95 %% through a flaky link", stored, stored+gapped, 100*share)
	}
	// Retries stay inside the history span (2 s): no wait between two list polls beyond it.
	var longest time.Duration
	for i := 1; i < len(calls); i++ {
		longest = max(longest, calls[i].Sub(calls[i-1]))
	}
	if span := time.Duration(eng.capacity) * eng.interval; longest > span {
		t.Errorf("longest wait between list polls %v, want within the %v history span", longest, span)
	}
	r, ok, err := st.Reconciliation(context.Background(), "c1", "job-1")
	if err != nil || !ok {
		t.Fatalf("no reconciliation stored: %v", err)
	}
	if r.Stored != stored || r.Gaps != gapped || r.Unaccounted != 0 || r.IDs != stored+gapped {
		t.Errorf("reconciliation %+v, want stored %d, gaps %d, nothing unaccounted", r, stored, gapped)
	}
	if r.WithoutID != 3 || r.Engine == nil || r.Engine.Failed != 3 {
		t.Errorf("reconciliation %+v: want the engine's 3 id-less failed triggers told apart", r)
	}
	if r.FailedPolls == 0 || r.Polls == 0 {
		t.Errorf("reconciliation %+v: want polls and failed polls counted", r)
	}
	withDetail := 0
	for _, full := range withDetails(t, st, cps, func(c model.Checkpoint) bool { return c.Status.Final() }) {
		if len(full.Tasks) > 0 {
			withDetail++
		} else if full.DetailLoss == "" && full.ID < cps[len(cps)-1].ID-int64(eng.capacity) {
			t.Errorf("checkpoint %d has no details and says nothing of why", full.ID)
		}
	}
	t.Logf("engine %d, stored %d (%d with details), gaps %d, list polls %d (longest wait %v), reconciliation %+v",
		total, stored, withDetail, gapped, len(calls), longest, r)
	// No poller outlives Stop.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines after Stop, %d before", n, goroutines)
	}
}

// A connection cut for longer than the history span: the poller keeps
// trying at a pace that fits the span, and once it is back records the ids
// the engine forgot meanwhile as one gap.
func TestCollectorRetriesWithinTheHistorySpanWhileCut(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 40 * time.Millisecond, dur: 5 * time.Millisecond, capacity: 10,
		details: map[int64]int{}, faults: newFaultPlan(1, 0, 0, 0)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, realBackoffOptions(st), eng)
	time.Sleep(500 * time.Millisecond)
	eng.faults.cut(true)
	cutAt := time.Now()
	time.Sleep(1500 * time.Millisecond)
	if h, _ := m.Health("c1"); h.State != "error" || !strings.Contains(h.LastError, "connection refused") {
		t.Errorf("health while cut %+v, want error naming the failure", h)
	}
	eng.faults.cut(false)
	backAt := time.Now()
	time.Sleep(500 * time.Millisecond)
	m.Stop()
	eng.mu.Lock()
	var during int
	for _, c := range eng.historyCalls {
		if c.After(cutAt) && c.Before(backAt) {
			during++
		}
	}
	eng.mu.Unlock()
	// 1.5 s cut, window 400 ms → retries at most every 100 ms (+20 % jitter): about 12.
	if during < 8 {
		t.Errorf("%d list polls during a 1.5 s cut, want a retry at least every ~120 ms (an exponential backoff would give 3)", during)
	}
	cps, gaps := storedJob(t, st)
	accountedFor(t, cps, gaps)
	if len(gaps) == 0 {
		t.Error("no gap after a cut longer than the engine's history")
	}
}

// A detail fetch that returns part of a checkpoint: what came is stored
// (marked partial), and the next poll asks only for the missing vertices.
type partialEngine struct {
	*rollingEngine
	mu    sync.Mutex
	calls map[int64][]string // per checkpoint, the vertices asked for on each call
}

func (e *partialEngine) Detail(ctx context.Context, j *model.Job, s model.Checkpoint) (model.Checkpoint, error) {
	full, err := e.rollingEngine.Detail(ctx, j, s)
	if err != nil {
		return full, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	first := len(e.calls[s.ID]) == 0
	if first {
		e.calls[s.ID] = append(e.calls[s.ID], "v1,v2")
		// v2's subtasks failed: v1 came.
		full.Tasks = append(full.Tasks, model.TaskStats{VertexID: "v2", NumSubtasks: 1, Missing: true})
		full.DetailLoss = model.DetailPartial
		return full, &IncompleteError{Missing: []string{"v2"}, Err: errors.New("injected: connection reset")}
	}
	var asked []string
	for _, t := range s.Tasks {
		if t.Missing {
			asked = append(asked, t.VertexID)
		}
	}
	e.calls[s.ID] = append(e.calls[s.ID], strings.Join(asked, ","))
	full.Tasks = append(full.Tasks, model.TaskStats{VertexID: "v2", NumSubtasks: 1, NumAcknowledged: 1,
		Subtasks: []model.SubtaskStats{{Index: 0, Status: model.SubtaskCompleted, SyncMs: 5}}})
	full.DetailLoss = ""
	return full, nil
}

func TestCollectorStoresPartialDetailsAndFetchesOnlyWhatIsMissing(t *testing.T) {
	st := openStore(t)
	eng := &partialEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 100 * time.Millisecond, dur: 5 * time.Millisecond,
		capacity: 10, details: map[int64]int{}}, calls: map[int64][]string{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var health []Health
	var hmu sync.Mutex
	opts := fastOptions(st, nil)
	opts.OnHealth = func(_ string, h Health) { hmu.Lock(); health = append(health, h); hmu.Unlock() }
	m := startPolling(ctx, opts, eng)
	// inFull says whether checkpoint id is stored with both vertices in full.
	inFull := func(id int64) (model.Checkpoint, bool) {
		c, err := st.Checkpoint(context.Background(), model.Key{Cluster: "c1", JobID: "job-1", ID: id})
		return c, err == nil && c.DetailLoss == "" && len(c.Tasks) == 2 && len(c.Tasks[1].Subtasks) == 1
	}
	retriedInFull := func() bool {
		eng.mu.Lock()
		var ids []int64
		for id, calls := range eng.calls {
			if len(calls) == 2 {
				ids = append(ids, id)
			}
		}
		eng.mu.Unlock()
		return slices.ContainsFunc(ids, func(id int64) bool { _, ok := inFull(id); return ok })
	}
	waitWithin(t, 10*time.Second, "a checkpoint whose missing vertex was asked for again, stored in full", retriedInFull)
	time.Sleep(300 * time.Millisecond) // a few more polls
	m.Stop()
	cps, gaps := storedJob(t, st)
	accountedFor(t, cps, gaps)
	eng.mu.Lock()
	defer eng.mu.Unlock()
	for id, calls := range eng.calls {
		if len(calls) > 2 {
			t.Errorf("checkpoint %d: details asked for %d times (%v), want once and one retry", id, len(calls), calls)
		}
		if len(calls) == 2 {
			if calls[1] != "v2" {
				t.Errorf("checkpoint %d: the retry asked for %q, want only the missing v2", id, calls[1])
			}
			// The stop may cut a retry's store short (then the checkpoint stays partial, its
			// v1 kept); one that was stored has both vertices.
			c, full := inFull(id)
			if !full && (c.DetailLoss != model.DetailPartial || len(c.Tasks) != 2 || len(c.Tasks[0].Subtasks) != 1) {
				t.Errorf("checkpoint %d after the retry: loss %q, tasks %+v; want both vertices in full, or v1 kept", id, c.DetailLoss, c.Tasks)
			}
		}
	}
	hmu.Lock()
	defer hmu.Unlock()
	var sawPartial bool
	for _, h := range health {
		if h.State == "partial" && strings.Contains(h.LastError, "connection reset") && len(h.Problems) > 0 {
			sawPartial = true
		}
	}
	if !sawPartial {
		t.Errorf("health never said partial with the failure: %+v", health)
	}
}

// A checkpoint whose missing vertex is never fetched before it leaves the
// history keeps what came, marked partial.
func TestCollectorKeepsPartialDetailsWhenRetriesRunOut(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	c := model.Checkpoint{Cluster: "c1", JobID: "job-1", ID: 5, Status: model.StatusCompleted, DetailLoss: model.DetailPartial,
		Tasks: []model.TaskStats{
			{VertexID: "v1", NumSubtasks: 1, Subtasks: []model.SubtaskStats{{Index: 0, Status: model.SubtaskCompleted, SyncMs: 4}}},
			{VertexID: "v2", NumSubtasks: 1, Missing: true},
		}}
	if err := st.PutCheckpoints(ctx, []model.Checkpoint{c}); err != nil {
		t.Fatal(err)
	}
	// A later summary that says the details were missed does not erase what came.
	sum := c
	sum.Tasks, sum.DetailLoss = nil, model.DetailMissed
	if err := st.PutCheckpoints(ctx, []model.Checkpoint{sum}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Checkpoint(ctx, c.Key())
	if err != nil {
		t.Fatal(err)
	}
	if got.DetailLoss != model.DetailPartial || len(got.Tasks) != 2 || len(got.Tasks[0].Subtasks) != 1 || !got.Tasks[1].Missing || got.Tasks[0].Missing {
		t.Errorf("stored %+v, want v1's stats kept and v2 marked missing", got)
	}
}

// When the collector stops with FinalPoll set, each job is polled once more:
// checkpoints that ended just before the stop are stored with their details.
func TestCollectorPollsOnceMoreWhenStopping(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 100 * time.Millisecond, dur: 5 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	opts := fastOptions(st, nil)
	// A poll every 2 s at most: without the final poll, the last second is lost.
	opts.MinPoll, opts.MaxPoll = 2*time.Second, 2*time.Second
	opts.FinalPoll = time.Second
	m := startPolling(ctx, opts, eng)
	time.Sleep(1500 * time.Millisecond)
	cancel()
	stoppedAt := time.Now()
	m.Stop()
	cps, _ := storedJob(t, st)
	last := eng.checkpoint(eng.triggered(stoppedAt), stoppedAt)
	lastDone := last.ID
	if last.Status == model.StatusInProgress {
		lastDone--
	}
	if top := cps[len(cps)-1].ID; top < lastDone {
		t.Errorf("last stored checkpoint %d, want %d (ended before the stop)", top, lastDone)
	}
	full, err := st.Checkpoint(context.Background(), model.Key{Cluster: "c1", JobID: "job-1", ID: lastDone})
	if err != nil || len(full.Tasks) == 0 {
		t.Errorf("checkpoint %d, ended just before the stop: %v, tasks %d; want its details", lastDone, err, len(full.Tasks))
	}
}

// A job list that comes back in part (the finished jobs failed) still
// starts the running jobs' pollers; health says partial and names it.
type partialJobsEngine struct{ *rollingEngine }

func (e partialJobsEngine) Jobs(ctx context.Context) ([]model.Job, error) {
	jobs, _ := e.rollingEngine.Jobs(ctx)
	return jobs, &PartialError{Err: errors.New("GET /finished-jobs: 404 Not Found")}
}

func TestCollectorFollowsRunningJobsWhenFinishedJobsFail(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 50 * time.Millisecond, dur: 5 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewManager(ctx, Options{Sink: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MinPoll: 20 * time.Millisecond, MaxPoll: 100 * time.Millisecond})
	m.Apply([]Target{{Name: "c1", Key: "k", Source: partialJobsEngine{eng}, Budget: NewBudget(BudgetOptions{RequestsPerSecond: 1000, Burst: 100})}})
	time.Sleep(800 * time.Millisecond)
	h, _ := m.Health("c1")
	m.Stop()
	cps, gaps := storedJob(t, st)
	if len(cps) < 5 || len(gaps) != 0 {
		t.Errorf("stored %d checkpoints, %d gaps; want the running job collected with none missed", len(cps), len(gaps))
	}
	if h.State != "partial" || !strings.Contains(h.LastError, "/finished-jobs") {
		t.Errorf("health %+v, want partial naming /finished-jobs", h)
	}
}

var _ = store.Query{}
