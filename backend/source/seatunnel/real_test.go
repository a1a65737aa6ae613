package seatunnel_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/seatunnel"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/seatunnelenv"
)

// The real-node tests run against the SeaTunnel 2.3.13 node testenv starts (REST v2, the
// checkpoint API), each on a job of its own that shows one thing, side by side on that node.
// TestRealNodeV1Jobs runs on the 2.3.8 node, kept for REST v1.

func realClient(t *testing.T, e seatunnelenv.Env) *seatunnel.Client {
	t.Helper()
	c, err := seatunnel.New(seatunnel.Config{BaseURL: e.RESTURL, Cluster: "real"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// collectRealJob runs the test in parallel with the others, submits a job with env
// (seatunnelenv.SubmitJob's settings) to the checkpoint node and collects the cluster into a
// cache of its own: the node, the job's id, the collector, and the query of the job's
// checkpoints (cluster "real").
func collectRealJob(t *testing.T, env ...string) (e seatunnelenv.Env, id string, h *realCollector, q store.Query) {
	t.Helper()
	t.Parallel()
	e = checkpointNode(t)
	id = seatunnelenv.SubmitJob(t, e, env...)
	return e, id, newRealCollector(t, realClient(t, e)), store.Query{Cluster: "real", JobID: id}
}

// checkpointNode is the 2.3.13 node; a test needing the checkpoint API fails on a node without it
// (SEATUNNEL_REST_URL pointing elsewhere).
func checkpointNode(t *testing.T) seatunnelenv.Env {
	t.Helper()
	e := seatunnelenv.Ensure(t)
	if !e.CheckpointAPI {
		t.Fatalf("node %s (%s) has no checkpoint API; the real tests need SeaTunnel 2.3.13 or later", e.RESTURL, e.Version)
	}
	return e
}

// TestRealNodeJobs: jobs, the graph, and the clear "no such API" error for realtime metrics.
func TestRealNodeJobs(t *testing.T) {
	t.Parallel()
	e := checkpointNode(t)
	id := seatunnelenv.SubmitJob(t, e, "SEATUNNEL_JOB_NAME=ce-real-jobs")
	c := realClient(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	o, err := c.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Version != seatunnelenv.Version || o.Workers < 1 {
		t.Errorf("overview = %+v, want version %s with a worker", o, seatunnelenv.Version)
	}
	info := waitRunning(t, ctx, c, id, 2)
	// FakeSource → Console, one pipeline, parallelism 2.
	var names []string
	for _, v := range info.Vertices {
		names = append(names, v.Name)
		if v.Parallelism != 2 || v.Pipeline != 1 {
			t.Errorf("vertex %+v: want parallelism 2 in pipeline 1", v)
		}
	}
	if len(info.Edges) != 1 || !strings.Contains(strings.Join(names, ","), "FakeSource") {
		t.Errorf("vertices %v edges %+v, want FakeSource → Console", names, info.Edges)
	}
	if info.CheckpointIntervalMs != 1500 || info.CheckpointTimeoutMs != 20000 || info.StartMs <= 0 {
		t.Errorf("interval %d timeout %d start %d", info.CheckpointIntervalMs, info.CheckpointTimeoutMs, info.StartMs)
	}
	jobs, err := c.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(jobs, func(j model.Job) bool { return j.ID == id }) {
		t.Errorf("Jobs() = %+v lacks %s", jobs, id)
	}
	if _, err := c.Job(ctx, "1"); !errors.Is(err, seatunnel.ErrNotFound) || !strings.Contains(err.Error(), "not known to the cluster") {
		t.Errorf("unknown job: err = %v, want ErrNotFound", err)
	}
	if _, err := c.RealtimeEdges(ctx, id, time.Minute); !errors.Is(err, seatunnel.ErrNoRealtimeAPI) {
		t.Errorf("realtime on %s: err = %v, want ErrNoRealtimeAPI", e.Version, err)
	}
}

// TestRealNodeV1Jobs: the 2.3.8 node's REST v1 gives jobs and the graph, and says clearly that
// it has no checkpoint API; the collector puts that in the cluster's health.
func TestRealNodeV1Jobs(t *testing.T) {
	t.Parallel()
	e := seatunnelenv.EnsureV1(t)
	id := seatunnelenv.SubmitJob(t, e, "SEATUNNEL_JOB_NAME=ce-real-v1")
	c := realClient(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	info := waitRunning(t, ctx, c, id, 3)
	// FakeSource → Sql → Console, in that order along the edges.
	names := map[string]string{}
	for _, v := range info.Vertices {
		names[v.ID] = v.Name
	}
	var chain []string
	for _, ed := range info.Edges {
		chain = append(chain, names[ed.Source]+" → "+names[ed.Target])
	}
	joined := strings.Join(chain, ", ")
	if len(info.Edges) != 2 || !strings.Contains(joined, "FakeSource → ") || !strings.Contains(joined, " → Sink[0]-Console") {
		t.Errorf("edges = %s, want FakeSource → transform → Console sink", joined)
	}
	if _, err := c.Checkpoints(ctx, id); !errors.Is(err, seatunnel.ErrNoCheckpointAPI) {
		t.Errorf("checkpoints on %s: err = %v, want ErrNoCheckpointAPI", e.Version, err)
	}
	h := newRealCollector(t, c)
	h.wait(t, "the job stored with its graph", 30*time.Second, func() bool {
		j, err := h.st.Job(ctx, "real", id)
		return err == nil && len(j.Vertices) == 3 && len(j.Edges) == 2
	})
	h.wait(t, "the missing API in the health", 30*time.Second, func() bool {
		return strings.Contains(h.health().LastError, "no checkpoint REST API")
	})
}

// TestRealNodeFastJob: a fast job's checkpoints all arrive, none missed, and the reconciliation
// agrees with the engine's own counters.
func TestRealNodeFastJob(t *testing.T) {
	_, id, h, q := collectRealJob(t, "SEATUNNEL_JOB_NAME=ce-real-fast", "SEATUNNEL_CHECKPOINT_INTERVAL_MS=1000")
	ctx := context.Background()
	h.wait(t, "15 completed checkpoints", 90*time.Second, func() bool {
		return h.count(t, q, model.StatusCompleted) >= 15
	})
	cps := h.checkpoints(t, q)
	for i, cp := range cps {
		if cp.Status != model.StatusCompleted || cp.Pipeline != 1 || cp.ID != int64(i+1) {
			t.Errorf("checkpoint #%d: %d pipeline %d %s, want ids 1.. completed in pipeline 1", i, cp.ID, cp.Pipeline, cp.Status)
		}
		if cp.CompletionMs < cp.TriggerMs || cp.EndToEndMs != cp.CompletionMs-cp.TriggerMs {
			t.Errorf("checkpoint %d: trigger %d completion %d end-to-end %d", cp.ID, cp.TriggerMs, cp.CompletionMs, cp.EndToEndMs)
		}
	}
	if gaps, err := h.st.Gaps(ctx, q); err != nil || len(gaps) != 0 {
		t.Errorf("gaps = %+v, %v; want none", gaps, err)
	}
	h.wait(t, "a reconciliation agreeing with the engine", 30*time.Second, func() bool {
		r, ok, err := h.st.Reconciliation(ctx, "real", id)
		return err == nil && ok && r.Engine != nil && r.Unaccounted == 0 && r.Gaps == 0 &&
			r.Stored >= 15 && r.Engine.Completed >= 15 && r.Engine.Failed == 0 && r.EngineCounted == r.Stored+r.WithoutID
	})
}

// TestRealNodeSlowSink: behind a sink that sleeps 20 ms a row, checkpoints take seconds; their
// ack progress is sampled over time (one sample per engine snapshot), the queue into the sink is
// sampled from /job-info (2.3.13 has no realtime metrics), the sink's commits are counted, and
// the verdict is backpressure, naming its evidence.
func TestRealNodeSlowSink(t *testing.T) {
	_, id, h, q := collectRealJob(t, "SEATUNNEL_JOB_NAME=ce-real-slow", "SEATUNNEL_SLOW_MS=20",
		"SEATUNNEL_CHECKPOINT_INTERVAL_MS=2000")
	ctx := context.Background()
	// The queue into the sink fills (2,048 rows per sink subtask): checkpoints take 1 s, 3 s, 6 s,
	// 12 s, then one expires at the 20 s timeout and Zeta restores the pipeline, emptying the queue.
	// Three such rounds give the verdict the 8 checkpoints with evidence a correlation needs,
	// however the polls fell against the short ones.
	h.wait(t, "11 completed checkpoints, 4 of them slow (≥ 5 s)", 5*time.Minute, func() bool {
		completed, slow := 0, 0
		for _, cp := range h.checkpoints(t, q) {
			if cp.Status == model.StatusCompleted {
				completed++
				if cp.EndToEndMs >= 5000 {
					slow++
				}
			}
		}
		return completed >= 11 && slow >= 4
	})
	acks, err := h.st.AckSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		id int64
		t  int64
	}
	seen := map[key]bool{}
	for _, a := range acks {
		k := key{a.CheckpointID, a.TimeMs}
		if seen[k] {
			t.Errorf("ack sample of checkpoint %d at %d stored twice", a.CheckpointID, a.TimeMs)
		}
		seen[k] = true
	}

	job, err := h.st.Job(ctx, "real", id)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := h.st.MetricSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sink := vertexNamed(job, "Sink")
	worst, committed := 0.0, 0
	for _, m := range ms {
		if m.Metric == model.MetricQueueFillRatio && m.Target == sink {
			worst = max(worst, m.Value)
		}
		if m.Metric == model.MetricCommittedRecords {
			committed++
		}
	}
	if worst < 0.5 {
		t.Errorf("queue into the sink (%s) at most %.2f full over %d samples, want the slow sink to fill it", sink, worst, len(ms))
	}
	if committed < 2 {
		t.Errorf("%d committed-count samples, want the sink's commits sampled", committed)
	}

	ja := analyseStored(t, h, job, q)
	if ja.Correlation.Verdict != analyze.VerdictBackpressure {
		for _, cp := range h.checkpoints(t, q) {
			t.Logf("checkpoint %d %s trigger %d end-to-end %d", cp.ID, cp.Status, cp.TriggerMs, cp.EndToEndMs)
		}
		for _, m := range ms {
			if m.Metric == model.MetricQueueFillRatio || m.Metric == model.MetricQueueSize {
				t.Logf("sample %s %s→%s at %d: %.3f", m.Metric, m.VertexID, m.Target, m.TimeMs, m.Value)
			}
		}
	}
	if ja.Correlation.Verdict != analyze.VerdictBackpressure {
		t.Errorf("verdict %s (%s), want backpressure", ja.Correlation.Verdict, ja.Correlation.Reason)
	}
	// The evidence is named: the statistic and the queue the slowest checkpoint's barrier waited in.
	for _, code := range []string{"slowest_queue"} {
		if !slices.ContainsFunc(ja.Correlation.ReasonParts, func(p analyze.ReasonPart) bool { return p.Code == code }) {
			t.Errorf("reason %q lacks %s", ja.Correlation.Reason, code)
		}
	}
	t.Logf("verdict %s: %s", ja.Correlation.Verdict, ja.Correlation.Reason)
	// Ack progress over time: the sources acknowledge at once, the sinks when the barrier has
	// waited through the queue. A checkpoint's curve shows the part seen in flight.
	progressed := false
	for _, ca := range ja.Checkpoints {
		if ap := analyze.CheckpointAckProgress(job, checkpointByID(h.checkpoints(t, q), ca.ID), acks, 0); ap != nil {
			for _, pt := range ap.Curve {
				progressed = progressed || pt.Fraction > 0 && pt.Fraction < 1 && pt.TMs > 0 && pt.TMs < ca.DurationMs
			}
		}
	}
	if !progressed {
		t.Errorf("no checkpoint's ack curve holds a point seen in flight (%d ack samples)", len(acks))
	}
	sampled := 0
	for _, ca := range ja.Checkpoints {
		if ap := ca.AckProgress; ap != nil && ap.Sampled && ap.P100Ms != nil && ap.P50Ms != nil && ap.P90Ms != nil {
			sampled++
			if *ap.P50Ms > *ap.P90Ms || *ap.P90Ms > *ap.P100Ms || *ap.P100Ms > ca.DurationMs+1000 {
				t.Errorf("checkpoint %d: p50 %d p90 %d p100 %d end-to-end %d", ca.ID, *ap.P50Ms, *ap.P90Ms, *ap.P100Ms, ca.DurationMs)
			}
		}
	}
	if sampled == 0 {
		t.Errorf("no checkpoint with sampled ack progress p50/p90/p100")
	}
	// The sink's commits per checkpoint, from the committed count: the first sample after a
	// checkpoint completed in which it moved.
	commits := 0
	for _, ca := range ja.Checkpoints {
		if ca.Commit != nil && ca.Commit.Records != nil && *ca.Commit.Records > 0 {
			commits++
		}
	}
	if commits == 0 {
		t.Errorf("no checkpoint with a commit stage from the sink's committed count")
	}
	t.Logf("%d of %d checkpoints with a commit stage", commits, len(ja.Checkpoints))
}

// TestRealNodeExpiriesRestartsFailure: behind a sink that sleeps 50 ms a row, with a 2 s
// checkpoint timeout, every checkpoint expires; Zeta restores the pipeline after each (restored
// counts), the ids go on, and after three restores the job fails. Everything is kept: the
// failures cluster under one reason, the engine's counters agree, nothing is missed.
func TestRealNodeExpiriesRestartsFailure(t *testing.T) {
	_, id, h, q := collectRealJob(t, "SEATUNNEL_JOB_NAME=ce-real-expiry", "SEATUNNEL_SLOW_MS=50",
		"SEATUNNEL_CHECKPOINT_INTERVAL_MS=1500", "SEATUNNEL_CHECKPOINT_TIMEOUT_MS=2000")
	ctx := context.Background()
	h.wait(t, "the job failed and stored so", 3*time.Minute, func() bool {
		j, err := h.st.Job(ctx, "real", id)
		return err == nil && j.State == "FAILED"
	})
	h.wait(t, "the final reconciliation", 30*time.Second, func() bool {
		r, ok, err := h.st.Reconciliation(ctx, "real", id)
		return err == nil && ok && r.Engine != nil && r.Engine.Restored >= 1 && r.Stored == r.Engine.Triggered
	})
	cps := h.checkpoints(t, q)
	if len(cps) < 2 {
		t.Fatalf("%d checkpoints, want several expiries", len(cps))
	}
	for i, cp := range cps {
		if cp.ID != int64(i+1) {
			t.Errorf("ids %v: want 1.. continuing across the restores", ids(cps))
			break
		}
		if cp.Status != model.StatusFailed || !strings.Contains(cp.FailureMessage, "expired") {
			t.Errorf("checkpoint %d: %s %q, want failed as expired", cp.ID, cp.Status, cp.FailureMessage)
		}
		if cp.FailureMs != cp.TriggerMs+2000 {
			t.Errorf("checkpoint %d: failure at trigger + %d ms, want the 2 s timeout", cp.ID, cp.FailureMs-cp.TriggerMs)
		}
	}
	if gaps, err := h.st.Gaps(ctx, q); err != nil || len(gaps) != 0 {
		t.Errorf("gaps = %+v, %v; want none", gaps, err)
	}
	r, _, _ := h.st.Reconciliation(ctx, "real", id)
	if r.Unaccounted != 0 || r.Engine.Failed != int64(len(cps)) || r.Engine.Restored < 1 {
		t.Errorf("reconciliation %+v (engine %+v), want every failure accounted for and restores counted", r, *r.Engine)
	}
	job, _ := h.st.Job(ctx, "real", id)
	ja := analyseStored(t, h, job, q)
	if len(ja.Failures) != 1 || !ja.Failures[0].Expired || ja.Failures[0].Count != len(cps) {
		t.Errorf("failures %+v, want one cluster of %d expiries", ja.Failures, len(cps))
	}

	// Each pipeline restore the polls saw is a restart on the job's timeline (#32): Zeta's
	// counter carries no time, so each is marked at the poll that saw the count rise.
	counts, err := h.st.RestoreCounts(ctx, "real", id)
	if err != nil || len(counts) == 0 {
		t.Fatalf("restore counts %+v, %v: want the counter's sightings kept", counts, err)
	}
	var restarts []model.Change
	for _, c := range analyze.DetectChanges(analyze.ChangeInputs{Job: job, Checkpoints: cps, Restores: counts}) {
		if c.Kind == model.ChangeRestart {
			restarts = append(restarts, c)
		}
	}
	seen := counts[len(counts)-1].Restored - counts[0].Restored // the rises the polls saw
	if seen < 1 || len(restarts) == 0 || int64(len(restarts)) > seen {
		t.Fatalf("restarts %+v from the counts %+v: want one per rise of the count (%d restores seen)", restarts, counts, seen)
	}
	for i, c := range restarts {
		if c.Source != model.ChangeFromEngine || c.TimeMs < cps[0].TriggerMs || (i > 0 && c.Detail.Restored <= restarts[i-1].Detail.Restored) {
			t.Errorf("restart %+v: want the engine's, after the first checkpoint, its count rising", c)
		}
	}
	if last := restarts[len(restarts)-1].Detail.Restored; last != r.Engine.Restored {
		t.Errorf("the last restart carries count %d, the engine says %d", last, r.Engine.Restored)
	}
	t.Logf("%d pipeline restarts marked from %d sightings of the counter (engine: %d restores)", len(restarts), len(counts), r.Engine.Restored)
}

// TestRealNodeSavepoint: a stop with a savepoint shows the savepoint among the checkpoints, and
// the job's history is kept after it.
func TestRealNodeSavepoint(t *testing.T) {
	e, id, h, q := collectRealJob(t, "SEATUNNEL_JOB_NAME=ce-real-savepoint", "SEATUNNEL_CHECKPOINT_INTERVAL_MS=1500")
	ctx := context.Background()
	h.wait(t, "3 completed checkpoints", time.Minute, func() bool { return h.count(t, q, model.StatusCompleted) >= 3 })
	if err := seatunnelenv.StopWithSavepoint(e, id); err != nil {
		t.Fatal(err)
	}
	h.wait(t, "the savepoint stored", time.Minute, func() bool {
		for _, cp := range h.checkpoints(t, q) {
			if cp.Kind == model.KindSavepoint && cp.Status == model.StatusCompleted {
				return true
			}
		}
		return false
	})
	h.wait(t, "the job stored as SAVEPOINT_DONE", time.Minute, func() bool {
		j, err := h.st.Job(ctx, "real", id)
		return err == nil && j.State == "SAVEPOINT_DONE"
	})
	for _, cp := range h.checkpoints(t, q) {
		if cp.Kind != model.KindSavepoint && cp.Kind != model.KindCheckpoint {
			t.Errorf("checkpoint %d kind %q", cp.ID, cp.Kind)
		}
	}
}

// TestRealNodeCancelledMidCollection: a job stopped without a savepoint loses its checkpoint data
// in the engine at once; every checkpoint seen before stays in the cache, and the reconciliation
// says the engine no longer has them.
func TestRealNodeCancelledMidCollection(t *testing.T) {
	e, id, h, q := collectRealJob(t, "SEATUNNEL_JOB_NAME=ce-real-cancel", "SEATUNNEL_CHECKPOINT_INTERVAL_MS=1000")
	ctx := context.Background()
	h.wait(t, "5 completed checkpoints", time.Minute, func() bool { return h.count(t, q, model.StatusCompleted) >= 5 })
	before := h.checkpoints(t, q)
	if err := seatunnelenv.Cancel(e, id); err != nil {
		t.Fatal(err)
	}
	c := realClient(t, e)
	h.wait(t, "the engine's history emptied", time.Minute, func() bool {
		o, err := c.Checkpoints(ctx, id)
		return err == nil && len(o.Pipelines) == 0
	})
	h.wait(t, "the job stored as CANCELED and the loss said", time.Minute, func() bool {
		j, err := h.st.Job(ctx, "real", id)
		r, ok, rerr := h.st.Reconciliation(ctx, "real", id)
		return err == nil && j.State == "CANCELED" && rerr == nil && ok && r.EngineForgotMs > 0
	})
	after := h.checkpoints(t, q)
	if len(after) < len(before) {
		t.Fatalf("%d checkpoints after the cancel, %d before: the cache lost some", len(after), len(before))
	}
	for i := range before {
		if after[i].ID != before[i].ID || after[i].TriggerMs != before[i].TriggerMs {
			t.Errorf("checkpoint %d changed: %+v → %+v", before[i].ID, before[i], after[i])
		}
	}
	r, _, _ := h.st.Reconciliation(ctx, "real", id)
	if r.Stored < int64(len(before)) || r.Unaccounted != 0 {
		t.Errorf("reconciliation %+v after the cancel, want the %d stored kept and accounted for", r, len(before))
	}
}

// TestRealNodeTwoPipelines: a job of two independent chains is checkpointed per pipeline; each
// pipeline's checkpoints are stored apart, with ids of their own.
func TestRealNodeTwoPipelines(t *testing.T) {
	_, id, h, _ := collectRealJob(t, "SEATUNNEL_JOB_NAME=ce-real-two", "SEATUNNEL_PIPELINES=2",
		"SEATUNNEL_CHECKPOINT_INTERVAL_MS=1500")
	ctx := context.Background()
	for _, p := range []int{1, 2} {
		q := store.Query{Cluster: "real", JobID: id, Pipeline: &p}
		h.wait(t, "3 completed checkpoints in each pipeline", 90*time.Second, func() bool {
			return h.count(t, q, model.StatusCompleted) >= 3
		})
		cps := h.checkpoints(t, q)
		if cps[0].ID != 1 {
			t.Errorf("pipeline %d starts at checkpoint %d, want 1", p, cps[0].ID)
		}
	}
	job, err := h.st.Job(ctx, "real", id)
	if err != nil {
		t.Fatal(err)
	}
	pipelines := map[int]int{}
	for _, v := range job.Vertices {
		pipelines[v.Pipeline]++
	}
	if len(pipelines) != 2 || pipelines[1] != 2 || pipelines[2] != 2 {
		t.Errorf("vertices per pipeline %v, want a source and a sink in each of 2", pipelines)
	}
	if gaps, err := h.st.Gaps(ctx, store.Query{Cluster: "real", JobID: id}); err != nil || len(gaps) != 0 {
		t.Errorf("gaps = %+v, %v; want none", gaps, err)
	}
}

func waitRunning(t *testing.T, ctx context.Context, c *seatunnel.Client, id string, vertices int) seatunnel.JobInfo {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		info, err := c.JobInfo(ctx, id)
		if err == nil && info.State == "RUNNING" && len(info.Vertices) == vertices {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not running with %d vertices after a minute: %+v, %v", id, vertices, info, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func checkpointByID(cps []model.Checkpoint, id int64) *model.Checkpoint {
	for i := range cps {
		if cps[i].ID == id {
			return &cps[i]
		}
	}
	return &model.Checkpoint{ID: id}
}

func vertexNamed(j model.Job, part string) string {
	for _, v := range j.Vertices {
		if strings.Contains(v.Name, part) {
			return v.ID
		}
	}
	return ""
}

func ids(cps []model.Checkpoint) []int64 {
	out := make([]int64, len(cps))
	for i, cp := range cps {
		out[i] = cp.ID
	}
	return out
}

// analyseStored analyses what the collector stored, as the app does.
func analyseStored(t *testing.T, h *realCollector, job model.Job, q store.Query) analyze.JobAnalysis {
	t.Helper()
	ctx := context.Background()
	acks, err := h.st.AckSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := h.st.MetricSamples(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	gaps, err := h.st.Gaps(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	a := analyze.NewAnalyzer(job, acks, ms)
	for _, cp := range h.checkpoints(t, q) {
		if err := a.Add(&cp); err != nil {
			t.Fatal(err)
		}
	}
	ja, err := a.Finish(gaps)
	if err != nil {
		t.Fatal(err)
	}
	return ja
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

func (r *realCollector) checkpoints(t *testing.T, q store.Query) []model.Checkpoint {
	t.Helper()
	cps, err := r.st.Checkpoints(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return cps
}

func (r *realCollector) count(t *testing.T, q store.Query, st model.Status) int {
	n := 0
	for _, cp := range r.checkpoints(t, q) {
		if cp.Status == st {
			n++
		}
	}
	return n
}

func (r *realCollector) wait(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (health %+v)", d, what, r.health())
		}
		time.Sleep(250 * time.Millisecond)
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
