package fleet

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

const (
	now    = 1_800_000_000_000
	minute = 60_000
)

// completed and failed checkpoints of a job, a minute apart from first.
func checkpoints(cluster, job string, first int64, failed map[int]bool, n int, ms int64) []model.Checkpoint {
	var out []model.Checkpoint
	for i := range n {
		c := model.Checkpoint{Cluster: cluster, JobID: job, ID: int64(i + 1), TriggerMs: first + int64(i)*minute,
			Status: model.StatusCompleted, EndToEndMs: ms}
		c.CompletionMs, c.LatestAckMs = c.TriggerMs+ms, c.TriggerMs+ms
		if failed[i] {
			c.Status, c.CompletionMs, c.LatestAckMs = model.StatusFailed, 0, 0
			c.FailureMs, c.FailureMessage = c.TriggerMs+ms, "Checkpoint expired before completing."
		}
		out = append(out, c)
	}
	return out
}

// A live cluster's jobs are judged over the hour before now, a capture's
// over the hour before its newest checkpoint; the failing job comes first,
// and a job of a cluster no longer configured is not read.
func TestRead(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "cache.db"))
	jobs := []model.Job{
		{Cluster: "prod", ID: "fast", Name: "fast", Engine: model.EngineFlink, State: "RUNNING"},
		{Cluster: "prod", ID: "failing", Name: "failing", Engine: model.EngineFlink, State: "RUNNING"},
		{Cluster: "prod", ID: "stopped", Name: "stopped", Engine: model.EngineFlink, State: "FINISHED"},
		{Cluster: "rec", ID: "old", Name: "old", Engine: model.EngineSeaTunnel, State: "RUNNING"},
		{Cluster: "other", ID: "x", Name: "x", Engine: model.EngineFlink, State: "RUNNING"},
		{Cluster: "gone", ID: "y", Name: "y", Engine: model.EngineFlink, State: "RUNNING"},
	}
	for _, j := range jobs {
		if err := st.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	var cps []model.Checkpoint
	cps = append(cps, checkpoints("prod", "fast", now-30*minute, nil, 20, 40)...)
	cps = append(cps, checkpoints("prod", "failing", now-30*minute, map[int]bool{19: true}, 20, 40)...)
	// Two hours ago: outside the window.
	cps = append(cps, checkpoints("prod", "stopped", now-2*60*minute, nil, 20, 40)...)
	// A capture of a month ago: its own window.
	cps = append(cps, checkpoints("rec", "old", now-30*24*60*minute, nil, 20, 40)...)
	cps = append(cps, checkpoints("other", "x", now-30*minute, map[int]bool{19: true}, 20, 40)...)
	cps = append(cps, checkpoints("gone", "y", now-30*minute, map[int]bool{19: true}, 20, 40)...)
	if err := st.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	interval, timeout := int64(minute), int64(10*minute)
	if err := st.PutJobConfig(ctx, model.JobConfig{Cluster: "prod", JobID: "fast", SeenMs: now - 60*minute,
		IntervalMs: &interval, TimeoutMs: &timeout}); err != nil {
		t.Fatal(err)
	}
	// "rec" is a capture; "gone" a cluster no longer configured.
	if err := st.PutCluster(ctx, model.Cluster{Name: "rec", Engine: model.EngineSeaTunnel, ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	configured := func(name string) bool { return name == "prod" || name == "other" }
	f, err := Read(ctx, st, configured, "", 0, now)
	if err != nil {
		t.Fatal(err)
	}
	if f.WindowMs != DefaultWindowMs {
		t.Errorf("window %d, want %d", f.WindowMs, DefaultWindowMs)
	}
	type want struct {
		id        string
		attention analyze.Attention
		completed int
		end       int64
	}
	wants := []want{
		// The same trouble since the same time and p90: by cluster.
		{"x", analyze.AttentionFailing, 19, now},
		{"failing", analyze.AttentionFailing, 19, now},
		{"fast", analyze.AttentionHealthy, 20, now},
		{"old", analyze.AttentionHealthy, 20, now - 30*24*60*minute + 19*minute},
		{"stopped", analyze.AttentionNoData, 0, now},
	}
	if len(f.Jobs) != len(wants) {
		t.Fatalf("%d jobs, want %d: %+v", len(f.Jobs), len(wants), f.Jobs)
	}
	for i, w := range wants {
		r := f.Jobs[i]
		if r.JobID != w.id || r.Attention != w.attention || r.Completed != w.completed || r.WindowEndMs != w.end {
			t.Errorf("row %d: %s %s, %d completed, window to %d; want %+v", i, r.JobID, r.Attention, r.Completed, r.WindowEndMs, w)
		}
	}
	if r := f.Jobs[2]; r.IntervalMs == nil || *r.IntervalMs != interval || r.Verdict != analyze.VerdictHealthy {
		t.Errorf("fast: interval %v, verdict %s; want its configuration's, healthy", r.IntervalMs, r.Verdict)
	}
	one, err := Read(ctx, st, configured, "rec", 0, now)
	if err != nil || len(one.Jobs) != 1 || one.Jobs[0].JobID != "old" {
		t.Errorf("only rec: %+v, %v", one.Jobs, err)
	}
	// A live update's rows: those of the jobs named, as the whole fleet has them, in its order;
	// a job unknown or of a cluster no longer configured adds none.
	some, err := ReadJobs(ctx, st, configured, []JobKey{{"rec", "old"}, {"prod", "failing"}, {"prod", "nope"}, {"gone", "y"}}, 0, now)
	if err != nil || len(some.Jobs) != 2 || !reflect.DeepEqual(some.Jobs, []analyze.FleetJob{f.Jobs[1], f.Jobs[3]}) {
		t.Errorf("rows of rec/old and prod/failing: %+v, %v; want %+v", some.Jobs, err, []analyze.FleetJob{f.Jobs[1], f.Jobs[3]})
	}
}

// A job resubmitted under a new id (and a reused id's earlier run, kept
// apart) is one row with its runs: the newest run's, judged against a
// baseline its earlier runs give; a job of the same name running beside it
// is a row of its own.
func TestReadGroupsRunsOfOneJob(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "cache.db"))
	first := int64(now - 3*60*minute)
	second := int64(now - 20*minute)
	jobs := []model.Job{
		{Cluster: "prod", ID: "run1", Name: "orders", Engine: model.EngineFlink, State: "CANCELED", StartMs: first, EndMs: second - minute},
		{Cluster: "prod", ID: "run2", Name: "orders", Engine: model.EngineFlink, State: "RUNNING", StartMs: second},
		{Cluster: "prod", ID: "beside", Name: "orders", Engine: model.EngineFlink, State: "RUNNING", StartMs: first + minute},
	}
	for _, j := range jobs {
		if err := st.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	// The first run's 40 ms checkpoints are the baseline; the new run's take 2 s.
	cps := checkpoints("prod", "run1", first, nil, 150, 40)
	cps = append(cps, checkpoints("prod", "run2", second, nil, 15, 2000)...)
	cps = append(cps, checkpoints("prod", "beside", now-30*minute, nil, 20, 40)...)
	if err := st.PutCheckpoints(ctx, cps); err != nil {
		t.Fatal(err)
	}
	fl, err := Read(ctx, st, func(string) bool { return true }, "", 0, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl.Jobs) != 2 {
		t.Fatalf("%d rows %+v, want the logical job and the one beside it", len(fl.Jobs), fl.Jobs)
	}
	var orders analyze.FleetJob
	for _, r := range fl.Jobs {
		if r.JobID == "run2" {
			orders = r
		}
	}
	want := []analyze.FleetRun{{JobID: "run1", StartMs: first, EndMs: second - minute, State: "CANCELED"}, {JobID: "run2", StartMs: second, State: "RUNNING"}}
	if len(orders.Runs) != 2 || orders.Runs[0] != want[0] || orders.Runs[1] != want[1] {
		t.Errorf("runs %+v, want %+v", orders.Runs, want)
	}
	// Against its own history alone the new run has no baseline; with the
	// first run's it is fifty times slower than usual.
	if orders.BaselineP90Ms == nil || *orders.BaselineP90Ms != 40 || orders.Attention != analyze.AttentionSlowerThanUsual {
		t.Errorf("the logical job's row: baseline %v, attention %s; want 40 ms from the first run, slower than usual", fmtMs(orders.BaselineP90Ms), orders.Attention)
	}
	// An earlier run's checkpoints stored: the logical job's row.
	live, err := ReadJobs(ctx, st, func(string) bool { return true }, []JobKey{{"prod", "run1"}}, 0, now)
	if err != nil || len(live.Jobs) != 1 || !reflect.DeepEqual(live.Jobs[0], orders) {
		t.Errorf("rows of prod/run1: %+v, %v; want the logical job's %+v", live.Jobs, err, orders)
	}

	// The user splits the new run from the first: a row each, the new run's saying so.
	if err := st.SplitRun(ctx, "prod", "run2", true); err != nil {
		t.Fatal(err)
	}
	if fl, err = Read(ctx, st, func(string) bool { return true }, "", 0, now); err != nil {
		t.Fatal(err)
	}
	split := map[string]string{}
	for _, r := range fl.Jobs {
		split[r.JobID] = r.SplitJobID
		if len(r.Runs) != 0 {
			t.Errorf("row %s after the split has runs %+v", r.JobID, r.Runs)
		}
	}
	if want := map[string]string{"run1": "", "run2": "run2", "beside": ""}; !reflect.DeepEqual(split, want) {
		t.Errorf("rows after the split (job → split_job_id) %v, want %v", split, want)
	}
}

// openStore opens the cache at path, closed when tb ends.
func openStore(tb testing.TB, path string) *store.Store {
	st, err := store.Open(context.Background(), path, store.DefaultRetention())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func fmtMs(v *int64) string {
	if v == nil {
		return "none"
	}
	return strconv.FormatInt(*v, 10) + " ms"
}
