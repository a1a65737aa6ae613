package app

import (
	"fmt"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
)

// ReconciliationView is a job's reconciliation as the job view shows it: the
// stored model.Reconciliation with Missed (gaps + unaccounted) worked out,
// so the UI only displays it.
type ReconciliationView struct {
	model.Reconciliation
	Missed int64 `json:"missed"`
}

// JobReconciliation returns a job's latest reconciliation of the checkpoint
// ids and counters its engine reported with what the cache holds: as of the
// collector's last successful poll of the job, or as an imported capture
// recorded it. Nil when none was kept (a job not polled since the store
// learnt reconciliations, a capture written before format 1.1, the sample).
func (a *App) JobReconciliation(cluster, job string) (*ReconciliationView, error) {
	r, err := latestOfJob(a, cluster, job, a.store.Reconciliation)
	if r == nil {
		return nil, err
	}
	return &ReconciliationView{Reconciliation: *r, Missed: r.Missed()}, nil
}

// ReadJobManagerLog reads a Flink cluster's JobManager log once past its
// size cap, at the next poll of each followed job (the checkpoint view's
// "Read the JobManager log", when the log is too large for the automatic
// reads). The merge shows as soon as a poll has done it.
func (a *App) ReadJobManagerLog(cluster string) error {
	if cluster == "" {
		return badRequest("cluster is required")
	}
	a.mu.Lock()
	m := a.coll
	a.mu.Unlock()
	if m == nil {
		return fmt.Errorf("cluster %q: nothing is being collected", cluster)
	}
	src, ok := m.Source(cluster)
	if !ok {
		return badRequest("cluster %q is not being polled", cluster)
	}
	fs, ok := src.(*flink.Source)
	if !ok {
		return badRequest("cluster %q is not a Flink cluster: it has no JobManager log", cluster)
	}
	if fs.LogMode() == model.JobManagerLogOff {
		return badRequest("cluster %q: reading the JobManager log is turned off in its settings", cluster)
	}
	fs.ReadLogBeyondLimit()
	return nil
}
