package seatunnel

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// fakeClock is a time both the source and the fake engine read, moved by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.UnixMilli(1_800_000_000_000)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// stamp sets the fake's updatedAt to the clock, as an engine stamping on each change does.
func (f *fakeZeta) stamp(c *fakeClock) {
	f.set(func(f *fakeZeta) { f.updatedAt = c.Now().UnixMilli() })
}

// An overview already given has no ack samples; one whose updatedAt moved has.
func TestHistoryGivesEachOverviewsSamplesOnce(t *testing.T) {
	f, srv := newFakeZeta(t)
	clk := newFakeClock()
	src := NewSource(newClient(t, srv.URL), nil)
	src.now = clk.Now
	job := &model.Job{ID: fakeJobID}
	ctx := context.Background()
	f.trigger(1, TypeCheckpoint, 4)
	f.ack(1, 1)
	f.stamp(clk)
	for i, want := range []int{1, 0, 0} {
		h, err := src.History(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.InFlight) != want || len(h.Checkpoints) != 1 || h.Checkpoints[0].Status != model.StatusInProgress || h.RefreshMs != 0 {
			t.Errorf("poll %d of one overview: %d ack samples (want %d), checkpoints %+v", i, len(h.InFlight), want, h.Checkpoints)
		}
		clk.Add(500 * time.Millisecond)
	}
	f.ack(1, 2)
	f.stamp(clk)
	h, _ := src.History(ctx, job)
	if len(h.InFlight) != 1 || h.InFlight[0].Acknowledged != 2 || h.InFlight[0].TimeMs != clk.Now().UnixMilli() {
		t.Errorf("after an ack: %+v, want its sample", h.InFlight)
	}
	// A second change within the same millisecond: a new answer under the same stamp.
	f.ack(1, 3)
	f.stamp(clk)
	if h, _ := src.History(ctx, job); len(h.InFlight) != 1 || h.InFlight[0].Acknowledged != 3 {
		t.Errorf("a change under the same stamp: %+v, want its sample", h.InFlight)
	}
}

// An engine that snapshots its overview on a period of its own restamps it with nothing
// changed: the source learns the period (never more than it) and tells the collector. One that
// stamps on every change (2.3.13) never restamps, or only now and then (an acknowledgement
// that leaves the count as it was), and keeps the collector's pace.
func TestHistoryLearnsAPeriodicRefresh(t *testing.T) {
	for _, tc := range []struct {
		name             string
		periodic         bool
		silent           bool // a stamp with no change 600 ms after each change
		minMs, maxMs     int64
		minAcks, maxAcks int
	}{
		{name: "periodic snapshots", periodic: true, minMs: 700, maxMs: 1000, minAcks: 12, maxAcks: 13},
		{name: "stamped on every change", minAcks: 5, maxAcks: 5},
		{name: "stamped on every change, now and then with none", silent: true, maxMs: 500, minAcks: 8, maxAcks: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFakeZeta(t)
			clk := newFakeClock()
			if tc.periodic {
				f.clock, f.refreshEvery = clk.Now, time.Second
			}
			src := NewSource(newClient(t, srv.URL), nil)
			src.now = clk.Now
			job := &model.Job{ID: fakeJobID}
			f.trigger(1, TypeCheckpoint, 8)
			f.stamp(clk)
			samples := 0
			var h model.History
			for i := 0; i < 40; i++ { // 12 s of polls every 300 ms; an ack every 3 s
				switch {
				case i%10 == 9:
					f.ack(1, i/10+1)
					f.stamp(clk)
				case tc.silent && i%10 == 1 && i > 1:
					f.stamp(clk)
				}
				var err error
				if h, err = src.History(context.Background(), job); err != nil {
					t.Fatal(err)
				}
				samples += len(h.InFlight)
				clk.Add(300 * time.Millisecond)
			}
			if h.RefreshMs < tc.minMs || h.RefreshMs > tc.maxMs || samples < tc.minAcks || samples > tc.maxAcks {
				t.Errorf("RefreshMs %d, %d ack samples; want %d–%d ms and %d–%d samples (one per new answer)",
					h.RefreshMs, samples, tc.minMs, tc.maxMs, tc.minAcks, tc.maxAcks)
			}
		})
	}
}

// noSpare is a budget with nothing to spare.
type noSpare struct{}

func (noSpare) Acquire(context.Context) (func(), error) { return func() {}, nil }
func (noSpare) Spare(int) bool                          { return false }

// liveEngine is the fake with a job reading 200 records a second and writing 100, its queue
// growing 20 a second, the sink committing 90 a second; the metrics block is made when
// asked, on the test's clock. ended is what a restore leaves in the queue and lag counts.
type liveEngine struct {
	f       *fakeZeta
	clk     *fakeClock
	started time.Time
	mu      sync.Mutex
	ended   int64
}

func newLiveEngine(t *testing.T) (*liveEngine, string) {
	f, srv := newFakeZeta(t)
	clk := newFakeClock()
	e := &liveEngine{f: f, clk: clk, started: clk.Now().Add(-time.Minute)}
	f.set(func(f *fakeZeta) { f.live = e.block })
	return e, srv.URL
}

// sampledJob starts a live engine and a source over it on the engine's clock (spending budget,
// nil for none), and reads the job as the collector does before it samples the job's metrics.
func sampledJob(t *testing.T, budget Budget) (*liveEngine, *Source, model.Job) {
	t.Helper()
	e, url := newLiveEngine(t)
	src := NewSource(newClient(t, url), budget)
	src.now = e.clk.Now
	job, err := src.Job(context.Background(), fakeJobID)
	if err != nil {
		t.Fatal(err)
	}
	return e, src, job
}

func (e *liveEngine) secs() float64 { return e.clk.Now().Sub(e.started).Seconds() }

// queued is the live part of the queue: 20 records a second.
func (e *liveEngine) queued() int64 { return int64(20 * e.secs()) }

func (e *liveEngine) block() obj {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.secs()
	return metricsBlock(e.started, e.clk.Now(), int64(200*s), int64(100*s), int64(90*s), e.ended+e.queued())
}

// Without realtime metrics the source samples /job-info every 5 s, and every second while a
// checkpoint runs long (2 s here: none completed yet), with spare budget only. Samples are of
// their request's time; rates come from the counters' differences.
func TestJobInfoSampling(t *testing.T) {
	for _, tc := range []struct {
		name             string
		budget           Budget
		minFast, maxFast int
	}{
		{"spare budget", nil, 55, 59},
		{"no spare budget", noSpare{}, 11, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, src, job := sampledJob(t, tc.budget)
			ctx := context.Background()
			// run calls Metrics every 250 ms (the collector: at most every second, at its
			// polls) for a minute; returns the job-info requests made and the samples.
			run := func() (int, []model.MetricSample) {
				before := e.f.count("/job-info/:jobId")
				var out []model.MetricSample
				for end := e.clk.Now().Add(time.Minute); e.clk.Now().Before(end); e.clk.Add(250 * time.Millisecond) {
					s, err := src.Metrics(ctx, &job, 0)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, s...)
				}
				return e.f.count("/job-info/:jobId") - before, out
			}
			check := func(phase string, requests, lo, hi int, samples []model.MetricSample) {
				t.Helper()
				fills, rates := 0, 0
				for _, s := range samples {
					switch s.Metric {
					case model.MetricQueueFillRatio:
						fills++
						// 2 queues of 2048 at parallelism 2; the fill of the sample's time.
						want := math.Min(1, 20*time.UnixMilli(s.TimeMs).Sub(e.started).Seconds()/4096)
						if s.VertexID != "4" || s.Target != "3" || math.Abs(s.Value-want) > 1e-3 {
							t.Errorf("%s: %+v, want %.4f on the edge 4 → 3", phase, s, want)
						}
					case model.MetricSourceRecordsPerSec:
						rates++
						if math.Abs(s.Value-200) > 1 || s.VertexID != "1" {
							t.Errorf("%s: %+v, want 200/s read by vertex 1", phase, s)
						}
					}
				}
				t.Logf("%s: %d requests, %d queue samples, %d rates in 60 s", phase, requests, fills, rates)
				if requests < lo || requests > hi || fills != requests || rates < fills-1 {
					t.Errorf("%s: %d requests (want %d–%d), %d queue samples and %d rates, want one per request", phase, requests, lo, hi, fills, rates)
				}
			}
			requests, samples := run()
			check("no checkpoint running", requests, 12, 12, samples)

			e.f.trigger(1, TypeCheckpoint, 4) // in flight from now on, and never done
			if _, err := src.History(ctx, &job); err != nil {
				t.Fatal(err)
			}
			requests, samples = run()
			check("a long checkpoint, "+tc.name, requests, tc.minFast, tc.maxFast, samples)
		})
	}
}

// After a pipeline restore the engine adds the ended attempt's last queue size (and its
// written but never committed records) to the new attempt's: the source counts both from the
// restore on.
func TestJobInfoSamplingAfterARestore(t *testing.T) {
	e, src, job := sampledJob(t, nil)
	ctx := context.Background()
	e.f.trigger(1, TypeCheckpoint, 4)
	e.f.complete(1, 1)
	sample := func() (queue, lag float64) {
		t.Helper()
		e.clk.Add(5 * time.Second)
		if _, err := src.History(ctx, &job); err != nil {
			t.Fatal(err)
		}
		ss, err := src.Metrics(ctx, &job, 0)
		if err != nil {
			t.Fatal(err)
		}
		queue, lag = -1, -1
		for _, s := range ss {
			switch s.Metric {
			case model.MetricQueueSize:
				queue = s.Value
			case model.MetricCommitLagRecords:
				lag = s.Value
			}
		}
		return queue, lag
	}
	if q, lag := sample(); q != float64(e.queued()) || lag != 10*e.secs() {
		t.Errorf("before a restore: queue %v lag %v, want the engine's %d and %v", q, lag, e.queued(), 10*e.secs())
	}
	// The pipeline restored: the ended attempt left 4,002 records in the queue count; the new
	// attempt's queue starts empty (the fake's live part restarts at 0) and grows 20 a second.
	e.mu.Lock()
	e.ended, e.started = 4002, e.clk.Now().Add(-5*time.Second)
	e.mu.Unlock()
	e.f.set(func(f *fakeZeta) { f.pipelines[1].restored++; f.touch() })
	for i, want := range []float64{0, 100, 200} {
		if q, _ := sample(); q != want {
			t.Errorf("sample %d after the restore: queue %v, want %v (the new attempt's, counted from the first sample)", i, q, want)
		}
	}
}

// The engine answers /job-info for an ended job from its history, without env options: the
// timeout read while it ran still dates its last expiries.
func TestSourceKeepsTheSettingsOfAnEndedJob(t *testing.T) {
	f, srv := newFakeZeta(t)
	src := NewSource(newClient(t, srv.URL), nil)
	ctx := context.Background()
	job, err := src.Job(ctx, fakeJobID)
	if err != nil {
		t.Fatal(err)
	}
	f.trigger(1, TypeCheckpoint, 4)
	f.fail(1, "CHECKPOINT_EXPIRED", expired, "")
	f.set(func(f *fakeZeta) { f.jobStatus = "FAILED" })
	if job, err = src.Job(ctx, fakeJobID); err != nil || job.State != "FAILED" {
		t.Fatalf("job %+v, %v", job, err)
	}
	if _, err := src.Metrics(ctx, &job, 0); err != nil {
		t.Fatal(err)
	}
	h, err := src.History(ctx, &job)
	if err != nil {
		t.Fatal(err)
	}
	if cp := h.Checkpoints[0]; cp.FailureMs != cp.TriggerMs+3000 || cp.EndToEndMs != 3000 {
		t.Errorf("expired checkpoint %+v, want its end at trigger + the 3 s timeout", cp)
	}
	if cfg, err := src.JobConfig(ctx, &job); err != nil || cfg.TimeoutMs == nil || *cfg.TimeoutMs != 3000 {
		t.Errorf("config %+v, %v; want the timeout read while it ran", cfg, err)
	}
}

// Each checkpoint gets a /job-info sample as soon as it is seen in flight, not at the next 5 s
// tick: the queue ahead of its barrier at the trigger is what decides how long it waits.
func TestJobInfoSampledAtEachTrigger(t *testing.T) {
	e, src, job := sampledJob(t, nil)
	ctx := context.Background()
	metrics := func() int {
		t.Helper()
		before := e.f.count("/job-info/:jobId")
		if _, err := src.Metrics(ctx, &job, 0); err != nil {
			t.Fatal(err)
		}
		return e.f.count("/job-info/:jobId") - before
	}
	if n := metrics(); n != 1 {
		t.Fatalf("first Metrics made %d job-info requests, want 1", n)
	}
	e.clk.Add(1200 * time.Millisecond)
	if n := metrics(); n != 0 {
		t.Fatalf("1.2 s later with nothing in flight: %d requests, want none before the 5 s tick", n)
	}
	e.f.trigger(1, TypeCheckpoint, 4)
	if _, err := src.History(ctx, &job); err != nil {
		t.Fatal(err)
	}
	e.clk.Add(100 * time.Millisecond)
	if n := metrics(); n != 1 {
		t.Errorf("a checkpoint just seen in flight: %d requests, want its sample now", n)
	}
	e.clk.Add(300 * time.Millisecond)
	if n := metrics(); n != 0 {
		t.Errorf("the same checkpoint 0.3 s later: %d requests, want none (sampled, not long yet)", n)
	}
}
