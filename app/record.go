package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
)

// RecordOptions say what `capture` records: one job of one cluster, for a
// while, into a capture file, without the cache.
type RecordOptions struct {
	Cluster model.Cluster
	// JobID is the job to record; empty with NewJobs records every job that
	// starts while the recording runs.
	JobID   string
	NewJobs bool
	// NamePrefix, with NewJobs, records only jobs whose name starts with it.
	NamePrefix string
	Duration   time.Duration
	Out        string
	Logger     *slog.Logger
	// Every is how often Progress is called (default 1 s).
	Every    time.Duration
	Progress func(RecordProgress)
	// JobsEvery overrides how often the job list is read (default 30 s).
	JobsEvery time.Duration
	// PromEvery is how often, with Cluster.PrometheusURL set, the followed
	// jobs' backpressure is read from Prometheus (default 30 s, at least 1 s).
	PromEvery time.Duration
}

// captureFinalPoll bounds the last poll of each job when a recording stops
// (its duration reached, or Ctrl-C): the checkpoints that ended in its last
// seconds and their details are fetched within it, then the file is closed.
const captureFinalPoll = 10 * time.Second

// Prometheus reads while recording.
const (
	DefaultPromEvery = 30 * time.Second
	// promFinalTimeout bounds the read of the tail after the recording stopped
	// (also after Ctrl-C): long enough for one range query, short enough not
	// to keep an interrupted command waiting.
	promFinalTimeout = 10 * time.Second
	// promSettleMs holds back points this close to now until the next read: the
	// scrape that lands on them may not be stored yet, and a point is written once.
	promSettleMs = 5_000
)

// RecordProgress is what `capture` shows while it runs.
type RecordProgress struct {
	Checkpoints int64 `json:"checkpoints"`
	Failed      int64 `json:"failed"`
	Gaps        int64 `json:"gaps"`
	// EngineCounted is how many checkpoints the engine counted over the ids
	// recorded (-1 unknown); Missed the ids it reported that the file does
	// not hold (gaps and unaccounted ids); InProgress those still running at
	// the last poll. From the jobs' reconciliations, summed.
	EngineCounted int64               `json:"engine_counted"`
	Missed        int64               `json:"missed"`
	Unaccounted   int64               `json:"unaccounted"`
	MetricSamples int64               `json:"metric_samples"`
	Requests      int64               `json:"requests"`
	Elapsed       time.Duration       `json:"elapsed"`
	Remaining     time.Duration       `json:"remaining"`
	Health        collect.HealthState `json:"health"`
	LastError     string              `json:"last_error,omitempty"`
	// PromSamples are the metric samples read from Prometheus (also counted in
	// MetricSamples); PromRequests the requests sent to it, the check included.
	PromSamples  int `json:"prom_samples,omitempty"`
	PromRequests int `json:"prom_requests,omitempty"`
	// PromError is the last Prometheus read's error; empty once a read succeeds.
	PromError string `json:"prom_error,omitempty"`
}

// captureSink is a collector sink that appends to a capture file. Only final
// checkpoints are written: a capture holds each checkpoint once. For engines
// whose details cost requests (Flink), a final checkpoint stored without its
// details (they were deferred, or their request failed) or with part of them
// is held back until they come, or until it is far enough behind the newest
// that the collector no longer asks, or until the file is closed.
type captureSink struct {
	// holdDetails: the engine's details come after the summary (Flink).
	holdDetails bool
	held        map[string]*model.Checkpoint // job/pipeline/id → waiting for details
	mu          sync.Mutex
	w           *capture.Writer
	jobs        map[string]bool
	order       []string         // job ids in the order first seen, for the Prometheus reads
	latest      map[string]int64 // job/pipeline → highest final id written
	seen        map[string]bool  // job/pipeline/id written
	// logged holds the ids (job/pipeline/id) the JobManager log has given
	// its part for; a job whose log is being read has its checkpoints held
	// until then, so that each is written once, with its finalize time.
	logged  map[string]bool
	withLog bool // the source reads a JobManager log
	recon   map[string]model.Reconciliation
	// configs holds each job's configuration last written: one that says
	// the same again is not written twice.
	configs map[string]model.JobConfig
	p       RecordProgress
}

// PutJobConfig writes a job's configuration when it differs from the one
// last written for the job (the file keeps its history, like the cache).
func (s *captureSink) PutJobConfig(_ context.Context, c model.JobConfig) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.configs[c.JobID]; ok && prev.SameSettings(c) {
		return nil
	}
	if err := s.w.JobConfig(c); err != nil {
		return err
	}
	if s.configs == nil {
		s.configs = map[string]model.JobConfig{}
	}
	s.configs[c.JobID] = c
	return nil
}

// PutReconciliation keeps each job's latest, for progress and the file's end.
func (s *captureSink) PutReconciliation(_ context.Context, r model.Reconciliation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recon[r.JobID] = r
	s.p.EngineCounted, s.p.Missed, s.p.Unaccounted = 0, 0, 0
	for _, r := range s.recon {
		if r.EngineCounted < 0 || s.p.EngineCounted < 0 {
			s.p.EngineCounted = -1
		} else {
			s.p.EngineCounted += r.EngineCounted
		}
		s.p.Missed += r.Missed()
		s.p.Unaccounted += r.Unaccounted
	}
	return nil
}

// finish writes what is still held and each job's last reconciliation,
// before the end record.
func (s *captureSink) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writeHeld(true); err != nil {
		return err
	}
	ids := make([]string, 0, len(s.recon))
	for id := range s.recon {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := s.w.Reconciliation(s.recon[id]); err != nil {
			return err
		}
	}
	return nil
}

func sinkKey(job string, pipeline int) string { return fmt.Sprintf("%s/%d", job, pipeline) }

func (s *captureSink) PutJob(_ context.Context, j model.Job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[j.ID+"/"+j.State] {
		return nil
	}
	if !slices.Contains(s.order, j.ID) {
		s.order = append(s.order, j.ID)
	}
	s.jobs[j.ID+"/"+j.State] = true
	return s.w.Job(j)
}

// followed returns the ids of the jobs written so far.
func (s *captureSink) followed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

// putPromSamples writes samples read from Prometheus, calling done after each
// one written (so a failed write leaves the rest to be retried, none twice).
func (s *captureSink) putPromSamples(ms []model.MetricSample, done func(model.MetricSample)) error {
	return s.writeMetrics(ms, true, done)
}

// writeMetrics writes metric samples and counts them (prom: read from
// Prometheus by the recorder, not by the collector).
func (s *captureSink) writeMetrics(ms []model.MetricSample, prom bool, done func(model.MetricSample)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if err := s.w.MetricSample(m); err != nil {
			return err
		}
		s.p.MetricSamples++
		if prom {
			s.p.PromSamples++
		}
		if done != nil {
			done(m)
		}
	}
	return nil
}

// holdBehind is how far behind the newest written id a held checkpoint is
// written as it is: beyond any engine's history depth, so no details can come.
const holdBehind = 256

func (s *captureSink) PutCheckpoints(_ context.Context, cps []model.Checkpoint) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range cps {
		c := &cps[i]
		if !c.Status.Final() {
			continue
		}
		k := fmt.Sprintf("%s/%d/%d", c.JobID, c.Pipeline, c.ID)
		if s.seen[k] {
			continue
		}
		held := *c
		if prev, ok := s.held[k]; ok {
			addLog(&held, prev) // keep what the log gave an earlier view
		}
		s.held[k] = &held // the newest view wins until written
	}
	return s.writeHeld(false)
}

// awaitsDetails tells whether a held checkpoint still waits for its details.
func (s *captureSink) awaitsDetails(c *model.Checkpoint) bool {
	return s.holdDetails && (len(c.Tasks) == 0 && c.DetailLoss == "" || c.DetailLoss == model.DetailPartial)
}

func (s *captureSink) writeCheckpoint(k string, c *model.Checkpoint) error {
	if err := s.w.Checkpoint(c); err != nil {
		return err
	}
	s.seen[k] = true
	pk := sinkKey(c.JobID, c.Pipeline)
	s.latest[pk] = max(s.latest[pk], c.ID)
	delete(s.logged, k)
	s.p.Checkpoints++
	if c.Status == model.StatusFailed {
		s.p.Failed++
	}
	return nil
}

// writeHeld writes the held checkpoints too far behind for details to come
// (all of them when closing: those still without details are marked missed).
// s.mu is held.
func (s *captureSink) writeHeld(closing bool) error {
	keys := make([]string, 0, len(s.held))
	for k, c := range s.held {
		if closing || c.ID < s.latest[sinkKey(c.JobID, c.Pipeline)]-holdBehind || !s.awaitsDetails(c) && !s.awaitsLog(k, c) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		ca, cb := s.held[a], s.held[b]
		return cmp.Or(strings.Compare(ca.JobID, cb.JobID), cmp.Compare(ca.Pipeline, cb.Pipeline), cmp.Compare(ca.ID, cb.ID))
	})
	for _, k := range keys {
		c := s.held[k]
		if s.awaitsDetails(c) && c.DetailLoss == "" {
			c.DetailLoss = model.DetailMissed
		}
		delete(s.held, k)
		if err := s.writeCheckpoint(k, c); err != nil {
			return err
		}
	}
	return nil
}

func (s *captureSink) PutAckSamples(_ context.Context, as []model.AckSample) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range as {
		if err := s.w.AckSample(a); err != nil {
			return err
		}
	}
	return nil
}

func (s *captureSink) PutMetricSamples(_ context.Context, ms []model.MetricSample) error {
	return s.writeMetrics(ms, false, nil)
}

func (s *captureSink) PutGaps(_ context.Context, gs []model.Gap) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range gs {
		if err := s.w.Gap(g); err != nil {
			return err
		}
		s.p.Gaps += g.Count()
	}
	return nil
}

// MergeLogCheckpoints takes what the JobManager log adds: a checkpoint held
// gains it (and may now be written); one not seen, below insertBelow, is
// written from the log. Checkpoints already written are not written again:
// a capture holds each checkpoint once.
func (s *captureSink) MergeLogCheckpoints(_ context.Context, _, jobID string, cps []model.Checkpoint, insertBelow int64) (model.LogMerge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var m model.LogMerge
	if s.logged == nil {
		s.logged = map[string]bool{}
	}
	for i := range cps {
		c := cps[i]
		k := fmt.Sprintf("%s/%d/%d", jobID, 0, c.ID)
		if h, ok := s.held[k]; ok {
			if model.SameTrigger(h.TriggerMs, c.TriggerMs) {
				addLog(h, &c)
				s.logged[k] = true
				m.Updated++
			}
			continue
		}
		if s.seen[k] || c.ID >= insertBelow {
			continue
		}
		c.JobID = jobID
		if err := s.writeCheckpoint(k, &c); err != nil {
			return m, err
		}
		m.Added = append(m.Added, c.ID)
	}
	return m, s.writeHeld(false)
}

// awaitsLog tells whether a held checkpoint still waits for the JobManager
// log: its job's log is being read and has not given its part yet.
func (s *captureSink) awaitsLog(k string, c *model.Checkpoint) bool {
	if !s.withLog || s.logged[k] {
		return false
	}
	r, ok := s.recon[c.JobID]
	if !ok {
		return true // the job's first poll: its log is read in the same poll
	}
	return r.Log != nil && (r.Log.State == model.LogRead || r.Log.State == model.LogWaiting)
}

// addLog adds to c what only the JobManager log has (as the store's merge does).
func addLog(c, log *model.Checkpoint) {
	if c.FinalizeMs == nil && log.FinalizeMs != nil {
		f := *log.FinalizeMs
		c.FinalizeMs = &f
	}
	if c.CompletionMs == 0 {
		c.CompletionMs = log.CompletionMs
	}
	if c.FailureCause == "" {
		c.FailureCause = log.FailureCause
	}
	if c.Declined == nil && log.Declined != nil {
		d := *log.Declined
		c.Declined = &d
	}
	if c.FailureMessage == "" {
		c.FailureMessage = log.FailureMessage
	}
}

// MarkDetailsMissed has nothing to mark: a recording starts from an empty file.
func (s *captureSink) MarkDetailsMissed(context.Context, string, string, int, int64) (int, error) {
	return 0, nil
}

func (s *captureSink) LatestCheckpointID(_ context.Context, _, jobID string, pipeline int) (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.latest[sinkKey(jobID, pipeline)]
	return id, ok, nil
}

// Record follows one job of a live cluster for a while and writes what it
// sees to a capture file, within the same request budget as the collector.
// Cancelling ctx (Ctrl-C) stops early and keeps what was recorded: the file
// is always complete and readable.
//
// With Cluster.PrometheusURL set, the jobs' backpressure is read from
// Prometheus too: checked up front (an error before any file is written),
// then one range query per job every PromEvery, and one for the tail after
// the stop. Prometheus failing costs backpressure, never checkpoints: it is
// retried, and reported in RecordProgress.PromError.
func Record(ctx context.Context, o RecordOptions) (RecordProgress, error) {
	if (o.JobID == "") == !o.NewJobs || o.Out == "" {
		return RecordProgress{}, errors.New("capture: give a job id or ask for new jobs, and an output file")
	}
	if o.Duration <= 0 {
		return RecordProgress{}, errors.New("capture: the duration must be positive")
	}
	if o.Cluster.Name == "" {
		o.Cluster.Name = "recorded"
	}
	if err := validateCluster(o.Cluster); err != nil {
		return RecordProgress{}, fmt.Errorf("capture: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Every <= 0 {
		o.Every = time.Second
	}
	if o.NewJobs && o.JobsEvery <= 0 {
		o.JobsEvery = 5 * time.Second // a new job's first checkpoints go fast
	}
	if o.PromEvery <= 0 {
		o.PromEvery = DefaultPromEvery
	}
	o.PromEvery = max(o.PromEvery, time.Second)
	target, err := newTarget(o.Cluster, nil, 0)
	if err != nil {
		return RecordProgress{}, fmt.Errorf("capture: %w", err)
	}
	var pr *promReader
	if o.Cluster.PrometheusURL != "" {
		// Checked before the file exists: a wrong URL costs nothing to fix.
		if pr, err = newPromReader(ctx, o); err != nil {
			return RecordProgress{}, err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.Out), ".capture-*.ckpt.gz")
	if err != nil {
		return RecordProgress{}, fmt.Errorf("capture: %w", err)
	}
	defer os.Remove(tmp.Name())
	host, _ := os.Hostname()
	w, err := capture.NewWriter(tmp, capture.Header{
		RecordedBy: "checkpoint-explorer capture", RecordedAt: time.Now().UTC(), AppVersion: BuildVersion, Host: host,
		Note: recordNote(o),
	})
	if err != nil {
		tmp.Close()
		return RecordProgress{}, err
	}
	sink := &captureSink{w: w, jobs: map[string]bool{}, latest: map[string]int64{}, seen: map[string]bool{},
		holdDetails: target.Source.Traits().DetailRequests, held: map[string]*model.Checkpoint{},
		recon: map[string]model.Reconciliation{}, configs: map[string]model.JobConfig{}, p: RecordProgress{EngineCounted: -1}}
	if _, ok := target.Source.(collect.LogReader); ok && o.Cluster.JobManagerLog != model.JobManagerLogOff {
		sink.withLog = true
	}
	if err := w.Cluster(o.Cluster.Public()); err != nil {
		tmp.Close()
		return RecordProgress{}, err
	}

	start := time.Now()
	runCtx, stop := context.WithTimeout(ctx, o.Duration)
	defer stop()
	var promDone chan struct{}
	if pr != nil {
		pr.sink, pr.fromMs = sink, start.UnixMilli()
		promDone = make(chan struct{})
		go func() {
			defer close(promDone)
			pr.run(runCtx, o.PromEvery)
		}()
	}
	m := collect.NewManager(runCtx, collect.Options{
		Sink: sink, Logger: o.Logger, JobsEvery: o.JobsEvery, FinalPoll: captureFinalPoll,
		FollowJob: func(j model.Job) bool {
			if o.NewJobs {
				return j.StartMs >= start.Add(-5*time.Second).UnixMilli() && strings.HasPrefix(j.Name, o.NamePrefix)
			}
			return j.ID == o.JobID
		},
	})
	m.Apply([]collect.Target{target})
	progress := func() RecordProgress {
		sink.mu.Lock()
		p := sink.p
		// Held checkpoints (waiting for details or the JobManager log) are
		// recorded too: they are written before the file closes.
		for _, c := range sink.held {
			p.Checkpoints++
			if c.Status == model.StatusFailed {
				p.Failed++
			}
		}
		sink.mu.Unlock()
		p.Elapsed = time.Since(start).Round(time.Second)
		p.Remaining = max(0, o.Duration-time.Since(start)).Round(time.Second)
		if h, ok := m.Health(o.Cluster.Name); ok {
			p.Requests, p.Health, p.LastError = h.Requests, h.State, h.LastError
		}
		if pr != nil {
			p.PromRequests, p.PromError = pr.status()
		}
		return p
	}
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
loop:
	for {
		select {
		case <-runCtx.Done():
			break loop
		case <-tick.C:
			if o.Progress != nil {
				o.Progress(progress())
			}
		}
	}
	stopMs := time.Now().UnixMilli()
	if pr != nil {
		<-promDone
	}
	last := progress()
	if pr != nil {
		// The tail since the last read, even after Ctrl-C, read right at the
		// stop (before the collector's final poll, which waits out Flink's
		// statistics cache); a failure here is reported in the result and
		// costs only the tail.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), promFinalTimeout)
		pr.read(fctx, stopMs, true)
		cancel()
	}
	m.Stop()
	// The final polls ran in Stop: their writes count.
	final := progress()
	final.Requests, final.Health, final.LastError = last.Requests, last.Health, last.LastError
	if target.Budget != nil {
		final.Requests = target.Budget.Total() // the final polls' requests included
	}
	err = sink.finish()
	if err == nil {
		err = w.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return final, fmt.Errorf("capture: write %s: %w", o.Out, err)
	}
	if err := os.Rename(tmp.Name(), o.Out); err != nil {
		return final, fmt.Errorf("capture: %w", err)
	}
	return final, nil
}

func recordNote(o RecordOptions) string {
	if o.NewJobs {
		return fmt.Sprintf("jobs started during a recording of up to %s", o.Duration)
	}
	return fmt.Sprintf("job %s recorded for up to %s", o.JobID, o.Duration)
}

// promReader reads the recorded jobs' backpressure from Prometheus while a
// recording runs: one range query per job per period over the window since
// the last successful read, each point written once.
type promReader struct {
	client   *prometheus.Client
	sink     *captureSink
	log      *slog.Logger
	jobID    string // the job asked for, read even before the collector has seen it
	requests atomic.Int64

	mu      sync.Mutex       // guards the fields below: read by progress while a read runs
	fromMs  int64            // the recording start: no point before it is written
	next    map[string]int64 // job → start of its next window; absent = fromMs
	written map[promSeries]int64
	lastErr string
}

// promSeries identifies one series of points; written maps it to the time of
// the newest point written, so windows may overlap without duplicates.
type promSeries struct {
	job, vertex, target, metric, agg string
	subtask                          int
}

func newPromReader(ctx context.Context, o RecordOptions) (*promReader, error) {
	if o.Cluster.Engine != model.EngineFlink {
		return nil, fmt.Errorf("capture: Prometheus %s: only Flink's per-job backpressure can be read from Prometheus; "+
			"SeaTunnel's telemetry is cluster-level (record without --prometheus)", restclient.RedactURL(o.Cluster.PrometheusURL))
	}
	pr := &promReader{log: o.Logger, jobID: o.JobID, next: map[string]int64{}, written: map[promSeries]int64{}}
	cfg, err := connect.PrometheusConfig(o.Cluster)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	cfg.OnRequest = func(prometheus.RequestInfo) { pr.requests.Add(1) }
	if pr.client, err = prometheus.New(cfg); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if err := pr.client.Check(ctx); err != nil {
		// The client's error names the URL and what is wrong (refused, 401, not Prometheus...).
		return nil, fmt.Errorf("capture: cannot read backpressure from Prometheus: %w", err)
	}
	pr.client = connect.AtScrapeInterval(ctx, pr.client, pr.log)
	return pr, nil
}

// run reads every period until ctx ends; the final read is the caller's.
func (r *promReader) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.read(ctx, now.UnixMilli(), false)
		}
	}
}

// jobs are the jobs to read: the one asked for and every one the collector followed.
func (r *promReader) jobs() []string {
	jobs := r.sink.followed()
	if r.jobID != "" && !slices.Contains(jobs, r.jobID) {
		jobs = append([]string{r.jobID}, jobs...)
	}
	return jobs
}

// read fetches, for each job, the window from where its last successful read
// ended to nowMs, and writes the points not written before. A failed job keeps
// its window, so the next period asks for it again. A periodic read writes
// points up to promSettleMs before now and reads at most MaxPoints steps
// (catching up after an outage at full resolution, one request a period); the
// final read writes everything the answer holds, the tail included.
func (r *promReader) read(ctx context.Context, nowMs int64, final bool) {
	maxWindow := prometheus.MaxPoints * r.client.MinStep().Milliseconds()
	var errs []string // this round's, one per failed job; none clears the last error
	defer func() {
		if ctx.Err() != nil && !final {
			return
		}
		r.mu.Lock()
		r.lastErr = strings.Join(errs, "; ")
		r.mu.Unlock()
	}()
	for _, job := range r.jobs() {
		r.mu.Lock()
		from, ok := r.next[job]
		if !ok {
			from = r.fromMs
		}
		r.mu.Unlock()
		// The final read keeps every point of the answer: the one past the stop
		// (at most a step later) summarises the data up to the stop, the tail.
		to, cutoff := nowMs, int64(math.MaxInt64)
		if !final {
			to = min(to, from+maxWindow)
			cutoff = min(to, nowMs-promSettleMs)
		}
		if to <= from {
			continue
		}
		samples, err := r.client.Backpressure(ctx, job, from, to)
		if err != nil && ctx.Err() != nil && !final {
			return // stopping: the final read takes this window
		}
		if err != nil && !errors.Is(err, prometheus.ErrPartial) {
			errs = append(errs, r.fail(job, final, err))
			continue
		}
		keep := samples[:0]
		r.mu.Lock()
		for _, s := range samples {
			last, seen := r.written[seriesOf(s)]
			if s.TimeMs >= r.fromMs && (!seen || s.TimeMs > last) && s.TimeMs <= cutoff {
				keep = append(keep, s)
			}
		}
		r.mu.Unlock()
		werr := r.sink.putPromSamples(keep, func(s model.MetricSample) {
			r.mu.Lock()
			r.written[seriesOf(s)] = s.TimeMs
			r.mu.Unlock()
		})
		if werr != nil {
			errs = append(errs, r.fail(job, final, fmt.Errorf("write: %w", werr)))
			continue
		}
		if !final && cutoff > from {
			r.mu.Lock()
			r.next[job] = cutoff
			r.mu.Unlock()
		}
		if err != nil { // partial data: kept, and said
			r.log.Warn("Prometheus answered with partial data", "job", job, "err", err)
			errs = append(errs, err.Error())
		}
	}
}

// fail logs a job's failed read and returns what progress shows of it.
func (r *promReader) fail(job string, final bool, err error) string {
	what := "reading backpressure from Prometheus failed; retrying next period"
	if final {
		what = "reading the last backpressure from Prometheus failed; the recording is kept without it"
		err = fmt.Errorf("final read: %w", err)
	}
	r.log.Warn(what, "job", job, "err", err)
	return err.Error()
}

// status returns the requests sent so far and the last error.
func (r *promReader) status() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(r.requests.Load()), r.lastErr
}

func seriesOf(s model.MetricSample) promSeries {
	return promSeries{job: s.JobID, vertex: s.VertexID, target: s.Target, metric: s.Metric, agg: s.Agg, subtask: s.Subtask}
}
