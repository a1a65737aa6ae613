// Package publish sends what the cache stores to an OTLP endpoint as it comes (a team's
// collector, docs/collector.md): the export loop. The cache is the spool (store.ExportSpool): a
// final checkpoint not marked exported to the target is still to send, so nothing is queued in
// memory, a killed process resumes where its marks end, and retention bounds what waits. Delivery
// is at least once: a checkpoint sent and not yet marked when the process dies is sent again,
// with the same trace and span ids (otlpexport), which readers see once.
//
// The loop runs beside the collector and shares nothing with it but the cache: it reads through
// the store's readers, and marks what was sent in one short transaction per batch, never while a
// request is out. An endpoint that is down or slow, or refuses for its configuration (wrong
// credentials or URL), delays only the export, which retries with a backoff (capped at
// Options.MaxBackoff). A request the endpoint refuses for its content (HTTP 400, 413, 422; gRPC
// InvalidArgument) is sent again one checkpoint at a time, and a checkpoint refused on its own is
// set aside: marked refused in the cache, counted, named in the log, never sent to the target
// again, so that it does not hold up those after it.
package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/otlpexport"
	"checkpoint-explorer/backend/store"
)

// Defaults applied to zero Options fields.
const (
	DefaultEvery      = 5 * time.Second
	DefaultBatch      = 200
	DefaultMaxBackoff = time.Minute
	DefaultCountEvery = 30 * time.Second
	// keptKeys bounds the dropped and refused keys Status returns (the log has them all).
	keptKeys = 100
	// commitWindow is how far around a batch the sink committer's samples are read: they are
	// sampled every 10 s, and a commit is known by the sample after the checkpoint.
	commitWindow = time.Minute
)

// Options say where to send and how often to look.
type Options struct {
	// Target names the endpoint in the cache's marks of what was sent; default the endpoint as
	// otlpexport shows it (scheme, host and path). A target of another name sends everything again.
	Target string
	// Export is the endpoint, its credentials and batch size.
	Export otlpexport.Options
	// Every is how often the cache is read for checkpoints to send once all was sent; default
	// DefaultEvery.
	Every time.Duration
	// Batch is the checkpoints read from the cache and sent per round; default DefaultBatch.
	Batch int
	// MaxBackoff caps the wait after failed rounds, which doubles from Every; default
	// DefaultMaxBackoff.
	MaxBackoff time.Duration
	// CountEvery is how often what is pending is counted (Status.Pending; a count reads the
	// backlog); default DefaultCountEvery.
	CountEvery time.Duration
	Logger     *slog.Logger
	Now        func() time.Time
}

// Status is what the loop has done, for /metrics and the reconciliation.
type Status struct {
	Target   string `json:"target"`
	Endpoint string `json:"endpoint"`
	// Exported counts the checkpoints the endpoint took since the loop started; Spans their spans.
	Exported int64 `json:"exported"`
	Spans    int64 `json:"spans"`
	// Pending counts the final checkpoints in the cache not yet sent (details still due among
	// them), as last counted (CountedAt), less those sent since.
	Pending   int64     `json:"pending"`
	CountedAt time.Time `json:"counted_at"`
	// Errors counts the failed rounds (the endpoint refused or was unreachable, or the cache could
	// not be read); LastError is the latest one's, without credentials.
	Errors      int64     `json:"errors"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at"`
	// LastSuccess is when the endpoint last took a batch.
	LastSuccess time.Time `json:"last_success"`
	// Dropped counts the checkpoints retention removed before they were sent; DroppedKeys are the
	// latest of them (at most 100; the log names each).
	Dropped     int64       `json:"dropped"`
	DroppedKeys []model.Key `json:"dropped_keys,omitempty"`
	// Refused counts the checkpoints the endpoint refused for good, each on its own (their
	// content: HTTP 400, 413, 422; gRPC InvalidArgument): set aside, marked refused in the cache,
	// not sent to the target again. RefusedKeys are the latest of them (at most 100; the log names
	// each with the endpoint's reason).
	Refused     int64       `json:"refused"`
	RefusedKeys []model.Key `json:"refused_keys,omitempty"`
	// RejectedSpans counts the spans the endpoint dropped from requests it took (an OTLP partial
	// success; the checkpoints count as sent, the log tells the endpoint's reason).
	RejectedSpans int64 `json:"rejected_spans"`
}

// Publisher is the export loop of one target.
type Publisher struct {
	st  *store.Store
	exp *otlpexport.Exporter
	o   Options

	mu     sync.Mutex
	status Status
	// failures counts the failed rounds in a row, for the backoff.
	failures int
	// sentSinceCount: checkpoints were sent since the last count.
	sentSinceCount bool
}

// New checks o and builds the exporter (no request yet).
func New(ctx context.Context, st *store.Store, o Options) (*Publisher, error) {
	if o.Batch < 0 || o.Every < 0 || o.MaxBackoff < 0 || o.CountEvery < 0 {
		return nil, errors.New("publish: negative batch or interval")
	}
	exp, err := otlpexport.New(ctx, o.Export)
	if err != nil {
		return nil, err
	}
	o.Every = cmpOr(o.Every, DefaultEvery)
	o.Batch = cmpOr(o.Batch, DefaultBatch)
	o.MaxBackoff = max(cmpOr(o.MaxBackoff, DefaultMaxBackoff), o.Every)
	o.CountEvery = cmpOr(o.CountEvery, DefaultCountEvery)
	o.Target = cmpOr(o.Target, exp.Endpoint())
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Logger = o.Logger.With("export", exp.Endpoint())
	return &Publisher{st: st, exp: exp, o: o, status: Status{Target: o.Target, Endpoint: exp.Endpoint()}}, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Target is the name the cache marks what was sent under.
func (p *Publisher) Target() string { return p.o.Target }

// Endpoint is where the spans go: scheme, host and path.
func (p *Publisher) Endpoint() string { return p.exp.Endpoint() }

// Status is a copy of what the loop has done.
func (p *Publisher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.status
	s.DroppedKeys = slices.Clone(s.DroppedKeys)
	s.RefusedKeys = slices.Clone(s.RefusedKeys)
	return s
}

// Run sends until ctx ends, then closes the exporter. It returns nil when ctx ended: failures are
// retried, and told in Status and the log.
func (p *Publisher) Run(ctx context.Context) error {
	stop := p.st.OnExportDrop(p.o.Target, p.dropped)
	defer stop()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := p.exp.Close(cctx); err != nil {
			p.o.Logger.Debug("export: close", "err", err)
		}
	}()
	spool := p.st.ExportSpool(p.o.Target)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		timer.Reset(p.round(ctx, spool))
	}
}

// round sends one batch and says when to look again: at once after a batch was sent (more may
// wait), after Every when there was nothing, after the backoff when it failed.
func (p *Publisher) round(ctx context.Context, spool *store.ExportSpool) time.Duration {
	cps, err := spool.Next(ctx, p.o.Batch)
	if err == nil && len(cps) == 0 {
		// Drained: count now, so that Pending says so.
		p.mu.Lock()
		drained := p.sentSinceCount
		p.mu.Unlock()
		p.countIfDue(ctx, spool, drained)
		return p.o.Every
	}
	p.countIfDue(ctx, spool, false)
	if err == nil {
		err = p.send(ctx, cps)
	}
	if ctx.Err() != nil {
		return 0
	}
	if err != nil {
		return p.failed(err)
	}
	return 0
}

// send exports cps, the jobs' checkpoints sharing requests, and marks what the endpoint took,
// also when it then fails.
func (p *Publisher) send(ctx context.Context, cps []model.Checkpoint) error {
	var jobs []otlpexport.JobCheckpoints
	for _, group := range byJob(cps) {
		job, err := p.st.Job(ctx, group[0].Cluster, group[0].JobID)
		if errors.Is(err, store.ErrNotFound) {
			job, err = model.Job{Cluster: group[0].Cluster, ID: group[0].JobID, Name: group[0].JobID}, nil
		}
		if err != nil {
			return err
		}
		jobs = append(jobs, otlpexport.JobCheckpoints{Job: job, Checkpoints: group, Explained: p.explain(ctx, job, group)})
	}
	return p.sendJobs(ctx, jobs)
}

// sendJobs exports the checkpoints of jobs. A request the endpoint refuses for its content is sent
// again one checkpoint at a time, the checkpoints after it go on, and those refused on their own
// are set aside.
func (p *Publisher) sendJobs(ctx context.Context, jobs []otlpexport.JobCheckpoints) error {
	var alone []*otlpexport.Error // refused on their own
	var err error
	for len(jobs) > 0 {
		err = p.export(ctx, jobs)
		refused := refusedForGood(err)
		if refused == nil {
			break
		}
		err = nil
		if len(refused.Checkpoints) > 1 {
			p.o.Logger.Info("export: the endpoint refused a request for its content; its checkpoints go one at a time",
				"checkpoints", FormatKeys(refused.Checkpoints), "reason", refused.Error())
		}
		next := 0 // how many checkpoints, in export order, the refused request ends after
		for _, k := range refused.Checkpoints {
			one, at, ok := checkpointOf(jobs, k)
			if !ok {
				continue
			}
			next = max(next, at+1)
			if len(refused.Checkpoints) == 1 {
				alone = append(alone, refused)
			} else if err = p.export(ctx, []otlpexport.JobCheckpoints{one}); refusedForGood(err) != nil {
				alone, err = append(alone, refusedForGood(err)), nil
			} else if err != nil {
				break
			}
		}
		if err != nil || next == 0 {
			break
		}
		jobs = afterFirst(jobs, next)
	}
	return errors.Join(err, p.setAside(ctx, alone))
}

// checkpointOf is the checkpoint k of jobs alone (with its job's analysis) and its place in
// export order (the jobs in turn, each its checkpoints in turn).
func checkpointOf(jobs []otlpexport.JobCheckpoints, k model.Key) (otlpexport.JobCheckpoints, int, bool) {
	at := 0
	for _, j := range jobs {
		if i := slices.IndexFunc(j.Checkpoints, func(c model.Checkpoint) bool { return c.Key() == k }); i >= 0 {
			j.Checkpoints = j.Checkpoints[i : i+1]
			return j, at + i, true
		}
		at += len(j.Checkpoints)
	}
	return otlpexport.JobCheckpoints{}, 0, false
}

// afterFirst is jobs without their first n checkpoints in export order.
func afterFirst(jobs []otlpexport.JobCheckpoints, n int) []otlpexport.JobCheckpoints {
	for len(jobs) > 0 && n >= len(jobs[0].Checkpoints) {
		n -= len(jobs[0].Checkpoints)
		jobs = jobs[1:]
	}
	if len(jobs) > 0 && n > 0 {
		first := jobs[0]
		first.Checkpoints = first.Checkpoints[n:]
		jobs = append([]otlpexport.JobCheckpoints{first}, jobs[1:]...)
	}
	return jobs
}

// refusedForGood is err when the endpoint refused the request's content, else nil.
func refusedForGood(err error) *otlpexport.Error {
	var e *otlpexport.Error
	if errors.As(err, &e) && e.RefusedForGood() {
		return e
	}
	return nil
}

// export sends the checkpoints of jobs, and marks and counts what the endpoint took.
func (p *Publisher) export(ctx context.Context, jobs []otlpexport.JobCheckpoints) error {
	res, sendErr := p.exp.ExportJobs(ctx, jobs...)
	if len(res.Sent) > 0 {
		// Marked even when ctx ended meanwhile: the endpoint has them.
		if _, err := p.st.MarkExported(context.WithoutCancel(ctx), p.o.Target, res.Sent); err != nil {
			// They are sent again later, under the same ids.
			p.o.Logger.Warn("export: sent, but not marked in the cache", "checkpoints", len(res.Sent), "err", err)
		}
		p.sent(len(res.Sent), res.Spans)
	}
	if res.Rejected > 0 || res.RejectedWhy != "" {
		p.mu.Lock()
		p.status.RejectedSpans += res.Rejected
		p.mu.Unlock()
		p.o.Logger.Warn("export: the endpoint took the checkpoints but rejected some of their spans (OTLP partial success)",
			"rejected_spans", res.Rejected, "reason", res.RejectedWhy)
	}
	return sendErr
}

// setAside marks the checkpoints the endpoint refused on their own as refused, counts them and
// names each in the log. Only once the endpoint has taken a checkpoint: one refusing every request
// (a proxy answering 400 to all, a wrong port) is a configuration to fix, and then nothing is set
// aside.
func (p *Publisher) setAside(ctx context.Context, alone []*otlpexport.Error) error {
	if len(alone) == 0 {
		return nil
	}
	p.mu.Lock()
	taken := p.status.Exported > 0
	p.mu.Unlock()
	if !taken {
		return fmt.Errorf("%w (not set aside while the endpoint has taken no checkpoint: it may refuse every request for its configuration)",
			alone[0])
	}
	var keys []model.Key
	for _, e := range alone {
		keys = append(keys, e.Checkpoints...)
	}
	if _, err := p.st.MarkRefused(context.WithoutCancel(ctx), p.o.Target, keys); err != nil {
		return fmt.Errorf("export: mark the checkpoints the endpoint refused: %w", err)
	}
	p.mu.Lock()
	p.status.Refused += int64(len(keys))
	p.status.RefusedKeys = appendLatest(p.status.RefusedKeys, keys)
	p.status.Pending = max(0, p.status.Pending-int64(len(keys)))
	p.mu.Unlock()
	for _, e := range alone {
		for _, k := range e.Checkpoints {
			p.o.Logger.Warn("export: the endpoint refused a checkpoint for good; set aside, it is not sent to this endpoint again",
				"cluster", k.Cluster, "job", k.JobID, "pipeline", k.Pipeline, "checkpoint", k.ID, "reason", e.Error())
		}
	}
	return nil
}

// byJob splits cps by job, in the order the jobs first come.
func byJob(cps []model.Checkpoint) [][]model.Checkpoint {
	type job struct{ cluster, id string }
	at := map[job]int{}
	var out [][]model.Checkpoint
	for _, c := range cps {
		k := job{c.Cluster, c.JobID}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// explain analyses cps for the commit and causes attributes: the causes need only the
// checkpoints, the commits the sink committer's samples around them. It gives nil when that
// fails: the spans go without the attributes rather than not at all.
func (p *Publisher) explain(ctx context.Context, job model.Job, cps []model.Checkpoint) []analyze.CheckpointAnalysis {
	from, to := cps[0].TriggerMs, cps[0].EndMs()
	for i := range cps {
		from, to = min(from, cps[i].TriggerMs), max(to, cps[i].EndMs())
	}
	window := commitWindow.Milliseconds()
	metrics, err := p.st.MetricSamples(ctx, store.Query{Cluster: job.Cluster, JobID: job.ID, FromMs: from - window, ToMs: to + window,
		Metric: isCommitMetric})
	if err != nil {
		p.o.Logger.Debug("export: no commit samples", "job", job.ID, "err", err)
	}
	a := analyze.NewAnalyzer(job, nil, metrics)
	for i := range cps {
		if err := a.Add(&cps[i]); err != nil {
			return nil
		}
	}
	ja, err := a.Finish(nil)
	if err != nil {
		return nil
	}
	return ja.Checkpoints
}

func isCommitMetric(name string) bool {
	switch name {
	case model.MetricCommitDurationMs, model.MetricCommittedFiles, model.MetricCommittedRecords, model.MetricCommittedCommittables:
		return true
	}
	return false
}

// sent records a batch the endpoint took; the first after failures is logged.
func (p *Publisher) sent(checkpoints, spans int) {
	p.mu.Lock()
	failures := p.failures
	p.failures = 0
	p.status.Exported += int64(checkpoints)
	p.status.Spans += int64(spans)
	p.status.Pending = max(0, p.status.Pending-int64(checkpoints))
	p.status.LastSuccess = p.o.Now()
	p.sentSinceCount = true
	p.mu.Unlock()
	if failures > 0 {
		p.o.Logger.Info("export: the endpoint takes checkpoints again", "after_failures", failures)
	}
}

// failed records a failed round and returns the backoff: Every, doubling per failure in a row up
// to MaxBackoff. The first of a run of failures, and a changed error, are logged as warnings.
func (p *Publisher) failed(err error) time.Duration {
	p.mu.Lock()
	p.failures++
	n := p.failures
	same := p.status.LastError == err.Error()
	p.status.Errors++
	p.status.LastError, p.status.LastErrorAt = err.Error(), p.o.Now()
	p.mu.Unlock()
	wait := p.o.Every
	for i := 1; i < n && wait < p.o.MaxBackoff; i++ {
		wait *= 2
	}
	wait = min(wait, p.o.MaxBackoff)
	level := slog.LevelWarn
	if n > 1 && same {
		level = slog.LevelDebug
	}
	p.o.Logger.Log(context.Background(), level, "export failed; the checkpoints wait in the cache", "err", err,
		"failures_in_a_row", n, "retry_in", wait)
	return wait
}

// countIfDue counts what is pending when CountEvery has passed (or always, with force).
func (p *Publisher) countIfDue(ctx context.Context, spool *store.ExportSpool, force bool) {
	p.mu.Lock()
	due := force || p.status.CountedAt.IsZero() || p.o.Now().Sub(p.status.CountedAt) >= p.o.CountEvery
	p.mu.Unlock()
	if !due {
		return
	}
	pending, err := spool.Pending(ctx)
	if err != nil {
		p.o.Logger.Debug("export: count", "err", err)
		return
	}
	p.mu.Lock()
	p.status.Pending, p.status.CountedAt = pending, p.o.Now()
	p.sentSinceCount = false
	p.mu.Unlock()
}

// dropped hears from retention which checkpoints it removed unsent: each is named in the log.
func (p *Publisher) dropped(keys []model.Key) {
	p.mu.Lock()
	p.status.Dropped += int64(len(keys))
	p.status.DroppedKeys = appendLatest(p.status.DroppedKeys, keys)
	p.mu.Unlock()
	p.o.Logger.Warn("export: retention removed checkpoints before they were sent (the endpoint was down longer than the cache keeps them)",
		"dropped", len(keys), "checkpoints", FormatKeys(keys))
}

// appendLatest appends add to keys and keeps the latest keptKeys.
func appendLatest(keys, add []model.Key) []model.Key {
	keys = append(keys, add...)
	if n := len(keys); n > keptKeys {
		keys = slices.Clone(keys[n-keptKeys:])
	}
	return keys
}

// FormatKeys names checkpoints compactly, by job: "cluster/job: 4, 5, 6; cluster/job#2: 9" (#2:
// a SeaTunnel pipeline).
func FormatKeys(keys []model.Key) string {
	var b strings.Builder
	var last model.Key
	for i, k := range keys {
		if i == 0 || k.Cluster != last.Cluster || k.JobID != last.JobID || k.Pipeline != last.Pipeline {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(k.Cluster + "/" + k.JobID)
			if k.Pipeline != 0 {
				b.WriteString("#" + strconv.Itoa(k.Pipeline))
			}
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(k.ID, 10))
		last = k
	}
	return b.String()
}
