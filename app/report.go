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
}

// Report analyses a job's cached checkpoints triggered in [fromMs, toMs] (0 = unbounded).
func (a *App) Report(cluster, job string, fromMs, toMs int64) (Report, error) {
	if cluster == "" || job == "" {
		return Report{}, badRequest("cluster and job are required")
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	in, err := a.analysisInput(ctx, cluster, job, fromMs, toMs)
	if err != nil {
		return Report{}, err
	}
	ja, heads, err := a.analyzeStreamed(ctx, in, fromMs, toMs)
	if err != nil {
		return Report{}, err
	}
	r := Report{JobAnalysis: ja, Summary: analyze.Summarize(heads, in.gaps)}
	r.Job.Cluster = cluster
	rec, ok, err := a.store.Reconciliation(ctx, cluster, job)
	if err != nil {
		return Report{}, err
	}
	if ok {
		r.Reconciliation = &rec
		if fromMs == 0 && toMs == 0 {
			// Ids the collector could account for neither way are missed too.
			r.Summary.Missed += rec.Unaccounted
		}
	}
	return r, nil
}

// analyzeStreamed analyses the cached checkpoints of in.job triggered in
// [fromMs, toMs], read one at a time so that only one checkpoint's subtask
// stats are in memory at once. It returns the checkpoints without their tasks.
func (a *App) analyzeStreamed(ctx context.Context, in analysisInput, fromMs, toMs int64) (analyze.JobAnalysis, []model.Checkpoint, error) {
	an := analyze.NewAnalyzer(in.job, in.acks)
	q := store.Query{Cluster: in.job.Cluster, JobID: in.job.ID, FromMs: fromMs, ToMs: toMs}
	n, err := a.store.CountCheckpoints(ctx, q)
	if err != nil {
		return analyze.JobAnalysis{}, nil, err
	}
	an.Reserve(n)
	// Reading (SQLite, unpacking) and analysing overlap: a small queue
	// between them keeps memory at a few checkpoints.
	queue := make(chan *model.Checkpoint, 32)
	scanErr := make(chan error, 1)
	go func() {
		defer close(queue)
		scanErr <- a.store.ScanCheckpoints(ctx, q, true, func(c *model.Checkpoint) error {
			select {
			case queue <- c:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	for c := range queue {
		an.Add(c)
	}
	if err := <-scanErr; err != nil {
		return analyze.JobAnalysis{}, nil, err
	}
	ja := an.Finish(in.metrics, in.gaps)
	return ja, an.Checkpoints(), nil
}

// analysisInput is everything the analysis reads for a job and a range
// except the checkpoints, which a streamed analysis reads one at a time.
type analysisInput struct {
	job     model.Job
	acks    []model.AckSample
	metrics []model.MetricSample
	gaps    []model.Gap
}

func (a *App) analysisInput(ctx context.Context, cluster, job string, fromMs, toMs int64) (analysisInput, error) {
	var in analysisInput
	j, err := a.store.Job(ctx, cluster, job)
	if errors.Is(err, store.ErrNotFound) {
		return in, badRequest("job %s on %s is not in the cache", job, cluster)
	}
	if err != nil {
		return in, err
	}
	in.job = j
	in.job.Cluster = cluster
	q := store.Query{Cluster: cluster, JobID: job, FromMs: fromMs, ToMs: toMs}
	// Samples a little beyond the range: a checkpoint's window (and its ack
	// progress) reaches past its trigger.
	mq := q
	if mq.ToMs > 0 {
		mq.ToMs += 10 * 60 * 1000
	}
	if in.acks, err = a.store.AckSamples(ctx, mq); err != nil {
		return in, err
	}
	if in.metrics, err = a.store.MetricSamples(ctx, mq); err != nil {
		return in, err
	}
	if in.gaps, err = a.store.Gaps(ctx, store.Query{Cluster: cluster, JobID: job}); err != nil {
		return in, err
	}
	return in, nil
}

// Insights is Report without the per-checkpoint analyses: the job-level
// answers (verdict, failure clusters, slow runs, summary) a panel shows after
// every zoom, at a fraction of the size.
func (a *App) Insights(cluster, job string, fromMs, toMs int64) (Report, error) {
	r, err := a.Report(cluster, job, fromMs, toMs)
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	return r, err
}
