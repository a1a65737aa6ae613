package seatunnel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
)

// MetricsEvery is how often realtime windows are fetched: the engine's bucket length.
const MetricsEvery = DefaultBucket

// Where the engine has no realtime metrics, /job-info's metrics block is sampled every
// JobInfoEvery, and every JobInfoFastEvery while a checkpoint runs longer than usual (with the
// budget's spare requests only); never before the workers' next report can be there.
const (
	JobInfoEvery     = 5 * time.Second
	JobInfoFastEvery = time.Second
)

// How long realtime metrics are not asked for again after the engine said it has none.
const (
	realtimeAPIRetry = 10 * time.Minute // the endpoint does not exist in this version
	realtimeJobRetry = 2 * time.Minute  // the job is not tracked (observability off, not running)
)

// Source adapts a Client to collect.Source. Requests per poll: History 1
// (/jobs/checkpoints/:jobId holds every pipeline's ring and in-flight progress), Detail 0 (Zeta
// has no per-vertex or per-subtask checkpoint detail), Metrics 2 every MetricsEvery (vertices
// and edges windows) or, where the engine has no realtime metrics for the job, 1 (/job-info's
// metrics block) every JobInfoEvery, every JobInfoFastEvery while a checkpoint runs long; Jobs
// 2, Job 1, JobConfig 0 right after Job or a /job-info sample (else 1).
type Source struct {
	c      *Client
	budget Budget
	now    func() time.Time
	// The cadences of Metrics (tests shorten them).
	realtimeEvery, infoEvery, infoFastEvery time.Duration

	mu   sync.Mutex
	jobs map[string]jobSettings
	// realtime holds, per job ("" for the whole cluster), until when not to ask and why.
	realtime map[string]realtimeOff
	state    map[string]*jobState
}

type jobSettings struct {
	intervalMs, timeoutMs int64
	// config is what Job last read of the job's configuration, and when.
	config model.JobConfig
	at     time.Time
}

// configFresh is how long the configuration Job read serves JobConfig without a request: the
// collector asks for it right after the job's first poll.
const configFresh = 30 * time.Second

type realtimeOff struct {
	until  time.Time
	reason error
}

var _ collect.Source = (*Source)(nil)

// NewSource returns a collect.Source over c that spends budget on every request (budget may be
// nil for none). c itself is not changed.
func NewSource(c *Client, budget Budget) *Source {
	cc := *c
	if budget != nil {
		cc.rest = c.rest.WithBudget(budget)
	}
	return &Source{c: &cc, budget: budget, now: time.Now, realtimeEvery: MetricsEvery, infoEvery: JobInfoEvery,
		infoFastEvery: JobInfoFastEvery, jobs: map[string]jobSettings{}, realtime: map[string]realtimeOff{},
		state: map[string]*jobState{}}
}

// Traits: sample ack progress while a checkpoint is in flight (the only way Zeta shows it), a
// history ring of 32 per pipeline, and Metrics called as often as JobInfoFastEvery: the source
// decides per job what a call asks for (realtime windows every bucket, /job-info every
// JobInfoEvery or JobInfoFastEvery) and answers nothing when nothing is due.
func (s *Source) Traits() collect.Traits {
	return collect.Traits{MetricsEvery: JobInfoFastEvery, SampleInFlight: true, DefaultCapacity: HistoryCapacity}
}

// stateLocked returns the job's state; s.mu is held.
func (s *Source) stateLocked(jobID string) *jobState {
	st := s.state[jobID]
	if st == nil {
		st = &jobState{}
		s.state[jobID] = st
	}
	return st
}

// remember keeps what a /job-info answer says of the job's checkpointing for History and
// JobConfig. The answer for an ended job has no env options: what an earlier one said is kept
// (History still needs the timeout to date the last expiries).
func (s *Source) remember(id string, info JobInfo, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, known := s.jobs[id]
	if c := info.Config; known && c.Keys == nil && c.IntervalMs == nil && c.TimeoutMs == nil {
		set.at = at
		s.jobs[id] = set
		return
	}
	s.jobs[id] = jobSettings{intervalMs: info.CheckpointIntervalMs, timeoutMs: info.CheckpointTimeoutMs,
		config: info.Config, at: at}
}

// Jobs lists running and remembered finished jobs (2 requests). Finished jobs failing costs only
// them: the running jobs are followed (a *collect.PartialError says what failed).
func (s *Source) Jobs(ctx context.Context) ([]model.Job, error) {
	jobs, err := s.c.Jobs(ctx)
	var partial *PartialListError
	if errors.As(err, &partial) {
		return jobs, &collect.PartialError{Err: err}
	}
	return jobs, err
}

// Job returns the job with its graph and remembers its checkpoint interval and timeout for
// History (1 request).
func (s *Source) Job(ctx context.Context, id string) (model.Job, error) {
	info, err := s.c.JobInfo(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return model.Job{}, fmt.Errorf("%w: %w", collect.ErrJobGone, err)
	}
	if err != nil {
		return model.Job{}, err
	}
	s.remember(id, info, s.now())
	return info.Job, nil
}

// JobConfig returns the job's configuration from its env options (collect.ConfigReader): what
// Job read in the last configFresh (0 requests), else GET /job-info/:jobId again (1 request).
func (s *Source) JobConfig(ctx context.Context, job *model.Job) (model.JobConfig, error) {
	s.mu.Lock()
	set, ok := s.jobs[job.ID]
	s.mu.Unlock()
	if ok && !set.at.IsZero() && s.now().Sub(set.at) < configFresh {
		return set.config, nil
	}
	if _, err := s.Job(ctx, job.ID); err != nil {
		return model.JobConfig{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[job.ID].config, nil
}

// History is the checkpoint overview as a model.History (1 request). An engine without the
// checkpoint API gives an error matching ErrNoCheckpointAPI. Ack samples come once per
// overview: an answer whose updatedAt was given before has none (InFlight is empty, its
// checkpoints still listed in progress). RefreshMs says how often the engine refreshes the
// overview once it was seen to do so on a period of its own.
func (s *Source) History(ctx context.Context, job *model.Job) (model.History, error) {
	start := s.now()
	o, err := s.c.Checkpoints(ctx, job.ID)
	if err != nil {
		return model.History{}, err
	}
	end := s.now()
	content := overviewContent(o)
	s.mu.Lock()
	set := s.jobs[job.ID]
	st := s.stateLocked(job.ID)
	fresh := st.overview.observe(o.UpdatedMs, content, start, end)
	st.flights.observe(o, end)
	if len(o.Pipelines) > 0 {
		st.restores = restores(o)
	}
	refresh := st.overview.refreshMs()
	s.mu.Unlock()
	h := s.c.History(o, set.intervalMs, set.timeoutMs)
	if !fresh {
		h.InFlight = nil
	}
	h.RefreshMs = refresh
	return h, nil
}

// Detail returns the summary as it is: Zeta keeps per-subtask ack times inside the engine and
// exposes nothing beyond the overview (0 requests).
func (s *Source) Detail(_ context.Context, _ *model.Job, summary model.Checkpoint) (model.Checkpoint, error) {
	return summary, nil
}

// Metrics returns, where the engine serves realtime metrics for the job, the complete buckets
// newer than sinceMs (2 requests every realtimeEvery); elsewhere samples of /job-info's
// metrics block (1 request, see jobInfoMetrics). A call with nothing due returns nothing.
// When the engine says it has no realtime metrics for the job, they are not asked for again
// for a while; MetricsStatus says why and what is sampled instead.
func (s *Source) Metrics(ctx context.Context, job *model.Job, sinceMs int64) ([]model.MetricSample, error) {
	now := s.now()
	if s.realtimeOff(job.ID, now) == nil {
		s.mu.Lock()
		st := s.stateLocked(job.ID)
		due := st.realtimeAt.IsZero() || now.Sub(st.realtimeAt) >= s.realtimeEvery
		if due {
			st.realtimeAt = now
		}
		s.mu.Unlock()
		if !due {
			return nil, nil
		}
		samples, off, err := s.realtimeMetrics(ctx, job, sinceMs, now)
		if !off {
			return samples, err
		}
	}
	return s.jobInfoMetrics(ctx, job, now)
}

// realtimeMetrics fetches the realtime windows; off reports that the engine has none for the
// job (remembered, so that they are not asked for again for a while).
func (s *Source) realtimeMetrics(ctx context.Context, job *model.Job, sinceMs int64, now time.Time) (_ []model.MetricSample, off bool, _ error) {
	window := MaxRealtimeWindow
	if sinceMs > 0 {
		window = now.Sub(time.UnixMilli(sinceMs)) + 2*DefaultBucket
	}
	vs, err := s.c.RealtimeVertices(ctx, job.ID, window)
	if err == nil {
		var es RealtimeEdges
		es, err = s.c.RealtimeEdges(ctx, job.ID, window)
		if err == nil {
			s.setRealtime(job.ID, realtimeOff{})
			return append(s.c.VertexSamples(job, vs, sinceMs), s.c.EdgeSamples(job, es, sinceMs)...), false, nil
		}
	}
	switch {
	case errors.Is(err, ErrNoRealtimeAPI):
		s.setRealtime("", realtimeOff{until: now.Add(realtimeAPIRetry), reason: err})
		return nil, true, nil
	case errors.Is(err, ErrRealtimeDisabled), errors.Is(err, ErrNotFound):
		s.setRealtime(job.ID, realtimeOff{until: now.Add(realtimeJobRetry), reason: err})
		return nil, true, nil
	}
	return nil, false, err
}

// jobInfoMetrics samples /job-info's metrics block when due (1 request): the intermediate
// queues in front of the sinks (queueSize, queueFillRatio), the sinks' committed records and
// commit lag, and, from the second snapshot on, the records per second of sources and sinks,
// stamped with the middle of the request. Every JobInfoEvery; every JobInfoFastEvery while a
// checkpoint runs long, and once as each checkpoint is first seen in flight (the queue ahead of
// its barrier decides its wait), when the budget has requests to spare. After a pipeline restore the queue
// size and the commit lag are counted from the new attempt on (see infoSampler).
func (s *Source) jobInfoMetrics(ctx context.Context, job *model.Job, now time.Time) ([]model.MetricSample, error) {
	s.mu.Lock()
	st := s.stateLocked(job.ID)
	every := s.infoEvery
	if (st.flights.long(now) || st.flights.unsampled()) && s.spare(2) {
		every = s.infoFastEvery
	}
	due := st.info.due(now, every)
	if due {
		st.info.asked = now
		st.flights.markSampled()
	}
	s.mu.Unlock()
	if !due {
		return nil, nil
	}
	info, err := s.c.JobInfo(ctx, job.ID)
	end := s.now()
	if err != nil {
		s.mu.Lock()
		st.info.err = err
		s.mu.Unlock()
		return nil, fmt.Errorf("job metrics from /job-info: %w", err)
	}
	s.remember(job.ID, info, end)
	if info.Metrics == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, gap, fresh := st.info.update(info.Metrics, now, end)
	if !fresh {
		return nil, nil
	}
	st.info.restored(st.restores)
	stamp := st.info.stamp.UnixMilli()
	m := *info.Metrics
	if q := m.IntermediateQueueSize; q != nil {
		live := int64(st.info.adjust("queue", float64(*q)))
		m.IntermediateQueueSize = &live
	}
	out := s.c.JobMetricSamples(job, &m, stamp)
	for i := range out {
		if out[i].Metric == model.MetricCommitLagRecords {
			out[i].Value = st.info.adjust("lag "+out[i].VertexID, out[i].Value)
		}
	}
	return append(out, s.c.RateSamples(job, prev, info.Metrics, gap, stamp)...), nil
}

// spare reports whether the budget has n requests to spare now (always, without a budget that
// says).
func (s *Source) spare(n int) bool {
	b, ok := s.budget.(interface{ Spare(n int) bool })
	return !ok || b.Spare(n)
}

// MetricsStatus says what the app gets instead of realtime metrics for a job, or why it gets
// nothing ("" when realtime metrics worked or none were asked for yet).
func (s *Source) MetricsStatus(jobID string) string {
	off := s.realtimeOff(jobID, time.Time{})
	if off == nil {
		return ""
	}
	s.mu.Lock()
	info := s.stateLocked(jobID).info
	s.mu.Unlock()
	switch {
	case info.worked && info.err == nil && errors.Is(off, ErrNoRealtimeAPI):
		return "queue and rates from /job-info (no realtime metrics in this engine version)"
	case info.worked && info.err == nil:
		return fmt.Sprintf("queue and rates from /job-info (no realtime metrics for this job: %v)", off)
	case info.err != nil:
		return fmt.Sprintf("no busyness/backpressure from this cluster: %v; /job-info metrics failed: %v", off, info.err)
	}
	return fmt.Sprintf("no busyness/backpressure from this cluster: %v", off)
}

func (s *Source) realtimeOff(jobID string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range []string{"", jobID} {
		if off, ok := s.realtime[k]; ok && off.reason != nil && (now.IsZero() || now.Before(off.until)) {
			return off.reason
		}
	}
	return nil
}

func (s *Source) setRealtime(key string, off realtimeOff) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if off.reason == nil {
		delete(s.realtime, key)
		delete(s.realtime, "")
		return
	}
	s.realtime[key] = off
}
