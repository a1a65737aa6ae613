package collect

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// configEngine is the rolling engine with a configuration to read: the first
// failFirst reads fail, then it reports unaligned as set.
type configEngine struct {
	*rollingEngine
	calls     atomic.Int64
	failFirst int64
	unaligned atomic.Bool
}

func (e *configEngine) JobConfig(_ context.Context, job *model.Job) (model.JobConfig, error) {
	if e.calls.Add(1) <= e.failFirst {
		return model.JobConfig{}, errors.New("injected: 503 from a proxy")
	}
	iv, u := int64(100), e.unaligned.Load()
	return model.JobConfig{Cluster: "ignored", JobID: "ignored", SeenMs: 1, IntervalMs: &iv, Unaligned: &u}, nil
}

func TestCollectorKeepsTheJobsConfigurationAndItsChanges(t *testing.T) {
	st := openStore(t)
	eng := &configEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 100 * time.Millisecond,
		dur: 20 * time.Millisecond, capacity: 10, details: map[int64]int{}}, failFirst: 2}
	opts := fastOptions(st, nil)
	opts.ConfigRetry, opts.ConfigEvery = 100*time.Millisecond, 300*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	began := time.Now()
	m := startPolling(ctx, opts, eng)
	defer m.Stop()

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		waitWithin(t, 5*time.Second, what, ok)
	}
	configs := func() []model.JobConfig {
		cs, err := st.JobConfigs(ctx, "c1", "job-1")
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// The failed reads do not fail the polls: checkpoints are stored meanwhile, the health stays ok.
	waitFor("checkpoints while the configuration fails", func() bool {
		cps, _ := storedJob(t, st)
		return len(cps) > 0
	})
	waitFor("the configuration after two failed reads", func() bool { return len(configs()) == 1 })
	if h, _ := m.Health("c1"); h.State != "ok" {
		t.Errorf("health %+v: a failed configuration read must not make the poll fail", h)
	}
	c := configs()[0]
	if c.Cluster != "c1" || c.JobID != "job-1" || c.SeenMs < began.UnixMilli() || c.Unaligned == nil || *c.Unaligned {
		t.Errorf("stored %+v, want c1/job-1 seen now, aligned", c)
	}
	// Re-read every ConfigEvery: the same settings add nothing; a change adds an entry.
	time.Sleep(2 * opts.ConfigEvery)
	if n := len(configs()); n != 1 {
		t.Errorf("%d entries after re-reads of the same settings, want 1", n)
	}
	eng.unaligned.Store(true)
	waitFor("the changed configuration", func() bool { return len(configs()) == 2 })
	if cs := configs(); cs[1].Unaligned == nil || !*cs[1].Unaligned {
		t.Errorf("newest %+v, want unaligned", cs[1])
	}
	// The reads are bounded: 2 failures, 1 first read, then one per ConfigEvery at most.
	elapsed := time.Since(began)
	if calls, most := eng.calls.Load(), 3+int64(elapsed/opts.ConfigEvery)+1; calls > most {
		t.Errorf("%d configuration reads in %v, want at most %d", calls, elapsed.Round(time.Millisecond), most)
	}
}

// An engine whose checkpoint list fails (SeaTunnel before the checkpoint API) still says how
// the job is configured: the configuration is kept, the failing polls do not repeat its reads.
func TestCollectorReadsTheConfigurationWhenTheListFails(t *testing.T) {
	st := openStore(t)
	eng := &configEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 100 * time.Millisecond,
		dur: 20 * time.Millisecond, capacity: 10, details: map[int64]int{}, frozen: true}}
	opts := fastOptions(st, nil)
	opts.ConfigEvery = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, opts, eng)
	defer m.Stop()
	waitWithin(t, 5*time.Second, "a configuration while the list polls fail", func() bool {
		cs, err := st.JobConfigs(ctx, "c1", "job-1")
		if err != nil {
			t.Fatal(err)
		}
		return len(cs) == 1
	})
	time.Sleep(300 * time.Millisecond) // several failed polls more
	if n := eng.calls.Load(); n != 1 {
		t.Errorf("%d configuration reads, want 1 (the next is due in an hour)", n)
	}
	if h, _ := m.Health("c1"); h.State != "error" {
		t.Errorf("health %q: the list polls fail", h.State)
	}
}

// partialConfigEngine answers the job's configuration with one part unknown until full is set.
type partialConfigEngine struct {
	*rollingEngine
	calls atomic.Int64
	full  atomic.Bool
}

func (e *partialConfigEngine) JobConfig(_ context.Context, job *model.Job) (model.JobConfig, error) {
	e.calls.Add(1)
	iv := int64(100)
	c := model.JobConfig{IntervalMs: &iv}
	if e.full.Load() {
		c.StateBackend = "hashmap"
	} else {
		c.Unknown = []model.ConfigGap{{Part: "jobmanager", Endpoint: "GET /jobmanager/config", Error: "injected: 404"}}
	}
	return c, nil
}

// A read with a part unknown is stored, and asked again ConfigRetry later (not ConfigEvery):
// the fuller answer then fills the entry in instead of adding a change.
func TestCollectorAsksAgainSoonAfterAPartialConfiguration(t *testing.T) {
	st := openStore(t)
	eng := &partialConfigEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 100 * time.Millisecond,
		dur: 20 * time.Millisecond, capacity: 10, details: map[int64]int{}}}
	opts := fastOptions(st, nil)
	opts.ConfigRetry, opts.ConfigEvery = 100*time.Millisecond, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, opts, eng)
	defer m.Stop()
	configs := func() []model.JobConfig {
		cs, err := st.JobConfigs(ctx, "c1", "job-1")
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	waitWithin(t, 5*time.Second, "the partial configuration", func() bool { return len(configs()) == 1 })
	waitWithin(t, 5*time.Second, "a second read within the retry delay", func() bool { return eng.calls.Load() >= 2 })
	eng.full.Store(true)
	waitWithin(t, 5*time.Second, "the configuration filled in", func() bool {
		cs := configs()
		return len(cs) == 1 && len(cs[0].Unknown) == 0 && cs[0].StateBackend == "hashmap"
	})
}
