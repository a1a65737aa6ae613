package app

import (
	"context"

	"checkpoint-explorer/backend/backfill"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/source/prometheus"
)

// BackfillResult says what a backfill from Prometheus added.
type BackfillResult struct {
	Checkpoints int    `json:"checkpoints"` // cached checkpoints that lacked backpressure samples
	Ranges      int    `json:"ranges"`
	Samples     int    `json:"samples"`
	Warning     string `json:"warning,omitempty"` // partial data: stored, with what Prometheus said
}

// BackfillBackpressure reads, from the cluster's Prometheus, backpressure for
// the cached checkpoints of a job that have none in their window — checkpoints
// seen before the app was connected, or only in a capture — and stores it. A
// Prometheus that is down or answers badly gives an error naming the problem;
// nothing already cached is touched.
func (a *App) BackfillBackpressure(cluster, job string) (BackfillResult, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	c, err := a.namedSource(ctx, cluster)
	if err != nil {
		return BackfillResult{}, err
	}
	if c.PrometheusURL == "" {
		return BackfillResult{}, badRequest("cluster %q has no Prometheus URL", cluster)
	}
	r, err := backfill.Backpressure(ctx, a.store, c, job, func(ctx context.Context) (*prometheus.Client, error) {
		pc, err := connect.Prometheus(c)
		if err != nil {
			return nil, badRequest("%v", err)
		}
		return connect.AtScrapeInterval(ctx, pc, a.log), nil
	})
	res := BackfillResult(r)
	if err != nil || r.Ranges == 0 {
		return res, err
	}
	a.log.Info("backfilled backpressure from Prometheus", "cluster", cluster, "job", job, "checkpoints", r.Checkpoints, "samples", r.Samples)
	a.emit(CheckpointsEvent{Cluster: cluster, Job: job})
	return res, nil
}
