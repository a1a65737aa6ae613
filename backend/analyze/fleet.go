package analyze

import (
	"cmp"
	"slices"

	"checkpoint-explorer/backend/model"
)

// Attention says how much a job of the fleet needs looking at
// (docs/fleet.md), most urgent first.
type Attention string

const (
	// AttentionFailing: the newest final checkpoint failed, or enough of the window's did.
	AttentionFailing Attention = "failing"
	// AttentionSlow: the window's p90 is near the timeout or beyond the interval.
	AttentionSlow Attention = "slow"
	// AttentionSlowerThanUsual: the window's p90 is well above the job's baseline.
	AttentionSlowerThanUsual Attention = "slower_than_usual"
	AttentionHealthy         Attention = "healthy"
	// AttentionNoData: no checkpoint completed or failed in the window.
	AttentionNoData Attention = "no_data"
)

// rank orders attention: the most urgent first.
func (a Attention) rank() int {
	switch a {
	case AttentionFailing:
		return 0
	case AttentionSlow:
		return 1
	case AttentionSlowerThanUsual:
		return 2
	case AttentionHealthy:
		return 3
	}
	return 4
}

// NeedsAttention reports whether a job in this state should be looked at:
// failing, slow or slower than usual.
func (a Attention) NeedsAttention() bool { return a.rank() < AttentionHealthy.rank() }

// The fleet's rules (docs/fleet.md).
const (
	// FleetBaselineSpanMs and FleetBaselineMax: a job's baseline is its
	// newest FleetBaselineMax completed checkpoints triggered in the
	// FleetBaselineSpanMs before the window; fewer than FleetBaselineMin
	// give none.
	FleetBaselineSpanMs = 24 * 60 * 60 * 1000
	FleetBaselineMax    = 200
	FleetBaselineMin    = 10
	// FailingMinCount and FailingMinShare: failures in the window that make
	// a job failing even when its newest checkpoint completed.
	FailingMinCount = 3
	FailingMinShare = 0.1
	// SlowTimeoutShare: a window p90 at this share of the timeout is slow.
	SlowTimeoutShare = 0.5
	// SlowerThanUsualFactor: a window p90 above this many times the
	// baseline p90, and at least SlowFloorMs above it, is slower than usual.
	SlowerThanUsualFactor = 2
	// FleetSparkline is how many of the newest final checkpoints the sparkline draws.
	FleetSparkline = 30
)

// Fleet is every known job ranked by checkpoint health over a window: what
// `status --format json` prints (docs/fleet.md).
type Fleet struct {
	WindowMs int64      `json:"window_ms"`
	Jobs     []FleetJob `json:"jobs"`
	// AsOfMs, when set, says the rows are the whole read the app made then,
	// kept from its last run, and that the fleet is being read again: a
	// first screen at once rather than after the whole read (docs/fleet.md,
	// "Cost"). Absent in a fresh answer and in `status`.
	AsOfMs int64 `json:"as_of_ms,omitempty"`
}

// FleetJob is one job's row of the fleet.
type FleetJob struct {
	Cluster   string       `json:"cluster"`
	Engine    model.Engine `json:"engine"`
	JobID     string       `json:"job_id"`
	Name      string       `json:"name"`
	State     string       `json:"state"`
	Attention Attention    `json:"attention"`
	// WindowEndMs is when the window ends: now, or for a capture the job's
	// newest checkpoint.
	WindowEndMs int64 `json:"window_end_ms"`
	// Completed and Failed count the window's checkpoints (savepoints
	// aside); Failed includes the Expired ones (the timeout ended them).
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
	Expired    int `json:"expired"`
	InProgress int `json:"in_progress"`
	// Missed counts the checkpoints known to exist but never seen: gaps
	// detected in the window, and those stored in progress that ended unseen.
	Missed int64 `json:"missed"`
	// P50Ms and P90Ms are the completed checkpoints' end-to-end times in the
	// window, BaselineP90Ms the baseline's (FleetBaselineSpanMs); null
	// without any.
	P50Ms         *int64 `json:"p50_ms"`
	P90Ms         *int64 `json:"p90_ms"`
	BaselineP90Ms *int64 `json:"baseline_p90_ms"`
	// SinceMs is the trigger time of the checkpoint the trouble began with;
	// null for a healthy job or one without data.
	SinceMs *int64 `json:"since_ms"`
	// LatestFailure is the signature of the newest failure's cluster (as
	// the failure clusters name it); "" without failures.
	LatestFailure string `json:"latest_failure"`
	// Verdict is the analysis's answer over the window.
	Verdict Verdict `json:"verdict"`
	// IntervalMs and TimeoutMs are the job's configured checkpoint interval
	// and timeout where known: the rules of slow use them.
	IntervalMs *int64 `json:"interval_ms,omitempty"`
	TimeoutMs  *int64 `json:"timeout_ms,omitempty"`
	// Sparkline is the end-to-end time of the newest final checkpoints
	// (FleetSparkline at most), oldest first.
	Sparkline []SparkPoint `json:"sparkline"`
	// Runs are the logical job's runs, oldest first, when it has more than
	// one (LogicalJobs): the row is the newest run's, its baseline theirs too.
	Runs []FleetRun `json:"runs,omitempty"`
	// SplitJobID is the row's first run's id when the user split that run
	// from the earlier runs of its name (model.Job.Split; App.SplitRun with
	// false joins them again).
	SplitJobID string `json:"split_job_id,omitempty"`
}

// SparkPoint is one final checkpoint on a sparkline.
type SparkPoint struct {
	TriggerMs int64 `json:"trigger_ms"`
	Ms        int64 `json:"ms"`
	Failed    bool  `json:"failed,omitempty"`
}

// FleetInput is what one job's fleet row is made of.
type FleetInput struct {
	Job    model.Job
	Config *model.JobConfig // nil when unknown
	// Checkpoints are those triggered in the window (FleetRanges), in any
	// order; with their tasks the verdict has their phases.
	Checkpoints []model.Checkpoint
	// Metrics are the job's samples over the window (AnalysedMetric's), for the verdict.
	Metrics []model.MetricSample
	// Gaps are the job's gaps detected in the window.
	Gaps []model.Gap
	// Baseline holds the checkpoints triggered in FleetRanges' baseline
	// range (more is fine: FleetRow keeps what counts).
	Baseline        []model.Checkpoint
	WindowMs, NowMs int64
}

// FleetRanges are the trigger times, inclusive, that a fleet row over the
// windowMs before nowMs reads: the window's, and its baseline's before it.
func FleetRanges(nowMs, windowMs int64) (window, baseline [2]int64) {
	start := nowMs - windowMs
	return [2]int64{start, nowMs}, [2]int64{start - FleetBaselineSpanMs, start - 1}
}

// FleetRow is one job's row: its checkpoints in the window analysed, its
// attention judged against its configuration and baseline (docs/fleet.md).
func FleetRow(in FleetInput) FleetJob {
	row := FleetJob{
		Cluster: in.Job.Cluster, Engine: in.Job.Engine, JobID: in.Job.ID, Name: in.Job.Name, State: in.Job.State,
		WindowEndMs: in.NowMs, Sparkline: []SparkPoint{},
	}
	if cfg := in.Config; cfg != nil {
		row.IntervalMs, row.TimeoutMs = positive(cfg.IntervalMs), positive(cfg.TimeoutMs)
	}
	a := NewAnalyzer(in.Job, nil, in.Metrics)
	a.SetConfig(in.Config)
	for i := range in.Checkpoints {
		_ = a.Add(&in.Checkpoints[i]) // only a streaming analysis fails
	}
	ja, _ := a.Finish(in.Gaps)
	row.Verdict, row.Missed = ja.Correlation.Verdict, ja.Missed

	// The final checkpoints in trigger order (the analysis order),
	// savepoints aside; judged leaves out those aborted by the job stopping,
	// failing or restarting (JobLevel), which say nothing of checkpoints.
	var finals, judged []*CheckpointAnalysis
	var e2e []int64
	failures := 0
	for k := range ja.Checkpoints {
		c := &ja.Checkpoints[k]
		switch {
		case c.Kind == model.KindSavepoint:
		case c.Status == model.StatusCompleted:
			row.Completed++
			e2e = append(e2e, c.DurationMs)
			finals, judged = append(finals, c), append(judged, c)
		case c.Status == model.StatusFailed:
			row.Failed++
			if c.Failure != nil && c.Failure.Expired {
				row.Expired++
			}
			finals = append(finals, c)
			if c.Failure == nil || !c.Failure.JobLevel {
				judged = append(judged, c)
				failures++
			}
		case c.EndedUnseen:
			row.Missed++
		default:
			row.InProgress++
		}
	}
	if len(e2e) > 0 {
		row.P50Ms, row.P90Ms = ptr(Quantile(e2e, 0.5)), ptr(Quantile(e2e, 0.9))
	}
	row.BaselineP90Ms = baselineP90(in.Baseline, in.NowMs, in.WindowMs)
	for _, c := range finals[max(0, len(finals)-FleetSparkline):] {
		row.Sparkline = append(row.Sparkline, SparkPoint{TriggerMs: c.TriggerMs, Ms: c.DurationMs, Failed: c.Status == model.StatusFailed})
	}
	// The newest failure that counts; an abort by the job when no other failed.
	newest := newestFailed(judged)
	if newest == nil {
		newest = newestFailed(finals)
	}
	if newest != nil {
		row.LatestFailure = clusterOf(ja.Failures, newest.ID)
	}

	// The rules, most urgent first; troubled says which checkpoints make
	// the trouble, for when it began.
	var troubled func(c *CheckpointAnalysis) bool
	failed := func(c *CheckpointAnalysis) bool { return c.Status == model.StatusFailed }
	slowAt := slowThreshold(row.IntervalMs, row.TimeoutMs)
	switch {
	case len(judged) == 0:
		row.Attention = AttentionNoData
	case failed(judged[len(judged)-1]) || failures >= FailingMinCount && float64(failures) >= FailingMinShare*float64(len(judged)):
		row.Attention, troubled = AttentionFailing, failed
	case row.P90Ms != nil && slowAt > 0 && *row.P90Ms >= slowAt:
		row.Attention = AttentionSlow
		troubled = func(c *CheckpointAnalysis) bool { return failed(c) || c.DurationMs >= slowAt }
	case row.P90Ms != nil && row.BaselineP90Ms != nil && slowerThanUsual(*row.P90Ms, *row.BaselineP90Ms):
		row.Attention = AttentionSlowerThanUsual
		troubled = func(c *CheckpointAnalysis) bool {
			return failed(c) || slowerThanUsual(c.DurationMs, *row.BaselineP90Ms)
		}
	default:
		row.Attention = AttentionHealthy
	}
	if troubled != nil {
		row.SinceMs = troubleSince(judged, troubled)
	}
	return row
}

func ptr(v int64) *int64 { return &v }

// positive is v when it is set and above 0 (an interval of 0 is
// checkpointing off), else nil.
func positive(v *int64) *int64 {
	if v == nil || *v <= 0 {
		return nil
	}
	return ptr(*v)
}

// slowThreshold is the end-to-end time from which a checkpoint is slow: the
// smaller of SlowTimeoutShare of the timeout and the interval, each where
// known; 0 when neither is.
func slowThreshold(intervalMs, timeoutMs *int64) int64 {
	var at int64
	if timeoutMs != nil {
		at = int64(SlowTimeoutShare * float64(*timeoutMs))
	}
	if intervalMs != nil && (at == 0 || *intervalMs < at) {
		at = *intervalMs
	}
	return at
}

// slowerThanUsual: above SlowerThanUsualFactor times the baseline and at
// least SlowFloorMs above it (a job whose checkpoints go from 20 to 50 ms
// has no problem).
func slowerThanUsual(ms, baselineMs int64) bool {
	return ms > SlowerThanUsualFactor*baselineMs && ms-baselineMs >= SlowFloorMs
}

// baselineP90 is the p90 of the end-to-end time of the newest
// FleetBaselineMax completed checkpoints (savepoints aside) triggered in the
// baseline range; nil with fewer than FleetBaselineMin.
func baselineP90(cps []model.Checkpoint, nowMs, windowMs int64) *int64 {
	_, span := FleetRanges(nowMs, windowMs)
	var in []*model.Checkpoint
	for i := range cps {
		c := &cps[i]
		if c.Status == model.StatusCompleted && c.Kind != model.KindSavepoint && c.TriggerMs >= span[0] && c.TriggerMs <= span[1] {
			in = append(in, c)
		}
	}
	if len(in) < FleetBaselineMin {
		return nil
	}
	slices.SortStableFunc(in, func(a, b *model.Checkpoint) int { return cmp.Compare(a.TriggerMs, b.TriggerMs) })
	in = in[max(0, len(in)-FleetBaselineMax):]
	e2e := make([]int64, len(in))
	for i, c := range in {
		e2e[i] = c.EndToEndMs
	}
	return ptr(Quantile(e2e, 0.9))
}

// troubleSince is when the trouble began: the first checkpoint of the run
// of troubled ones that the newest final checkpoint ends, or when the
// newest is not troubled (a failing job by its count, a slow p90 that the
// newest no longer shows), the window's first troubled checkpoint.
func troubleSince(finals []*CheckpointAnalysis, troubled func(*CheckpointAnalysis) bool) *int64 {
	n := len(finals)
	if troubled(finals[n-1]) {
		k := n - 1
		for k > 0 && troubled(finals[k-1]) {
			k--
		}
		return ptr(finals[k].TriggerMs)
	}
	for _, c := range finals {
		if troubled(c) {
			return ptr(c.TriggerMs)
		}
	}
	return nil
}

// newestFailed is the failed checkpoint triggered last; nil when none failed.
func newestFailed(finals []*CheckpointAnalysis) *CheckpointAnalysis {
	for k := len(finals) - 1; k >= 0; k-- {
		if finals[k].Status == model.StatusFailed {
			return finals[k]
		}
	}
	return nil
}

// clusterOf is the signature of the failure cluster holding checkpoint id.
func clusterOf(clusters []FailureCluster, id int64) string {
	for _, fc := range clusters {
		if slices.Contains(fc.CheckpointIDs, id) {
			return fc.Signature
		}
	}
	return ""
}

// SortFleet puts rows in the "needs attention" order: attention (failing,
// slow, slower than usual, healthy, no data), then the longest trouble first
// (since), then the slowest p90, then by cluster, name and job id.
func SortFleet(rows []FleetJob) {
	slices.SortStableFunc(rows, func(a, b FleetJob) int {
		return cmp.Or(
			cmp.Compare(a.Attention.rank(), b.Attention.rank()),
			compareNullable(a.SinceMs, b.SinceMs, false),
			compareNullable(a.P90Ms, b.P90Ms, true),
			cmp.Compare(a.Cluster, b.Cluster),
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.JobID, b.JobID),
		)
	})
}

// compareNullable orders values ascending (descending with desc), null last.
func compareNullable(a, b *int64, desc bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case desc:
		return cmp.Compare(*b, *a)
	}
	return cmp.Compare(*a, *b)
}

// FleetRun is one run of a logical job: a job id a later run of the same
// name followed (a resubmission gets a new id; a reused id's earlier run is
// kept apart as JOBID@START_MS).
type FleetRun struct {
	JobID   string `json:"job_id"`
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms,omitempty"`
	State   string `json:"state"`
}

// RunSlackMs is how long after a run's end the next one may start and still
// be seen as following it (docs/fleet.md, "Jobs across restarts").
const RunSlackMs = 60_000

// LogicalJobs groups jobs into logical jobs, each its runs oldest first: the
// jobs of one cluster, engine and name that ran one after another, each
// starting after the one before had ended (within RunSlackMs of its end, or
// any time after). Jobs of one name running side by side stay apart, as do
// jobs without a name or a start time; a run the user split (Job.Split)
// starts a logical job of its own, which later runs may follow. Groups come
// in the order of their first run.
func LogicalJobs(jobs []model.Job) [][]model.Job {
	sorted := slices.Clone(jobs)
	slices.SortStableFunc(sorted, func(a, b model.Job) int { return cmp.Compare(a.StartMs, b.StartMs) })
	type key struct {
		cluster, name string
		engine        model.Engine
	}
	var groups [][]model.Job
	open := map[key][]int{} // the groups of a key, by index in groups
	for _, j := range sorted {
		k := key{j.Cluster, j.Name, j.Engine}
		// The run follows the logical job whose last run ended last before it
		// started (after a split, the split run's rather than the earlier one's).
		follows := -1
		if j.Name != "" && j.StartMs > 0 && !j.Split {
			for _, gi := range open[k] {
				last := groups[gi][len(groups[gi])-1]
				if last.EndMs > 0 && model.JobEnded(last.State) && last.EndMs <= j.StartMs+RunSlackMs &&
					(follows < 0 || last.EndMs > groups[follows][len(groups[follows])-1].EndMs) {
					follows = gi
				}
			}
		}
		if follows >= 0 {
			groups[follows] = append(groups[follows], j)
		} else {
			open[k] = append(open[k], len(groups))
			groups = append(groups, []model.Job{j})
		}
	}
	return groups
}

// RunsOf are the runs of the logical job (LogicalJobs) that the job id runs
// in among jobs, oldest first, as the fleet's row lists them; nil when jobs
// hold no job of that cluster and id.
func RunsOf(cluster, jobID string, jobs []model.Job) []FleetRun {
	for _, runs := range LogicalJobs(jobs) {
		if !slices.ContainsFunc(runs, func(j model.Job) bool { return j.Cluster == cluster && j.ID == jobID }) {
			continue
		}
		out := make([]FleetRun, len(runs))
		for i, r := range runs {
			out[i] = FleetRun{JobID: r.ID, StartMs: r.StartMs, EndMs: r.EndMs, State: r.State}
		}
		return out
	}
	return nil
}
