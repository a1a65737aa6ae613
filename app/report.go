package app

import (
	"context"
	"errors"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// Report is what the `report` command prints and the UI can show: the full
// analysis (docs/report-format.md) plus plain statistics.
type Report struct {
	analyze.JobAnalysis
	Summary analyze.Summary `json:"summary"`
	// Reconciliation is the collector's latest account of the engine's
	// checkpoint ids and counters against what was stored (nil if none).
	Reconciliation *model.Reconciliation `json:"reconciliation,omitempty"`
	// Config is the job's configuration in effect at the range's end, as the
	// advice read it (nil when none was collected); its unknown parts are
	// those of the read that did not answer.
	Config *model.JobConfig `json:"config,omitempty"`
	// The job's changes with their effects, its episodes and the advice's
	// follow-up (docs/report-format.md, "changes[]").
	analyze.JobChanges
}

// Report analyses a job's cached checkpoints triggered in [fromMs, toMs] (0 = unbounded).
func (a *App) Report(cluster, job string, fromMs, toMs int64) (Report, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	var cps []analyze.CheckpointAnalysis
	r, _, err := a.report(ctx, cluster, job, fromMs, toMs, collectAnalyses(&cps))
	if err != nil {
		return Report{}, err
	}
	r.Checkpoints = cps
	if r.Checkpoints == nil {
		r.Checkpoints = []analyze.CheckpointAnalysis{}
	}
	return r, nil
}

// StreamReport is Report for a caller that writes each checkpoint's
// analysis as it is made (the `report` command over a long history): emit
// and revise receive them as analyze.Streaming says, and the Report returned
// has no Checkpoints. Memory stays at what the job-level answers need.
func (s *Service) StreamReport(ctx context.Context, cluster, job string, fromMs, toMs int64, emit, revise func(k int, ca *analyze.CheckpointAnalysis) error) (Report, error) {
	r, _, err := s.Call(ctx).report(ctx, cluster, job, fromMs, toMs, analyze.Streaming{Emit: emit, Revise: revise})
	return r, err
}

// collectAnalyses gathers a streamed analysis's checkpoints into *cps.
func collectAnalyses(cps *[]analyze.CheckpointAnalysis) analyze.Streaming {
	return analyze.Streaming{
		Emit:   func(_ int, ca *analyze.CheckpointAnalysis) error { *cps = append(*cps, *ca); return nil },
		Revise: func(k int, ca *analyze.CheckpointAnalysis) error { (*cps)[k] = *ca; return nil },
	}
}

// report is the report of a job's range and the context its changes were
// measured in (for a before/after at another moment).
func (a *App) report(ctx context.Context, cluster, job string, fromMs, toMs int64, s analyze.Streaming) (Report, *analyze.ChangeContext, error) {
	in, err := a.analysisInput(ctx, cluster, job, fromMs, toMs)
	if err != nil {
		return Report{}, nil, err
	}
	var own []analyze.CheckpointAnalysis
	ja, heads, err := a.analyzeStreamed(ctx, &in, fromMs, toMs, analyze.KeepForChanges(s, &own))
	if err != nil {
		return Report{}, nil, err
	}
	r := Report{JobAnalysis: ja, Summary: analyze.Summarize(in.job.Engine, heads, in.gaps), Config: in.config}
	r.Job.Cluster = cluster
	rec, ok, err := a.store.Reconciliation(ctx, cluster, job)
	if err != nil {
		return Report{}, nil, err
	}
	if ok {
		r.Reconciliation = &rec
		if fromMs == 0 && toMs == 0 {
			// Ids the collector could account for neither way are missed too.
			r.Summary.Missed += rec.Unaccounted
		}
	}
	cc, err := a.changeContext(ctx, &in, heads, own)
	if err == nil {
		r.JobChanges, err = cc.Report(r.Advice, fromMs, toMs)
	}
	return r, cc, err
}

// analyzeStreamed analyses the cached checkpoints of in.job triggered in
// [fromMs, toMs], read one at a time so that only one checkpoint's subtask
// stats are in memory at once, each analysis handed to s as it is made. The
// metric samples are read beside the first checkpoints. It returns the
// checkpoints without their tasks.
func (a *App) analyzeStreamed(ctx context.Context, in *analysisInput, fromMs, toMs int64, s analyze.Streaming) (analyze.JobAnalysis, []model.Checkpoint, error) {
	an := analyze.NewAnalyzer(in.job, in.acks, nil)
	an.SetConfig(in.config)
	an.Stream(s)
	q := store.Query{Cluster: in.job.Cluster, JobID: in.job.ID, FromMs: fromMs, ToMs: toMs}
	n, err := a.store.CountCheckpoints(ctx, q)
	if err != nil {
		return analyze.JobAnalysis{}, nil, err
	}
	an.Reserve(n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type metricsRead struct {
		samples []model.MetricSample
		ends    []int64
		err     error
	}
	metrics := make(chan metricsRead, 1)
	go func() {
		var m metricsRead
		mq := in.sampleQuery(fromMs, toMs)
		mq.Metric = analyze.AnalysedMetric
		m.samples, m.err = a.store.MetricSamples(ctx, mq)
		if m.err == nil && analyze.HasCommitSamples(m.samples) {
			// How many checkpoints each sink commit served is known before
			// the first is handed over.
			spans, err := a.store.CheckpointSpans(ctx, q)
			for i := range spans {
				if spans[i].Status == model.StatusCompleted {
					m.ends = append(m.ends, spans[i].EndMs())
				}
			}
			m.err = err
		}
		metrics <- m
	}()
	// The analyzer indexes what it needs of the samples: over a day of
	// metrics they are tens of MB not to hold while the checkpoints stream.
	setMetrics := func(m metricsRead) error {
		if m.err != nil {
			return m.err
		}
		an.SetMetrics(m.samples, m.ends)
		return nil
	}
	// Reading (SQLite, unpacking) and analysing overlap: a small queue
	// between them keeps memory at a few hundred checkpoints. They go in
	// batches: handing them over one by one woke the other side 100,000
	// times.
	// The analysis keeps nothing of a checkpoint it was given (analyze.Add),
	// so each batch analysed comes back to be filled again: the scan then
	// allocates next to nothing.
	queue := make(chan []*model.Checkpoint, 4)
	analysed := make(chan []*model.Checkpoint, cap(queue)+2)
	scanErr := make(chan error, 1)
	go func() {
		defer close(queue)
		var batch, refill []*model.Checkpoint
		reuse := func() *model.Checkpoint {
			if len(refill) == 0 {
				select {
				case refill = <-analysed:
				default:
					return nil
				}
			}
			c := refill[len(refill)-1]
			refill = refill[:len(refill)-1]
			return c
		}
		send := func() error {
			select {
			case queue <- batch:
				batch = make([]*model.Checkpoint, 0, scanBatch)
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := a.store.ScanCheckpointsInto(ctx, q, true, reuse, func(c *model.Checkpoint) error {
			if batch = append(batch, c); len(batch) < scanBatch {
				return nil
			}
			return send()
		})
		if err == nil && len(batch) > 0 {
			err = send()
		}
		scanErr <- err
	}()
	pending := metrics
	var addErr error
	for batch := range queue {
		for _, c := range batch {
			if addErr != nil {
				break // the reader stops; the queue drains
			}
			if pending != nil && an.Unsettled() >= maxUnsettled {
				// Their analyses wait for the samples: about 2 KB each.
				addErr = setMetrics(<-pending)
				pending = nil
			}
			select {
			case m := <-pending:
				pending = nil
				addErr = setMetrics(m)
			default:
			}
			if addErr == nil {
				in.parallelism.See(c)
				addErr = an.Add(c)
			}
			if addErr != nil {
				cancel()
			}
		}
		select {
		case analysed <- batch:
		default: // the scan has enough to refill
		}
	}
	if pending != nil && addErr == nil {
		addErr = setMetrics(<-pending)
	}
	if err := <-scanErr; addErr == nil && err != nil {
		return analyze.JobAnalysis{}, nil, err
	}
	if addErr != nil {
		return analyze.JobAnalysis{}, nil, addErr
	}
	ja, err := an.Finish(in.gaps)
	if err != nil {
		return analyze.JobAnalysis{}, nil, err
	}
	return ja, an.Checkpoints(), nil
}

// scanBatch is how many checkpoints the reader hands the analysis at once.
const scanBatch = 64

// maxUnsettled is how many checkpoints a streamed analysis scans before it
// waits for the metric samples it reads beside them: reading a day of
// samples takes as long as scanning some 10,000 checkpoints, which would
// otherwise wait (about 30 MB of analyses at most).
const maxUnsettled = 16384

// analysisInput is what the analysis reads for a job and a range before
// the checkpoints (which it streams) and the metric samples (read beside them).
type analysisInput struct {
	job  model.Job
	acks []model.AckSample
	gaps []model.Gap
	// config is the job's configuration in effect at the range's end (nil
	// when none was collected), for the advice.
	config *model.JobConfig
	// parallelism is what the scan saw of the vertices' subtask counts
	// (rescales), which the analysis keeps no tasks for.
	parallelism analyze.Parallelism
}

// sampleQuery selects the ack and metric samples of the job for [fromMs, toMs],
// and a little beyond: a checkpoint's window (and its ack progress)
// reaches past its trigger.
func (in *analysisInput) sampleQuery(fromMs, toMs int64) store.Query {
	q := store.Query{Cluster: in.job.Cluster, JobID: in.job.ID, FromMs: fromMs, ToMs: toMs}
	if q.ToMs > 0 {
		q.ToMs += 10 * 60 * 1000
	}
	return q
}

func (a *App) analysisInput(ctx context.Context, cluster, job string, fromMs, toMs int64) (analysisInput, error) {
	var in analysisInput
	j, err := a.cachedJob(ctx, cluster, job)
	if err != nil {
		return in, err
	}
	in.job = j
	in.job.Cluster = cluster
	if in.acks, err = a.store.AckSamples(ctx, in.sampleQuery(fromMs, toMs)); err != nil {
		return in, err
	}
	if in.gaps, err = a.store.Gaps(ctx, store.Query{Cluster: cluster, JobID: job}); err != nil {
		return in, err
	}
	configs, err := a.store.JobConfigs(ctx, cluster, job)
	if err != nil {
		return in, err
	}
	for i := range configs {
		if toMs == 0 || configs[i].SeenMs <= toMs || in.config == nil {
			in.config = &configs[i]
		}
	}
	return in, nil
}

// cachedJob is a job the cache holds; a bad request when it holds none.
func (a *App) cachedJob(ctx context.Context, cluster, job string) (model.Job, error) {
	if cluster == "" || job == "" {
		return model.Job{}, badRequest("cluster and job are required")
	}
	j, err := a.store.Job(ctx, cluster, job)
	if errors.Is(err, store.ErrNotFound) {
		return j, badRequest("job %s on %s is not in the cache", job, cluster)
	}
	return j, err
}

// Insights is Report without the per-checkpoint analyses: the job-level
// answers (verdict, failure clusters, slow runs, summary) a panel shows after
// every zoom, at a fraction of the size.
func (a *App) Insights(cluster, job string, fromMs, toMs int64) (Report, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	r, _, err := a.report(ctx, cluster, job, fromMs, toMs, analyze.Streaming{})
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	return r, err
}
