package app

import (
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/flinkenv"
)

// On the real cluster, a job with both problems at once — Slow Map
// backpressures the Source (--sleep-ms) and Slow Snapshot's sync takes
// 300 ms — has causes that follow the barrier: first the queue at Slow Map's
// input behind the Source, and Slow Snapshot's sync after it. With only the
// slow snapshot, the sync comes first and no barrier queue is invented.
func TestFlinkCausesNameWhereBarriersQueued(t *testing.T) {
	checkCausesOnACluster(t, flinkenv.Ensure(t))
}

// The same on Flink 1.20 (the version of the user story), on its shared test cluster.
func TestFlink120CausesNameWhereBarriersQueued(t *testing.T) {
	checkCausesOnACluster(t, flinkenv.EnsureVersion(t, flink120))
}

func checkCausesOnACluster(t *testing.T, env flinkenv.Env) {
	mixed := env.Submit(t, "--name", "ce-causes-mixed", "--interval-ms", "2000", "--rate", "2000",
		"--sleep-ms", "3", "--slow-snapshot-ms", "300")
	snapOnly := env.Submit(t, "--name", "ce-causes-snap", "--interval-ms", "2000", "--rate", "100",
		"--slow-snapshot-ms", "300")
	a := newCollectingApp(t, env.RESTURL)
	src := vertexByNameEventually(t, a, mixed, "Numbers")
	slowMap := vertexByName(t, a, mixed, "Slow Map")
	slowSnap := vertexByName(t, a, mixed, "Slow Snapshot")
	snapOnlySnap := vertexByNameEventually(t, a, snapOnly, "Slow Snapshot")
	// The source's backpressure shows in Flink's metrics some seconds after the job starts (1.20
	// later than 2.3): the verdict is judged on the checkpoints after it does.
	waitFor(t, 2*time.Minute, "the source's backpressure in the cache", func() bool {
		return maxMetric(t, a, mixed, src, model.MetricBackPressuredMsPerSec) > 500
	})
	fromMs := time.Now().UnixMilli()
	waitFor(t, 2*time.Minute, "10 completed checkpoints of each job, of the mixed one after its backpressure showed", func() bool {
		after := 0
		for _, c := range finalCheckpoints(t, a, mixed) {
			if c.TriggerMs >= fromMs {
				after++
			}
		}
		return after >= 10 && len(finalCheckpoints(t, a, snapOnly)) >= 10
	})
	a.stopCollector()

	describe := func(cs []analyze.Cause) string {
		var b strings.Builder
		for i, c := range cs {
			if i == 4 {
				break
			}
			b.WriteString(string(c.Phase) + "@" + c.VertexName + "<" + c.UpstreamVertexName + ">" + " " + fmtDuration(c.Ms) + "; ")
		}
		return b.String()
	}
	r, err := a.Report("flink", mixed, fromMs, 0)
	if err != nil {
		t.Fatal(err)
	}
	var completed, queued, thenSync int
	for _, c := range r.Checkpoints {
		if c.Status != "COMPLETED" || len(c.Causes) == 0 || c.ID <= 2 { // the first ones start before the queue builds
			continue
		}
		completed++
		first := c.Causes[0]
		if first.Phase == analyze.PhaseStartDelay && first.VertexID == slowMap && first.UpstreamVertexID == src {
			queued++
			for _, later := range c.Causes[1:] {
				if later.Phase == analyze.PhaseSync && later.VertexID == slowSnap {
					thenSync++
					break
				}
			}
		} else {
			t.Logf("checkpoint %d: %s", c.ID, describe(c.Causes))
		}
	}
	if completed == 0 || queued*10 < completed*8 || thenSync*10 < completed*8 {
		t.Errorf("of %d completed checkpoints, %d start with barriers queued at Slow Map behind the Source and %d list Slow Snapshot's sync after it; want 80 %%",
			completed, queued, thenSync)
	}

	// The verdict names the slow operator, though Slow Snapshot's sync makes the last acknowledgement.
	var named bool
	for _, p := range r.Correlation.ReasonParts {
		named = named || p.Code == "queue_dominant" && strings.Contains(p.Args["vertex"], "Slow Map")
	}
	if r.Correlation.Verdict != analyze.VerdictBackpressure || !named {
		t.Errorf("verdict %s (%s): %s; want backpressure naming Slow Map", r.Correlation.Verdict, r.Correlation.Basis, r.Correlation.Reason)
	}

	r, err = a.Report("flink", snapOnly, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	completed, first := 0, 0
	for _, c := range r.Checkpoints {
		if c.Status != "COMPLETED" || len(c.Causes) == 0 {
			continue
		}
		completed++
		if c.Causes[0].Phase == analyze.PhaseSync && c.Causes[0].VertexID == snapOnlySnap {
			first++
		}
		for _, cs := range c.Causes {
			if cs.Phase == analyze.PhaseStartDelay && cs.UpstreamVertexID != "" && cs.Ms > 100 {
				t.Errorf("checkpoint %d: a barrier queue of %d ms at %s invented without backpressure (%s)", c.ID, cs.Ms, cs.VertexName, describe(c.Causes))
			}
		}
	}
	if completed == 0 || first*10 < completed*8 {
		t.Errorf("%d of %d completed checkpoints start with Slow Snapshot's sync, want 80 %%", first, completed)
	}
}

func fmtDuration(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }
