package analyze

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// The fleet's clock in these tests: the window is the hour before now, the
// baseline the 24 h before that.
const (
	fleetNow    = 100_000_000
	fleetWindow = 3_600_000
	fleetStart  = fleetNow - fleetWindow // 96,400,000
)

const (
	msgExpired  = "Checkpoint expired before completing."
	msgDeclined = "Task declined the checkpoint: not ready."
	msgSuspend  = "Checkpoint Coordinator is suspending."
)

// fleetCPs builds checkpoints from a spec, one token each, triggered step ms
// apart from first, ids counting from id: a number is a checkpoint completed
// in that many ms, "x" one that failed (declined) after 50 ms, "e" one that
// expired after 600 s, "j" one aborted by the job stopping, "p" one in progress, "s" a savepoint completed in 9 s.
func fleetCPs(id, first, step int64, spec string) []model.Checkpoint {
	var out []model.Checkpoint
	for i, tok := range strings.Fields(spec) {
		trig := first + int64(i)*step
		var c model.Checkpoint
		switch tok {
		case "x":
			c = cp(id, trig, 50, model.StatusFailed)
			c.FailureMessage = msgDeclined
		case "e":
			c = cp(id, trig, 600_000, model.StatusFailed)
			c.FailureMessage = msgExpired
		case "j":
			c = cp(id, trig, 5, model.StatusFailed)
			c.FailureMessage = msgSuspend
		case "p":
			c = cp(id, trig, 0, model.StatusInProgress)
		case "s":
			c = cp(id, trig, 9000, model.StatusCompleted)
			c.Kind = model.KindSavepoint
		default:
			ms, err := strconv.ParseInt(tok, 10, 64)
			if err != nil {
				panic(tok)
			}
			c = cp(id, trig, ms, model.StatusCompleted)
		}
		c.Cluster, c.JobID = "prod", "j1"
		out = append(out, c)
		id++
	}
	return out
}

// inWindow: checkpoints in the window, a minute apart from its start + 1 min.
func inWindow(spec string) []model.Checkpoint { return fleetCPs(100, fleetStart+60_000, 60_000, spec) }

// history: n completed checkpoints of ms each, a minute apart, ending just
// before the window.
func history(n int, ms int64) []model.Checkpoint {
	return fleetCPs(1, fleetStart-int64(n)*60_000, 60_000, strings.Repeat(strconv.FormatInt(ms, 10)+" ", n))
}

func cfgOf(intervalMs, timeoutMs int64) *model.JobConfig {
	return &model.JobConfig{IntervalMs: i64p(intervalMs), TimeoutMs: i64p(timeoutMs)}
}

// at is the trigger time of the k-th checkpoint of inWindow().
func at(k int64) *int64 { return i64p(fleetStart + 60_000 + k*60_000) }

// Every value below is worked out by hand from the rules of docs/fleet.md.
func TestFleetRow(t *testing.T) {
	usual := cfgOf(60_000, 600_000) // slow from min(300 s, 60 s) = 60 s
	for _, tc := range []struct {
		name    string
		in      FleetInput
		want    FleetJob // the fields compared below; Sparkline by its length
		sparks  int
		verdict Verdict
	}{
		{
			// p50 is the 5th of 10 sorted (100×4, 110, 120×2, 130, 140, 150),
			// p90 the 9th; baseline p90 100, and 140 is not above 200.
			name:   "healthy, with a baseline",
			in:     FleetInput{Config: usual, Checkpoints: inWindow("100 120 110 130 100 150 100 100 120 140"), Baseline: history(12, 100)},
			want:   FleetJob{Attention: AttentionHealthy, Completed: 10, P50Ms: i64p(110), P90Ms: i64p(140), BaselineP90Ms: i64p(100)},
			sparks: 10, verdict: VerdictHealthy,
		},
		{
			// No history: no baseline. The newest final checkpoint failed:
			// failing since it (the run of failures is that one).
			name: "no history, the newest failed",
			in:   FleetInput{Config: usual, Checkpoints: inWindow("100 100 100 x")},
			want: FleetJob{Attention: AttentionFailing, Completed: 3, Failed: 1, P50Ms: i64p(100), P90Ms: i64p(100),
				SinceMs: at(3), LatestFailure: msgDeclined},
			sparks: 4, verdict: VerdictInconclusive,
		},
		{
			// The run of failures the newest ends began at the 3rd.
			name: "expiring for three checkpoints",
			in:   FleetInput{Config: usual, Checkpoints: inWindow("100 x 100 e e e"), Baseline: history(12, 100)},
			want: FleetJob{Attention: AttentionFailing, Completed: 2, Failed: 4, Expired: 3, P50Ms: i64p(100), P90Ms: i64p(100),
				BaselineP90Ms: i64p(100), SinceMs: at(3), LatestFailure: msgExpired},
			sparks: 6, verdict: VerdictInconclusive,
		},
		{
			// 3 failures of 20 final checkpoints: 3 ≥ 3 and 15 % ≥ 10 %,
			// though the newest completed; since the first failure.
			name: "3 failures of 20",
			in: FleetInput{Config: usual,
				Checkpoints: inWindow("100 100 100 100 x 100 100 x 100 100 100 100 x 100 100 100 100 100 100 100")},
			want: FleetJob{Attention: AttentionFailing, Completed: 17, Failed: 3, P50Ms: i64p(100), P90Ms: i64p(100),
				SinceMs: at(4), LatestFailure: msgDeclined},
			sparks: 20, verdict: VerdictInconclusive,
		},
		{
			// 3 failures of 40 are 7.5 %: not failing; fast otherwise.
			name: "3 failures of 40",
			in:   FleetInput{Config: usual, Checkpoints: inWindow("x x x " + strings.Repeat("100 ", 37))},
			want: FleetJob{Attention: AttentionHealthy, Completed: 37, Failed: 3, P50Ms: i64p(100), P90Ms: i64p(100),
				LatestFailure: msgDeclined},
			sparks: 30, verdict: VerdictInconclusive,
		},
		{
			// Timeout 10 s, interval 60 s: slow from 5 s. p90 of (1000, 1000,
			// 6000, 6000, 6000) is the 5th, 6000; the slow run began at the 3rd.
			name:   "slow against the timeout",
			in:     FleetInput{Config: cfgOf(60_000, 10_000), Checkpoints: inWindow("1000 1000 6000 6000 6000")},
			want:   FleetJob{Attention: AttentionSlow, Completed: 5, P50Ms: i64p(6000), P90Ms: i64p(6000), SinceMs: at(2)},
			sparks: 5, verdict: VerdictInconclusive,
		},
		{
			// Interval 5 s: slow from 5 s. p90 of (4000, 4800, 5000, 5200) is
			// the 4th, 5200; the newest (4800) is not slow, so since the
			// window's first slow one, the 2nd.
			name:   "slow against the interval, the newest not",
			in:     FleetInput{Config: cfgOf(5_000, 600_000), Checkpoints: inWindow("4000 5000 5200 4800")},
			want:   FleetJob{Attention: AttentionSlow, Completed: 4, P50Ms: i64p(4800), P90Ms: i64p(5200), SinceMs: at(1)},
			sparks: 4, verdict: VerdictInconclusive,
		},
		{
			// No configuration: slow is skipped. 2700 > 2 × 1000 and 1700 ms
			// above it; every one of them is (> 2000), since the first.
			name: "slower than usual, configuration unknown",
			in:   FleetInput{Checkpoints: inWindow("2500 2600 2700"), Baseline: history(12, 1000)},
			want: FleetJob{Attention: AttentionSlowerThanUsual, Completed: 3, P50Ms: i64p(2600), P90Ms: i64p(2700),
				BaselineP90Ms: i64p(1000), SinceMs: at(0)},
			sparks: 3, verdict: VerdictInconclusive,
		},
		{
			// From 20 to 50 ms is more than twice, but 30 ms is nothing.
			name:   "twice the baseline but under a second more",
			in:     FleetInput{Config: usual, Checkpoints: inWindow("50 50 50"), Baseline: history(12, 20)},
			want:   FleetJob{Attention: AttentionHealthy, Completed: 3, P50Ms: i64p(50), P90Ms: i64p(50), BaselineP90Ms: i64p(20)},
			sparks: 3, verdict: VerdictHealthy,
		},
		{
			// Cancelled: the last checkpoint was aborted as the job stopped,
			// which says nothing of checkpoints. It is counted and drawn,
			// and named for want of another failure.
			name: "aborted by the job stopping",
			in:   FleetInput{Config: usual, Checkpoints: inWindow("100 100 100 j")},
			want: FleetJob{Attention: AttentionHealthy, Completed: 3, Failed: 1, P50Ms: i64p(100), P90Ms: i64p(100),
				LatestFailure: msgSuspend},
			sparks: 4, verdict: VerdictHealthy,
		},
		{
			// The failure that counts is named before the abort after it.
			name: "expired, then aborted",
			in:   FleetInput{Config: usual, Checkpoints: inWindow("100 100 e j")},
			want: FleetJob{Attention: AttentionFailing, Completed: 2, Failed: 2, Expired: 1, P50Ms: i64p(100), P90Ms: i64p(100),
				SinceMs: at(2), LatestFailure: msgExpired},
			sparks: 4, verdict: VerdictInconclusive,
		},
		{
			// Only aborts: nothing to judge.
			name:   "only aborted",
			in:     FleetInput{Config: usual, Checkpoints: inWindow("j j")},
			want:   FleetJob{Attention: AttentionNoData, Failed: 2, LatestFailure: msgSuspend},
			sparks: 2, verdict: VerdictInconclusive,
		},
		{
			// A job whose only checkpoints are in progress has no data.
			name:    "only in progress",
			in:      FleetInput{Config: usual, Checkpoints: inWindow("p p")},
			want:    FleetJob{Attention: AttentionNoData, InProgress: 2},
			verdict: VerdictInconclusive,
		},
		{
			// No checkpoint at all, and no history: no data.
			name:    "nothing",
			in:      FleetInput{},
			want:    FleetJob{Attention: AttentionNoData},
			verdict: VerdictInconclusive,
		},
		{
			// Flink ended the one stored in progress when a later one
			// completed: missed, with the 2 ids of a gap detected in the window.
			name: "ended unseen and a gap",
			in: FleetInput{Config: usual, Checkpoints: inWindow("100 p 100 100"),
				Gaps: []model.Gap{{Cluster: "prod", JobID: "j1", FromID: 110, ToID: 111, DetectedMs: fleetStart + 1}}},
			want:   FleetJob{Attention: AttentionHealthy, Completed: 3, Missed: 3, P50Ms: i64p(100), P90Ms: i64p(100)},
			sparks: 3, verdict: VerdictHealthy,
		},
		{
			// Savepoints are left out: the 9 s one counts nowhere.
			name:   "a savepoint",
			in:     FleetInput{Config: usual, Checkpoints: inWindow("100 s 100 100")},
			want:   FleetJob{Attention: AttentionHealthy, Completed: 3, P50Ms: i64p(100), P90Ms: i64p(100)},
			sparks: 3, verdict: VerdictHealthy,
		},
		{
			// The newest 200 of 250 (all 100 ms; the 50 before them took 5 s)
			// make the baseline.
			name: "the baseline keeps the newest 200",
			in: FleetInput{Config: usual, Checkpoints: inWindow("100 100 100"),
				Baseline: append(fleetCPs(1, fleetStart-250*60_000, 60_000, strings.Repeat("5000 ", 50)), history(200, 100)...)},
			want:   FleetJob{Attention: AttentionHealthy, Completed: 3, P50Ms: i64p(100), P90Ms: i64p(100), BaselineP90Ms: i64p(100)},
			sparks: 3, verdict: VerdictHealthy,
		},
		{
			// 9 in the baseline's range (a 10th is in the window, a 11th
			// more than 24 h before it): too few for a baseline.
			name: "9 in the baseline's range",
			in: FleetInput{Config: usual, Checkpoints: inWindow("100 100 100"),
				Baseline: append(append(history(9, 100), inWindow("100")...), fleetCPs(1, fleetStart-FleetBaselineSpanMs-1, 1, "100")...)},
			want:   FleetJob{Attention: AttentionHealthy, Completed: 3, P50Ms: i64p(100), P90Ms: i64p(100)},
			sparks: 3, verdict: VerdictHealthy,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Job = model.Job{Cluster: "prod", ID: "j1", Name: "orders", Engine: model.EngineFlink, State: "RUNNING"}
			in.NowMs, in.WindowMs = fleetNow, fleetWindow
			got := FleetRow(in)
			want := tc.want
			want.Cluster, want.Engine, want.JobID, want.Name, want.State = "prod", model.EngineFlink, "j1", "orders", "RUNNING"
			want.Verdict, want.WindowEndMs = tc.verdict, fleetNow
			if in.Config != nil {
				want.IntervalMs, want.TimeoutMs = in.Config.IntervalMs, in.Config.TimeoutMs
			}
			if len(got.Sparkline) != tc.sparks {
				t.Errorf("sparkline of %d, want %d", len(got.Sparkline), tc.sparks)
			}
			got.Sparkline = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %s\nwant %s", fleetText(got), fleetText(want))
			}
		})
	}
}

// fleetText shows a row with its pointers' values.
func fleetText(r FleetJob) string {
	v := func(p *int64) string {
		if p == nil {
			return "null"
		}
		return strconv.FormatInt(*p, 10)
	}
	return string(r.Attention) + " completed " + strconv.Itoa(r.Completed) + " failed " + strconv.Itoa(r.Failed) +
		" expired " + strconv.Itoa(r.Expired) + " in progress " + strconv.Itoa(r.InProgress) +
		" missed " + strconv.FormatInt(r.Missed, 10) + " p50 " + v(r.P50Ms) + " p90 " + v(r.P90Ms) +
		" baseline " + v(r.BaselineP90Ms) + " since " + v(r.SinceMs) + " interval " + v(r.IntervalMs) +
		" timeout " + v(r.TimeoutMs) + " failure " + strconv.Quote(r.LatestFailure) + " verdict " + string(r.Verdict)
}

// The sparkline holds the newest 30 final checkpoints, oldest first,
// failures marked; in-progress ones are not drawn.
func TestFleetSparkline(t *testing.T) {
	cps := inWindow(strings.Repeat("100 ", 33) + "x p 250")
	row := FleetRow(FleetInput{Job: model.Job{ID: "j1", Engine: model.EngineFlink}, Checkpoints: cps, NowMs: fleetNow, WindowMs: fleetWindow})
	s := row.Sparkline
	if len(s) != 30 {
		t.Fatalf("sparkline of %d, want 30", len(s))
	}
	// Final checkpoints are #0..#33 and #35: the newest 30 start at #5.
	if s[0].TriggerMs != *at(5) || s[28] != (SparkPoint{TriggerMs: *at(33), Ms: 50, Failed: true}) ||
		s[29] != (SparkPoint{TriggerMs: *at(35), Ms: 250}) {
		t.Errorf("sparkline %+v", s)
	}
}

// The "needs attention" order: attention, then the longest trouble, then
// the slowest p90, then cluster, name and id.
func TestSortFleet(t *testing.T) {
	row := func(id string, a Attention, since, p90 *int64, cluster, name string) FleetJob {
		return FleetJob{JobID: id, Attention: a, SinceMs: since, P90Ms: p90, Cluster: cluster, Name: name}
	}
	rows := []FleetJob{
		row("nodata", AttentionNoData, nil, nil, "a", "a"),
		row("healthy-b", AttentionHealthy, nil, i64p(100), "b", "x"),
		row("healthy-a-slower", AttentionHealthy, nil, i64p(300), "a", "z"),
		row("healthy-a", AttentionHealthy, nil, i64p(100), "a", "y"),
		row("healthy-no-p90", AttentionHealthy, nil, nil, "a", "a"),
		row("usual", AttentionSlowerThanUsual, i64p(50), i64p(9000), "a", "a"),
		row("slow-recent", AttentionSlow, i64p(900), i64p(70_000), "a", "a"),
		row("slow-long", AttentionSlow, i64p(100), i64p(61_000), "b", "b"),
		row("failing-recent", AttentionFailing, i64p(800), i64p(10), "a", "a"),
		row("failing-long-fast", AttentionFailing, i64p(200), i64p(10), "c", "c"),
		row("failing-long-slow", AttentionFailing, i64p(200), i64p(20), "c", "d"),
	}
	SortFleet(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r.JobID)
	}
	want := []string{"failing-long-slow", "failing-long-fast", "failing-recent", "slow-long", "slow-recent", "usual",
		"healthy-a-slower", "healthy-a", "healthy-b", "healthy-no-p90", "nodata"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order\n %v\nwant\n %v", got, want)
	}
	for _, a := range []Attention{AttentionFailing, AttentionSlow, AttentionSlowerThanUsual} {
		if !a.NeedsAttention() {
			t.Errorf("%s does not need attention", a)
		}
	}
	if AttentionHealthy.NeedsAttention() || AttentionNoData.NeedsAttention() {
		t.Error("healthy or no data needs attention")
	}
}

func TestLogicalJobs(t *testing.T) {
	job := func(cluster, id, name, state string, start, end int64) model.Job {
		return model.Job{Cluster: cluster, ID: id, Name: name, Engine: model.EngineFlink, State: state, StartMs: start, EndMs: end}
	}
	split := func(j model.Job) model.Job { j.Split = true; return j }
	ids := func(groups [][]model.Job) [][]string {
		var out [][]string
		for _, g := range groups {
			var one []string
			for _, j := range g {
				one = append(one, j.ID)
			}
			out = append(out, one)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		jobs []model.Job
		want [][]string
	}{
		{"one after another", []model.Job{job("c", "b", "orders", "RUNNING", 300, 0), job("c", "a", "orders", "CANCELED", 100, 250)},
			[][]string{{"a", "b"}}},
		{"a kept-apart run", []model.Job{job("c", "x@100", "orders", model.StateReplaced, 100, 300), job("c", "x", "orders", "RUNNING", 300, 0)},
			[][]string{{"x@100", "x"}}},
		{"side by side", []model.Job{job("c", "a", "orders", "RUNNING", 100, 0), job("c", "b", "orders", "RUNNING", 300, 0)},
			[][]string{{"a"}, {"b"}}},
		{"ended long before: still the next run", []model.Job{job("c", "a", "orders", "FAILED", 100, 200), job("c", "b", "orders", "RUNNING", 900_000, 0)},
			[][]string{{"a", "b"}}},
		{"ended after the next started", []model.Job{job("c", "a", "orders", "CANCELED", 100, 200_000), job("c", "b", "orders", "RUNNING", 300, 0)},
			[][]string{{"a"}, {"b"}}},
		{"other cluster, no name, no start", []model.Job{job("c", "a", "orders", "CANCELED", 100, 200), job("d", "b", "orders", "RUNNING", 300, 0),
			job("c", "n1", "", "CANCELED", 100, 200), job("c", "n2", "", "RUNNING", 300, 0), job("c", "z", "orders", "RUNNING", 0, 0)},
			[][]string{{"z"}, {"a"}, {"n1"}, {"b"}, {"n2"}}},
		// The user split b from a: b starts a logical job, and c, after b, follows b rather than a.
		{"split", []model.Job{job("c", "a", "orders", "CANCELED", 100, 200), split(job("c", "b", "orders", "CANCELED", 300, 400)),
			job("c", "c", "orders", "RUNNING", 500, 0)},
			[][]string{{"a"}, {"b", "c"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(LogicalJobs(tc.jobs)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LogicalJobs = %v, want %v", got, tc.want)
			}
			// Each job's runs are its group's, whichever of them is asked for.
			for _, g := range tc.want {
				for _, id := range g {
					cluster := tc.jobs[slices.IndexFunc(tc.jobs, func(j model.Job) bool { return j.ID == id })].Cluster
					var got []string
					for _, r := range RunsOf(cluster, id, tc.jobs) {
						got = append(got, r.JobID)
					}
					if !reflect.DeepEqual(got, g) {
						t.Errorf("RunsOf(%s) = %v, want %v", id, got, g)
					}
				}
			}
		})
	}
	runs := RunsOf("c", "b", []model.Job{job("c", "b", "orders", "RUNNING", 300, 0), job("c", "a", "orders", "CANCELED", 100, 250)})
	want := []FleetRun{{JobID: "a", StartMs: 100, EndMs: 250, State: "CANCELED"}, {JobID: "b", StartMs: 300, State: "RUNNING"}}
	if !reflect.DeepEqual(runs, want) {
		t.Errorf("RunsOf = %+v, want %+v", runs, want)
	}
	if runs := RunsOf("d", "b", []model.Job{job("c", "b", "orders", "RUNNING", 300, 0)}); runs != nil {
		t.Errorf("RunsOf a job of another cluster = %+v, want none", runs)
	}
}
