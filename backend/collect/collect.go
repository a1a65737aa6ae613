// Package collect polls clusters for checkpoints: one poller per cluster and
// job, incremental (final checkpoints are fetched once), within a request
// budget, with exponential backoff on errors and explicit gaps for
// checkpoints the engine forgot before a poll saw them.
package collect

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"checkpoint-explorer/backend/model"
)

// ErrGone is returned by Source.Detail when the engine no longer has the
// checkpoint's details (evicted from its bounded history).
var ErrGone = errors.New("checkpoint details no longer available")

// ErrJobGone is returned by Source.Job and Source.History when the cluster no
// longer knows the job (a JobManager failover without HA forgets its jobs).
var ErrJobGone = errors.New("job no longer on the cluster")

// PartialError says a call did part of its work: what it could get was
// returned (or stored) and Err says what failed. A poll that ends with one
// kept its pace; the cluster's health shows it as "partial".
type PartialError struct {
	Err error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

// IncompleteError is returned by Source.Detail with a checkpoint that holds
// part of its details: the vertices whose stats could not be fetched are
// marked Missing, and a later call with that checkpoint as the summary asks
// only for them.
type IncompleteError struct {
	// Missing are the vertex ids whose per-subtask stats did not come.
	Missing []string
	Err     error
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("per-subtask stats of %d vertex(es) not fetched: %v", len(e.Missing), e.Err)
}
func (e *IncompleteError) Unwrap() error { return e.Err }

// Source is one cluster's engine API, reduced to what the collector needs.
// Implementations spend the Budget they were built with on every request.
type Source interface {
	// Jobs lists the cluster's jobs (no graph). A *PartialError with jobs
	// means part of the list failed (e.g. the finished jobs): the jobs
	// returned are followed all the same.
	Jobs(ctx context.Context) ([]model.Job, error)
	// Job returns one job with its vertices and edges.
	Job(ctx context.Context, id string) (model.Job, error)
	// History is what the engine still remembers of the job's checkpoints: one request.
	History(ctx context.Context, job *model.Job) (model.History, error)
	// Detail returns a final checkpoint with its per-vertex and per-subtask
	// stats: at most 1 + V requests for V vertices. ErrGone if evicted; an
	// *IncompleteError with the checkpoint when some vertices failed. Given a
	// summary that holds partial details (DetailPartial), only the Missing
	// vertices are asked for.
	Detail(ctx context.Context, job *model.Job, summary model.Checkpoint) (model.Checkpoint, error)
	// Metrics returns backpressure and busy samples of the job's vertices
	// taken now (or the windows newer than sinceMs, for engines that keep them).
	Metrics(ctx context.Context, job *model.Job, sinceMs int64) ([]model.MetricSample, error)
	// Traits tells the collector how this engine behaves.
	Traits() Traits
}

// LogReader is implemented by sources whose engine keeps a log of every
// checkpoint beyond the history its API lists (Flink's JobManager log).
// The collector asks after each successful poll of a job; the source
// decides when the log is read again, which bounds its cost.
type LogReader interface {
	// LogCheckpoints returns the job's checkpoints the log holds when it
	// was read anew since the last call for this job (nil otherwise), and
	// the log's state. force asks for a read now (a job's first poll, the
	// final poll of a capture) within the source's limits. An error is a
	// problem worth the cluster's health (the user asked for the log).
	LogCheckpoints(ctx context.Context, job *model.Job, force bool) ([]model.Checkpoint, model.LogState, error)
}

// TriggerFailureReader is implemented by LogReaders whose log also says why
// a trigger failed before its checkpoint got an id (Flink's JobManager log):
// the engine counts those as failed, its history has nothing of them, and
// the reconciliation tells their reasons.
type TriggerFailureReader interface {
	// LogTriggerFailures returns the job's trigger failures in the log as
	// last read (any run of a reused job id), oldest first; false while the
	// log has not been read. It reads nothing itself.
	LogTriggerFailures(job *model.Job) ([]model.TriggerFailure, bool)
}

// ConfigReader is implemented by sources that can say how a job is
// configured for checkpointing (model.JobConfig: what the engine reports).
// The collector asks when it first polls a job, when the job's start time
// changed, and every Options.ConfigEvery after (Options.ConfigRetry after a
// failure); the
// requests are spent against the cluster's budget like any other, and the
// periodic re-read waits for spare budget. A failure never fails the poll.
type ConfigReader interface {
	// JobConfig returns the job's configuration; Cluster, JobID and SeenMs
	// are set by the collector.
	JobConfig(ctx context.Context, job *model.Job) (model.JobConfig, error)
}

// The defaults of how often a job's configuration is read again (a
// resubmission under the same id, a rescale with new settings), and how soon
// after a failed read.
const (
	DefaultConfigEvery = 10 * time.Minute
	DefaultConfigRetry = time.Minute
	// configRequests is what a configuration read costs at most (Flink: 3
	// requests, 4 when the per-job JobManager configuration is 404).
	configRequests = 4
)

// Traits are what the scheduler needs to know about an engine.
type Traits struct {
	// MetricsEvery is how often sampling metrics yields new information
	// (Flink: metrics.fetcher.update-interval, 10 s).
	MetricsEvery time.Duration
	// SampleInFlight asks for faster polls while a checkpoint runs, because
	// the engine exposes ack progress only as it happens (SeaTunnel).
	SampleInFlight bool
	// DefaultCapacity is the engine's history depth when History does not say.
	DefaultCapacity int
	// DetailRequests says Detail costs requests (Flink): details are then
	// fetched as time allows, and may be missed; otherwise Detail is free.
	DetailRequests bool
	// ListStaleness is how old the engine's checkpoint list may be when it
	// answers (Flink caches checkpoint statistics for web.refresh-interval,
	// 3 s): a job that ended, and the final poll of a capture, are polled
	// again after it so the last checkpoints are not missed.
	ListStaleness time.Duration
}

// Sink receives what the collector saw. store.Store is one.
type Sink interface {
	PutJob(ctx context.Context, j model.Job) error
	PutCheckpoints(ctx context.Context, cps []model.Checkpoint) error
	PutAckSamples(ctx context.Context, s []model.AckSample) error
	PutMetricSamples(ctx context.Context, s []model.MetricSample) error
	PutGaps(ctx context.Context, g []model.Gap) error
	LatestCheckpointID(ctx context.Context, cluster, jobID string, pipeline int) (int64, bool, error)
	// MarkDetailsMissed marks final summary-only checkpoints below belowID as
	// having missed their details (store.Store.MarkDetailsMissed).
	MarkDetailsMissed(ctx context.Context, cluster, jobID string, pipeline int, belowID int64) (int, error)
	// PutReconciliation keeps a job's latest reconciliation (after every
	// successful poll).
	PutReconciliation(ctx context.Context, r model.Reconciliation) error
	// MergeLogCheckpoints adds what the engine's log says of a job's
	// checkpoints (store.Store.MergeLogCheckpoints): ids below insertBelow
	// not stored are stored, stored ones gain what only the log has.
	MergeLogCheckpoints(ctx context.Context, cluster, jobID string, cps []model.Checkpoint, insertBelow int64) (model.LogMerge, error)
	// PutJobConfig keeps a job's configuration as read now; the sink keeps a
	// new history entry only when it differs from the latest
	// (model.JobConfig.SameSettings).
	PutJobConfig(ctx context.Context, c model.JobConfig) error
	// Job is the stored record of a job (an error when there is none).
	Job(ctx context.Context, cluster, jobID string) (model.Job, error)
	// KeepRunApart moves what is stored of the run prev to an id of its own
	// before a new run that took its id stores its checkpoints
	// (store.Store.KeepRunApart); "" when nothing was stored.
	KeepRunApart(ctx context.Context, prev model.Job, newStartMs int64) (string, error)
}

// HealthState is the state of a cluster's collection (Health.State).
type HealthState string

// The states of Health: see Health.State; a cluster not polled is idle, a capture offline.
const (
	HealthOK         HealthState = "ok"
	HealthPartial    HealthState = "partial"
	HealthError      HealthState = "error"
	HealthConnecting HealthState = "connecting"
	HealthIdle       HealthState = "idle"
	HealthOffline    HealthState = "offline"
)

// Health is a cluster's connection state.
type Health struct {
	// State is the worst of the cluster's pollers: error (a poll failed),
	// partial (polls work but some requests fail: details, metrics, the
	// finished jobs), ok, or connecting (nothing answered yet).
	State     HealthState `json:"state"`
	LastError string      `json:"last_error"`
	// Problems lists each failing part, naming the job and endpoint.
	Problems []string `json:"problems,omitempty"`
	// Missed is how many checkpoint ids the followed jobs' engines reported
	// that were not stored (gaps and unaccounted ids, this run).
	Missed         int64   `json:"missed,omitempty"`
	LastOKMs       int64   `json:"last_ok_ms"`
	RequestsPerSec float64 `json:"requests_per_sec"`
	Requests       int64   `json:"requests,omitempty"`
	// BudgetPerSec is the cluster's request budget; HeldBack the share of the
	// last minute's requests that waited for it (Budget.HeldBack).
	BudgetPerSec float64 `json:"budget_per_sec,omitempty"`
	HeldBack     float64 `json:"held_back,omitempty"`
	// BudgetLimited: HeldBack reached BudgetLimited, the budget sets the pace.
	BudgetLimited bool `json:"budget_limited,omitempty"`
}

// Target is one cluster to poll.
type Target struct {
	Name   string
	Source Source
	Budget *Budget
	// Key identifies the configuration; a changed key restarts the cluster's pollers.
	Key string
}

// Options configure a Manager.
type Options struct {
	Sink   Sink
	Logger *slog.Logger
	// OnStored is called after new checkpoints of a job were stored.
	OnStored func(cluster, jobID string)
	// OnHealth is called when a cluster's health state or error changes.
	OnHealth func(cluster string, h Health)
	// OnJob is called when a running job starts being followed.
	OnJob func(cluster, jobID string)
	// OnFirstPoll is called once per followed job, after its first poll
	// that stored what the engine lists (or partly did): what the cache
	// then lacks is what the engine no longer has.
	OnFirstPoll func(cluster, jobID string)
	// JobsEvery is how often the job list is refreshed (default 30 s).
	JobsEvery time.Duration
	// MinPoll and MaxPoll bound the adaptive poll interval (defaults 500 ms, 10 s).
	MinPoll, MaxPoll time.Duration
	// MaxBackoff caps the wait after repeated errors (default 60 s).
	MaxBackoff time.Duration
	// FollowJob, when set, limits polling to the jobs it accepts.
	FollowJob func(j model.Job) bool
	// RequestTimeout bounds one call to the engine (default 30 s); within
	// it, a call never outlives half the engine's history span, and never
	// less than MinRequestTimeout (default 2 s).
	RequestTimeout, MinRequestTimeout time.Duration
	// FinalPoll, when set, makes each job poller poll once more as the
	// manager stops, fetching the details still due within this time (the
	// end of a capture).
	FinalPoll time.Duration
	// ConfigEvery is how often a followed job's configuration is read again
	// (default DefaultConfigEvery); ConfigRetry how soon after a failed read
	// (default DefaultConfigRetry).
	ConfigEvery, ConfigRetry time.Duration
	Now                      func() time.Time
}

func (o *Options) fill() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.JobsEvery = positiveOr(o.JobsEvery, 30*time.Second)
	o.MinPoll = positiveOr(o.MinPoll, 500*time.Millisecond)
	o.MaxPoll = positiveOr(o.MaxPoll, 10*time.Second)
	o.MaxBackoff = positiveOr(o.MaxBackoff, 60*time.Second)
	o.RequestTimeout = positiveOr(o.RequestTimeout, 30*time.Second)
	o.MinRequestTimeout = min(positiveOr(o.MinRequestTimeout, 2*time.Second), o.RequestTimeout)
	o.ConfigEvery = positiveOr(o.ConfigEvery, DefaultConfigEvery)
	o.ConfigRetry = positiveOr(o.ConfigRetry, DefaultConfigRetry)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OnStored == nil {
		o.OnStored = func(string, string) {}
	}
	if o.OnHealth == nil {
		o.OnHealth = func(string, Health) {}
	}
}

// positiveOr is v, or d (the default) where v is not positive.
func positiveOr[T ~int | ~int64 | ~float64](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// Manager runs one poller per cluster (and, below it, one per job). Apply
// diffs a new set of targets against the running ones and touches only what
// changed, the way Prometheus' scrape manager does with its pools.
type Manager struct {
	opts Options
	ctx  context.Context

	mu       sync.Mutex
	clusters map[string]*clusterPoller
}

// NewManager creates a manager whose pollers live until ctx is done or Stop.
func NewManager(ctx context.Context, opts Options) *Manager {
	opts.fill()
	return &Manager{opts: opts, ctx: ctx, clusters: map[string]*clusterPoller{}}
}

// Apply starts pollers for new targets, restarts changed ones and stops removed ones.
func (m *Manager) Apply(targets []Target) {
	m.mu.Lock()
	defer m.mu.Unlock()
	want := map[string]Target{}
	for _, t := range targets {
		want[t.Name] = t
	}
	for name, cp := range m.clusters {
		if t, ok := want[name]; !ok || t.Key != cp.target.Key {
			cp.stop()
			delete(m.clusters, name)
		}
	}
	for name, t := range want {
		if _, ok := m.clusters[name]; ok {
			continue
		}
		cp := newClusterPoller(m.ctx, m.opts, t)
		m.clusters[name] = cp
		cp.start()
	}
}

// Source returns the source a cluster is polled with; false if it is not.
func (m *Manager) Source(name string) (Source, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp, ok := m.clusters[name]
	if !ok {
		return nil, false
	}
	return cp.target.Source, true
}

// Health returns a cluster's health; false if it is not being polled.
func (m *Manager) Health(name string) (Health, bool) {
	m.mu.Lock()
	cp, ok := m.clusters[name]
	m.mu.Unlock()
	if !ok {
		return Health{}, false
	}
	return cp.health(), true
}

// Stop stops every poller and waits for them.
func (m *Manager) Stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, cp := range m.clusters {
		cp.stop()
		delete(m.clusters, name)
	}
}

// clusterPoller discovers a cluster's jobs and runs a jobPoller for each.
type clusterPoller struct {
	opts   Options
	target Target
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	h    Health
	jobs map[string]*jobPoller
	// outcomes holds each poller's last outcome ("jobs" for the job list,
	// "job ID" for a job): health is the worst of them.
	outcomes map[string]error
}

// forget drops a job's poller so that the job is followed afresh if it reappears.
func (c *clusterPoller) forget(id string) {
	c.mu.Lock()
	delete(c.jobs, id)
	c.mu.Unlock()
}

func newClusterPoller(parent context.Context, opts Options, t Target) *clusterPoller {
	ctx, cancel := context.WithCancel(parent)
	return &clusterPoller{
		opts: opts, target: t, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		h: Health{State: HealthConnecting}, jobs: map[string]*jobPoller{}, outcomes: map[string]error{},
	}
}

func (c *clusterPoller) start() { go c.run() }

func (c *clusterPoller) stop() {
	c.cancel()
	<-c.done
}

func (c *clusterPoller) health() Health {
	c.mu.Lock()
	h := c.h
	h.Problems = slices.Clone(c.h.Problems)
	jobs := make([]*jobPoller, 0, len(c.jobs))
	for _, jp := range c.jobs {
		jobs = append(jobs, jp)
	}
	c.mu.Unlock()
	for _, jp := range jobs {
		h.Missed += jp.reconciliation().Missed()
	}
	if c.target.Budget != nil {
		h.RequestsPerSec = c.target.Budget.Rate()
		h.Requests = c.target.Budget.Total()
		h.BudgetPerSec = c.target.Budget.Options().RequestsPerSecond
		h.HeldBack = c.target.Budget.HeldBack()
		h.BudgetLimited = h.HeldBack >= BudgetLimited
	}
	return h
}

// report records one poller's outcome (key "jobs" or "job ID") and tells
// listeners when the cluster's state or errors changed.
func (c *clusterPoller) report(key string, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	c.mu.Lock()
	c.outcomes[key] = err
	changed := c.recompute()
	h := c.h
	c.mu.Unlock()
	if changed {
		c.opts.OnHealth(c.target.Name, h)
	}
}

// drop forgets a poller that stopped.
func (c *clusterPoller) drop(key string) {
	c.mu.Lock()
	_, had := c.outcomes[key]
	delete(c.outcomes, key)
	changed := had && c.recompute()
	h := c.h
	c.mu.Unlock()
	if changed && c.ctx.Err() == nil {
		c.opts.OnHealth(c.target.Name, h)
	}
}

// recompute derives the health from the outcomes; c.mu is held.
func (c *clusterPoller) recompute() bool {
	old := c.h
	keys := make([]string, 0, len(c.outcomes))
	for k := range c.outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	state, lastErr := HealthOK, ""
	var problems []string
	for _, k := range keys {
		err := c.outcomes[k]
		if err == nil {
			continue
		}
		var partial *PartialError
		if errors.As(err, &partial) {
			if state == "ok" {
				state, lastErr = HealthPartial, err.Error()
			}
		} else if state != "error" {
			state, lastErr = HealthError, err.Error()
		}
		problems = append(problems, k+": "+err.Error())
	}
	if len(keys) == 0 {
		state = old.State
	}
	c.h.State, c.h.LastError, c.h.Problems = state, lastErr, problems
	if state == HealthOK || state == HealthPartial {
		c.h.LastOKMs = c.opts.Now().UnixMilli()
	}
	return old.State != c.h.State || old.LastError != c.h.LastError || !slices.Equal(old.Problems, c.h.Problems)
}

func (c *clusterPoller) run() {
	defer close(c.done)
	var wg sync.WaitGroup
	defer wg.Wait()
	bo := backoff{max: c.opts.MaxBackoff}
	for {
		wait := c.opts.JobsEvery
		jobs, err := c.listJobs()
		if c.ctx.Err() != nil {
			return
		}
		c.report("jobs", err)
		var partial *PartialError
		switch {
		case errors.As(err, &partial):
			// Part of the list failed: follow what came, try the rest again soon.
			c.opts.Logger.Warn("list jobs incomplete", "cluster", c.target.Name, "err", err)
			c.syncJobs(jobs, &wg)
			wait = min(wait, bo.next())
		case err != nil:
			c.opts.Logger.Warn("list jobs failed", "cluster", c.target.Name, "err", err)
			// Soon enough that a job started during an outage is found
			// before its first checkpoints leave the engine's history.
			wait = min(bo.next(), max(c.opts.MinPoll, min(jobsRetryCap, c.opts.JobsEvery)))
		default:
			bo.reset()
			c.syncJobs(jobs, &wg)
		}
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// jobsRetryCap bounds the wait after a failed job list.
const jobsRetryCap = 5 * time.Second

// listJobs lists the cluster's jobs under the request timeout.
func (c *clusterPoller) listJobs() ([]model.Job, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.RequestTimeout)
	defer cancel()
	return c.target.Source.Jobs(ctx)
}

// syncJobs starts a poller for each running job not yet followed. Jobs that
// already ended are read once each, one at a time, so that a cluster with a
// long job history does not starve the running jobs of the request budget.
func (c *clusterPoller) syncJobs(jobs []model.Job, wg *sync.WaitGroup) {
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].ID < jobs[j].ID })
	var ended []*jobPoller
	for _, j := range jobs {
		if c.opts.FollowJob != nil && !c.opts.FollowJob(j) {
			continue
		}
		c.mu.Lock()
		jp, ok := c.jobs[j.ID]
		c.mu.Unlock()
		if ok && !(jp.exited.Load() && !model.JobEnded(j.State)) {
			if !model.NewRun(model.Job{StartMs: jp.startMs.Load()}, j.StartMs) {
				jp.setState(j.State)
				continue
			}
			// A new run took the id while its poller followed the old one:
			// that one stops, a poller of its own follows the new run.
			jp.replaced.Store(true)
		}
		// New, or running again under the same id (resubmitted from a
		// savepoint after it ended): follow it afresh.
		jp = newJobPoller(c, j)
		c.mu.Lock()
		c.jobs[j.ID] = jp
		c.mu.Unlock()
		if model.JobEnded(j.State) {
			ended = append(ended, jp)
			continue
		}
		if c.opts.OnJob != nil {
			c.opts.OnJob(c.target.Name, j.ID)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			jp.run()
		}()
	}
	if len(ended) > 0 {
		// Most recently ended first: the likeliest to be looked at.
		sort.SliceStable(ended, func(i, j int) bool { return ended[i].job.EndMs > ended[j].job.EndMs })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, jp := range ended {
				if c.ctx.Err() != nil {
					return
				}
				jp.run()
			}
		}()
	}
}

// backoff doubles the wait after each error, from 1 s up to max.
type backoff struct {
	cur, max time.Duration
}

func (b *backoff) next() time.Duration {
	if b.cur == 0 {
		b.cur = time.Second
	} else {
		b.cur *= 2
	}
	if b.cur > b.max {
		b.cur = b.max
	}
	return b.cur
}

func (b *backoff) reset() { b.cur = 0 }

// retryWait is the wait after a failed job poll: doubling from 250 ms, but
// never beyond a cap that keeps the next try inside the engine's history
// span, and jittered by ±20 % so that pollers of one cluster spread out.
type retryWait struct {
	cur time.Duration
}

func (r *retryWait) next(limit, maxBackoff time.Duration) time.Duration {
	if r.cur == 0 {
		r.cur = 250 * time.Millisecond
	} else {
		r.cur *= 2
	}
	r.cur = min(r.cur, limit, maxBackoff)
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(r.cur) * jitter)
}

func (r *retryWait) reset() { r.cur = 0 }
