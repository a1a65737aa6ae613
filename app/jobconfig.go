package app

import "checkpoint-explorer/backend/model"

// JobConfig returns the newest configuration the job's engine reported for
// its checkpointing and state (interval, timeout, unaligned, state backend,
// …; a nil field was not reported), as the collector last read it or as an
// imported capture carried it. Nil when none was kept (a job not polled
// since the cache learnt configurations, a capture written before format
// 1.3, the sample).
func (a *App) JobConfig(cluster, job string) (*model.JobConfig, error) {
	if cluster == "" || job == "" {
		return nil, badRequest("cluster and job are required")
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	c, ok, err := a.store.LatestJobConfig(ctx, cluster, job)
	if err != nil || !ok {
		return nil, err
	}
	return &c, nil
}
