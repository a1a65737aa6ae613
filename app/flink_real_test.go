package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
)

// These tests run the product's whole collection path (facade → collector →
// Flink REST client → store) against the real Flink test cluster and the knob
// job of testenv/flink.

func newCollectingApp(t *testing.T, restURL string) *App {
	t.Helper()
	return newCollectingAppWith(t, restURL, Options{})
}

// newCollectingAppWith is newCollectingApp with options of the test's own
// (its data dir, sample, job list and logger are the test's).
func newCollectingAppWith(t *testing.T, restURL string, opts Options) *App {
	t.Helper()
	return newCollectingAppBudget(t, restURL, opts, 0)
}

// newCollectingAppBudget is newCollectingAppWith whose cluster has a request budget of rps
// requests per second (0: the default).
func newCollectingAppBudget(t *testing.T, restURL string, opts Options, rps float64) *App {
	t.Helper()
	opts.DataDir, opts.NoSample, opts.JobsEvery = t.TempDir(), true, 2*time.Second
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a := startTestApp(t, opts)
	if err := a.SaveCluster(ClusterInput{Name: "flink", Engine: model.EngineFlink, BaseURL: restURL,
		clusterSettings: clusterSettings{RequestsPerSecond: rps}}); err != nil {
		t.Fatal(err)
	}
	return a
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitForState is waitFor whose condition also says how far it got, which a timeout reports.
func waitForState(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	var state string
	waitFor(t, d, what, func() bool {
		ok, st := cond()
		if st != state {
			state = st
			t.Logf("waiting for %s: %s", what, st)
		}
		return ok
	})
}

// waitForExpired waits until the job has n expired checkpoints in the cache.
func waitForExpired(t *testing.T, a *App, jid string, n int, within time.Duration) {
	t.Helper()
	waitFor(t, within, fmt.Sprintf("%d expired checkpoints", n), func() bool {
		got := 0
		for _, c := range finalCheckpoints(t, a, jid) {
			if c.Status == model.StatusFailed && strings.Contains(c.FailureMessage, "expired") {
				got++
			}
		}
		return got >= n
	})
}

// wantDeclinedEvery checks a failed checkpoint of a knob job run with --fail-every n: a
// multiple of n, declined in its async phase with Flink's message, failing after its trigger.
func wantDeclinedEvery(t *testing.T, c model.Checkpoint, n int64) {
	t.Helper()
	if c.ID%n != 0 || c.FailureMessage != "Asynchronous task checkpoint failed." || c.FailureMs < c.TriggerMs {
		t.Errorf("failed checkpoint %d: message %q, failure at %d (trigger %d)", c.ID, c.FailureMessage, c.FailureMs, c.TriggerMs)
	}
}

// checkKnobCheckpoints checks the final checkpoints of a knob job run with --fail-every 7: each
// failed one as wantDeclinedEvery, each completed one by completed; it counts both.
func checkKnobCheckpoints(t *testing.T, cps []model.Checkpoint, completed func(c *model.Checkpoint)) (done, failed int) {
	t.Helper()
	for i := range cps {
		switch c := &cps[i]; c.Status {
		case model.StatusFailed:
			failed++
			wantDeclinedEvery(t, *c, 7)
		case model.StatusCompleted:
			done++
			completed(c)
		}
	}
	return done, failed
}

// flinkClient is a client of the cluster's REST API, for a test to read Flink's own answers.
func flinkClient(t *testing.T, restURL string) *flink.Client {
	t.Helper()
	cl, err := flink.New(flink.Config{BaseURL: restURL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// checkEveryCheckpointStored checks the final checkpoints cps stored of a job against Flink's
// own answers: every id up to the newest stored is stored, none is a gap, and Flink's completed
// and failed counts agree once the checkpoints it finished after the collector stopped, and the
// triggers that failed before they got an id (tasks not all running yet, at the job's start:
// more of them the longer a busy machine takes to deploy the tasks), are set aside.
func checkEveryCheckpointStored(t *testing.T, a *App, cl *flink.Client, jid string, cps []model.Checkpoint) {
	t.Helper()
	list, err := cl.Checkpoints(context.Background(), jid)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int64]bool{}
	var maxID int64
	for _, c := range cps {
		stored[c.ID] = true
		maxID = max(maxID, c.ID)
	}
	for id := int64(1); id <= maxID; id++ {
		if !stored[id] {
			t.Errorf("checkpoint %d was never stored", id)
		}
	}
	if gaps, err := a.store.Gaps(context.Background(), store.Query{Cluster: "flink", JobID: jid}); err != nil || len(gaps) != 0 {
		t.Errorf("gaps %+v, %v; want none", gaps, err)
	}
	var later, top int64
	for _, h := range list.History {
		top = max(top, h.ID)
		if h.Status.Final() && h.ID > maxID {
			later++
		}
	}
	noID := list.Counts.Total - top
	if got, want := int64(len(cps))+later, list.Counts.Completed+list.Counts.Failed-noID; got != want || noID < 0 {
		t.Errorf("stored %d final checkpoints + %d finished after the last poll; Flink counts %+v with newest id %d (%d without an id): want %d",
			len(cps), later, list.Counts, top, noID, want)
	}
	t.Logf("%d final checkpoints stored; %d triggers failed before an id", len(cps), noID)
}

func finalCheckpoints(t *testing.T, a *App, jid string) []model.Checkpoint {
	t.Helper()
	var out []model.Checkpoint
	err := a.store.ScanCheckpoints(context.Background(), store.Query{Cluster: "flink", JobID: jid}, true, func(c *model.Checkpoint) error {
		if c.Status.Final() {
			out = append(out, *c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func vertexByName(t *testing.T, a *App, jid, name string) string {
	t.Helper()
	j, err := a.store.Job(context.Background(), "flink", jid)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range j.Vertices {
		if strings.Contains(v.Name, name) {
			return v.ID
		}
	}
	t.Fatalf("no vertex named %q in %+v", name, j.Vertices)
	return ""
}

func TestFlinkCollectorStoresEveryCheckpointWithAllDetail(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-collect-all", "--interval-ms", "1000", "--rate", "200",
		"--slow-snapshot-ms", "600", "--fail-every", "7", "--parallelism", "2", "--state-bytes-per-record", "32")
	a := newCollectingApp(t, env.RESTURL)
	// Details of the newest checkpoints may be deferred to the next poll, so
	// wait for a moment when every stored one has them; checkpoints stored
	// after that moment may still await theirs when the collector stops.
	var settled int64
	waitFor(t, 3*time.Minute, "40 final checkpoints in the cache, all with details", func() bool {
		cps := finalCheckpoints(t, a, jid)
		if len(cps) < 40 {
			return false
		}
		for _, c := range cps {
			if c.Status == model.StatusCompleted && len(c.Tasks) == 0 {
				return false
			}
			settled = max(settled, c.ID)
		}
		return true
	})
	a.stopCollector()
	cps := finalCheckpoints(t, a, jid)

	checkEveryCheckpointStored(t, a, flinkClient(t, env.RESTURL), jid, cps)

	slow := vertexByName(t, a, jid, "Slow Snapshot")
	completed, failed := checkKnobCheckpoints(t, cps, func(c *model.Checkpoint) {
		if len(c.Tasks) == 0 && c.ID > settled && c.DetailLoss == "" {
			t.Logf("checkpoint %d stored after the wait; its details were still due when the collector stopped", c.ID)
			return
		}
		if len(c.Tasks) != 6 {
			t.Errorf("checkpoint %d has %d vertices, want 6", c.ID, len(c.Tasks))
			return
		}
		checkKnobSubtasks(t, c, slow, 500)
	})
	if completed < 30 || failed < 3 {
		t.Errorf("%d completed and %d failed checkpoints, want a mix", completed, failed)
	}
	// The analysis names the slow snapshot as the bottleneck of completed checkpoints.
	r, err := a.Report("flink", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if right, total, other := syncBottlenecks(r, slow); total == 0 || right*10 < total*9 {
		t.Errorf("bottleneck is sync in Slow Snapshot for %d of %d completed checkpoints (others: %v), want nearly all", right, total, other)
	}
	if len(r.Failures) == 0 || r.Failures[0].Example != "Asynchronous task checkpoint failed." {
		t.Errorf("failure clusters %+v", r.Failures)
	}
	t.Logf("stored %d completed and %d failed checkpoints", completed, failed)
}

func TestFlinkCollectorSeesBackpressureUpstreamOfASlowOperator(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-collect-bp", "--interval-ms", "1000", "--rate", "0", "--sleep-ms", "5")
	a := newCollectingApp(t, env.RESTURL)
	src := vertexByNameEventually(t, a, jid, "Numbers")
	slowMap := vertexByName(t, a, jid, "Slow Map")
	waitFor(t, 90*time.Second, "backpressure samples of the source", func() bool {
		ms, _ := a.store.MetricSamples(context.Background(), store.Query{Cluster: "flink", JobID: jid})
		for _, m := range ms {
			if m.VertexID == src && m.Metric == model.MetricBackPressuredMsPerSec && m.Agg == model.AggMax && m.Value > 500 {
				return true
			}
		}
		return false
	})
	waitFor(t, 60*time.Second, "10 completed checkpoints", func() bool { return len(finalCheckpoints(t, a, jid)) >= 10 })
	a.stopCollector()
	ms, _ := a.store.MetricSamples(context.Background(), store.Query{Cluster: "flink", JobID: jid})
	var busySlow, bpSlow float64
	for _, m := range ms {
		if m.VertexID == slowMap && m.Agg == model.AggMax {
			switch m.Metric {
			case model.MetricBusyMsPerSec:
				busySlow = max(busySlow, m.Value)
			case model.MetricBackPressuredMsPerSec:
				bpSlow = max(bpSlow, m.Value)
			}
		}
	}
	if busySlow < 500 || bpSlow > 500 {
		t.Errorf("Slow Map busy %.0f ms/s, backpressured %.0f ms/s: want it busy, not backpressured (it is the bottleneck)", busySlow, bpSlow)
	}
	// Barriers queue behind the source's buffered records: start delay of the slow operator grows.
	var delayed int
	cps := finalCheckpoints(t, a, jid)
	for _, c := range cps {
		for _, ts := range c.Tasks {
			if ts.VertexID != slowMap {
				continue
			}
			for _, s := range ts.Subtasks {
				if s.StartDelayMs+s.AlignmentMs > 100 {
					delayed++
				}
			}
		}
	}
	if delayed*2 < len(cps) {
		t.Errorf("start delay + alignment above 100 ms at Slow Map in %d of %d checkpoints, want most", delayed, len(cps))
	}
}

func vertexByNameEventually(t *testing.T, a *App, jid, name string) string {
	t.Helper()
	waitFor(t, 60*time.Second, "the job's graph in the cache", func() bool {
		_, err := a.store.Job(context.Background(), "flink", jid)
		return err == nil
	})
	return vertexByName(t, a, jid, name)
}

func TestFlinkCollectorStoresExpiredCheckpointsWithFlinksMessage(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-collect-expire", "--interval-ms", "1000", "--rate", "100",
		"--slow-snapshot-ms", "1500", "--checkpoint-timeout-ms", "1000")
	a := newCollectingApp(t, env.RESTURL)
	waitForExpired(t, a, jid, 3, 2*time.Minute)
	r, err := a.Report("flink", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Failures) == 0 || !r.Failures[0].Expired {
		t.Fatalf("failure clusters %+v, want the expiry first", r.Failures)
	}
	// The snapshot (1.5 s) outlasts the timeout (1 s): the expiries are
	// caught in sync, at Slow Snapshot (late acks, or the vertex's history).
	if f := r.Failures[0]; f.Phase != analyze.PhaseSync || len(f.Vertices) == 0 || f.Vertices[0].VertexName != "Slow Snapshot" {
		t.Errorf("expiry cluster during %q at %+v, want sync at Slow Snapshot", f.Phase, f.Vertices)
	}
	if f := r.Failures[0].Vertices; len(f) > 0 {
		t.Logf("expiry cluster: %d checkpoints, vertices %+v", r.Failures[0].Count, f)
	}
}

func TestFlinkCollectorFollowsAJobManagerRestart(t *testing.T) {
	// Its own cluster: restarting the shared JobManager would break other tests.
	onTrack(t, trackOwnB)
	env := flinkenv.Dedicated(t, "app-failover")
	const args = "--name ce-collect-failover --interval-ms 1000 --rate 100"
	jid := env.Submit(t, strings.Fields(args)...)
	// Through a proxy that can hide the cluster: the last checkpoints of the
	// old JobManager are never seen, as when it dies between two polls.
	proxy, srv := startFaultProxy(t, env.RESTURL, jid, 0)
	a := newCollectingAppWith(t, srv.URL, Options{Logger: failureLog(t)})
	waitFor(t, 90*time.Second, "5 checkpoints before the restart", func() bool { return len(finalCheckpoints(t, a, jid)) >= 5 })
	proxy.setDown(true)
	// A poll under way ends (on a busy machine it can take seconds): the cache stops changing.
	newest := func() int64 {
		var n int64
		for _, c := range finalCheckpoints(t, a, jid) {
			n = max(n, c.ID)
		}
		return n
	}
	for last, same := newest(), 0; same < 6; same++ {
		time.Sleep(500 * time.Millisecond)
		if n := newest(); n != last {
			last, same = n, -1
		}
	}
	before := finalCheckpoints(t, a, jid)
	var lastBefore int64
	for _, c := range before {
		lastBefore = max(lastBefore, c.ID)
	}
	time.Sleep(2500 * time.Millisecond) // the old JobManager completes a few more
	// Without HA the job dies with the JobManager (killed, as in a crash); it is
	// resubmitted with the same id from its latest retained checkpoint, as an operator would.
	env.RestartJobManager(t, true)
	proxy.setDown(false)
	env.Submit(t, append([]string{"--job-id", jid, "--restore", "latest"}, strings.Fields(args)...)...)
	waitFor(t, 2*time.Minute, "checkpoints after the restart", func() bool {
		for _, c := range finalCheckpoints(t, a, jid) {
			if c.ID > lastBefore+3 {
				return true
			}
		}
		return false
	})
	waitFor(t, 30*time.Second, "the cluster's health back to ok", func() bool { return a.clusterHealth("flink").State == "ok" })
	// The resubmitted job's poller has reconciled what it stored (on a busy machine its first
	// polls can store checkpoints before a reconciliation covering them is written).
	waitFor(t, time.Minute, "a reconciliation up to the newest stored checkpoint", func() bool {
		r, ok, err := a.store.Reconciliation(context.Background(), "flink", jid)
		if err != nil || !ok || r.Engine == nil {
			return false
		}
		var newest int64
		for _, c := range finalCheckpoints(t, a, jid) {
			newest = max(newest, c.ID)
		}
		return r.LatestID >= newest
	})
	after := finalCheckpoints(t, a, jid)
	ids := make([]int64, 0, len(after))
	for _, c := range after {
		ids = append(ids, c.ID)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	// Ids continue after the restore; the checkpoints before it are still in the cache.
	if ids[0] != before[0].ID || len(after) <= len(before) {
		t.Errorf("ids before %d..%d, after %v", before[0].ID, lastBefore, ids)
	}

	// Nothing lost silently across the kill: the job's poller gave up when the
	// new JobManager did not know the job, and the one following the
	// resubmitted job reconciles from the cache's newest id on. The ids the
	// old JobManager triggered after the last poll before the kill are gaps
	// (or stored), and every id from the first stored on is one or the other.
	a.stopCollector()
	r, ok, err := a.store.Reconciliation(context.Background(), "flink", jid)
	if err != nil || !ok {
		t.Fatalf("no reconciliation kept (%v)", err)
	}
	sc := checkSpan(t, a, jid, r, false)
	var firstNew int64 = -1
	for _, id := range ids {
		if id > lastBefore && (firstNew < 0 || id < firstNew) && !sc.gapped[id] {
			firstNew = id
		}
	}
	var lost []int64
	for id := before[0].ID; id <= r.LatestID; id++ {
		_, stored := sc.stored[id]
		switch {
		case sc.gapped[id]:
			lost = append(lost, id)
			if id <= lastBefore {
				t.Errorf("checkpoint %d, stored before the restart, is a gap", id)
			}
		case !stored:
			t.Errorf("checkpoint %d neither stored nor a gap (first stored %d, newest %d)", id, before[0].ID, r.LatestID)
		}
	}
	list, err := flinkClient(t, env.RESTURL).Checkpoints(context.Background(), jid)
	if err != nil {
		t.Fatal(err)
	}
	// The reconciliation after the restart starts right after the newest id
	// the old JobManager's poller stored (a poll under way when the link went
	// down may have stored one more after lastBefore was read).
	var lastOld int64
	for id := range sc.stored {
		if id <= list.RestoredID {
			lastOld = max(lastOld, id)
		}
	}
	if r.FirstID != lastOld+1 {
		t.Errorf("the reconciliation after the restart starts at %d, not right after the newest id stored before it (%d)", r.FirstID, lastOld)
	}
	// The new JobManager numbers on from the checkpoint it restored.
	if list.RestoredID <= lastBefore || firstNew != list.RestoredID+1 {
		t.Errorf("restored from checkpoint %d (newest stored before the kill %d); the first id stored after it is %d, want %d",
			list.RestoredID, lastBefore, firstNew, list.RestoredID+1)
	}
	if len(lost) == 0 {
		t.Errorf("no gap: the checkpoints the old JobManager completed while hidden (%d–%d) were stored?", lastBefore+1, list.RestoredID)
	}
	t.Logf("JobManager killed after checkpoint %d was stored; restored from %d; ids continue at %d; gaps %v; reconciliation %d–%d: %d ids, %d stored, %d gaps, %d unaccounted, %d polls (%d failed), engine %+v",
		lastBefore, list.RestoredID, firstNew, lost, r.FirstID, r.LatestID, r.IDs, r.Stored, r.Gaps, r.Unaccounted, r.Polls, r.FailedPolls, r.Engine)
}

// checkKnobSubtasks checks a completed knob-job checkpoint's stored subtasks
// (parallelism 2): all acknowledged with sane values, and a sync of at least
// minSyncMs at the Slow Snapshot vertex only.
func checkKnobSubtasks(t *testing.T, c *model.Checkpoint, slow string, minSyncMs int64) {
	t.Helper()
	for _, ts := range c.Tasks {
		if len(ts.Subtasks) != 2 || ts.NumAcknowledged != 2 {
			t.Errorf("checkpoint %d vertex %s: %d subtasks, %d acknowledged; want 2", c.ID, ts.VertexID, len(ts.Subtasks), ts.NumAcknowledged)
		}
		for _, s := range ts.Subtasks {
			if s.Status != model.SubtaskCompleted || s.AckMs < c.TriggerMs || s.EndToEndMs < 0 || s.AsyncMs < 0 || s.StateSize < 0 {
				t.Errorf("checkpoint %d vertex %s subtask %d: %+v", c.ID, ts.VertexID, s.Index, s)
			}
			if ts.VertexID == slow && s.SyncMs < minSyncMs {
				t.Errorf("checkpoint %d: Slow Snapshot subtask %d sync %d ms, want >= %d", c.ID, s.Index, s.SyncMs, minSyncMs)
			}
			if ts.VertexID != slow && s.SyncMs >= 500 {
				t.Errorf("checkpoint %d: vertex %s subtask %d sync %d ms without a slow snapshot", c.ID, ts.VertexID, s.Index, s.SyncMs)
			}
		}
	}
}

// syncBottlenecks counts the completed checkpoints with a bottleneck, those
// whose bottleneck is sync at the slow vertex, and what the others were.
func syncBottlenecks(r Report, slow string) (right, total int, other map[string]int) {
	other = map[string]int{}
	for _, c := range r.Checkpoints {
		if c.Status != model.StatusCompleted || c.Bottleneck == nil {
			continue
		}
		total++
		if c.Bottleneck.Phase == analyze.PhaseSync && c.Bottleneck.VertexID == slow {
			right++
		} else {
			other[fmt.Sprintf("%s at %s", c.Bottleneck.Phase, c.Bottleneck.VertexName)]++
		}
	}
	return right, total, other
}

// failureLog is a logger whose lines the test prints if it fails: what the
// collector did is how a failure under load can be read afterwards.
func failureLog(t *testing.T) *slog.Logger {
	var buf syncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the app's log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(&buf, nil))
}
