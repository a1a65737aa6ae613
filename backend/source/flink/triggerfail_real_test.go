package flink_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/testenv/flinkenv"
)

// TestRealTriggerFailuresAtAJobsStartAreCountedAndExplained: the first triggers of a knob job
// (every 50 ms) come while its tasks are still being deployed. Flink counts each as a failed
// checkpoint that never got an id — counts.total exceeds the newest id by their number — and
// the app's JobManager log reader gives one trigger failure for each, with its reason and the
// task that was not running yet. It uses only the jobs it submits to the shared cluster, and
// waits on states, not times (the machine may be busy).
func TestRealTriggerFailuresAtAJobsStartAreCountedAndExplained(t *testing.T) {
	env := flinkenv.Ensure(t)
	c := newClient(t, flink.Config{BaseURL: env.RESTURL, Cluster: "test"})
	// The app's reader, reading the log whatever its size (the shared cluster's grows).
	src := flink.NewSource(c, collect.NewBudget(collect.BudgetOptions{RequestsPerSecond: 1000, Burst: 100}),
		flink.SourceOptions{LogMode: model.JobManagerLogOn})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for attempt := 1; ; attempt++ {
		job := env.Submit(t, "--name", fmt.Sprintf("trigger failures %d", attempt), "--parallelism", "2", "--interval-ms", "50")
		if n := checkTriggerFailures(t, ctx, c, src, job); n > 0 {
			t.Logf("attempt %d: %d trigger(s) failed before an id, each counted and explained", attempt, n)
			return
		}
		// Its tasks ran before the first trigger: nothing to see, and nothing wrong.
		if attempt == 3 {
			t.Fatal("three jobs started without a trigger failing while their tasks deployed: the test shows nothing")
		}
		if err := flinkenv.Cancel(env, job); err != nil {
			t.Logf("cancel %s: %v", job, err)
		}
	}
}

// checkTriggerFailures waits until job has completed checkpoints (its tasks run: the triggers
// that failed while they deployed are over), then until Flink's counters and the log agree,
// checks what the log says of each, and returns how many there were.
func checkTriggerFailures(t *testing.T, ctx context.Context, c *flink.Client, src *flink.Source, jid string) int {
	t.Helper()
	var list flink.CheckpointList
	waitFor(t, ctx, 3*time.Minute, "3 completed checkpoints", func() (bool, string) {
		var err error
		list, err = c.Checkpoints(ctx, jid)
		return err == nil && list.Counts.Completed >= 3, fmt.Sprintf("counts %+v, err %v", list.Counts, err)
	})
	job, err := c.Job(ctx, jid)
	if err != nil {
		t.Fatal(err)
	}
	var fs []model.TriggerFailure
	var withoutID, newest, firstTrigger int64
	// The counters come from a snapshot up to 3 s old, the log from the moment it is read:
	// wait until they agree. Once the tasks run no trigger fails, so they do for good.
	waitFor(t, ctx, 2*time.Minute, "the log's trigger failures to match counts.total − the newest id", func() (bool, string) {
		if list, err = c.Checkpoints(ctx, jid); err != nil {
			return false, err.Error()
		}
		newest = newestID(list)
		withoutID = list.Counts.Total - newest
		cps, st, err := src.LogCheckpoints(ctx, &job, true)
		if err != nil {
			return false, fmt.Sprintf("log %+v: %v", st, err)
		}
		for _, cp := range cps {
			if cp.ID == 1 && cp.TriggerMs >= job.StartMs-1000 {
				firstTrigger = cp.TriggerMs
			}
		}
		var ok bool
		fs, ok = src.LogTriggerFailures(&job)
		return ok && int64(len(fs)) == withoutID,
			fmt.Sprintf("log %+v (read: %v) gives %d trigger failures; counts %+v, newest id %d (a rotated log loses the start)",
				st, ok, len(fs), list.Counts, newest)
	})
	if list.Counts.Failed < withoutID {
		t.Errorf("counts %+v: %d failed, fewer than the %d triggers without an id", list.Counts, list.Counts.Failed, withoutID)
	}
	if firstTrigger == 0 {
		t.Errorf("the log has no trigger of checkpoint 1 since the job's start")
	}
	for _, f := range fs {
		if f.Reason != "Not all required tasks are currently running" || !knobTask(f.Task) ||
			!strings.Contains(f.Message, "Checkpoint triggering task "+f.Task+" of job "+jid) {
			t.Errorf("trigger failure %+v: want the knob's task not running yet, named in the message", f)
		}
		// Logged between the job's start and its first checkpoint (one JobManager clock; the log's
		// time is to the ms, the start's too).
		if f.AtMs < job.StartMs-1000 || firstTrigger > 0 && f.AtMs > firstTrigger {
			t.Errorf("trigger failure at %d, outside the job's start %d to checkpoint 1's trigger %d", f.AtMs, job.StartMs, firstTrigger)
		}
	}
	// As the reconciliation groups them: one reason, all of them.
	if g := model.GroupTriggerFailures(fs, job.StartMs-1000); len(fs) > 0 && (len(g) != 1 || g[0].Count != int64(len(fs))) {
		t.Errorf("grouped %+v, want one reason for all %d", g, len(fs))
	}
	t.Logf("job %s: counts %+v, newest id %d, %d trigger failure(s) in the log", jid, list.Counts, newest, len(fs))
	return len(fs)
}

// newestID is the highest id Flink reports for the job: its history's, or the latest ones'.
func newestID(l flink.CheckpointList) int64 {
	n := max(l.LatestCompletedID, l.LatestFailedID, l.LatestSavepointID)
	for _, cp := range l.History {
		n = max(n, cp.ID)
	}
	return n
}

// knobTask tells a subtask of the knob job ("Slow Map (1/2)").
func knobTask(task string) bool {
	for _, v := range knobVertices {
		if strings.HasPrefix(task, v.name+" (") && strings.HasSuffix(task, ")") {
			return true
		}
	}
	return false
}
