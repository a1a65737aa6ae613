package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
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
}

// RecordProgress is what `capture` shows while it runs.
type RecordProgress struct {
	Checkpoints   int64         `json:"checkpoints"`
	Failed        int64         `json:"failed"`
	Gaps          int64         `json:"gaps"`
	MetricSamples int64         `json:"metric_samples"`
	Requests      int64         `json:"requests"`
	Elapsed       time.Duration `json:"elapsed"`
	Remaining     time.Duration `json:"remaining"`
	Health        string        `json:"health"`
	LastError     string        `json:"last_error,omitempty"`
}

// captureSink is a collector sink that appends to a capture file. Only final
// checkpoints are written: a capture holds each checkpoint once.
type captureSink struct {
	mu     sync.Mutex
	w      *capture.Writer
	jobs   map[string]bool
	latest map[string]int64 // job/pipeline → highest final id written
	seen   map[string]bool  // job/pipeline/id written
	p      RecordProgress
}

func sinkKey(job string, pipeline int) string { return fmt.Sprintf("%s/%d", job, pipeline) }

func (s *captureSink) PutJob(_ context.Context, j model.Job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[j.ID+"/"+j.State] {
		return nil
	}
	s.jobs[j.ID+"/"+j.State] = true
	return s.w.Job(j)
}

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
		if err := s.w.Checkpoint(c); err != nil {
			return err
		}
		s.seen[k] = true
		pk := sinkKey(c.JobID, c.Pipeline)
		s.latest[pk] = max(s.latest[pk], c.ID)
		s.p.Checkpoints++
		if c.Status == model.StatusFailed {
			s.p.Failed++
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
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if err := s.w.MetricSample(m); err != nil {
			return err
		}
		s.p.MetricSamples++
	}
	return nil
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
	target, err := newTarget(o.Cluster, nil)
	if err != nil {
		return RecordProgress{}, fmt.Errorf("capture: %w", err)
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
	sink := &captureSink{w: w, jobs: map[string]bool{}, latest: map[string]int64{}, seen: map[string]bool{}}
	if err := w.Cluster(o.Cluster.Public()); err != nil {
		tmp.Close()
		return RecordProgress{}, err
	}

	start := time.Now()
	runCtx, stop := context.WithTimeout(ctx, o.Duration)
	defer stop()
	m := collect.NewManager(runCtx, collect.Options{
		Sink: sink, Logger: o.Logger, JobsEvery: o.JobsEvery,
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
		sink.mu.Unlock()
		p.Elapsed = time.Since(start).Round(time.Second)
		p.Remaining = max(0, o.Duration-time.Since(start)).Round(time.Second)
		if h, ok := m.Health(o.Cluster.Name); ok {
			p.Requests, p.Health, p.LastError = h.Requests, h.State, h.LastError
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
	last := progress()
	m.Stop()
	// Pollers may have finished a write between the last look and Stop.
	final := progress()
	final.Requests, final.Health, final.LastError = last.Requests, last.Health, last.LastError
	err = w.Close()
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
