package app

import (
	"context"

	"checkpoint-explorer/backend/model"
)

// JobConfig returns the newest configuration the job's engine reported for
// its checkpointing and state (interval, timeout, unaligned, state backend,
// …; a nil field was not reported), as the collector last read it or as an
// imported capture carried it. Nil when none was kept (a job not polled
// since the cache learnt configurations, a capture written before format
// 1.3, the sample).
func (a *App) JobConfig(cluster, job string) (*model.JobConfig, error) {
	return latestOfJob(a, cluster, job, a.store.LatestJobConfig)
}

// latestOfJob is the newest record of a kind the cache keeps per job, as
// read reads it; nil when none was kept.
func latestOfJob[T any](a *App, cluster, job string, read func(ctx context.Context, cluster, job string) (T, bool, error)) (*T, error) {
	if cluster == "" || job == "" {
		return nil, badRequest("cluster and job are required")
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	v, ok, err := read(ctx, cluster, job)
	if err != nil || !ok {
		return nil, err
	}
	return &v, nil
}
