package record

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/prometheus"
	"checkpoint-explorer/backend/source/restclient"
)

// promReader reads the recorded jobs' backpressure from Prometheus while a
// recording runs: one range query per job per period over the window since
// the last successful read, each point written once.
type promReader struct {
	client   *prometheus.Client
	sink     *capture.Sink
	log      *slog.Logger
	jobID    string // the job asked for, read even before the collector has seen it
	requests atomic.Int64

	mu      sync.Mutex       // guards the fields below: read by progress while a read runs
	fromMs  int64            // the recording start: no point before it is written
	next    map[string]int64 // job → start of its next window; absent = fromMs
	written map[promSeries]int64
	lastErr string
	samples int // written
}

// promSeries identifies one series of points; written maps it to the time of
// the newest point written, so windows may overlap without duplicates.
type promSeries struct {
	job, vertex, target, metric, agg string
	subtask                          int
}

func newPromReader(ctx context.Context, o Options) (*promReader, error) {
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
	jobs := r.sink.Jobs()
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
		werr := r.sink.WriteMetricSamples(keep, func(s model.MetricSample) {
			r.mu.Lock()
			r.written[seriesOf(s)] = s.TimeMs
			r.samples++
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

// status returns the samples written and the requests sent so far, and the last error.
func (r *promReader) status() (int, int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.samples, int(r.requests.Load()), r.lastErr
}

func seriesOf(s model.MetricSample) promSeries {
	return promSeries{job: s.JobID, vertex: s.VertexID, target: s.Target, metric: s.Metric, agg: s.Agg, subtask: s.Subtask}
}
