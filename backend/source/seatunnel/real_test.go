package seatunnel_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/seatunnel"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/seatunnelenv"
)

// noAPIReason is why the checkpoint part of the real-node tests cannot run on the node testenv
// starts; see docs/seatunnel.md, "What was tried".
const noAPIReason = "the node has no checkpoint REST API: it needs SeaTunnel >= 2.3.13 with REST v2, " +
	"and Maven Central serves 2.3.13 only as the seatunnel-engine-server jar without its modules, so " +
	"testenv runs 2.3.8 (REST v1). Point SEATUNNEL_REST_URL (+ SEATUNNEL_CHECKPOINT_API=true) at a 2.3.13+ node to run it"

func realClient(t *testing.T, e seatunnelenv.Env) *seatunnel.Client {
	t.Helper()
	c, err := seatunnel.New(seatunnel.Config{BaseURL: e.RESTURL, Cluster: "real"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRealNodeJobs runs on every real node: jobs, the graph, and the clear "no such API" errors.
func TestRealNodeJobs(t *testing.T) {
	e := seatunnelenv.Ensure(t)
	id := seatunnelenv.SubmitJob(t, "SEATUNNEL_JOB_NAME=ce-real-jobs")
	c := realClient(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	o, err := c.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Version == "" || o.Workers < 1 {
		t.Errorf("overview = %+v", o)
	}
	var info seatunnel.JobInfo
	deadline := time.Now().Add(time.Minute)
	for {
		info, err = c.JobInfo(ctx, id)
		if err == nil && info.State == "RUNNING" && len(info.Vertices) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not running with 3 vertices after a minute: %+v, %v", id, info, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// FakeSource → Sql → Console, in that order along the edges.
	names := map[string]string{}
	for _, v := range info.Vertices {
		names[v.ID] = v.Name
		if v.Parallelism != 2 {
			t.Errorf("vertex %+v: parallelism %d, want 2", v, v.Parallelism)
		}
	}
	var chain []string
	for _, ed := range info.Edges {
		chain = append(chain, names[ed.Source]+" → "+names[ed.Target])
	}
	joined := strings.Join(chain, ", ")
	if len(info.Edges) != 2 || !strings.Contains(joined, "FakeSource → ") || !strings.Contains(joined, " → Sink[0]-Console") {
		t.Errorf("edges = %s, want FakeSource → transform → Console sink", joined)
	}
	if info.CheckpointIntervalMs != 1500 || info.StartMs <= 0 {
		t.Errorf("interval %d start %d", info.CheckpointIntervalMs, info.StartMs)
	}

	jobs, err := c.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, j := range jobs {
		found = found || j.ID == id
	}
	if !found {
		t.Errorf("Jobs() = %+v lacks %s", jobs, id)
	}

	if _, err := c.Job(ctx, "1"); !errors.Is(err, seatunnel.ErrNotFound) || !strings.Contains(err.Error(), "not known to the cluster") {
		t.Errorf("unknown job: err = %v, want ErrNotFound", err)
	}
	_, err = c.Checkpoints(ctx, id)
	if e.CheckpointAPI {
		if err != nil {
			t.Errorf("checkpoints: %v", err)
		}
	} else if !errors.Is(err, seatunnel.ErrNoCheckpointAPI) {
		t.Errorf("checkpoints on %s: err = %v, want ErrNoCheckpointAPI", e.Version, err)
	}
	_, err = c.RealtimeEdges(ctx, id, time.Minute)
	if !e.RealtimeAPI && !errors.Is(err, seatunnel.ErrNoRealtimeAPI) {
		t.Errorf("realtime on %s: err = %v, want ErrNoRealtimeAPI", e.Version, err)
	}

	// The collector, as the app wires it, stores the job and says in the cluster's health why
	// checkpoints are missing.
	h := newRealCollector(t, c)
	h.wait(t, "the job stored with its graph", 30*time.Second, func() bool {
		j, err := h.st.Job(ctx, "real", id)
		return err == nil && len(j.Vertices) == 3 && len(j.Edges) == 2
	})
	if !e.CheckpointAPI {
		h.wait(t, "the missing API in the health", 30*time.Second, func() bool {
			return strings.Contains(h.health().LastError, "no checkpoint REST API")
		})
	}
}

// TestRealNodeCheckpoints needs a node with the checkpoint API: checkpoints with statuses, times
// and failure reasons (the slow sink plus a short timeout makes some expire), ack progress
// sampled in flight, none missed over 90 s, and backpressure on the edge into the sink when the
// node has realtime metrics.
func TestRealNodeCheckpoints(t *testing.T) {
	e := seatunnelenv.Ensure(t)
	if !e.CheckpointAPI {
		t.Skip(noAPIReason)
	}
	id := seatunnelenv.SubmitJob(t, "SEATUNNEL_JOB_NAME=ce-real-cp", "SEATUNNEL_SLOW_MS=20",
		"SEATUNNEL_CHECKPOINT_INTERVAL_MS=1500", "SEATUNNEL_CHECKPOINT_TIMEOUT_MS=4000")
	c := realClient(t, e)
	ctx := context.Background()
	h := newRealCollector(t, c)
	q := store.Query{Cluster: "real", JobID: id}
	time.Sleep(90 * time.Second)

	cps, err := h.st.Checkpoints(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var completed, failed int
	for _, cp := range cps {
		switch cp.Status {
		case model.StatusCompleted:
			completed++
			if cp.CompletionMs < cp.TriggerMs || cp.LatestAckMs != cp.CompletionMs || cp.StateBlobs == nil {
				t.Errorf("completed checkpoint %+v", cp)
			}
		case model.StatusFailed:
			failed++
			if cp.FailureMessage == "" {
				t.Errorf("failed checkpoint %d without a reason", cp.ID)
			}
		}
	}
	if completed == 0 || failed == 0 {
		t.Errorf("%d completed, %d failed of %d; want both (the slow sink makes some expire)", completed, failed, len(cps))
	}
	acks, err := h.st.AckSamples(ctx, q)
	if err != nil || len(acks) == 0 {
		t.Errorf("ack samples: %d, %v; want progress sampled in flight", len(acks), err)
	}
	if gaps, err := h.st.Gaps(ctx, q); err != nil || len(gaps) != 0 {
		t.Errorf("gaps = %+v, %v; want none", gaps, err)
	}
	if !e.RealtimeAPI {
		t.Log("no realtime metrics on this node: backpressure not checked")
		return
	}
	job, err := h.st.Job(ctx, "real", id)
	if err != nil {
		t.Fatal(err)
	}
	sink := ""
	for _, v := range job.Vertices {
		if strings.HasPrefix(v.Name, "Sink") {
			sink = v.ID
		}
	}
	ms, err := h.st.MetricSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for _, m := range ms {
		if m.Metric == model.MetricQueueFillRatio && m.Target == sink {
			worst = max(worst, m.Value)
		}
	}
	if worst < 0.5 {
		t.Errorf("queue into the sink at most %.2f full, want the slow sink to fill it", worst)
	}
}

type realCollector struct {
	st *store.Store
	mu sync.Mutex
	h  collect.Health
}

func (r *realCollector) health() collect.Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.h
}

func (r *realCollector) wait(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (health %+v)", d, what, r.health())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func newRealCollector(t *testing.T, c *seatunnel.Client) *realCollector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "cache.db"), store.DefaultRetention())
	if err != nil {
		t.Fatal(err)
	}
	r := &realCollector{st: st}
	budget := collect.NewBudget(collect.DefaultBudget())
	m := collect.NewManager(ctx, collect.Options{
		Sink: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), JobsEvery: 2 * time.Second,
		OnHealth: func(_ string, h collect.Health) { r.mu.Lock(); r.h = h; r.mu.Unlock() },
	})
	m.Apply([]collect.Target{{Name: "real", Key: "1", Source: seatunnel.NewSource(c, budget), Budget: budget}})
	t.Cleanup(func() {
		m.Stop()
		cancel()
		_ = st.Close()
	})
	return r
}
