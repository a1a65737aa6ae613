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

// Budget is what every request is spent against; *collect.Budget is one.
type Budget interface {
	Acquire(ctx context.Context) (release func(), err error)
}

// MetricsEvery is how often realtime windows are fetched: the engine's bucket length.
const MetricsEvery = DefaultBucket

// How long realtime metrics are not asked for again after the engine said it has none.
const (
	realtimeAPIRetry = 10 * time.Minute // the endpoint does not exist in this version
	realtimeJobRetry = 2 * time.Minute  // the job is not tracked (observability off, not running)
)

// Source adapts a Client to collect.Source. Requests per poll: History 1
// (/jobs/checkpoints/:jobId holds every pipeline's ring and in-flight progress), Detail 0 (Zeta
// has no per-vertex or per-subtask checkpoint detail), Metrics 2 every MetricsEvery (vertices
// and edges windows; none while the engine has said it has no realtime metrics), Jobs 2, Job 1,
// JobConfig 0 right after Job (else 1).
type Source struct {
	c   *Client
	now func() time.Time

	mu   sync.Mutex
	jobs map[string]jobSettings
	// realtime holds, per job ("" for the whole cluster), until when not to ask and why.
	realtime map[string]realtimeOff
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
		cc.acquire = budget.Acquire
	}
	return &Source{c: &cc, now: time.Now, jobs: map[string]jobSettings{}, realtime: map[string]realtimeOff{}}
}

// Traits: sample ack progress while a checkpoint is in flight (the only way Zeta shows it),
// realtime windows every bucket, a history ring of 32 per pipeline.
func (s *Source) Traits() collect.Traits {
	return collect.Traits{MetricsEvery: MetricsEvery, SampleInFlight: true, DefaultCapacity: HistoryCapacity}
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
	s.mu.Lock()
	s.jobs[id] = jobSettings{intervalMs: info.CheckpointIntervalMs, timeoutMs: info.CheckpointTimeoutMs,
		config: info.Config, at: s.now()}
	s.mu.Unlock()
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
// checkpoint API gives an error matching ErrNoCheckpointAPI.
func (s *Source) History(ctx context.Context, job *model.Job) (model.History, error) {
	o, err := s.c.Checkpoints(ctx, job.ID)
	if err != nil {
		return model.History{}, err
	}
	s.mu.Lock()
	set := s.jobs[job.ID]
	s.mu.Unlock()
	return s.c.History(o, set.intervalMs, set.timeoutMs), nil
}

// Detail returns the summary as it is: Zeta keeps per-subtask ack times inside the engine and
// exposes nothing beyond the overview (0 requests).
func (s *Source) Detail(_ context.Context, _ *model.Job, summary model.Checkpoint) (model.Checkpoint, error) {
	return summary, nil
}

// Metrics returns the complete realtime buckets newer than sinceMs (2 requests). When the
// engine has no realtime metrics for the job it returns nothing, without an error, and does not
// ask again for a while; MetricsStatus says why.
func (s *Source) Metrics(ctx context.Context, job *model.Job, sinceMs int64) ([]model.MetricSample, error) {
	now := s.now()
	if s.realtimeOff(job.ID, now) != nil {
		return nil, nil
	}
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
			return append(s.c.VertexSamples(job, vs, sinceMs), s.c.EdgeSamples(job, es, sinceMs)...), nil
		}
	}
	switch {
	case errors.Is(err, ErrNoRealtimeAPI):
		s.setRealtime("", realtimeOff{until: now.Add(realtimeAPIRetry), reason: err})
		return nil, nil
	case errors.Is(err, ErrRealtimeDisabled), errors.Is(err, ErrNotFound):
		s.setRealtime(job.ID, realtimeOff{until: now.Add(realtimeJobRetry), reason: err})
		return nil, nil
	}
	return nil, err
}

// MetricsStatus says why a job has no realtime metrics ("" when the last fetch worked or none
// was made yet).
func (s *Source) MetricsStatus(jobID string) string {
	if err := s.realtimeOff(jobID, time.Time{}); err != nil {
		return fmt.Sprintf("no busyness/backpressure from this cluster: %v", err)
	}
	return ""
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
