// Package backfill fills what the cache lacks from a cluster's other
// backends: checkpoints from its traces (Traces), backpressure from its
// Prometheus (Backpressure). It is the one place a source's answers are
// written to the store outside the collector: the sources know nothing of
// the store, the store nothing of the sources.
package backfill

import (
	"context"
	"fmt"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
)

// TracesResult says what one read of a cluster's traces did for a job (app.TracesResult).
type TracesResult struct {
	// Read is how many of the job's checkpoints the traces held in the ranges asked.
	Read int
	// Added is how many of them the cache did not have and now stores (marked as from traces).
	Added int
	// DetailsFilled is how many cached checkpoints whose per-subtask stats were missed gained
	// them from the spans.
	DetailsFilled int
	// Resolved is how many cached checkpoints left in progress (gone from the engine's history
	// before they ended) the spans gave the end of.
	Resolved int
	// Windows is how many time ranges were asked for; Requests how many requests that took.
	Windows  int
	Requests int
	// IncompleteWindows counts ranges not read whole (the request bound ran out, or a range
	// still held more than a page at its narrowest); Warning then says so.
	IncompleteWindows int
	Warning           string
}

// TracesOptions configure Traces.
type TracesOptions struct {
	// ToNow reads after the newest cached checkpoint too (the job is not
	// followed: the engine's API does not give its latest checkpoints).
	ToNow bool
	// MaxRequests bounds the requests to the traces (the warning names it).
	MaxRequests int
	// Open opens the traces' client, when some range is to be read; its
	// error is returned as it is.
	Open func() (*jaeger.Client, error)
}

// Traces reads, from the cluster's traces, the job's checkpoints the cache
// has no record of — before its first cached one, between cached ones whose
// ids skip, and with ToNow after the last one — and stores them, marked as
// from traces; cached checkpoints whose per-subtask stats were missed gain
// them where the spans carry them. Nothing cached is otherwise changed.
func Traces(ctx context.Context, st *store.Store, c model.Cluster, j model.Job, o TracesOptions) (TracesResult, error) {
	maxRequests := o.MaxRequests
	var res TracesResult
	var cached []model.Checkpoint
	if err := st.ScanCheckpoints(ctx, store.Query{Cluster: c.Name, JobID: j.ID, Pipeline: new(int)}, false, func(cp *model.Checkpoint) error {
		cached = append(cached, model.Checkpoint{ID: cp.ID, TriggerMs: cp.TriggerMs, Status: cp.Status, DetailLoss: cp.DetailLoss})
		return nil
	}); err != nil {
		return res, err
	}
	now := time.Now()
	from := now.Add(-jaeger.Lookback)
	if start := time.UnixMilli(j.StartMs - logSlackMs); j.StartMs > 0 && start.After(from) {
		from = start
	}
	windows := jaeger.Uncovered(cached, from, now, o.ToNow)
	res.Windows = len(windows)
	if len(windows) == 0 {
		return res, nil
	}
	jc, err := o.Open()
	if err != nil {
		return res, err
	}
	r, err := jc.CheckpointsIn(ctx, j.ID, windows)
	res.Requests, res.Read, res.IncompleteWindows = r.Requests, len(r.Checkpoints), len(r.Incomplete)
	if err != nil {
		return res, fmt.Errorf("traces from %s: %w", restclient.RedactURL(c.TracesURL), err)
	}
	byID := make(map[int64]int, len(cached))
	for i, cp := range cached {
		byID[cp.ID] = i
	}
	var add, fill []model.Checkpoint
	for _, cp := range r.Checkpoints {
		i, ok := byID[cp.ID]
		if !ok || !cached[i].Status.Final() {
			add = append(add, cp) // not cached, or cached in progress: the merge resolves it
			continue
		}
		have := cached[i]
		if have.DetailLoss == model.DetailMissed && len(cp.Tasks) > 0 && model.SameTrigger(have.TriggerMs, cp.TriggerMs) {
			fill = append(fill, cp)
		}
	}
	if len(add) > 0 {
		m, err := st.MergeLogCheckpoints(ctx, c.Name, j.ID, add, 1<<62)
		if err != nil {
			return res, fmt.Errorf("store checkpoints from traces: %w", err)
		}
		res.Added, res.Resolved = len(m.Added), len(m.Resolved)
	}
	for _, cp := range fill {
		stored, err := st.Checkpoint(ctx, model.Key{Cluster: c.Name, JobID: j.ID, ID: cp.ID})
		if err != nil {
			return res, err
		}
		if stored.DetailLoss != model.DetailMissed || len(stored.Tasks) > 0 {
			continue // the engine's details came meanwhile
		}
		stored.Tasks, stored.DetailLoss = cp.Tasks, ""
		if err := st.PutCheckpoints(ctx, []model.Checkpoint{stored}); err != nil {
			return res, fmt.Errorf("store details from traces: %w", err)
		}
		res.DetailsFilled++
	}
	if res.IncompleteWindows > 0 {
		res.Warning = fmt.Sprintf("%d time ranges were not read whole (at most %d requests per read): %s",
			res.IncompleteWindows, maxRequests, r.Incomplete[0])
	}
	return res, nil
}

// logSlackMs is how much before a job's start its first checkpoint may be triggered (clocks of
// the JobManager and of the span's timestamps are the same machine's).
const logSlackMs = 1000
