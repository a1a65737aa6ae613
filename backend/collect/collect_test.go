package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// rollingEngine is fault injection for what a real engine does to a slow
// poller: it keeps only the last `capacity` checkpoints, so a poller that is
// held back loses some. Checkpoint i is triggered at start + i*interval and
// completes `dur` later. Real-cluster behaviour is tested in the Flink tests.
type rollingEngine struct {
	start    time.Time
	interval time.Duration
	dur      time.Duration
	capacity int

	mu      sync.Mutex
	frozen  bool // while frozen, History fails (the poller falls behind)
	details map[int64]int
	failJob error
	// detailDelay is how long each Detail takes (a slow engine, or a small request budget).
	detailDelay time.Duration
	// faults, when set, decides per call whether History or Detail fails
	// (faults.go); historyCalls records when History was called.
	faults       *faultPlan
	historyCalls []time.Time
	// withoutID is how many triggers the engine counted that got no id.
	withoutID int64
	// forgotten makes History answer as a SeaTunnel engine does for a job
	// stopped without a savepoint: no checkpoints, no counters.
	forgotten bool
}

func (e *rollingEngine) Traits() Traits {
	return Traits{DefaultCapacity: e.capacity, DetailRequests: true}
}

func (e *rollingEngine) Jobs(context.Context) ([]model.Job, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failJob != nil {
		return nil, e.failJob
	}
	return []model.Job{{ID: "job-1", Name: "rolling", State: "RUNNING", Engine: model.EngineFlink}}, nil
}

func (e *rollingEngine) Job(_ context.Context, id string) (model.Job, error) {
	return model.Job{ID: id, Name: "rolling", State: "RUNNING", Engine: model.EngineFlink,
		Vertices: []model.Vertex{{ID: "v1", Name: "Source", Parallelism: 1}}}, nil
}

// triggered is how many checkpoints exist now.
func (e *rollingEngine) triggered(now time.Time) int64 {
	return int64(now.Sub(e.start) / e.interval)
}

func (e *rollingEngine) checkpoint(id int64, now time.Time) model.Checkpoint {
	trig := e.start.Add(time.Duration(id) * e.interval)
	c := model.Checkpoint{ID: id, TriggerMs: trig.UnixMilli(), Kind: model.KindCheckpoint, NumSubtasks: 1}
	e.mu.Lock()
	dur := e.dur
	e.mu.Unlock()
	if now.Sub(trig) >= dur {
		c.Status, c.EndToEndMs, c.LatestAckMs, c.CompletionMs = model.StatusCompleted, dur.Milliseconds(), trig.Add(dur).UnixMilli(), trig.Add(dur).UnixMilli()
		c.NumAcknowledged = 1
	} else {
		c.Status = model.StatusInProgress
	}
	return c
}

func (e *rollingEngine) History(ctx context.Context, _ *model.Job) (model.History, error) {
	e.mu.Lock()
	frozen, forgotten := e.frozen, e.forgotten
	e.historyCalls = append(e.historyCalls, time.Now())
	faults := e.faults
	e.mu.Unlock()
	if forgotten {
		return model.History{}, nil
	}
	if frozen {
		return model.History{}, errors.New("injected: JobManager unreachable")
	}
	if err := faults.history(ctx); err != nil {
		return model.History{}, err
	}
	now := time.Now()
	n := e.triggered(now)
	h := model.History{Capacity: e.capacity, IntervalMs: e.interval.Milliseconds(), Triggered: n}
	var completed, failed, inProgress int64
	for id := int64(1); id <= n; id++ {
		if e.checkpoint(id, now).Status == model.StatusInProgress {
			inProgress++
		} else {
			completed++
		}
	}
	e.mu.Lock()
	failed = e.withoutID
	e.mu.Unlock()
	h.Counts = map[int]model.EngineCounts{0: {Triggered: n + failed, Completed: completed, Failed: failed, InProgress: inProgress}}
	for id := max(1, n-int64(e.capacity)+1); id <= n; id++ {
		h.Checkpoints = append(h.Checkpoints, e.checkpoint(id, now))
	}
	return h, nil
}

func (e *rollingEngine) Detail(ctx context.Context, _ *model.Job, s model.Checkpoint) (model.Checkpoint, error) {
	e.mu.Lock()
	delay := e.detailDelay
	faults := e.faults
	e.mu.Unlock()
	if err := faults.detail(ctx); err != nil {
		return model.Checkpoint{}, err
	}
	e.mu.Lock()
	e.details[s.ID]++
	e.mu.Unlock()
	time.Sleep(delay)
	s.Tasks = []model.TaskStats{{VertexID: "v1", NumSubtasks: 1, NumAcknowledged: 1,
		Subtasks: []model.SubtaskStats{{Index: 0, Status: model.SubtaskCompleted, AckMs: s.LatestAckMs, EndToEndMs: s.EndToEndMs, SyncMs: 3}}}}
	return s, nil
}

func (e *rollingEngine) Metrics(context.Context, *model.Job, int64) ([]model.MetricSample, error) {
	return nil, nil
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "cache.db"), store.DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fastOptions polls often and backs off briefly, so tests take a second or two.
func fastOptions(st *store.Store, onStored func(cluster, job string)) Options {
	return Options{
		Sink: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MinPoll: 20 * time.Millisecond, MaxPoll: 200 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		OnStored: onStored,
	}
}

// startUntilStored starts a manager polling eng as cluster "c1" into st until
// the test ends, and returns once it stored a checkpoint.
func startUntilStored(t *testing.T, st *store.Store, eng *rollingEngine) *Manager {
	var stored sync.WaitGroup
	stored.Add(1)
	var once sync.Once
	m := startPolling(t.Context(), fastOptions(st, func(string, string) { once.Do(stored.Done) }), eng)
	stored.Wait()
	return m
}

// detailsFetchedOnce checks that no checkpoint's details were fetched twice.
func (e *rollingEngine) detailsFetchedOnce(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for id, n := range e.details {
		if n != 1 {
			t.Errorf("details of checkpoint %d fetched %d times, want once", id, n)
		}
	}
}

// rollingTarget is a test engine as cluster "c1", with a budget out of the way.
func rollingTarget(eng Source) []Target {
	return []Target{{Name: "c1", Key: "k", Source: eng, Budget: NewBudget(BudgetOptions{RequestsPerSecond: 1000, Burst: 100})}}
}

// startPolling starts a manager with opts polling eng as cluster "c1".
func startPolling(ctx context.Context, opts Options, eng Source) *Manager {
	m := NewManager(ctx, opts)
	m.Apply(rollingTarget(eng))
	return m
}

// withDetails reads back, in full, the stored checkpoints that keep is true for.
func withDetails(t *testing.T, st *store.Store, cps []model.Checkpoint, keep func(model.Checkpoint) bool) []model.Checkpoint {
	t.Helper()
	var out []model.Checkpoint
	for _, c := range cps {
		if !keep(c) {
			continue
		}
		full, err := st.Checkpoint(context.Background(), c.Key())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, full)
	}
	return out
}

// storedJob reads what the collector stored of the rolling engine's job.
func storedJob(t *testing.T, st *store.Store) ([]model.Checkpoint, []model.Gap) {
	t.Helper()
	q := store.Query{Cluster: "c1", JobID: "job-1"}
	cps, err := st.Checkpoints(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	gaps, err := st.Gaps(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return cps, gaps
}

func TestCollectorStoresEveryCheckpointOnceAndMarksMissedOnesAsGaps(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 40 * time.Millisecond, dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	m := startUntilStored(t, st, eng)
	time.Sleep(600 * time.Millisecond)
	// Hold the poller back for 30 intervals: the engine forgets ~20 it never showed.
	eng.mu.Lock()
	eng.frozen = true
	eng.mu.Unlock()
	time.Sleep(30 * eng.interval)
	eng.mu.Lock()
	eng.frozen = false
	eng.mu.Unlock()
	time.Sleep(800 * time.Millisecond)
	h, ok := m.Health("c1")
	m.Stop()
	if !ok || h.State != "ok" {
		t.Errorf("health %+v after recovery, want ok", h)
	}

	cps, gaps := storedJob(t, st)
	if len(gaps) == 0 {
		t.Fatal("no gap recorded although the poller was held back for 30 checkpoints with a history of 10")
	}
	accountedFor(t, cps, gaps)
	eng.detailsFetchedOnce(t)
	// Every stored final checkpoint carries its subtask rows, or says they were missed: on a
	// loaded machine a poll can come after a checkpoint shown completed left the engine's
	// history of 10 (400 ms here) before its details were asked.
	completed := func(c model.Checkpoint) bool { return c.Status == model.StatusCompleted }
	var missed []int64
	all := withDetails(t, st, cps, completed)
	for _, c := range all {
		switch {
		case len(c.Tasks) == 1 && len(c.Tasks[0].Subtasks) == 1:
		case len(c.Tasks) == 0 && c.DetailLoss == model.DetailMissed:
			missed = append(missed, c.ID)
		default:
			t.Errorf("checkpoint %d stored with %d tasks and detail loss %q: want its subtask stats, or missed", c.ID, len(c.Tasks), c.DetailLoss)
		}
	}
	if len(missed) > len(all)/2 {
		t.Errorf("%d of %d completed checkpoints missed their details: %v", len(missed), len(all), missed)
	}
	t.Logf("stored %d checkpoints, %d gaps, last id %d; details missed: %v", len(cps), len(gaps), cps[len(cps)-1].ID, missed)
}

// An engine that drops a job's checkpoint history (SeaTunnel, a job stopped without a savepoint)
// takes nothing from the cache: what was stored stays, and the reconciliation says since when the
// cache is the only record.
func TestCollectorKeepsWhatTheEngineForgot(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 40 * time.Millisecond, dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	m := startPolling(t.Context(), fastOptions(st, nil), eng)
	defer m.Stop()
	waitFor(t, "5 stored checkpoints", func() bool {
		r, ok, err := st.Reconciliation(t.Context(), "c1", "job-1")
		return err == nil && ok && r.Stored >= 5
	})
	before := time.Now().UnixMilli()
	eng.mu.Lock()
	eng.forgotten = true
	eng.mu.Unlock()
	var r model.Reconciliation
	waitFor(t, "the reconciliation to say the engine forgot", func() bool {
		var ok bool
		var err error
		r, ok, err = st.Reconciliation(t.Context(), "c1", "job-1")
		return err == nil && ok && r.EngineForgotMs > 0
	})
	if r.EngineForgotMs < before || r.Stored < 5 || r.Unaccounted != 0 {
		t.Errorf("reconciliation %+v, want the engine forgetting after %d with the stored checkpoints kept", r, before)
	}
	cps, _ := storedJob(t, st)
	if int64(len(cps)) < r.Stored {
		t.Errorf("%d checkpoints in the cache, the reconciliation says %d stored", len(cps), r.Stored)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, 10*time.Second, what, cond)
}

func waitWithin(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCollectorReportsErrorsAndBacksOff(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: time.Second, dur: time.Millisecond, capacity: 10, details: map[int64]int{},
		failJob: fmt.Errorf("injected: 503 Service Unavailable")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var states []string
	m := NewManager(ctx, Options{
		Sink: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxBackoff: 20 * time.Millisecond, JobsEvery: 20 * time.Millisecond,
		OnHealth: func(_ string, h Health) {
			mu.Lock()
			states = append(states, string(h.State)+":"+h.LastError)
			mu.Unlock()
		},
	})
	budget := NewBudget(BudgetOptions{RequestsPerSecond: 1000, Burst: 100})
	m.Apply([]Target{{Name: "c1", Key: "k", Source: eng, Budget: budget}})
	h := waitHealth(t, m, 5*time.Second, "turned to error", func(h Health) bool { return h.State == "error" })
	if h.LastError != "injected: 503 Service Unavailable" {
		t.Errorf("last error %q", h.LastError)
	}
	eng.mu.Lock()
	eng.failJob = nil
	eng.mu.Unlock()
	waitHealth(t, m, 5*time.Second, "recovered", func(h Health) bool { return h.State == "ok" })
	m.Stop()
	mu.Lock()
	defer mu.Unlock()
	if len(states) < 2 || states[0] != "error:injected: 503 Service Unavailable" {
		t.Errorf("health transitions %v, want error then ok", states)
	}
}

func TestManagerApplyRestartsOnlyChangedClusters(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewManager(ctx, Options{Sink: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	mk := func() *rollingEngine {
		return &rollingEngine{start: time.Now(), interval: time.Second, dur: time.Millisecond, capacity: 10, details: map[int64]int{}}
	}
	a, b := mk(), mk()
	m.Apply([]Target{{Name: "a", Key: "1", Source: a, Budget: NewBudget(BudgetOptions{})}, {Name: "b", Key: "1", Source: b, Budget: NewBudget(BudgetOptions{})}})
	m.mu.Lock()
	pa := m.clusters["a"]
	m.mu.Unlock()
	m.Apply([]Target{{Name: "a", Key: "1", Source: a, Budget: NewBudget(BudgetOptions{})}, {Name: "b", Key: "2", Source: b, Budget: NewBudget(BudgetOptions{})}})
	m.mu.Lock()
	if m.clusters["a"] != pa {
		t.Error("unchanged cluster a was restarted")
	}
	pb := m.clusters["b"]
	m.mu.Unlock()
	m.Apply([]Target{{Name: "b", Key: "2", Source: b, Budget: NewBudget(BudgetOptions{})}})
	if _, ok := m.Health("a"); ok {
		t.Error("removed cluster a is still polled")
	}
	m.mu.Lock()
	if m.clusters["b"] != pb {
		t.Error("unchanged cluster b was restarted")
	}
	m.mu.Unlock()
	m.Stop()
}

func TestBudgetCountsAndLimits(t *testing.T) {
	b := NewBudget(BudgetOptions{RequestsPerSecond: 1000, Burst: 5, Concurrency: 2})
	ctx := context.Background()
	r1, _ := b.Acquire(ctx)
	r2, _ := b.Acquire(ctx)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(tctx); err == nil {
		t.Fatal("a third request went through with concurrency 2")
	}
	r1()
	r2()
	if b.Total() != 2 {
		t.Errorf("total %d, want 2", b.Total())
	}
	if b.Rate() <= 0 {
		t.Errorf("rate %v, want > 0 after requests", b.Rate())
	}
}

func TestBudgetForUsersSettings(t *testing.T) {
	for _, tc := range []struct {
		rps        float64
		inFlight   int
		want       BudgetOptions // after NewBudget filled the defaults
		wantErrSub string
	}{
		{rps: 0, inFlight: 0, want: BudgetOptions{RequestsPerSecond: 20, Burst: 40, Concurrency: 4}},
		{rps: 5, inFlight: 2, want: BudgetOptions{RequestsPerSecond: 5, Burst: 10, Concurrency: 2}},
		{rps: 0.2, inFlight: 1, want: BudgetOptions{RequestsPerSecond: 0.2, Burst: 1, Concurrency: 1}},
		{rps: 100, want: BudgetOptions{RequestsPerSecond: 100, Burst: 200, Concurrency: 4}},
		{rps: 0.05, wantErrSub: "requests per second 0.05"},
		{rps: -1, wantErrSub: "requests per second -1"},
		{rps: 5000, wantErrSub: "give 0.1 to 1000"},
		{inFlight: -2, wantErrSub: "requests in flight -2"},
		{inFlight: 65, wantErrSub: "give 1 to 64"},
	} {
		err := CheckBudget(tc.rps, tc.inFlight)
		if tc.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErrSub) {
				t.Errorf("CheckBudget(%g, %d) = %v, want an error with %q", tc.rps, tc.inFlight, err, tc.wantErrSub)
			}
			continue
		}
		if err != nil {
			t.Errorf("CheckBudget(%g, %d) = %v", tc.rps, tc.inFlight, err)
		}
		if got := NewBudget(BudgetFor(tc.rps, tc.inFlight)).Options(); got != tc.want {
			t.Errorf("budget for %g/s, %d in flight = %+v, want %+v", tc.rps, tc.inFlight, got, tc.want)
		}
	}
}

func TestBudgetTellsWhenItHoldsRequestsBack(t *testing.T) {
	ctx := context.Background()
	// 2 requests/s with a burst of 1, four asked at once: after the first, they wait 500, 1000
	// and 1500 ms (at once, so that a busy machine's pauses between them do not let tokens
	// pile up: each waits well over the 100 ms that counts as held back).
	slow := NewBudget(BudgetOptions{RequestsPerSecond: 2, Burst: 1})
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			release, err := slow.Acquire(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			release()
		})
	}
	wg.Wait()
	if el := time.Since(start); el < 1200*time.Millisecond {
		t.Fatalf("4 requests at 2/s with burst 1 took %v, the rate was not applied", el)
	}
	if got := slow.HeldBack(); got < 0.7 {
		t.Errorf("held back %.2f of the requests, want 3 of 4", got)
	}
	roomy := NewBudget(BudgetOptions{RequestsPerSecond: 1000, Burst: 100})
	for range 4 {
		release, _ := roomy.Acquire(ctx)
		release()
	}
	if got := roomy.HeldBack(); got != 0 {
		t.Errorf("a budget with room held back %.2f of the requests", got)
	}
}

// When details cannot keep up (each takes longer than a checkpoint interval
// would allow), the poller stores the rest as summaries and keeps its list
// polls on time: no checkpoint becomes a gap, and the details come later for
// those still in the engine's history.
func TestCollectorDefersDetailsRatherThanMissCheckpoints(t *testing.T) {
	st := openStore(t)
	// 16 checkpoints/s, a history of 600 ms; details at 150 ms each manage 7/s.
	eng := &rollingEngine{start: time.Now(), interval: 60 * time.Millisecond, dur: 5 * time.Millisecond, capacity: 10,
		details: map[int64]int{}, detailDelay: 150 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, fastOptions(st, nil), eng)
	time.Sleep(1500 * time.Millisecond)
	// The engine speeds up: the deferred checkpoints still listed get their details.
	eng.mu.Lock()
	eng.detailDelay = 0
	fastFrom := eng.triggered(time.Now())
	eng.mu.Unlock()
	time.Sleep(700 * time.Millisecond)
	m.Stop()

	cps, gaps := storedJob(t, st)
	if len(gaps) != 0 {
		t.Errorf("gaps %+v: the poller let checkpoints leave the history unseen while fetching details", gaps)
	}
	if len(cps) < 25 {
		t.Fatalf("only %d checkpoints stored in 2.2 s at 16/s", len(cps))
	}
	for i := 1; i < len(cps); i++ {
		if cps[i].ID != cps[i-1].ID+1 {
			t.Errorf("checkpoints %d and %d stored with nothing between", cps[i-1].ID, cps[i].ID)
		}
	}
	eng.mu.Lock()
	for id, n := range eng.details {
		if n != 1 {
			t.Errorf("details of checkpoint %d fetched %d times, want once", id, n)
		}
	}
	eng.mu.Unlock()
	var summaryOnly int
	lastID := cps[len(cps)-1].ID
	for _, full := range withDetails(t, st, cps, func(c model.Checkpoint) bool { return c.Status == model.StatusCompleted }) {
		c := full
		if len(full.Tasks) == 0 {
			summaryOnly++
			// Beyond the history's depth it can only have been evicted: marked so.
			if c.ID < lastID-int64(eng.capacity) && full.DetailLoss != model.DetailMissed {
				t.Errorf("checkpoint %d has no details and detail loss %q, want %q", c.ID, full.DetailLoss, model.DetailMissed)
			}
			// Those listed after the speed-up (but the last few, maybe not polled yet) have their details.
			if c.ID > fastFrom && c.ID < lastID-5 {
				t.Errorf("checkpoint %d, listed after the engine sped up, has no details", c.ID)
			}
		}
	}
	if summaryOnly == 0 {
		t.Error("every checkpoint has its details: the engine was not slow enough to test deferral")
	}
	t.Logf("%d checkpoints, %d without details (evicted before their turn), speed-up at %d", len(cps), summaryOnly, fastFrom)
}

// After a restart, summaries the last run stored while they waited for their
// details, and which the engine no longer lists, are marked as missed; those
// still listed get their details.
func TestCollectorMarksSummariesLeftWaitingByTheLastRun(t *testing.T) {
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng := &rollingEngine{start: time.Now().Add(-2 * time.Second), interval: 100 * time.Millisecond, dur: 5 * time.Millisecond,
		capacity: 10, details: map[int64]int{}}
	// The last run stored checkpoints 1..15 as summaries only (their details never came).
	var old []model.Checkpoint
	for id := int64(1); id <= 15; id++ {
		c := eng.checkpoint(id, time.Now())
		c.Cluster, c.JobID = "c1", "job-1"
		old = append(old, c)
	}
	if err := st.PutJob(ctx, model.Job{Cluster: "c1", ID: "job-1", Name: "rolling", Engine: model.EngineFlink}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutCheckpoints(ctx, old); err != nil {
		t.Fatal(err)
	}
	stored := make(chan struct{}, 1)
	m := startPolling(ctx, fastOptions(st, func(string, string) {
		select {
		case stored <- struct{}{}:
		default:
		}
	}), eng)
	<-stored
	time.Sleep(300 * time.Millisecond)
	m.Stop()
	// The engine lists the last 10 of ~22 checkpoints at the first poll.
	cps, gaps := storedJob(t, st)
	if len(gaps) != 0 {
		t.Errorf("gaps %+v", gaps)
	}
	firstListed := cps[len(cps)-1].ID - int64(eng.capacity) // a lower bound: the history moved on since
	for _, full := range withDetails(t, st, cps, func(c model.Checkpoint) bool { return c.ID <= 15 && c.Status.Final() }) {
		c := full
		switch {
		case len(full.Tasks) > 0:
			// Still listed at the first poll: its details were fetched.
		case full.DetailLoss == model.DetailMissed:
			if c.ID >= firstListed+3 {
				t.Errorf("checkpoint %d marked missed although the engine still listed it", c.ID)
			}
		default:
			t.Errorf("checkpoint %d has neither its details nor the missed mark", c.ID)
		}
	}
	for _, id := range []int64{1, 2, 3} {
		full, err := st.Checkpoint(ctx, model.Key{Cluster: "c1", JobID: "job-1", ID: id})
		if err != nil || full.DetailLoss != model.DetailMissed {
			t.Errorf("checkpoint %d: %q, %v; want it marked missed", id, full.DetailLoss, err)
		}
	}
}

// OnFirstPoll comes once per job, after its first poll stored what the engine lists: the cache
// then holds the engine's history, so what it lacks is older (the traces backfill relies on it).
func TestOnFirstPollComesOnceAfterTheFirstStore(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now().Add(-time.Second), interval: 40 * time.Millisecond, dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var calls []string
	var stored int
	opts := fastOptions(st, func(string, string) {})
	opts.OnFirstPoll = func(cluster, job string) {
		n, err := st.CountCheckpoints(context.Background(), store.Query{Cluster: cluster, JobID: job})
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, cluster+"/"+job)
		stored = n
	}
	m := startPolling(ctx, opts, eng)
	time.Sleep(800 * time.Millisecond)
	m.Stop()
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("OnFirstPoll called %d times (%v), want once", len(calls), calls)
	}
	if stored == 0 {
		t.Error("OnFirstPoll came before the first poll stored the engine's checkpoints")
	}
}

// When the next trigger is late (SeaTunnel restoring a pipeline takes tens of seconds), the
// poller looks once an interval for a minute before it falls back to its slowest poll, so the
// checkpoints after the restore are seen in flight.
func TestInFlightWaitWhenTheTriggerIsLate(t *testing.T) {
	now := time.UnixMilli(1_700_000_100_000)
	opts := Options{MaxPoll: 10 * time.Second, Now: func() time.Time { return now }}
	j := &jobPoller{c: &clusterPoller{opts: opts}}
	// The last checkpoint failed (expired) at trigger + 20 s; the interval is 2 s.
	trig := now.UnixMilli() - 60_000
	h := model.History{IntervalMs: 2000, Checkpoints: []model.Checkpoint{
		{ID: 5, Status: model.StatusFailed, TriggerMs: trig, FailureMs: trig + 20_000}}}
	for _, tc := range []struct {
		sinceEnd time.Duration // now − the failure
		want     time.Duration
	}{
		{-5 * time.Second, 5*time.Second + 300*time.Millisecond}, // before it is due: until then
		{time.Second, inFlightEvery},                             // due: look until it shows
		{10 * time.Second, 2 * time.Second},                      // late: once an interval
		{55 * time.Second, 2 * time.Second},
		{2 * time.Minute, 10 * time.Second}, // long gone quiet: the slowest poll
	} {
		now = time.UnixMilli(trig + 20_000).Add(tc.sinceEnd)
		if got := j.inFlightWait(h); got != tc.want {
			t.Errorf("%v after the failure: wait %v, want %v", tc.sinceEnd, got, tc.want)
		}
	}
}
