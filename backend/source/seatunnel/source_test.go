package seatunnel

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// countingBudget is a collect.Budget that also counts what was spent.
type countingBudget struct {
	*collect.Budget
	n atomic.Int64
}

func (b *countingBudget) Acquire(ctx context.Context) (func(), error) {
	b.n.Add(1)
	return b.Budget.Acquire(ctx)
}

// countingSink is the store, counting the ack samples handed to it per checkpoint.
type countingSink struct {
	*store.Store
	mu   sync.Mutex
	acks map[int64]int
}

func (s *countingSink) PutAckSamples(ctx context.Context, ss []model.AckSample) error {
	s.mu.Lock()
	for _, a := range ss {
		s.acks[a.CheckpointID]++
	}
	s.mu.Unlock()
	return s.Store.PutAckSamples(ctx, ss)
}

func (s *countingSink) acksOf(id int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks[id]
}

type harness struct {
	f      *fakeZeta
	st     *store.Store
	sink   *countingSink
	m      *collect.Manager
	src    *Source
	budget *countingBudget

	mu     sync.Mutex
	health collect.Health
}

// startCollector runs a real collect.Manager with a real store against the fake engine, polling
// fast (50–150 ms) so that tests take a second or two.
func startCollector(t *testing.T, f *fakeZeta, url string) *harness {
	t.Helper()
	return startCollectorWith(t, f, url, collect.Options{MinPoll: 50 * time.Millisecond, MaxPoll: 150 * time.Millisecond})
}

// startCollectorWith is startCollector with the given poll bounds (zero: the collector's defaults);
// tune changes the source before it is polled.
func startCollectorWith(t *testing.T, f *fakeZeta, url string, bounds collect.Options, tune ...func(*Source)) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "cache.db"), store.DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{f: f, st: st, sink: &countingSink{Store: st, acks: map[int64]int{}}}
	h.budget = &countingBudget{Budget: collect.NewBudget(collect.BudgetOptions{RequestsPerSecond: 200, Burst: 50})}
	h.src = NewSource(newClient(t, url), h.budget)
	for _, fn := range tune {
		fn(h.src)
	}
	h.m = collect.NewManager(ctx, collect.Options{
		Sink: h.sink, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MinPoll: bounds.MinPoll, MaxPoll: bounds.MaxPoll, JobsEvery: time.Second,
		OnHealth: func(_ string, hl collect.Health) { h.mu.Lock(); h.health = hl; h.mu.Unlock() },
	})
	h.m.Apply([]collect.Target{{Name: "st", Key: "1", Source: h.src, Budget: h.budget.Budget}})
	t.Cleanup(func() {
		h.m.Stop()
		cancel()
		_ = st.Close()
	})
	return h
}

func (h *harness) lastHealth() collect.Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.health
}

// waitFinal waits until n checkpoints of q are final in the store.
func (h *harness) waitFinal(t *testing.T, q store.Query, n int, d time.Duration) {
	t.Helper()
	waitFor(t, "all checkpoints final in the store", d, func() bool {
		cps, err := h.st.Checkpoints(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		final := 0
		for _, cp := range cps {
			if cp.Status.Final() {
				final++
			}
		}
		return final == n
	})
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// collectRun starts the collector against f, drives n checkpoints through the fake
// (runCheckpoints) and waits until the store holds all n final; q is the query of the job's
// checkpoints.
func collectRun(t *testing.T, f *fakeZeta, url string, n int) (h *harness, q store.Query) {
	t.Helper()
	h = startCollector(t, f, url)
	q = store.Query{Cluster: "st", JobID: fakeJobID}
	runCheckpoints(f, n)
	h.waitFinal(t, q, n, 5*time.Second)
	return h, q
}

// runCheckpoints drives the fake like a job: a checkpoint of 4 subtasks acked one every 60 ms,
// every 5th expiring, until n checkpoints ended. Each ack waits (up to a second) for the
// collector's next read of the checkpoint overview, as a real job's acks are far apart next to
// the sampling: on a loaded machine the reads come late, and acks they all missed would show no
// progress.
func runCheckpoints(f *fakeZeta, n int) {
	const overview = "/jobs/checkpoints/:jobId"
	for i := 1; i <= n; i++ {
		f.trigger(1, TypeCheckpoint, 4)
		for a := 1; a <= 3; a++ {
			time.Sleep(60 * time.Millisecond)
			f.ack(1, a)
			read := f.count(overview)
			for until := time.Now().Add(time.Second); f.count(overview) == read && time.Now().Before(until); {
				time.Sleep(5 * time.Millisecond)
			}
		}
		time.Sleep(60 * time.Millisecond)
		if i%5 == 0 {
			f.fail(1, "CHECKPOINT_EXPIRED", expired, "")
		} else {
			f.ack(1, 4)
			f.complete(1, 2)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func TestCollectorWithSource(t *testing.T) {
	f, srv := newFakeZeta(t)
	realtimeFixture(f)
	const n = 10
	h, q := collectRun(t, f, srv.URL, n)
	ctx := context.Background()

	cps, err := h.st.Checkpoints(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range cps {
		switch {
		case cp.ID%5 == 0:
			if cp.Status != model.StatusFailed || cp.FailureMessage != expired || cp.FailureMs != cp.TriggerMs+3000 || cp.EndToEndMs != 3000 {
				t.Errorf("checkpoint %d = %+v, want expired with end = trigger + timeout", cp.ID, cp)
			}
		default:
			if cp.Status != model.StatusCompleted || cp.CompletionMs < cp.TriggerMs+200 || cp.LatestAckMs != cp.CompletionMs ||
				cp.StateBlobs == nil || *cp.StateBlobs != 2 || cp.Pipeline != 1 {
				t.Errorf("checkpoint %d = %+v, want completed ≥ 200 ms after trigger with 2 state blobs", cp.ID, cp)
			}
		}
	}

	acks, err := h.st.AckSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	progress := map[int64][]model.AckSample{}
	for _, a := range acks {
		if a.Total != 4 || a.Acknowledged < 0 || a.Acknowledged > 4 {
			t.Errorf("ack sample %+v", a)
		}
		progress[a.CheckpointID] = append(progress[a.CheckpointID], a)
	}
	rising := 0
	for id, ss := range progress {
		for i := 1; i < len(ss); i++ {
			if ss[i].TimeMs <= ss[i-1].TimeMs || ss[i].Acknowledged < ss[i-1].Acknowledged {
				t.Errorf("checkpoint %d: samples not in time order or going back: %+v", id, ss)
			}
		}
		if len(ss) >= 2 && ss[len(ss)-1].Acknowledged > ss[0].Acknowledged {
			rising++
		}
	}
	if rising < n/2 {
		t.Errorf("%d of %d checkpoints have rising ack progress (%d samples in all), want most", rising, n, len(acks))
	}

	gaps, err := h.st.Gaps(ctx, q)
	if err != nil || len(gaps) != 0 {
		t.Errorf("gaps = %+v, %v; want none", gaps, err)
	}

	ms, err := h.st.MetricSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var bp []model.MetricSample
	for _, m := range ms {
		if m.Metric == model.MetricBPRatio && m.Target == "3" {
			bp = append(bp, m)
		}
	}
	if len(bp) != 2 || bp[0].VertexID != "4" || bp[1].Value != 0.9 {
		t.Errorf("backpressure into the sink = %+v, want 2 complete buckets from the transform", bp)
	}
	job, err := h.st.Job(ctx, "st", fakeJobID)
	if err != nil || len(job.Vertices) != 3 || len(job.Edges) != 2 || job.Engine != model.EngineSeaTunnel {
		t.Errorf("stored job = %+v, %v", job, err)
	}
	if spent, served := h.budget.n.Load(), int64(f.totalRequests()); spent != served {
		t.Errorf("budget spent on %d requests, the engine served %d: every request must spend it", spent, served)
	}
	// Detail costs nothing: no request beyond jobs, job-info, overview and realtime windows.
	for ep := range f.snapshotRequests() {
		switch ep {
		case "/running-jobs", "/finished-jobs", "/job-info/:jobId", "/jobs/checkpoints/:jobId",
			"/metrics/realtime/jobs/:jobId/vertices", "/metrics/realtime/jobs/:jobId/edges":
		default:
			t.Errorf("unexpected request to %s", ep)
		}
	}
}

func TestCollectorRecordsEvictedCheckpointsAsGap(t *testing.T) {
	f, srv := newFakeZeta(t)
	h := startCollector(t, f, srv.URL)
	ctx := context.Background()
	q := store.Query{Cluster: "st", JobID: fakeJobID}
	f.trigger(1, TypeCheckpoint, 1)
	f.complete(1, 1)
	waitFor(t, "checkpoint 1 stored", 3*time.Second, func() bool {
		id, ok, err := h.st.LatestCheckpointID(ctx, "st", fakeJobID, 1)
		return err == nil && ok && id == 1
	})
	// The engine becomes unreachable while 50 checkpoints come and go: the ring keeps 32.
	f.set(func(f *fakeZeta) { f.frozen = true })
	for i := 0; i < 50; i++ {
		f.trigger(1, TypeCheckpoint, 1)
		f.complete(1, 1)
	}
	waitFor(t, "an error reported while frozen", 3*time.Second, func() bool { return h.lastHealth().State == "error" })
	f.set(func(f *fakeZeta) { f.frozen = false })
	waitFor(t, "the gap recorded", 5*time.Second, func() bool {
		gaps, err := h.st.Gaps(ctx, q)
		return err == nil && len(gaps) == 1
	})
	gaps, _ := h.st.Gaps(ctx, q)
	if g := gaps[0]; g.Pipeline != 1 || g.FromID != 2 || g.ToID != 51-HistoryCapacity || !strings.Contains(g.Reason, "32 deep") {
		t.Errorf("gap = %+v, want pipeline 1 ids 2..%d", g, 51-HistoryCapacity)
	}
	waitFor(t, "the remaining ring stored", 3*time.Second, func() bool {
		id, ok, err := h.st.LatestCheckpointID(ctx, "st", fakeJobID, 1)
		return err == nil && ok && id == 51
	})
}

// A server that answers 404 for the bare /finished-jobs (serving only
// /finished-jobs/:state) costs only the finished jobs: the running job is
// collected with nothing missed, and health names the endpoint.
func TestCollectorFollowsRunningJobsWhenFinishedJobsFail(t *testing.T) {
	f, srv := newFakeZeta(t)
	f.finishedJobsOnlyByState = true
	const n = 6
	h, q := collectRun(t, f, srv.URL, n)
	ctx := context.Background()
	gaps, err := h.st.Gaps(ctx, q)
	if err != nil || len(gaps) != 0 {
		t.Errorf("gaps = %+v, %v; want none", gaps, err)
	}
	waitFor(t, "partial health naming /finished-jobs", 3*time.Second, func() bool {
		hl := h.lastHealth()
		return hl.State == "partial" && strings.Contains(hl.LastError, "/finished-jobs") && strings.Contains(hl.LastError, "404")
	})
	r, ok, err := h.st.Reconciliation(ctx, "st", fakeJobID)
	if err != nil || !ok || r.Unaccounted != 0 || r.Gaps != 0 || r.Stored != n || r.Engine == nil || r.Engine.Completed+r.Engine.Failed != n {
		t.Errorf("reconciliation %+v (%v, %v), want %d stored, none missed, the engine's counts", r, ok, err, n)
	}
}

func TestCollectorSaysWhenCheckpointAPIIsMissing(t *testing.T) {
	f, srv := newFakeZeta(t)
	f.noCheckpointAPI = true
	h := startCollector(t, f, srv.URL)
	waitFor(t, "the error in the cluster's health", 3*time.Second, func() bool {
		return strings.Contains(h.lastHealth().LastError, "no checkpoint REST API (added in 2.3.13 / PR #10065")
	})
	job, err := h.st.Job(context.Background(), "st", fakeJobID)
	if err != nil || len(job.Vertices) != 3 {
		t.Errorf("the job graph should still be stored: %+v, %v", job, err)
	}
}

func TestSourceMetricsBackOffWhenUnavailable(t *testing.T) {
	f, srv := newFakeZeta(t)
	src := NewSource(newClient(t, srv.URL), nil)
	now := time.Unix(1_800_000_000, 0)
	src.now = func() time.Time { return now }
	job := &model.Job{ID: fakeJobID}
	ctx := context.Background()
	realtimeAsks := func() int {
		n := 0
		for ep, c := range f.snapshotRequests() {
			if strings.HasPrefix(ep, "/metrics/realtime") {
				n += c
			}
		}
		return n
	}

	// No realtime API: /job-info's metrics block instead, and the status says so.
	f.setMetrics(now.Add(-time.Minute), now, 12000, 11000, 10000, 800)
	samples, err := src.Metrics(ctx, job, 0)
	if err != nil || len(samples) == 0 || f.count("/job-info/:jobId") != 1 {
		t.Fatalf("no realtime API: samples %v err %v, %d job-info requests; want samples from /job-info", samples, err, f.count("/job-info/:jobId"))
	}
	if s := src.MetricsStatus(fakeJobID); s != "queue and rates from /job-info (no realtime metrics in this engine version)" {
		t.Errorf("status = %q", s)
	}
	before := realtimeAsks()
	now = now.Add(time.Minute)
	if _, err := src.Metrics(ctx, job, 0); err != nil || realtimeAsks() != before {
		t.Errorf("realtime asked again within the back-off (%d → %d requests)", before, realtimeAsks())
	}
	// Once the API answers, samples flow and the status clears.
	realtimeFixture(f)
	now = now.Add(realtimeAPIRetry)
	if _, err := src.Job(ctx, fakeJobID); err != nil {
		t.Fatal(err)
	}
	jj, _ := src.c.Job(ctx, fakeJobID)
	samples, err = src.Metrics(ctx, &jj, 0)
	if err != nil || len(samples) == 0 || src.MetricsStatus(fakeJobID) != "" {
		t.Fatalf("samples %d err %v status %q", len(samples), err, src.MetricsStatus(fakeJobID))
	}
	for _, m := range samples {
		if m.Metric == model.MetricQueueSize {
			t.Errorf("realtime answered, yet /job-info sampled: %+v", m)
		}
	}
	// Disabled for the job: /job-info again, the status names the realtime API's answer.
	f.set(func(f *fakeZeta) { f.realtime = "disabled" })
	now = now.Add(time.Minute)
	infoBefore := f.count("/job-info/:jobId")
	if _, err := src.Metrics(ctx, &jj, 15000); err != nil || f.count("/job-info/:jobId") != infoBefore+1 {
		t.Errorf("disabled: err %v, %d → %d job-info requests", err, infoBefore, f.count("/job-info/:jobId"))
	}
	if s := src.MetricsStatus(fakeJobID); !strings.HasPrefix(s, "queue and rates from /job-info") || !strings.Contains(s, "observability") {
		t.Errorf("status = %q", s)
	}
}

func (f *fakeZeta) totalRequests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.requests {
		n += c
	}
	return n
}

func (f *fakeZeta) snapshotRequests() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.requests {
		out[k] = v
	}
	return out
}

// Slow checkpoints (about 3.5 s at a 1.5 s interval) where most tasks
// acknowledge within 0.2 s and one straggles to the end, polled with the
// collector's default bounds: the first in-flight sample lands within about
// half a second of each trigger (the poller expects it from the cadence), so
// the p50 is known early and the p100 at the straggler; ack-progress polls
// stay within 3 + duration / 0.5 s per checkpoint.
func TestCollectorSamplesAckProgressFromTheCheckpointCadence(t *testing.T) {
	f, srv := newFakeZeta(t)
	h := startCollectorWith(t, f, srv.URL, collect.Options{})
	ctx := context.Background()
	q := store.Query{Cluster: "st", JobID: fakeJobID}
	waitFor(t, "the job followed", 5*time.Second, func() bool {
		_, err := h.st.Job(ctx, "st", fakeJobID)
		return err == nil
	})
	const n, tasks = 5, 8
	before := f.snapshotRequests()["/jobs/checkpoints/:jobId"]
	start := time.Now()
	for i := 0; i < n; i++ {
		time.Sleep(1500 * time.Millisecond) // the interval since the last one ended
		f.trigger(1, TypeCheckpoint, tasks)
		time.Sleep(150 * time.Millisecond)
		f.ack(1, tasks-1) // all but the straggler
		time.Sleep(3350 * time.Millisecond)
		f.ack(1, tasks)
		f.complete(1, 2)
	}
	elapsed := time.Since(start)
	h.waitFinal(t, q, n, 15*time.Second)
	polls := f.snapshotRequests()["/jobs/checkpoints/:jobId"] - before
	cps, _ := h.st.Checkpoints(ctx, q)
	acks, _ := h.st.AckSamples(ctx, q)
	job, _ := h.st.Job(ctx, "st", fakeJobID)
	early, late := 0, 0
	for i := range cps {
		c := &cps[i]
		p := analyze.CheckpointAckProgress(job, c, acks, 0)
		if p == nil {
			t.Errorf("checkpoint %d: no ack progress", c.ID)
			continue
		}
		if p.P50Ms != nil && *p.P50Ms <= 1500 {
			early++
		}
		if p.P100Ms != nil && *p.P100Ms >= 2500 {
			late++
		}
		t.Logf("checkpoint %d: %d ms, p50 %v, p100 %v", c.ID, c.EndToEndMs, fmtPtr(p.P50Ms), fmtPtr(p.P100Ms))
	}
	if early*10 < n*8 || late*10 < n*8 {
		t.Errorf("%d of %d checkpoints have p50 ≤ 1.5 s and %d p100 ≥ 2.5 s; want 80 %%", early, n, late)
	}
	// Per checkpoint: the poll when the trigger is due, in-flight polls every 0.5 s, one after.
	if bound := n * (3 + 3500/500); polls > bound {
		t.Errorf("%d list polls for %d checkpoints in %v, want at most %d", polls, n, elapsed.Round(time.Second), bound)
	}
	t.Logf("%d list polls for %d checkpoints of 3.5 s in %v: %.1f per checkpoint", polls, n, elapsed.Round(time.Second), float64(polls)/n)
}

func fmtPtr(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}
