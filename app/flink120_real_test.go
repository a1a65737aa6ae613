package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
	"checkpoint-explorer/testenv/flinkenv"
)

// flink120 is the Flink 1.x LTS release the collector is run against for real, next to the
// shared 2.x cluster of flink_real_test.go.
const flink120 = "1.20.5"

// TestFlink120CollectorOnARealCluster runs the whole collection path against a real Flink 1.20
// cluster with three knob jobs at once, so one minute covers what the 2.3 tests cover in several:
//
//   - main: slow synchronous snapshots in "Slow Snapshot" and every 7th checkpoint declined in
//     its async phase, at parallelism 2;
//   - backpressure: an unthrottled source into a "Slow Map" that sleeps per record (a job of its
//     own: the main job's 800 ms snapshot pauses would backpressure an unthrottled source too);
//   - expiry: snapshots longer than the checkpoint timeout.
//
// The cluster is the test's own: on a shared one, jobs other tests left behind are collected too,
// and their history can take the collector's request budget (20/s) for seconds, long enough for
// the main job's 10-deep history to roll over. The three jobs need about 15 requests/s.
func TestFlink120CollectorOnARealCluster(t *testing.T) {
	onTrack(t, trackOwnA)
	env := flinkenv.DedicatedVersion(t, "app-flink120", flink120)
	bp := env.Submit(t, "--name", "ce-flink120-bp", "--interval-ms", "5000", "--rate", "0", "--sleep-ms", "5")
	expiring := env.Submit(t, "--name", "ce-flink120-expire", "--interval-ms", "2000", "--rate", "50",
		"--slow-snapshot-ms", "1500", "--checkpoint-timeout-ms", "1000")
	// The main job last, right before the collector starts: each submission takes seconds (a
	// JVM), and its checkpoint 1 must still be in the 10-deep history when the collector first
	// looks (checkpoints every second).
	jid := env.Submit(t, "--name", "ce-flink120", "--parallelism", "2", "--interval-ms", "1000",
		"--rate", "200", "--slow-snapshot-ms", "800", "--fail-every", "7", "--state-bytes-per-record", "32")
	// A budget of 100 requests/s: the three jobs want ~15/s, which the default 20 holds on an
	// idle machine; on a busy one the collector falls behind and details are lost (their
	// summaries kept, the loss marked), which overhead_real_test.go is about, not this test.
	a := newCollectingAppBudget(t, env.RESTURL, Options{}, 100)

	cl := flinkClient(t, env.RESTURL)
	ctx := context.Background()
	if v, err := cl.Version(ctx); err != nil || v != flink120 {
		t.Fatalf("cluster version %q, %v; want %s", v, err, flink120)
	}
	// The knobs reached Flink's checkpoint config.
	for _, tc := range []struct {
		jid                 string
		interval, timeoutMs int64
	}{{jid, 1000, 600000}, {bp, 5000, 600000}, {expiring, 2000, 1000}} {
		cc, err := cl.CheckpointConfig(ctx, tc.jid)
		if err != nil || cc.IntervalMs != tc.interval || cc.TimeoutMs != tc.timeoutMs || cc.Mode != "exactly_once" {
			t.Errorf("job %s checkpoint config %+v, %v; want interval %d ms, timeout %d ms", tc.jid, cc, err, tc.interval, tc.timeoutMs)
		}
	}

	slow := vertexByNameEventually(t, a, jid, "Slow Snapshot")
	src := vertexByNameEventually(t, a, bp, "Numbers")
	slowMap := vertexByName(t, a, bp, "Slow Map")
	if j, err := a.store.Job(ctx, "flink", jid); err != nil || len(j.Vertices) != 6 {
		t.Fatalf("job graph %+v, %v; want the knob job's 6 vertices", j, err)
	} else {
		for _, v := range j.Vertices {
			if v.Parallelism != 2 {
				t.Errorf("vertex %q parallelism %d, want 2 (--parallelism 2)", v.Name, v.Parallelism)
			}
		}
	}
	waitFor(t, 2*time.Minute, "35 final checkpoints and source backpressure in the cache", func() bool {
		return len(finalCheckpoints(t, a, jid)) >= 35 && maxMetric(t, a, bp, src, model.MetricBackPressuredMsPerSec) > 500
	})
	waitForExpired(t, a, expiring, 3, 30*time.Second)
	// The newest checkpoints' details come a poll after their summaries: none still due.
	waitForState(t, time.Minute, "the details of every completed checkpoint fetched or marked lost", func() (bool, string) {
		_, waiting, lost := detailed(t, a, jid)
		return waiting == 0, fmt.Sprintf("%d waiting, %d lost", waiting, lost)
	})
	a.stopCollector()
	cps := finalCheckpoints(t, a, jid)

	t.Run("every checkpoint stored", func(t *testing.T) { checkEveryCheckpointStored(t, a, cl, jid, cps) })

	t.Run("every subtask field", func(t *testing.T) {
		lost := 0
		completed, failed := checkKnobCheckpoints(t, cps, func(c *model.Checkpoint) {
			if len(c.Tasks) == 0 && c.DetailLoss != "" {
				// Its details left Flink's history before the collector's budget reached
				// them (three jobs, a busy machine): summary kept, the loss marked.
				lost++
				return
			}
			if c.ID%7 == 0 || len(c.Tasks) != 6 || c.NumSubtasks != 12 || c.NumAcknowledged != 12 || c.StateSize <= 0 ||
				!strings.Contains(c.ExternalPath, fmt.Sprintf("chk-%d", c.ID)) {
				t.Errorf("completed checkpoint %d: %d vertices, %d/%d acks, state %d, path %q",
					c.ID, len(c.Tasks), c.NumAcknowledged, c.NumSubtasks, c.StateSize, c.ExternalPath)
				return
			}
			checkKnobSubtasks(t, c, slow, 700) // --slow-snapshot-ms 800
		})
		if completed < 25 || failed < 3 || completed-lost < 20 {
			t.Errorf("%d completed (%d without details) and %d failed checkpoints, want a mix, most with details", completed, lost, failed)
		}
		// Field by field against Flink 1.20's own JSON, for the completed checkpoints it still
		// holds details of.
		list, err := cl.Checkpoints(ctx, jid)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[int64]model.Checkpoint{}
		for _, c := range cps {
			byID[c.ID] = c
		}
		compared := 0
		for _, h := range list.History {
			c, ok := byID[h.ID]
			if !ok || c.Status != model.StatusCompleted {
				continue
			}
			for _, ts := range c.Tasks {
				raw, ok := flinkenv.RawSubtasks(t, env.RESTURL, jid, c.ID, ts.VertexID)
				if !ok {
					continue // evicted from Flink's details cache meanwhile
				}
				if len(raw) != len(ts.Subtasks) {
					t.Errorf("checkpoint %d vertex %s: %d subtasks stored, Flink has %d", c.ID, ts.VertexID, len(ts.Subtasks), len(raw))
					continue
				}
				for i, s := range ts.Subtasks {
					if want := flinkenv.SubtaskFromJSON(t, raw[i]); s != want {
						t.Errorf("checkpoint %d vertex %s subtask %d\n stored %+v\n Flink  %+v", c.ID, ts.VertexID, i, s, want)
					}
				}
				compared++
			}
		}
		if compared < 6 {
			t.Errorf("compared %d vertices' subtasks with Flink's JSON, want at least one checkpoint's 6", compared)
		}
		t.Logf("%d completed (%d without details), %d failed checkpoints; %d vertex details compared with Flink's JSON", completed, lost, failed, compared)
	})

	r, err := a.Report("flink", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("slow snapshot is the bottleneck", func(t *testing.T) {
		right, total, other := syncBottlenecks(r, slow)
		if total < 25 || right*10 < total*9 {
			t.Errorf("bottleneck is sync in Slow Snapshot for %d of %d completed checkpoints (others: %v), want >= 90 %%", right, total, other)
		}
	})
	t.Run("failures clustered with Flink 1.20's message", func(t *testing.T) {
		if len(r.Failures) != 1 || r.Failures[0].Example != "Asynchronous task checkpoint failed." || r.Failures[0].Count < 3 || r.Failures[0].Expired {
			t.Errorf("failure clusters %+v, want one of the async failures", r.Failures)
		}
		for _, id := range r.Failures[0].CheckpointIDs {
			if id%7 != 0 {
				t.Errorf("checkpoint %d in the failure cluster, want only multiples of 7 (--fail-every 7)", id)
			}
		}
	})
	t.Run("source backpressure", func(t *testing.T) {
		if v := maxMetric(t, a, bp, src, model.MetricBackPressuredMsPerSec); v <= 500 {
			t.Errorf("source backpressured at most %.0f ms/s, want > 500 (--rate 0 --sleep-ms 5)", v)
		}
		// Slow Map is the cause: busy, not backpressured itself.
		busy, held := maxMetric(t, a, bp, slowMap, model.MetricBusyMsPerSec), maxMetric(t, a, bp, slowMap, model.MetricBackPressuredMsPerSec)
		if busy < 500 || held > 500 {
			t.Errorf("Slow Map busy %.0f ms/s, backpressured %.0f ms/s: want it busy, not backpressured", busy, held)
		}
	})
	t.Run("expired checkpoints", func(t *testing.T) {
		re, err := a.Report("flink", expiring, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(re.Failures) == 0 || !re.Failures[0].Expired || re.Failures[0].Example != "Checkpoint expired before completing." {
			t.Fatalf("failure clusters %+v, want Flink's expiry first", re.Failures)
		}
		// Slow Snapshot never acknowledges before the timeout; on a busy machine the Slow Map
		// before it may not have either, and then both are named.
		if f := re.Failures[0]; f.Phase != analyze.PhaseSync || !slices.ContainsFunc(f.Vertices, func(v analyze.VertexRef) bool { return v.VertexName == "Slow Snapshot" }) {
			t.Errorf("expiry cluster during %q at %+v, want sync at Slow Snapshot", f.Phase, f.Vertices)
		}
	})
}

// maxMetric is the largest max-over-subtasks sample of metric stored for a vertex.
func maxMetric(t *testing.T, a *App, jid, vid, metric string) float64 {
	t.Helper()
	ms, err := a.store.MetricSamples(context.Background(), store.Query{Cluster: "flink", JobID: jid})
	if err != nil {
		t.Fatal(err)
	}
	var v float64
	for _, m := range ms {
		if m.VertexID == vid && m.Metric == metric && m.Agg == model.AggMax {
			v = max(v, m.Value)
		}
	}
	return v
}
