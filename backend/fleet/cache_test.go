package fleet

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// A Cache re-reads only the rows of the jobs touched since its last answer;
// the rest wait for the whole read that comes FullEvery after the last one,
// in the background, or after Reset.
func TestCacheRereadsTouchedRows(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "cache.db"))
	putJobs(t, st,
		model.Job{Cluster: "prod", ID: "a", Name: "a", Engine: model.EngineFlink, State: "RUNNING"},
		model.Job{Cluster: "prod", ID: "b", Name: "b", Engine: model.EngineFlink, State: "RUNNING"},
		model.Job{Cluster: "test", ID: "t", Name: "t", Engine: model.EngineFlink, State: "RUNNING"},
	)
	putCheckpoints(t, st, append(checkpoints("prod", "a", now-30*minute, nil, 20, 40), checkpoints("prod", "b", now-30*minute, nil, 20, 40)...))
	clock := time.UnixMilli(now)
	c := NewCache(st, CacheOptions{FullEvery: 10 * time.Minute, Now: func() time.Time { return clock }})
	defer c.Close()
	all := func(string) bool { return true }
	read := func(only string) analyze.Fleet {
		t.Helper()
		f, err := c.Read(ctx, all, only, 0, clock.UnixMilli())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	attention := func(f analyze.Fleet) map[string]analyze.Attention {
		out := map[string]analyze.Attention{}
		for _, r := range f.Jobs {
			out[r.Cluster+"/"+r.JobID] = r.Attention
		}
		return out
	}
	want := func(what string, f analyze.Fleet, w map[string]analyze.Attention, first string) {
		t.Helper()
		got := attention(f)
		if len(got) != len(w) || len(f.Jobs) == 0 || f.Jobs[0].Cluster+"/"+f.Jobs[0].JobID != first {
			t.Fatalf("%s: rows %v (first %s/%s), want %v first %s", what, got, f.Jobs[0].Cluster, f.Jobs[0].JobID, w, first)
		}
		for k, v := range w {
			if got[k] != v {
				t.Errorf("%s: %s is %s, want %s", what, k, got[k], v)
			}
		}
	}
	want("the first read", read(""), map[string]analyze.Attention{"prod/a": analyze.AttentionHealthy, "prod/b": analyze.AttentionHealthy, "test/t": analyze.AttentionNoData}, "prod/a")
	prodOnly := read("prod")

	// Both jobs' next checkpoints fail; only a's store is told.
	failing := func(job string, fromID int64) []model.Checkpoint {
		var out []model.Checkpoint
		for i := range int64(3) {
			trig := now - 5*minute + i*minute
			out = append(out, model.Checkpoint{Cluster: "prod", JobID: job, ID: fromID + i, TriggerMs: trig, Status: model.StatusFailed,
				FailureMs: trig + 40, FailureMessage: "Checkpoint expired before completing."})
		}
		return out
	}
	putCheckpoints(t, st, append(failing("a", 21), failing("b", 21)...))
	c.Touched("prod", "a")
	clock = clock.Add(time.Second)
	want("a touched", read(""), map[string]analyze.Attention{"prod/a": analyze.AttentionFailing, "prod/b": analyze.AttentionHealthy, "test/t": analyze.AttentionNoData}, "prod/a")
	want("a touched, prod only", read("prod"), map[string]analyze.Attention{"prod/a": analyze.AttentionFailing, "prod/b": analyze.AttentionHealthy}, "prod/a")
	if attention(prodOnly)["prod/a"] != analyze.AttentionHealthy {
		t.Error("an answer given changed after: the caller's rows must be its own")
	}

	// FullEvery after the last whole read, a Read answers at once and reads
	// the whole fleet in the background: the next answer has b failing.
	clock = clock.Add(10 * time.Minute)
	want("the whole read due", read(""), map[string]analyze.Attention{"prod/a": analyze.AttentionFailing, "prod/b": analyze.AttentionHealthy, "test/t": analyze.AttentionNoData}, "prod/a")
	c.wg.Wait()
	f := read("")
	if got := attention(f); got["prod/b"] != analyze.AttentionFailing {
		t.Errorf("after the whole read: %v, want b failing", got)
	}

	// A job resubmitted under a new id: its new run touched, its row stands
	// for both runs and the old run's row goes.
	putJobs(t, st,
		model.Job{Cluster: "prod", ID: "a", Name: "a", Engine: model.EngineFlink, State: "CANCELED", StartMs: now - 40*minute, EndMs: now - 2*minute},
		model.Job{Cluster: "prod", ID: "a2", Name: "a", Engine: model.EngineFlink, State: "RUNNING", StartMs: now - minute},
	)
	putCheckpoints(t, st, checkpoints("prod", "a2", now-minute+1000, nil, 1, 40))
	c.Touched("prod", "a2")
	f = read("")
	rows := attention(f)
	if _, old := rows["prod/a"]; old || len(rows) != 3 {
		t.Fatalf("after a's new run: rows %v, want a2 in place of a", rows)
	}
	for _, r := range f.Jobs {
		if r.JobID == "a2" && len(r.Runs) != 2 {
			t.Errorf("a2's runs %+v, want a's and a2's", r.Runs)
		}
	}

	// A job the cache was not told of shows after Reset (the sources changed).
	putJobs(t, st, model.Job{Cluster: "test", ID: "u", Name: "u", Engine: model.EngineFlink, State: "RUNNING"})
	if _, ok := attention(read(""))["test/u"]; ok {
		t.Fatal("a job no one told of read before the whole read is due")
	}
	c.Reset()
	if _, ok := attention(read(""))["test/u"]; !ok {
		t.Error("after Reset: no row of test/u")
	}
}

// A failed read loses no touch: the next Read re-reads the job.
func TestCacheKeepsTouchesOfAFailedRead(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "cache.db"))
	putJobs(t, st, model.Job{Cluster: "prod", ID: "a", Name: "a", Engine: model.EngineFlink, State: "RUNNING"})
	putCheckpoints(t, st, checkpoints("prod", "a", now-30*minute, nil, 20, 40))
	c := NewCache(st, CacheOptions{FullEvery: time.Hour, Now: func() time.Time { return time.UnixMilli(now) }})
	defer c.Close()
	all := func(string) bool { return true }
	if _, err := c.Read(context.Background(), all, "", 0, now); err != nil {
		t.Fatal(err)
	}
	putCheckpoints(t, st, checkpoints("prod", "a", now-30*minute, map[int]bool{17: true, 18: true, 19: true}, 20, 40))
	c.Touched("prod", "a")
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Read(gone, all, "", 0, now); err == nil {
		t.Fatal("a read with its context cancelled did not fail")
	}
	f, err := c.Read(context.Background(), all, "", 0, now)
	if err != nil || len(f.Jobs) != 1 || f.Jobs[0].Attention != analyze.AttentionFailing {
		t.Errorf("after a failed read: %+v, %v; want a failing", f.Jobs, err)
	}
}

func putJobs(t *testing.T, st *store.Store, jobs ...model.Job) {
	t.Helper()
	for _, j := range jobs {
		if err := st.PutJob(context.Background(), j); err != nil {
			t.Fatal(err)
		}
	}
}

func putCheckpoints(t *testing.T, st *store.Store, cps []model.Checkpoint) {
	t.Helper()
	if err := st.PutCheckpoints(context.Background(), cps); err != nil {
		t.Fatal(err)
	}
}

// A fleet whose whole read is long reads it again at most once per five
// times its length, however short FullEvery is.
func TestCacheSpacesLongWholeReads(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "cache.db"))
	putJobs(t, st, model.Job{Cluster: "prod", ID: "a", Name: "a", Engine: model.EngineFlink, State: "RUNNING"})
	clock := time.UnixMilli(now)
	c := NewCache(st, CacheOptions{FullEvery: time.Minute, Now: func() time.Time { return clock }})
	defer c.Close()
	all := func(string) bool { return true }
	read := func() {
		t.Helper()
		if _, err := c.Read(context.Background(), all, "", 0, clock.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	read()
	e := c.entry(cacheKey{"", DefaultWindowMs})
	e.took = 2 * time.Minute // as a large fleet's whole read
	clock = clock.Add(5 * time.Minute)
	read()
	if e.running || !e.fullAt.Equal(time.UnixMilli(now)) {
		t.Fatalf("a whole read 5 minutes after one that took 2: want none before 10 minutes")
	}
	clock = clock.Add(5 * time.Minute)
	read()
	c.wg.Wait()
	if !e.fullAt.Equal(clock) {
		t.Errorf("10 minutes after a whole read that took 2, the last began at %v, want %v", e.fullAt, clock)
	}
}

// A light row (a live update's: no subtask stats, no samples) says what the
// full row says of the same window but for the verdict, which it is given:
// on the bundled recordings of real jobs, failing and backpressured ones
// among them.
func TestLightRowsAreFullRowsButTheVerdict(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "cache.db"))
	var jobs []model.Job
	for _, sample := range []string{"flink-knobs.ckpt.gz", "flink120-mixed.ckpt.gz", "flink120-iceberg.ckpt.gz"} {
		rec := capturetest.Read(t, capturetest.Sample(sample))
		putJobs(t, st, rec.Jobs...)
		putCheckpoints(t, st, rec.Checkpoints)
		if err := st.PutMetricSamples(ctx, rec.MetricSamples); err != nil {
			t.Fatal(err)
		}
		if err := st.PutGaps(ctx, rec.Gaps); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, rec.Jobs...)
	}
	compared, verdicts := 0, 0
	for _, j := range jobs {
		sum, err := st.Jobs(ctx, j.Cluster)
		if err != nil {
			t.Fatal(err)
		}
		var end int64
		for _, s := range sum {
			if s.ID == j.ID {
				end = s.LastTriggerMs + 1
			}
		}
		full, err := readRow(ctx, st, j, nil, DefaultWindowMs, end)
		if err != nil {
			t.Fatal(err)
		}
		light, err := lightRow(ctx, st, j, nil, full.Verdict, DefaultWindowMs, end)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(light, full) {
			t.Errorf("job %s: the light row\n%+v\nwant the full row\n%+v", j.ID, light, full)
		}
		if full.Completed > 0 {
			compared++
			if full.Verdict != analyze.VerdictHealthy {
				verdicts++
			}
		}
	}
	if compared < 3 || verdicts == 0 {
		t.Errorf("%d jobs with completed checkpoints in their window, %d not healthy: the comparison proves little", compared, verdicts)
	}
}

// A Cache with a Dir keeps each whole read; after a restart, one with
// FromDir answers its first Read from it at once, marked as of that read and
// without the clusters removed since, and reads the fleet again meanwhile.
// A file that is not a kept read is no answer; without FromDir none is used.
func TestCacheAnswersTheFirstReadFromTheLastRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openStore(t, filepath.Join(dir, "cache.db"))
	for _, name := range []string{"prod", "test"} {
		if err := st.PutCluster(ctx, model.Cluster{Name: name, Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:1"}); err != nil {
			t.Fatal(err)
		}
	}
	putJobs(t, st,
		model.Job{Cluster: "prod", ID: "a", Name: "a", Engine: model.EngineFlink, State: "RUNNING"},
		model.Job{Cluster: "test", ID: "t", Name: "t", Engine: model.EngineFlink, State: "RUNNING"},
	)
	putCheckpoints(t, st, checkpoints("prod", "a", now-30*minute, nil, 20, 40))
	all := func(string) bool { return true }
	rows := func(f analyze.Fleet) []string {
		var out []string
		for _, r := range f.Jobs {
			out = append(out, r.Cluster+"/"+r.JobID+" "+string(r.Attention))
		}
		return out
	}
	read := func(c *Cache) analyze.Fleet {
		t.Helper()
		f, err := c.Read(ctx, all, "", 0, now)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	// The first run: a whole read, kept (Close waits for the file).
	began := time.UnixMilli(now)
	first := NewCache(st, CacheOptions{Dir: dir, FromDir: true, Now: func() time.Time { return began }})
	f1 := read(first)
	first.Close()
	if f1.AsOfMs != 0 {
		t.Fatalf("a whole read is marked as of %d: only a kept one is", f1.AsOfMs)
	}
	want := []string{"prod/a healthy", "test/t no_data"}
	if got := rows(f1); !reflect.DeepEqual(got, want) {
		t.Fatalf("the first run's rows %v, want %v", got, want)
	}

	// Between the runs, a's checkpoints fail and the test cluster goes.
	putCheckpoints(t, st, checkpoints("prod", "a", now-10*minute, map[int]bool{0: true, 1: true, 2: true, 3: true}, 4, 40))
	if err := st.DeleteCluster(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	later := time.UnixMilli(now + minute)
	second := NewCache(st, CacheOptions{Dir: dir, FromDir: true, Now: func() time.Time { return later }})
	defer second.Close()
	f2 := read(second)
	if f2.AsOfMs != began.UnixMilli() || !reflect.DeepEqual(rows(f2), []string{"prod/a healthy"}) {
		t.Errorf("the next run's first answer: as of %d, rows %v; want the kept read as of %d without the removed cluster",
			f2.AsOfMs, rows(f2), began.UnixMilli())
	}
	// The whole read it began answers next: a is failing now.
	deadline := time.Now().Add(10 * time.Second)
	f3 := read(second)
	for ; f3.AsOfMs != 0 && time.Now().Before(deadline); f3 = read(second) {
		time.Sleep(10 * time.Millisecond)
	}
	if f3.AsOfMs != 0 || !reflect.DeepEqual(rows(f3), []string{"prod/a failing"}) {
		t.Errorf("after the whole read: as of %d, rows %v; want the fleet of now", f3.AsOfMs, rows(f3))
	}
	// A Reset (the sources changed) reads whole again, not the kept read.
	second.Reset()
	if f := read(second); f.AsOfMs != 0 {
		t.Errorf("after a Reset the answer is as of %d: want a whole read", f.AsOfMs)
	}

	// Without FromDir (status), the kept read is never the answer.
	status := NewCache(st, CacheOptions{Dir: dir})
	defer status.Close()
	if f := read(status); f.AsOfMs != 0 {
		t.Errorf("without FromDir the answer is as of %d", f.AsOfMs)
	}

	// A file that is not a kept read: a whole read, and the log says why. (The caches above
	// keep their reads in the background: closed, they have written them.)
	second.Close()
	status.Close()
	matches, _ := filepath.Glob(filepath.Join(dir, "fleet-*.json"))
	if len(matches) != 1 {
		t.Fatalf("kept reads %v, want one file", matches)
	}
	if err := os.WriteFile(matches[0], []byte(`{"read_ms": 5, "fleet": {"window_ms": 1`), 0o600); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	broken := NewCache(st, CacheOptions{Dir: dir, FromDir: true, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	defer broken.Close()
	if f := read(broken); f.AsOfMs != 0 || !reflect.DeepEqual(rows(f), []string{"prod/a failing"}) {
		t.Errorf("over a broken file: as of %d, rows %v; want a whole read", f.AsOfMs, rows(f))
	}
	if !strings.Contains(logged.String(), matches[0]) {
		t.Errorf("the log %q does not name the broken file", logged.String())
	}
}
