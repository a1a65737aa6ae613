package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"checkpoint-explorer/backend/backfill"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
)

// Bounds of reading a cluster's traces (docs/interop.md, "A cluster's traces").
const (
	// TracesLookback is how far back traces are read (jaeger.Lookback).
	TracesLookback = jaeger.Lookback
	// TracesBackfillRequests bounds the requests of one job's backfill (each answer at most
	// jaeger.DefaultPageSize traces: 3,200 checkpoints).
	TracesBackfillRequests = 64
	// TracesOpenRequests bounds the requests of opening a job from traces alone.
	TracesOpenRequests = jaeger.OpenRequests
)

// TracesResult says what one read of a cluster's traces did for a job.
type TracesResult struct {
	// Read is how many of the job's checkpoints the traces held in the ranges asked.
	Read int `json:"read"`
	// Added is how many of them the cache did not have and now stores (marked as from traces).
	Added int `json:"added"`
	// DetailsFilled is how many cached checkpoints whose per-subtask stats were missed gained
	// them from the spans.
	DetailsFilled int `json:"details_filled"`
	// Resolved is how many cached checkpoints left in progress (gone from the engine's history
	// before they ended) the spans gave the end of.
	Resolved int `json:"resolved"`
	// Windows is how many time ranges were asked for; Requests how many requests that took.
	Windows  int `json:"windows"`
	Requests int `json:"requests"`
	// IncompleteWindows counts ranges not read whole (the request bound ran out, or a range
	// still held more than a page at its narrowest); Warning then says so.
	IncompleteWindows int    `json:"incomplete_windows"`
	Warning           string `json:"warning,omitempty"`
}

// TraceJob is a job whose checkpoint spans a cluster's traces hold.
type TraceJob struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Checkpoints counts those seen (a lower bound: each answer is one page).
	Checkpoints     int   `json:"checkpoints"`
	FirstTriggerMs  int64 `json:"first_trigger_ms"`
	LatestTriggerMs int64 `json:"latest_trigger_ms"`
	// Cached says the cache already holds the job.
	Cached bool `json:"cached"`
}

// configuredTracesCluster is the configured cluster named, with a traces URL.
func (a *App) configuredTracesCluster(name string) (model.Cluster, error) {
	c, ok := a.configuredCluster(name)
	if !ok {
		return c, badRequest("no cluster named %q", name)
	}
	if c.TracesURL == "" {
		return c, badRequest("cluster %q has no traces URL (a Jaeger query service Flink sends its checkpoint spans to)", name)
	}
	return c, nil
}

// tracesJob is the configured cluster named, which must have a traces URL, and the job as the
// cache holds it (store.ErrNotFound when it holds none).
func (a *App) tracesJob(ctx context.Context, cluster, job string) (model.Cluster, model.Job, error) {
	c, err := a.configuredTracesCluster(cluster)
	if err != nil {
		return c, model.Job{}, err
	}
	j, err := a.store.Job(ctx, cluster, job)
	return c, j, err
}

// BackfillTraces reads, from the cluster's traces, the job's checkpoints the cache has no
// record of — before its first cached one (history the engine no longer lists), between
// cached ones whose ids skip, and after the last one when the app no longer follows the job —
// and stores them, marked as from traces; cached checkpoints whose per-subtask stats were missed
// gain them where the spans carry them. Nothing cached is otherwise changed.
func (a *App) BackfillTraces(cluster, job string) (TracesResult, error) {
	if job == "" {
		return TracesResult{}, badRequest("a job id is required")
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	c, j, err := a.tracesJob(ctx, cluster, job)
	if errors.Is(err, store.ErrNotFound) {
		return TracesResult{}, badRequest("no job %q cached for cluster %q (open it from traces first)", job, cluster)
	}
	if err != nil {
		return TracesResult{}, err
	}
	return a.backfillTraces(ctx, c, j, !a.follows(cluster, j), TracesBackfillRequests)
}

// Flink exports its spans in batches and Jaeger indexes them some seconds after a checkpoint
// ends, so the read at a job's first poll can miss its newest checkpoints that had already left
// the engine's history; while the job's ids skip, the traces are read again, TracesRetryEvery
// apart, at most TracesRetries more times.
const (
	TracesRetryEvery = 10 * time.Second
	TracesRetries    = 6
)

// backfillTracesWhileGaps is BackfillTraces at a job's first poll, read again while the cache
// has gaps in the job's ids (see TracesRetryEvery); it ends early when the app closes.
func (a *App) backfillTracesWhileGaps(cluster, job string) {
	for attempt := 0; ; attempt++ {
		res, err := a.BackfillTraces(cluster, job)
		if err != nil {
			a.log.Warn("reading checkpoints from traces failed", "cluster", cluster, "job", job, "err", err)
			return
		}
		if res.Warning != "" {
			a.log.Warn("checkpoints from traces: "+res.Warning, "cluster", cluster, "job", job)
		}
		if attempt == TracesRetries {
			return
		}
		ctx, cancel := a.callCtx()
		gaps, err := a.store.Gaps(ctx, store.Query{Cluster: cluster, JobID: job})
		if err != nil || len(gaps) == 0 {
			cancel()
			return
		}
		select {
		case <-time.After(TracesRetryEvery):
			cancel()
		case <-ctx.Done():
			cancel()
			return
		}
	}
}

// follows says whether the collector polls the job now: then the engine's API has its latest
// checkpoints and traces are read only for what lies before them.
func (a *App) follows(cluster string, j model.Job) bool {
	a.mu.Lock()
	on := a.coll != nil
	a.mu.Unlock()
	return on && !model.JobEnded(j.State) && j.State != jaeger.UnknownState
}

func (a *App) backfillTraces(ctx context.Context, c model.Cluster, j model.Job, toNow bool, maxRequests int) (TracesResult, error) {
	r, err := backfill.Traces(ctx, a.store, c, j, backfill.TracesOptions{ToNow: toNow, MaxRequests: maxRequests,
		Open: func() (*jaeger.Client, error) {
			jc, err := connect.Traces(c, maxRequests)
			if err != nil {
				return nil, badRequest("%v", err)
			}
			return jc, nil
		}})
	res := TracesResult(r)
	if err == nil && (res.Added > 0 || res.DetailsFilled > 0 || res.Resolved > 0) {
		a.log.Info("checkpoints read from traces", "cluster", c.Name, "job", j.ID, "added", res.Added,
			"details_filled", res.DetailsFilled, "resolved", res.Resolved, "requests", res.Requests)
		a.emit(CheckpointsEvent{Cluster: c.Name, Job: j.ID})
	}
	return res, err
}

// TraceJobs lists the jobs whose checkpoint spans the cluster's traces hold from the last
// TracesLookback (jaeger.DefaultJobWindows requests), newest first.
func (a *App) TraceJobs(cluster string) ([]TraceJob, error) {
	c, err := a.configuredTracesCluster(cluster)
	if err != nil {
		return nil, err
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	jc, err := connect.Traces(c, jaeger.DefaultJobWindows)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	now := time.Now()
	r, err := jc.Jobs(ctx, now.Add(-TracesLookback), now)
	if err != nil {
		return nil, fmt.Errorf("traces from %s: %w", restclient.RedactURL(c.TracesURL), err)
	}
	cached := map[string]bool{}
	jobs, err := a.store.Jobs(ctx, cluster)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		cached[j.ID] = true
	}
	out := make([]TraceJob, 0, len(r.Jobs))
	for _, s := range r.Jobs {
		out = append(out, TraceJob{ID: s.Job.ID, Name: s.Job.Name, Checkpoints: s.Checkpoints,
			FirstTriggerMs: s.FirstTriggerMs, LatestTriggerMs: s.LatestTriggerMs, Cached: cached[s.Job.ID]})
	}
	return out, nil
}

// OpenTracesJob opens a job from the cluster's traces alone — one the engine no longer lists,
// or never did to this app: the job is cached under the cluster (named as its spans name it,
// its state UNKNOWN) with every checkpoint its spans hold from the last TracesLookback (at most
// TracesOpenRequests requests). A job already cached gains what it lacks, as BackfillTraces.
func (a *App) OpenTracesJob(cluster, job string) (TracesResult, error) {
	if job == "" {
		return TracesResult{}, badRequest("a job id is required")
	}
	if !jaeger.ValidJobID(job) {
		return TracesResult{}, badRequest("job id %q: %s", job, jaeger.JobIDForm)
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	c, j, err := a.tracesJob(ctx, cluster, job)
	switch {
	case err == nil:
		return a.backfillTraces(ctx, c, j, !a.follows(cluster, j), TracesOpenRequests)
	case !errors.Is(err, store.ErrNotFound):
		return TracesResult{}, err
	}
	// First learn the job's name and whether the spans have it at all.
	jc, err := connect.Traces(c, TracesOpenRequests)
	if err != nil {
		return TracesResult{}, badRequest("%v", err)
	}
	now := time.Now()
	r, err := jc.Checkpoints(ctx, job, now.Add(-TracesLookback), now)
	if err != nil {
		return TracesResult{}, fmt.Errorf("traces from %s: %w", restclient.RedactURL(c.TracesURL), err)
	}
	if len(r.Checkpoints) == 0 {
		return TracesResult{Windows: 1, Requests: r.Requests}, badRequest("the traces at %s hold no checkpoint of job %s from the last %d days",
			restclient.RedactURL(c.TracesURL), job, TracesLookback/(24*time.Hour))
	}
	j = jaeger.JobOf(c.Name, job, r)
	if err := a.store.PutJob(ctx, j); err != nil {
		return TracesResult{}, err
	}
	m, err := a.store.MergeLogCheckpoints(ctx, c.Name, job, r.Checkpoints, 1<<62)
	if err != nil {
		return TracesResult{}, fmt.Errorf("store checkpoints from traces: %w", err)
	}
	res := TracesResult{Read: len(r.Checkpoints), Added: len(m.Added), Windows: 1, Requests: r.Requests, IncompleteWindows: len(r.Incomplete)}
	if res.IncompleteWindows > 0 {
		res.Warning = fmt.Sprintf("%d time ranges were not read whole (at most %d requests): %s", res.IncompleteWindows, TracesOpenRequests, r.Incomplete[0])
	}
	a.log.Info("job opened from traces", "cluster", c.Name, "job", job, "checkpoints", res.Added, "requests", res.Requests)
	a.emit(CheckpointsEvent{Cluster: c.Name, Job: job})
	return res, nil
}
