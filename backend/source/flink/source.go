package flink

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// Budget bounds the requests the source sends (collect.Budget): every request
// waits for Acquire and calls its release when done.
type Budget = restclient.Budget

// Scraper reads a job's vertices' backpressure, busy and idle time from the
// TaskManagers' metric reporters (prometheus.Scraper).
type Scraper interface {
	Scrape(ctx context.Context, jobID string, urls ...string) ([]model.MetricSample, error)
}

// Querier answers a PromQL query at a time (a Prometheus server): ok is false
// when the answer holds no value.
type Querier interface {
	Value(ctx context.Context, query string, at time.Time) (float64, bool, error)
}

// SourceOptions configure NewSource; zero values take the defaults.
type SourceOptions struct {
	// Reporters are the TaskManagers' Prometheus reporter URLs; with Scraper
	// set, backpressure is scraped from them (fresher values, one request per
	// process) instead of asked of the JobManager once per vertex.
	Reporters []string
	Scraper   Scraper
	// Lanes are the cluster's custom lanes (model.Lane): Flink-metric lanes
	// are sampled from the vertices, PromQL lanes asked of Querier (none
	// when Querier is nil).
	Lanes   []model.Lane
	Querier Querier
	// LogMode says whether the JobManager log is read (default auto);
	// LogEvery is how often at most (default LogEvery).
	LogMode  model.JobManagerLogMode
	LogEvery time.Duration
}

// Source adapts a Client to the collector (collect.Source, LogReader,
// ConfigReader), spending the budget on every request.
type Source struct {
	c         *Client
	b         Budget
	reporters []string
	scraper   Scraper // nil: backpressure from the REST API

	// jmLog reads the JobManager log: finalize times, history beyond REST.
	jmLog *logReader
	// extras samples the sink committer's metrics and the custom lanes.
	extras *extraMetrics

	mu       sync.Mutex
	interval map[string]int64 // job id → checkpoint interval (ms), fetched once
}

// NewSource returns the collector's source of the cluster c talks to.
func NewSource(c *Client, b Budget, o SourceOptions) *Source {
	s := &Source{c: c, b: b, interval: map[string]int64{}, jmLog: newLogReader(c, b, o.LogMode),
		extras: newExtraMetrics(c, b, o.Lanes, o.Querier)}
	if len(o.Reporters) > 0 && o.Scraper != nil {
		s.reporters, s.scraper = o.Reporters, o.Scraper
	}
	if o.LogEvery > 0 {
		s.jmLog.every = o.LogEvery
	}
	return s
}

// historyDepth is web.checkpoints.history's default.
const historyDepth = 10

// statsCache is web.refresh-interval's default: the JobManager answers
// /checkpoints from statistics up to this old.
const statsCache = 3 * time.Second

// metricsEvery is metrics.fetcher.update-interval's default: sampling
// faster returns the same values.
const metricsEvery = 10 * time.Second

// Traits: details cost requests; Flink's defaults of history depth, statistics
// cache and metrics update interval.
func (s *Source) Traits() collect.Traits {
	return collect.Traits{MetricsEvery: metricsEvery, DefaultCapacity: historyDepth, DetailRequests: true,
		ListStaleness: statsCache}
}

// LogMode is how the JobManager log is read.
func (s *Source) LogMode() model.JobManagerLogMode { return s.jmLog.mode }

// ReadLogBeyondLimit makes the next read of the JobManager log ignore its
// size cap once (the user asked).
func (s *Source) ReadLogBeyondLimit() { s.jmLog.readBeyondLimit() }

// LogCheckpoints reads the JobManager log (collect.LogReader).
func (s *Source) LogCheckpoints(ctx context.Context, job *model.Job, force bool) ([]model.Checkpoint, model.LogState, error) {
	cps, st, err := s.jmLog.LogCheckpoints(ctx, job, force)
	for i := range cps {
		cps[i].Cluster = job.Cluster
	}
	return cps, st, err
}

func spend[T any](ctx context.Context, b Budget, fn func() (T, error)) (T, error) {
	release, err := b.Acquire(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	defer release()
	return fn()
}

// Jobs lists the cluster's jobs (1 request).
func (s *Source) Jobs(ctx context.Context) ([]model.Job, error) {
	return spend(ctx, s.b, func() ([]model.Job, error) { return s.c.Jobs(ctx) })
}

// jobGone marks a job the cluster no longer knows, for the collector.
func jobGone(err error) error {
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: %w", collect.ErrJobGone, err)
	}
	return err
}

// Job returns the job with its vertices (1 request).
func (s *Source) Job(ctx context.Context, id string) (model.Job, error) {
	j, err := spend(ctx, s.b, func() (model.Job, error) { return s.c.Job(ctx, id) })
	return j, jobGone(err)
}

// History returns the job's checkpoint history and counts (1 request; 2 the
// first time, for the checkpoint interval).
func (s *Source) History(ctx context.Context, job *model.Job) (model.History, error) {
	list, err := spend(ctx, s.b, func() (CheckpointList, error) { return s.c.Checkpoints(ctx, job.ID) })
	if err != nil {
		return model.History{}, jobGone(err)
	}
	h := model.History{
		Checkpoints: list.History,
		Capacity:    max(historyDepth, len(list.History)),
		Triggered:   list.Counts.Total,
		IntervalMs:  s.jobInterval(ctx, job.ID),
		Counts: map[int]model.EngineCounts{0: {
			Triggered: list.Counts.Total, Completed: list.Counts.Completed, Failed: list.Counts.Failed,
			InProgress: list.Counts.InProgress, Restored: list.Counts.Restored, LastRestoreMs: list.RestoredMs,
		}},
	}
	now := time.Now().UnixMilli()
	for _, c := range list.History {
		if c.Status == model.StatusInProgress {
			h.InFlight = append(h.InFlight, model.AckSample{
				CheckpointID: c.ID, TimeMs: now, Acknowledged: c.NumAcknowledged, Total: c.NumSubtasks,
			})
		}
	}
	return h, nil
}

// jobInterval reads the job's checkpoint interval once; 0 if it cannot.
func (s *Source) jobInterval(ctx context.Context, jid string) int64 {
	s.mu.Lock()
	iv, ok := s.interval[jid]
	s.mu.Unlock()
	if ok {
		return iv
	}
	cfg, err := spend(ctx, s.b, func() (CheckpointConfig, error) { return s.c.CheckpointConfig(ctx, jid) })
	if err != nil {
		return 0 // try again next poll
	}
	s.mu.Lock()
	s.interval[jid] = cfg.IntervalMs
	s.mu.Unlock()
	return cfg.IntervalMs
}

// JobConfig reads what Flink reports of the job's checkpointing and state
// (collect.ConfigReader): GET /jobs/:jid/checkpoints/config, /jobs/:jid/config
// and /jobs/:jid/jobmanager/config, 3 requests on the budget (4 when the
// per-job JobManager configuration is 404, before Flink 1.17: then
// /jobmanager/config). Each part stands alone: one that fails (a 404 too: a
// job without checkpointing has no checkpoint configuration) is listed in
// Unknown with its endpoint and error, and what the others said is kept, for
// advice to use (the history does not take a partial read for a change:
// model.JobConfig.Agrees). The read fails when no part answered, or when the
// job's checkpoint and execution configuration are both 404
// (collect.ErrJobGone: the per-job JobManager configuration answers even for
// a job Flink does not know).
func (s *Source) JobConfig(ctx context.Context, job *model.Job) (model.JobConfig, error) {
	var parts JobConfigParts
	var gaps []model.ConfigGap
	var errs []error
	missed := func(part model.ConfigPart, endpoint string, err error) {
		gaps = append(gaps, model.ConfigGap{Part: part, Endpoint: "GET " + endpoint, Error: err.Error()})
		errs = append(errs, err)
	}
	cc, err := spend(ctx, s.b, func() (CheckpointConfig, error) { return s.c.CheckpointConfig(ctx, job.ID) })
	checkpointsGone := errors.Is(err, ErrNotFound)
	if err == nil {
		parts.Checkpoints = &cc.Settings
		s.mu.Lock()
		s.interval[job.ID] = cc.IntervalMs
		s.mu.Unlock()
	} else {
		missed(model.ConfigPartCheckpoints, "/jobs/:jid/checkpoints/config", err)
	}
	exec, err := spend(ctx, s.b, func() (map[string]string, error) { return s.c.ExecutionConfig(ctx, job.ID) })
	if checkpointsGone && errors.Is(err, ErrNotFound) {
		return model.JobConfig{}, fmt.Errorf("%w: neither its checkpoint nor its execution configuration is known", collect.ErrJobGone)
	}
	if err == nil {
		parts.Execution = exec
	} else {
		missed(model.ConfigPartExecution, "/jobs/:jid/config", err)
	}
	jmEndpoint := "/jobs/:jid/jobmanager/config"
	jm, err := spend(ctx, s.b, func() (map[string]string, error) { return s.c.JobManagerConfig(ctx, job.ID) })
	if errors.Is(err, ErrNotFound) {
		jmEndpoint = "/jobmanager/config"
		jm, err = spend(ctx, s.b, func() (map[string]string, error) { return s.c.JobManagerConfig(ctx, "") })
	}
	if err == nil {
		parts.JobManager = jm
	} else {
		missed(model.ConfigPartJobManager, jmEndpoint, err)
	}
	if len(gaps) == 3 || ctx.Err() != nil {
		// Nothing answered, or the read was called off midway: nothing to keep.
		return model.JobConfig{}, errors.Join(append(errs, ctx.Err())...)
	}
	cfg := BuildJobConfig(job.Cluster, job.ID, parts)
	cfg.Unknown = gaps
	return cfg, nil
}

// errStaleDetails: a details answer older than the list's (Flink caches
// the statistics each REST handler serves on its own, for
// rest.cache.checkpoint-statistics.timeout: on a busy JobManager the details
// of a checkpoint the list shows completed can still be those of its
// progress). They are asked again at the next poll.
var errStaleDetails = errors.New("details older than the checkpoint list (Flink's statistics cache); asked again next poll")

// Detail fetches the checkpoint (1 request) and each vertex's subtasks (V
// requests). Vertices whose subtasks fail are kept with their summary,
// marked Missing, and returned with a *collect.IncompleteError; given such a
// checkpoint again, only those vertices are asked for.
func (s *Source) Detail(ctx context.Context, job *model.Job, summary model.Checkpoint) (model.Checkpoint, error) {
	d := summary
	retry := summary.DetailLoss == model.DetailPartial && len(summary.Tasks) > 0
	if retry {
		d.Tasks = slices.Clone(summary.Tasks)
	} else {
		var err error
		d, err = spend(ctx, s.b, func() (model.Checkpoint, error) { return s.c.CheckpointDetail(ctx, job.ID, summary.ID) })
		if errors.Is(err, ErrNotFound) {
			return model.Checkpoint{}, collect.ErrGone
		}
		if err != nil {
			return model.Checkpoint{}, err
		}
		if summary.Status.Final() && !d.Status.Final() {
			return model.Checkpoint{}, fmt.Errorf("checkpoint %d: %w", summary.ID, errStaleDetails)
		}
		for i := range d.Tasks {
			d.Tasks[i].Missing = true // until its subtasks come
		}
	}
	// Vertices in parallel: the budget bounds how many go at once.
	errs := make([]error, len(d.Tasks))
	var wg sync.WaitGroup
	for i := range d.Tasks {
		if !d.Tasks[i].Missing {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			vid := d.Tasks[i].VertexID
			ts, err := spend(ctx, s.b, func() (model.TaskStats, error) { return s.c.SubtaskStats(ctx, job.ID, summary.ID, vid) })
			switch {
			case errors.Is(err, ErrNotFound):
				// This vertex reported no stats: keep its summary.
				d.Tasks[i].Missing = false
			case err != nil:
				errs[i] = fmt.Errorf("vertex %s: %w", vid, err)
			case ts.NumAcknowledged < d.Tasks[i].NumAcknowledged:
				// Older than the checkpoint's own answer: asked again next poll.
				errs[i] = fmt.Errorf("vertex %s: %d of its %d acknowledgements: %w", vid, ts.NumAcknowledged, d.Tasks[i].NumAcknowledged, errStaleDetails)
			default:
				d.Tasks[i] = ts
			}
		}()
	}
	wg.Wait()
	var missing []string
	for i := range d.Tasks {
		if d.Tasks[i].Missing {
			missing = append(missing, d.Tasks[i].VertexID)
		}
	}
	if len(missing) > 0 {
		d.DetailLoss = model.DetailPartial
		return d, &collect.IncompleteError{Missing: missing, Err: errors.Join(errs...)}
	}
	d.DetailLoss = ""
	return d, nil
}

// Metrics samples the vertices' backpressure, busy and idle time, the sink
// committer's metrics and the custom lanes.
func (s *Source) Metrics(ctx context.Context, job *model.Job, _ int64) ([]model.MetricSample, error) {
	out, err := s.backpressure(ctx, job)
	extra, xerr := s.extras.sample(ctx, job, time.Now())
	for i := range extra {
		extra[i].Cluster = job.Cluster
	}
	return append(out, extra...), errors.Join(err, xerr)
}

// backpressure samples the vertices' backpressure, busy and idle time.
func (s *Source) backpressure(ctx context.Context, job *model.Job) ([]model.MetricSample, error) {
	if s.scraper != nil {
		return s.scraper.Scrape(ctx, job.ID, s.reporters...)
	}
	var out []model.MetricSample
	now := time.Now().UnixMilli()
	names := []string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec}
	for _, v := range job.Vertices {
		ms, err := spend(ctx, s.b, func() ([]model.MetricSample, error) {
			return s.c.VertexMetrics(ctx, job.ID, v.ID, names, now)
		})
		if err != nil {
			return out, err
		}
		out = append(out, ms...)
	}
	return out, nil
}
