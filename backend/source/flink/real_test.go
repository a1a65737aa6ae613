package flink_test

// Tests against real Flink clusters (testenv/flink): the shared 2.x one, started on first use
// unless FLINK_REST_URL names one, and a 1.20 one (the 1.x LTS most operators run). Skipped only
// with CE_SKIP_REAL=1.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/testenv/flinkenv"
)

// The knob job's vertices in Flink's order, and the ship strategy into each.
var knobVertices = []struct{ name, in string }{
	{"Source: Numbers", ""},
	{"Slow Map", "FORWARD"},
	{"Stateful Counter", "HASH"},
	{"Slow Snapshot", "FORWARD"},
	{"Snapshot Thrower", "FORWARD"},
	{"Sink: Discard", "FORWARD"},
}

type requestLog struct {
	mu     sync.Mutex
	counts map[string]int
	status map[int]int
}

func (l *requestLog) record(ri flink.RequestInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[ri.Endpoint]++
	l.status[ri.Status]++
}

func TestRealCluster(t *testing.T) {
	env := flinkenv.Ensure(t)
	testRealCluster(t, env, "2.")
}

// TestRealCluster120 runs the same checks against Flink 1.20.5: every answer the client reads
// has the same shape there as in 2.x (1.20 only lacks fields the client ignores).
func TestRealCluster120(t *testing.T) {
	env := flinkenv.EnsureVersion(t, "1.20.5")
	testRealCluster(t, env, "1.20.")
}

// testRealCluster checks every client call against env, whose version starts with versionPrefix.
func testRealCluster(t *testing.T, env flinkenv.Env, versionPrefix string) {
	reqs := &requestLog{counts: map[string]int{}, status: map[int]int{}}
	c := newClient(t, flink.Config{BaseURL: env.RESTURL, Cluster: "test", OnRequest: reqs.record})
	var evictedServed atomic.Bool // Flink answered for an evicted checkpoint (see "not found")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Job A: slow synchronous snapshots on "Slow Snapshot", every third checkpoint declined by
	// "Snapshot Thrower" in its async phase, growing keyed state.
	jobA := env.Submit(t, "--name", "flink-test-A", "--parallelism", "2", "--rate", "200",
		"--interval-ms", "200", "--slow-snapshot-ms", "800", "--fail-every", "3", "--state-bytes-per-record", "64")
	// Job B: an unthrottled source into a map that sleeps per record: backpressure, unaligned.
	jobB := env.Submit(t, "--name", "flink-test-B", "--rate", "0", "--sleep-ms", "1", "--unaligned")

	t.Run("version and overview", func(t *testing.T) {
		v, err := c.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v, versionPrefix) || (env.Version != "" && v != env.Version) {
			t.Errorf("Version = %q, env says %q", v, env.Version)
		}
		o, err := c.Overview(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if o.TaskManagers < 1 || o.SlotsTotal < 3 || o.JobsRunning < 2 || o.Version != v {
			t.Errorf("Overview = %+v", o)
		}
	})

	t.Run("jobs", func(t *testing.T) {
		jobs, err := c.Jobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]model.Job{}
		for _, j := range jobs {
			found[j.ID] = j
		}
		for id, name := range map[string]string{jobA: "flink-test-A", jobB: "flink-test-B"} {
			j, ok := found[id]
			if !ok {
				t.Fatalf("job %s not listed in %+v", id, jobs)
			}
			if j.Name != name || j.State != "RUNNING" || j.Engine != model.EngineFlink || j.Cluster != "test" ||
				j.StartMs <= 0 || j.EndMs != 0 || len(j.Vertices) != 0 {
				t.Errorf("job %s = %+v", id, j)
			}
		}
	})

	var job model.Job
	vertexByName := map[string]model.Vertex{}
	t.Run("job graph", func(t *testing.T) {
		var err error
		job, err = c.Job(ctx, jobA)
		if err != nil {
			t.Fatal(err)
		}
		if job.ID != jobA || job.Name != "flink-test-A" || job.State != "RUNNING" {
			t.Errorf("job = %+v", job)
		}
		if len(job.Vertices) != len(knobVertices) {
			t.Fatalf("vertices = %+v", job.Vertices)
		}
		var want []model.Edge
		for i, kv := range knobVertices {
			v := job.Vertices[i]
			if v.Name != kv.name || v.Parallelism != 2 || len(v.ID) != 32 {
				t.Errorf("vertex %d = %+v, want %q with parallelism 2", i, v, kv.name)
			}
			vertexByName[v.Name] = v
			if i > 0 {
				want = append(want, model.Edge{Source: job.Vertices[i-1].ID, Target: v.ID, ShipStrategy: kv.in})
			}
		}
		if fmt.Sprint(job.Edges) != fmt.Sprint(want) {
			t.Errorf("edges\n got %+v\nwant %+v", job.Edges, want)
		}
	})
	if len(vertexByName) != len(knobVertices) {
		t.Fatal("no job graph; cannot go on")
	}

	t.Run("checkpoint config", func(t *testing.T) {
		cc, err := c.CheckpointConfig(ctx, jobA)
		if err != nil {
			t.Fatal(err)
		}
		want := flink.CheckpointConfig{Mode: "exactly_once", IntervalMs: 200, TimeoutMs: 600000, MaxConcurrent: 1,
			TolerableFailed: 1000000, Externalized: true, StateBackend: "HashMapStateBackend",
			Storage: "FileSystemCheckpointStorage"}
		// Settings is the same answer with absent fields nil: every one of them came.
		set := cc.Settings
		if set.IntervalMs == nil || *set.IntervalMs != 200 || set.Mode == nil || set.Unaligned == nil || set.AlignedTimeoutMs == nil ||
			set.TolerableFailures == nil || set.StateBackend == nil || set.ChangelogEnabled == nil || set.MinPauseMs == nil {
			t.Errorf("settings %+v: want every field Flink sends", set)
		}
		cc.Settings = flink.CheckpointSettings{}
		if cc != want {
			t.Errorf("config\n got %+v\nwant %+v", cc, want)
		}
		cb, err := c.CheckpointConfig(ctx, jobB)
		if err != nil || !cb.Unaligned || cb.IntervalMs != 1000 {
			t.Errorf("job B config = %+v, %v; want unaligned, 1000 ms", cb, err)
		}
	})

	// Wait until checkpoint 1 is out of the 10-deep history and out of Flink's details cache (10
	// more), which any client of this cluster (another test's collector) may have filled.
	var list flink.CheckpointList
	waitFor(t, ctx, 120*time.Second, "24 checkpoints with a failed one", func() (bool, string) {
		var err error
		list, err = c.Checkpoints(ctx, jobA)
		if err != nil {
			t.Fatalf("Checkpoints: %v", err)
		}
		return len(list.History) > 0 && list.History[0].ID >= 24 && list.LatestFailedID > 0 && list.LatestCompletedID > 0,
			fmt.Sprintf("%+v", list.Counts)
	})

	t.Run("history", func(t *testing.T) {
		if len(list.History) != 10 {
			t.Errorf("history has %d entries, want Flink's default 10", len(list.History))
		}
		if list.Counts.Total < list.History[0].ID || list.Counts.Failed == 0 || list.Counts.Completed == 0 {
			t.Errorf("counts = %+v", list.Counts)
		}
		for i, cp := range list.History {
			if i > 0 && cp.ID >= list.History[i-1].ID {
				t.Errorf("history not newest first at %d: %d after %d", i, cp.ID, list.History[i-1].ID)
			}
			if cp.JobID != jobA || cp.Cluster != "test" || cp.Kind != model.KindCheckpoint || cp.TriggerMs <= 0 ||
				cp.NumSubtasks != 12 || len(cp.Tasks) != 0 {
				t.Errorf("history entry %+v", cp)
			}
			switch cp.Status {
			case model.StatusFailed:
				// Declined in the async phase: Flink's message, not the job's exception text.
				if cp.ID%3 != 0 || cp.FailureMs < cp.TriggerMs || cp.FailureMessage != "Asynchronous task checkpoint failed." {
					t.Errorf("failed checkpoint %+v", cp)
				}
			case model.StatusCompleted:
				if cp.ID%3 == 0 || cp.NumAcknowledged != 12 || cp.EndToEndMs < 700 || cp.StateSize <= 0 ||
					!strings.Contains(cp.ExternalPath, fmt.Sprintf("chk-%d", cp.ID)) || cp.LatestAckMs < cp.TriggerMs {
					t.Errorf("completed checkpoint %+v", cp)
				}
			}
		}
	})

	t.Run("completed checkpoint details and every subtask field", func(t *testing.T) {
		cid := list.LatestCompletedID
		cp, err := c.CheckpointDetail(ctx, jobA, cid)
		if err != nil {
			t.Fatal(err)
		}
		if cp.ID != cid || cp.Status != model.StatusCompleted || len(cp.Tasks) != len(knobVertices) {
			t.Fatalf("detail = %+v", cp)
		}
		var sum int64
		for _, ts := range cp.Tasks {
			if ts.NumSubtasks != 2 || ts.NumAcknowledged != 2 || ts.LatestAckMs < cp.TriggerMs {
				t.Errorf("task %+v", ts)
			}
			sum += ts.StateSize
		}
		if sum != cp.StateSize {
			t.Errorf("task state sizes sum to %d, checkpoint says %d", sum, cp.StateSize)
		}

		// Fetch every vertex concurrently (the collector does), then compare with Flink's raw JSON.
		stats := make(map[string]model.TaskStats)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, v := range job.Vertices {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ts, err := c.SubtaskStats(ctx, jobA, cid, v.ID)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				stats[v.Name] = ts
				mu.Unlock()
			}()
		}
		wg.Wait()
		for _, v := range job.Vertices {
			ts := stats[v.Name]
			raw := rawSubtasks(t, env.RESTURL, fmt.Sprintf("/jobs/%s/checkpoints/details/%d/subtasks/%s", jobA, cid, v.ID))
			if ts.VertexID != v.ID || len(ts.Subtasks) != 2 || len(raw) != 2 {
				t.Fatalf("%s: %+v (raw %d subtasks)", v.Name, ts, len(raw))
			}
			for i, s := range ts.Subtasks {
				compareSubtask(t, v.Name, s, raw[i])
				if s.Index != i || !s.Acknowledged() || s.AckMs < cp.TriggerMs {
					t.Errorf("%s subtask %d = %+v", v.Name, i, s)
				}
			}
		}
		for _, s := range stats["Slow Snapshot"].Subtasks {
			if s.SyncMs < 700 {
				t.Errorf("Slow Snapshot subtask %d sync = %d ms, want >= 700 (--slow-snapshot-ms 800)", s.Index, s.SyncMs)
			}
		}
		for _, s := range stats["Stateful Counter"].Subtasks {
			if s.StateSize <= 0 {
				t.Errorf("Stateful Counter subtask %d state size = %d, want > 0", s.Index, s.StateSize)
			}
		}
	})

	t.Run("failed checkpoint details", func(t *testing.T) {
		cid := list.LatestFailedID
		cp, err := c.CheckpointDetail(ctx, jobA, cid)
		if err != nil {
			t.Fatal(err)
		}
		if cp.Status != model.StatusFailed || cp.FailureMessage != "Asynchronous task checkpoint failed." || cp.NumAcknowledged >= 12 {
			t.Errorf("failed detail = %+v", cp)
		}
		ts, err := c.SubtaskStats(ctx, jobA, cid, vertexByName["Snapshot Thrower"].ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ts.Subtasks {
			if s.Acknowledged() || s.Status != model.SubtaskPendingOrFailed || s.AckMs != 0 {
				t.Errorf("thrower subtask of failed checkpoint %d = %+v, want pending_or_failed", cid, s)
			}
		}
	})

	t.Run("not found", func(t *testing.T) {
		// Evicted: an id that has left the history and that no subtest asked the details of
		// (Flink keeps the details it served in a cache of its own, so checkpoint 1, fetched
		// while the history still held it, can still answer): one newer than the subtests'
		// list, once the history has moved past it.
		evicted, newestCompleted := int64(-1), int64(-1)
		waitFor(t, ctx, 2*time.Minute, "the history to move past the subtests' checkpoints", func() (bool, string) {
			cur, err := c.Checkpoints(ctx, jobA)
			if err != nil || len(cur.History) == 0 {
				return false, fmt.Sprint(err)
			}
			newestCompleted = cur.LatestCompletedID
			oldest := cur.History[len(cur.History)-1].ID
			evicted = oldest - 1
			return evicted > list.History[0].ID, fmt.Sprintf("oldest listed %d, the subtests' newest %d", oldest, list.History[0].ID)
		})
		// Flink may still answer for an id its history no longer lists: its REST handlers keep
		// statistics they read in caches of their own (on 1.20 for as long as a run lasts, seen
		// on a busy machine). Then it is not a 404; an id never taken always is.
		_, err := c.CheckpointDetail(ctx, jobA, evicted)
		if err == nil {
			evictedServed.Store(true)
			t.Logf("checkpoint %d left the history and Flink still serves it from its statistics cache", evicted)
		}
		for _, cid := range []int64{evicted, list.History[0].ID + 1000} { // evicted, and never taken
			if cid == evicted && err == nil {
				continue
			}
			if cid != evicted {
				_, err = c.CheckpointDetail(ctx, jobA, cid)
			}
			if !errors.Is(err, flink.ErrNotFound) ||
				!strings.Contains(err.Error(), fmt.Sprintf("Could not find checkpointing statistics for checkpoint %d.", cid)) {
				t.Errorf("checkpoint %d: %v", cid, err)
			}
		}
		// A checkpoint the history still holds (the subtests' may have left it meanwhile).
		_, err = c.SubtaskStats(ctx, jobA, newestCompleted, "0123456789abcdef0123456789abcdef")
		if !errors.Is(err, flink.ErrNotFound) || !strings.Contains(err.Error(), "There is no checkpoint statistics for task") {
			t.Errorf("unknown vertex: %v", err)
		}
		_, err = c.Job(ctx, "0123456789abcdef0123456789abcdef")
		if !errors.Is(err, flink.ErrNotFound) {
			t.Errorf("unknown job: %v", err)
		}
	})

	t.Run("backpressure and metrics", func(t *testing.T) {
		jb, err := c.Job(ctx, jobB)
		if err != nil {
			t.Fatal(err)
		}
		src, slow := jb.Vertices[0].ID, jb.Vertices[1].ID
		names := []string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec}
		got := map[string]model.MetricSample{} // vertex/metric/agg → sample
		// The metric fetcher refreshes every 10 s and the source's buffers take a while to fill.
		waitFor(t, ctx, 90*time.Second, "source backpressured, Slow Map busy", func() (bool, string) {
			for _, vid := range []string{src, slow} {
				samples, err := c.VertexMetrics(ctx, jobB, vid, names, 0)
				if err != nil {
					t.Fatalf("VertexMetrics: %v", err)
				}
				for _, s := range samples {
					got[vid+"/"+s.Metric+"/"+s.Agg] = s
				}
			}
			bp := got[src+"/"+model.MetricBackPressuredMsPerSec+"/max"].Value
			busy := got[slow+"/"+model.MetricBusyMsPerSec+"/max"].Value
			return bp > 500 && busy > 500, fmt.Sprintf("source backpressured %.0f ms/s, Slow Map busy %.0f ms/s", bp, busy)
		})
		if len(got) != 12 {
			t.Errorf("got %d samples, want 3 metrics × 2 aggregations × 2 vertices: %v", len(got), got)
		}
		for k, s := range got {
			if math.IsNaN(s.Value) || s.Value < 0 || s.Value > 1000 || s.Source != "rest" || s.Subtask != -1 ||
				s.JobID != jobB || s.Cluster != "test" || s.TimeMs <= 0 {
				t.Errorf("%s = %+v", k, s)
			}
			if s.Agg == model.AggMax && s.Value < got[strings.TrimSuffix(k, "max")+"avg"].Value {
				t.Errorf("%s: max %g < avg", k, s.Value)
			}
		}

		bp, err := c.Backpressure(ctx, jobB, src)
		if err != nil {
			t.Fatal(err)
		}
		if !bp.Available() || bp.Level != "high" || len(bp.Subtasks) != 1 || bp.Subtasks[0].Ratio == nil || *bp.Subtasks[0].Ratio < 0.5 {
			t.Errorf("Backpressure(source) = %+v", bp)
		}
		if s := bp.Samples("test", jobB, src, 1); len(s) != 3 || s[0].Metric != model.MetricBackPressuredMsPerSec || s[0].Value < 500 {
			t.Errorf("Samples = %+v", s)
		}
	})

	t.Run("unaligned checkpoints", func(t *testing.T) {
		waitFor(t, ctx, 60*time.Second, "a completed checkpoint of job B", func() (bool, string) {
			l, err := c.Checkpoints(ctx, jobB)
			if err != nil {
				t.Fatalf("Checkpoints: %v", err)
			}
			for _, cp := range l.History {
				if cp.Status == model.StatusCompleted {
					if cp.Kind != model.KindUnaligned {
						t.Errorf("job B checkpoint %+v, want kind unaligned", cp)
					}
					return true, ""
				}
			}
			return false, fmt.Sprintf("%+v", l.Counts)
		})
	})

	t.Run("cancelled context", func(t *testing.T) {
		cctx, ccancel := context.WithCancel(ctx)
		ccancel()
		if _, err := c.Checkpoints(cctx, jobA); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})

	t.Run("request hook", func(t *testing.T) {
		reqs.mu.Lock()
		defer reqs.mu.Unlock()
		for _, ep := range []string{"/config", "/overview", "/jobs/overview", "/jobs/:jid", "/jobs/:jid/checkpoints",
			"/jobs/:jid/checkpoints/config", "/jobs/:jid/checkpoints/details/:cid",
			"/jobs/:jid/checkpoints/details/:cid/subtasks/:vid", "/jobs/:jid/vertices/:vid/backpressure",
			"/jobs/:jid/vertices/:vid/subtasks/metrics"} {
			if reqs.counts[ep] == 0 {
				t.Errorf("no request recorded for %s: %v", ep, reqs.counts)
			}
		}
		want404 := 4
		if evictedServed.Load() {
			want404 = 3
		}
		if reqs.status[404] != want404 || reqs.status[0] != 1 {
			t.Errorf("statuses %v, want %d 404s and one request without response", reqs.status, want404)
		}
	})
}

// waitFor polls cond every 500 ms until it holds, failing the test after timeout with cond's
// last description of the state.
func waitFor(t *testing.T, ctx context.Context, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("waited %v for %s; last state: %s", timeout, what, state)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// rawSubtasks fetches Flink's own JSON for comparison, bypassing the client.
func rawSubtasks(t *testing.T, base, path string) []map[string]any {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Subtasks []map[string]any `json:"subtasks"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return body.Subtasks
}

// compareSubtask checks every mapped field against Flink's JSON for a completed subtask.
func compareSubtask(t *testing.T, vertex string, s model.SubtaskStats, raw map[string]any) {
	t.Helper()
	if want := flinkenv.SubtaskFromJSON(t, raw); s != want {
		t.Errorf("%s subtask %d\n got %+v\nwant %+v (from Flink's JSON)", vertex, s.Index, s, want)
	}
}
