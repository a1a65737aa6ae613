// Package record records a live cluster into a capture file, without the
// cache: the collector (backend/collect) polling the cluster into a capture
// sink (capture.Sink), with the jobs' backpressure read from the cluster's
// Prometheus beside it (Record); or one job read from a tracing backend
// alone (Traces).
package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
)

// Options say what Record records: one job of one cluster, for a
// while, into a capture file, without the cache.
type Options struct {
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
	Progress func(Progress)
	// JobsEvery overrides how often the job list is read (default 30 s).
	JobsEvery time.Duration
	// PromEvery is how often, with Cluster.PrometheusURL set, the followed
	// jobs' backpressure is read from Prometheus (default 30 s, at least 1 s).
	PromEvery time.Duration
	// AppVersion is written in the file's header.
	AppVersion string
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

// Progress is what a recording has done, as `capture` shows it while it runs.
type Progress struct {
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

// Record follows one job of a live cluster for a while and writes what it
// sees to a capture file, within the same request budget as the collector.
// Cancelling ctx (Ctrl-C) stops early and keeps what was recorded: the file
// is always complete and readable.
//
// With Cluster.PrometheusURL set, the jobs' backpressure is read from
// Prometheus too: checked up front (an error before any file is written),
// then one range query per job every PromEvery, and one for the tail after
// the stop. Prometheus failing costs backpressure, never checkpoints: it is
// retried, and reported in Progress.PromError.
func Record(ctx context.Context, o Options) (Progress, error) {
	if (o.JobID == "") == !o.NewJobs || o.Out == "" {
		return Progress{}, errors.New("capture: give a job id or ask for new jobs, and an output file")
	}
	if o.Duration <= 0 {
		return Progress{}, errors.New("capture: the duration must be positive")
	}
	if o.Cluster.Name == "" {
		o.Cluster.Name = "recorded"
	}
	if err := connect.Check(o.Cluster); err != nil {
		return Progress{}, fmt.Errorf("capture: %w", err)
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
	target, err := connect.Target(o.Cluster, connect.Options{})
	if err != nil {
		return Progress{}, fmt.Errorf("capture: %w", err)
	}
	var pr *promReader
	if o.Cluster.PrometheusURL != "" {
		// Checked before the file exists: a wrong URL costs nothing to fix.
		if pr, err = newPromReader(ctx, o); err != nil {
			return Progress{}, err
		}
	}
	out, err := createOut(o.Out, capture.Header{RecordedAt: time.Now().UTC(), AppVersion: o.AppVersion, Note: recordNote(o)})
	if err != nil {
		return Progress{}, err
	}
	defer out.discard()
	w := out.w
	_, logReader := target.Source.(collect.LogReader)
	sink := capture.NewSink(w, capture.SinkOptions{HoldDetails: target.Source.Traits().DetailRequests,
		WithLog: logReader && o.Cluster.JobManagerLog != model.JobManagerLogOff})
	if err := w.Cluster(o.Cluster.Public()); err != nil {
		return Progress{}, err
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
	progress := func() Progress {
		st := sink.Stats()
		p := Progress{Checkpoints: st.Checkpoints, Failed: st.Failed, Gaps: st.Gaps, EngineCounted: st.EngineCounted,
			Missed: st.Missed, Unaccounted: st.Unaccounted, MetricSamples: st.MetricSamples}
		p.Elapsed = time.Since(start).Round(time.Second)
		p.Remaining = max(0, o.Duration-time.Since(start)).Round(time.Second)
		if h, ok := m.Health(o.Cluster.Name); ok {
			p.Requests, p.Health, p.LastError = h.Requests, h.State, h.LastError
		}
		if pr != nil {
			p.PromSamples, p.PromRequests, p.PromError = pr.status()
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
	return final, out.finish(sink.Finish())
}

func recordNote(o Options) string {
	if o.NewJobs {
		return fmt.Sprintf("jobs started during a recording of up to %s", o.Duration)
	}
	return fmt.Sprintf("job %s recorded for up to %s", o.JobID, o.Duration)
}
