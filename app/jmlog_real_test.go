package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
)

// finalizeInLog reads the finalizationTime of each completed checkpoint of a
// job straight from the JobManager log file, with a pattern of its own, to
// check the app's reader against. Flink measures the finalization beyond the
// completion time its checkpointDuration ends at (it also covers adding the
// checkpoint to the store), so under load it can exceed the duration; the app
// keeps finalize within the checkpoint's time, as the reader does.
func finalizeInLog(t *testing.T, env flinkenv.Env, jid string) map[int64]int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.LogDir, "jobmanager.log"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`Completed checkpoint (\d+) for job ` + jid + ` \(\d+ bytes, checkpointDuration=(\d+) ms, finalizationTime=(\d+) ms\)`)
	out := map[int64]int64{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		d, _ := strconv.ParseInt(m[2], 10, 64)
		f, _ := strconv.ParseInt(m[3], 10, 64)
		out[id] = min(f, d)
	}
	return out
}

// testJobManagerLogOnARealCluster: a job whose first ~30 checkpoints left
// Flink's 10-deep REST history before the app first follows it shows them
// from the JobManager log; every completed checkpoint gets the log's
// finalize time; declines name the declining task, expiries say so.
func testJobManagerLogOnARealCluster(t *testing.T, env flinkenv.Env) {
	main := env.Submit(t, "--name", "ce-jmlog", "--interval-ms", "300", "--rate", "100", "--fail-every", "5",
		"--parallelism", "2")
	expiring := env.Submit(t, "--name", "ce-jmlog-expire", "--interval-ms", "1000", "--rate", "20",
		"--slow-snapshot-ms", "1500", "--checkpoint-timeout-ms", "1000")
	cl := flinkClient(t, env.RESTURL)
	// By the newest id: Flink's total also counts the triggers that failed before the tasks
	// ran, which on a busy machine can be many, and got no id.
	waitFor(t, 3*time.Minute, "40 checkpoints of the main job before the app follows it", func() bool {
		l, err := cl.Checkpoints(context.Background(), main)
		return err == nil && len(l.History) > 0 && l.History[0].ID >= 40
	})
	// The main job checkpoints every 300 ms at parallelism 2: 23 requests/s of details, more
	// than the default budget of 20, and the log's reads would wait behind them. What is tested
	// here is the log, not the budget (overhead_real_test.go is).
	a := newCollectingAppBudget(t, env.RESTURL, Options{JobManagerLogEvery: 3 * time.Second}, 100)
	q := store.Query{Cluster: "flink", JobID: main}
	var cps []model.Checkpoint
	var seen string
	defer func() {
		if t.Failed() {
			t.Logf("the main job's history when last looked at: %s", seen)
		}
	}()
	waitFor(t, 2*time.Minute, "the main job's history from checkpoint 1 with finalize times", func() bool {
		cps, _ = a.store.Checkpoints(context.Background(), q)
		fin := 0
		for _, c := range cps {
			if c.FinalizeMs != nil {
				fin++
			}
		}
		if len(cps) > 0 {
			seen = fmt.Sprintf("%d checkpoints, ids %d–%d, %d with finalize times", len(cps), cps[0].ID, cps[len(cps)-1].ID, fin)
		}
		// The last read of the log must have succeeded: on a busy machine one can time out
		// (the log is read whole, a MB or more), and the next one comes 3 s later.
		r, ok, _ := a.store.Reconciliation(context.Background(), "flink", main)
		logRead := ok && r.Log != nil && r.Log.State == model.LogRead
		if len(cps) > 0 && !logRead && r.Log != nil {
			seen += fmt.Sprintf("; the log %s (%s)", r.Log.State, r.Log.Reason)
		}
		return len(cps) >= 60 && cps[0].ID == 1 && fin >= 45 && logRead
	})
	waitFor(t, time.Minute, "expired checkpoints of the expiring job", func() bool {
		r, err := a.Report("flink", expiring, 0, 0)
		return err == nil && len(r.Failures) > 0 && r.Failures[0].Count >= 3
	})
	a.stopCollector()
	cps, _ = a.store.Checkpoints(context.Background(), q)
	inLog := finalizeInLog(t, env, main)
	r, ok, err := a.store.Reconciliation(context.Background(), "flink", main)
	if err != nil || !ok {
		t.Fatalf("no reconciliation: %v", err)
	}
	if r.Log == nil || r.Log.State != model.LogRead {
		t.Fatalf("JobManager log state %+v", r.Log)
	}
	// Every id from 1 is stored or a gap: a gap the log has not filled yet
	// is one REST lost after the app last read the log.
	gaps, err := a.store.Gaps(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[int64]bool{}
	for _, g := range gaps {
		for id := g.FromID; id <= g.ToID; id++ {
			covered[id] = true
		}
	}
	for _, c := range cps {
		covered[c.ID] = true
	}
	for id := int64(1); id <= cps[len(cps)-1].ID; id++ {
		if !covered[id] {
			t.Errorf("checkpoint %d neither stored nor a gap", id)
		}
	}
	fromLog, checked, filled := 0, 0, 0
	for _, c := range cps {
		switch {
		case c.Source == model.OriginJobManagerLog && c.ID >= r.FirstID:
			fromLog++
			filled++ // at 300 ms, Flink's 3 s statistics cache lets REST's 10-deep history roll past some
		case c.Source == model.OriginJobManagerLog:
			fromLog++
		case c.ID < r.FirstID:
			t.Errorf("checkpoint %d, before the app followed the job, is not marked as from the log", c.ID)
		}
		if c.Status != model.StatusCompleted {
			continue
		}
		want, ok := inLog[c.ID]
		if !ok || c.TriggerMs > r.Log.ReadMs-5000 {
			continue // completed (or stored from REST) after the app last read the log
		}
		checked++
		if c.FinalizeMs == nil || *c.FinalizeMs != want {
			t.Errorf("checkpoint %d (%q): finalize %s, the log says %d ms", c.ID, c.Source, optText(c.FinalizeMs, "none"), want)
		}
	}
	if int64(filled) != r.FromLog {
		t.Errorf("%d checkpoints of the followed span from the log, the reconciliation says %d gap ids filled", filled, r.FromLog)
	}
	if fromLog < 25 || int64(fromLog) != r.Earlier+r.FromLog {
		t.Errorf("%d checkpoints from the log (reconciliation: %d earlier, %d filled), want the ~30 REST had dropped",
			fromLog, r.Earlier, r.FromLog)
	}
	if checked < 25 { // ~5 s (16 checkpoints) before the last read are left out
		t.Errorf("finalize checked on %d completed checkpoints, want ≥ 25", checked)
	}
	// Declines: the failure cluster names the declining task and its vertex.
	rep, err := a.Report("flink", main, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	thrower := vertexByName(t, a, main, "Snapshot Thrower")
	found := false
	for _, f := range rep.Failures {
		if strings.HasPrefix(f.Task, "Snapshot Thrower (") && len(f.Vertices) == 1 && f.Vertices[0].VertexID == thrower &&
			strings.Contains(f.Cause, "injected async snapshot failure") {
			found = true
		}
	}
	if !found {
		t.Errorf("no failure cluster names the declining Snapshot Thrower with its cause: %+v", rep.Failures)
	}
	// Expiries: from the log too (the earliest left REST), clustered as expired.
	exp, err := a.Report("flink", expiring, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Failures) == 0 || !exp.Failures[0].Expired || exp.Failures[0].Example != "Checkpoint expired before completing." {
		t.Errorf("expiring job's failures %+v", exp.Failures)
	}
	t.Logf("%s: %d checkpoints, %d from the JobManager log (%d earlier, %d gap ids filled), %d ids still gaps; finalize checked on %d; log %s, read at %d",
		env.Version, len(cps), fromLog, r.Earlier, r.FromLog, len(covered)-len(cps), checked, HumanBytes(r.Log.SizeBytes), r.Log.ReadMs)
}

func TestJobManagerLogOnFlink23(t *testing.T) {
	testJobManagerLogOnARealCluster(t, flinkOn(t, trackFlinkB))
}

func TestJobManagerLogOnFlink120(t *testing.T) {
	testJobManagerLogOnARealCluster(t, flinkOn(t, trackFlink120))
}

// optText prints an optional value, or none when it is nil.
func optText[T any](v *T, none string) string {
	if v == nil {
		return none
	}
	return fmt.Sprint(*v)
}
