// Package fleet reads the fleet view from the cache: every job of the
// clusters and captures it is given, each job's window and baseline made
// into analyze's rows and ranked (docs/fleet.md).
package fleet

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// DefaultWindowMs is the window when none is asked for: the last hour.
const DefaultWindowMs = 60 * 60 * 1000

// Read ranks the jobs of the cached clusters that are configured and of the
// opened captures (and sample) by checkpoint health over the windowMs
// (DefaultWindowMs when 0 or less) before nowMs; only keeps the cluster or
// capture of that name ("": all). A capture's jobs are judged over the
// window before each one's newest checkpoint: it was recorded earlier, and
// ending at now would leave every one without data. Each job costs its
// window's checkpoints, samples and gaps, its configuration, and at most
// analyze.FleetBaselineMax checkpoints of its baseline.
func Read(ctx context.Context, st *store.Store, configured func(cluster string) bool, only string, windowMs, nowMs int64) (analyze.Fleet, error) {
	return read(ctx, st, configured, []string{only}, nil, nil, windowMs, nowMs)
}

// JobKey names a job: its cluster and id.
type JobKey struct{ Cluster, JobID string }

// ReadJobs is Read for only the logical jobs that the keyed jobs are runs
// of, in the same order: a live update's rows when checkpoints of a few jobs
// were stored, at the cost of those rows rather than the fleet's
// (docs/fleet.md, "Cost"). A key of no known job adds no row.
func ReadJobs(ctx context.Context, st *store.Store, configured func(cluster string) bool, keys []JobKey, windowMs, nowMs int64) (analyze.Fleet, error) {
	return readJobs(ctx, st, configured, keys, nil, windowMs, nowMs)
}

// readJobs is ReadJobs; a logical job whose newest run has a verdict in
// verdicts gets a light row (lightRow) with that verdict.
func readJobs(ctx context.Context, st *store.Store, configured func(cluster string) bool, keys []JobKey,
	verdicts map[JobKey]analyze.Verdict, windowMs, nowMs int64) (analyze.Fleet, error) {
	want := map[JobKey]bool{}
	var clusters []string
	for _, k := range keys {
		if !slices.Contains(clusters, k.Cluster) {
			clusters = append(clusters, k.Cluster)
		}
		want[k] = true
	}
	return read(ctx, st, configured, clusters, func(runs []model.Job) bool {
		return slices.ContainsFunc(runs, func(r model.Job) bool { return want[JobKey{r.Cluster, r.ID}] })
	}, verdicts, windowMs, nowMs)
}

// read is Read over the jobs of the clusters named ("": all), keeping the
// logical jobs keep accepts (nil: all); a row whose job has a verdict in
// verdicts is a light one.
func read(ctx context.Context, st *store.Store, configured func(cluster string) bool, only []string, keep func(runs []model.Job) bool,
	verdicts map[JobKey]analyze.Verdict, windowMs, nowMs int64) (analyze.Fleet, error) {
	if windowMs <= 0 {
		windowMs = DefaultWindowMs
	}
	out := analyze.Fleet{WindowMs: windowMs, Jobs: []analyze.FleetJob{}}
	clusters, err := st.Clusters(ctx)
	if err != nil {
		return out, err
	}
	captured := map[string]bool{}
	for _, c := range clusters {
		captured[c.Name] = c.ReadOnly
	}
	lastTrigger := map[[2]string]int64{}
	var known []model.Job
	for _, cluster := range only {
		jobs, err := st.Jobs(ctx, cluster)
		if err != nil {
			return out, err
		}
		for _, j := range jobs {
			if !configured(j.Cluster) && !captured[j.Cluster] {
				continue // a cluster removed from the configuration
			}
			known = append(known, j.Job)
			lastTrigger[[2]string{j.Cluster, j.ID}] = j.LastTriggerMs
		}
	}
	// One row per logical job: its newest run's, judged against the
	// baseline of all its runs. The rows are read side by side, one per
	// core: each is its own reads and analysis (docs/fleet.md, "Cost").
	groups := analyze.LogicalJobs(known)
	if keep != nil {
		groups = slices.DeleteFunc(groups, func(runs []model.Job) bool { return !keep(runs) })
	}
	rows := make([]analyze.FleetJob, len(groups))
	if err := eachInParallel(len(groups), func(i int) error {
		runs := groups[i]
		newest := runs[len(runs)-1]
		end := nowMs
		if last := lastTrigger[[2]string{newest.Cluster, newest.ID}]; !configured(newest.Cluster) && last > 0 {
			end = last
		}
		var row analyze.FleetJob
		var err error
		if v, ok := verdicts[JobKey{newest.Cluster, newest.ID}]; ok {
			row, err = lightRow(ctx, st, newest, runs[:len(runs)-1], v, windowMs, end)
		} else {
			row, err = readRow(ctx, st, newest, runs[:len(runs)-1], windowMs, end)
		}
		if err != nil {
			return fmt.Errorf("fleet: job %s on %s: %w", newest.ID, newest.Cluster, err)
		}
		if runs[0].Split {
			row.SplitJobID = runs[0].ID
		}
		if len(runs) > 1 {
			row.Runs = analyze.RunsOf(newest.Cluster, newest.ID, runs)
		}
		rows[i] = row
		return nil
	}); err != nil {
		return out, err
	}
	out.Jobs = append(out.Jobs, rows...)
	analyze.SortFleet(out.Jobs)
	return out, nil
}

// maxParallelRows bounds the rows read at once: the store has four reading
// connections, and the others' readers (a job's views) must still get one.
const maxParallelRows = 2

// eachInParallel calls fn for 0..n-1, as many at once as there are cores
// (at most maxParallelRows), and returns the error of the lowest index that
// failed; after a failure the indexes not yet started are skipped.
func eachInParallel(n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), maxParallelRows, n)
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && !failed.Load(); i = int(next.Add(1) - 1) {
				if errs[i] = fn(i); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readRow reads one job's window and baseline (with its earlier runs') and
// makes its row.
func readRow(ctx context.Context, st *store.Store, job model.Job, earlier []model.Job, windowMs, nowMs int64) (analyze.FleetJob, error) {
	return rowOf(ctx, st, job, earlier, true, windowMs, nowMs)
}

// lightRow is readRow without the checkpoints' subtask stats and the metric
// samples, which only the verdict reads: the row's verdict is the one given
// (the job's in the last whole read). Everything else in the row is what
// readRow makes of the same window, at a fraction of its cost: a live
// update's row (docs/fleet.md, "Cost").
func lightRow(ctx context.Context, st *store.Store, job model.Job, earlier []model.Job, verdict analyze.Verdict, windowMs, nowMs int64) (analyze.FleetJob, error) {
	row, err := rowOf(ctx, st, job, earlier, false, windowMs, nowMs)
	row.Verdict = verdict
	return row, err
}

// rowOf makes a job's row; without full, of its checkpoints' summaries alone
// (its verdict is then not to be shown).
func rowOf(ctx context.Context, st *store.Store, job model.Job, earlier []model.Job, full bool, windowMs, nowMs int64) (analyze.FleetJob, error) {
	win, base := analyze.FleetRanges(nowMs, windowMs)
	q := store.Query{Cluster: job.Cluster, JobID: job.ID, FromMs: win[0], ToMs: win[1]}
	in := analyze.FleetInput{Job: job, WindowMs: windowMs, NowMs: nowMs}
	cfg, ok, err := st.LatestJobConfig(ctx, job.Cluster, job.ID)
	if err != nil {
		return analyze.FleetJob{}, err
	}
	if ok {
		in.Config = &cfg
	}
	// With their tasks: the verdict has their phases (and the samples).
	if err := st.ScanCheckpoints(ctx, q, full, func(c *model.Checkpoint) error {
		in.Checkpoints = append(in.Checkpoints, *c)
		return nil
	}); err != nil {
		return analyze.FleetJob{}, err
	}
	if full {
		mq := q
		mq.Metric = analyze.AnalysedMetric
		if in.Metrics, err = st.MetricSamples(ctx, mq); err != nil {
			return analyze.FleetJob{}, err
		}
	}
	if in.Gaps, err = st.Gaps(ctx, q); err != nil {
		return analyze.FleetJob{}, err
	}
	for _, run := range append(earlier, job) {
		bq := store.Query{Cluster: run.Cluster, JobID: run.ID, FromMs: base[0], ToMs: base[1]}
		cps, err := st.NewestCompleted(ctx, bq, analyze.FleetBaselineMax)
		if err != nil {
			return analyze.FleetJob{}, err
		}
		in.Baseline = append(in.Baseline, cps...)
	}
	return analyze.FleetRow(in), nil
}

// Runs are the runs of the logical job that jobID runs in on cluster, as the
// fleet's row lists them (analyze.RunsOf over the cluster's stored jobs);
// nil when the store holds no such job.
func Runs(ctx context.Context, st *store.Store, cluster, jobID string) ([]analyze.FleetRun, error) {
	summaries, err := st.Jobs(ctx, cluster)
	if err != nil {
		return nil, fmt.Errorf("fleet: the runs of %s: %w", jobID, err)
	}
	jobs := make([]model.Job, len(summaries))
	for i := range summaries {
		jobs[i] = summaries[i].Job
	}
	return analyze.RunsOf(cluster, jobID, jobs), nil
}
