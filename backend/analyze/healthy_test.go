package analyze

import (
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// Issue #31: Flink's StateMachineExample on a real 2.3 cluster, checkpoints
// of 18 ms median and none failed, was "inconclusive — … the bottleneck is
// ack in Flat Map -> Sink …". Fast and regular checkpoints are healthy;
// one failure, or a p90 above the bound, leaves the old answer.
func TestFastRegularCheckpointsAreHealthy(t *testing.T) {
	fast := ph{sd: 1, al: 0, sy: 1, as: 2, ack: 14} // 18 ms, most of it ack in the sink
	mk := func(n int, change func(i int, c *model.Checkpoint)) []model.Checkpoint {
		var cps []model.Checkpoint
		for i := range n {
			c := buildCP(int64(i+1), int64(i)*10_000, []vtx{{vSrc, all4(healthy0)}, {vMap, all4(healthy0)},
				{vWin, all4(healthy0)}, {vSink, with0(i%4, fast)}}, 0, "")
			if change != nil {
				change(i, &c)
			}
			cps = append(cps, c)
		}
		return cps
	}
	for _, tc := range []struct {
		name   string
		cps    []model.Checkpoint
		cfg    *model.JobConfig
		want   Verdict
		reason []string
		not    []string
	}{
		{"18 ms checkpoints, none failed", mk(12, nil), nil, VerdictHealthy,
			[]string{"checkpoints are fast and regular: 12 completed, none failed", "median 18 ms, p90 18 ms, within 1000 ms",
				"the bound is the floor of 1000 ms"}, []string{"bottleneck", "slowest"}},
		{"one failed", mk(12, func(i int, c *model.Checkpoint) {
			if i == 6 {
				*c = buildCP(7, 60_000, []vtx{{vSrc, all4(healthy0)}, {vMap, all4(healthy0)}, {vWin, all4(healthy0)},
					{vSink, []*ph{nil, &fast, &fast, &fast}}}, 600_000, "Checkpoint expired before completing.")
			}
		}), nil, VerdictInconclusive, []string{"the bottleneck is ack in " + nameSink}, nil},
		// 1.5 s each: over the 1 s floor, within a tenth of a 60 s interval.
		{"1.5 s, no configuration", mk(12, func(_ int, c *model.Checkpoint) { stretch(c, 1500) }), nil, VerdictInconclusive, nil, nil},
		{"1.5 s, a 60 s interval", mk(12, func(_ int, c *model.Checkpoint) { stretch(c, 1500) }),
			&model.JobConfig{IntervalMs: i64p(60_000), TimeoutMs: i64p(600_000)}, VerdictHealthy,
			[]string{"p90 1500 ms, within 6000 ms", "the bound is 10% of the checkpoint interval of 60000 ms"}, nil},
		{"too few", mk(2, nil), nil, VerdictInconclusive, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAnalyzer(flinkJob(), nil, nil)
			a.SetConfig(tc.cfg)
			for i := range tc.cps {
				if err := a.Add(&tc.cps[i]); err != nil {
					t.Fatal(err)
				}
			}
			ja, err := a.Finish(nil)
			if err != nil {
				t.Fatal(err)
			}
			c := ja.Correlation
			if c.Verdict != tc.want {
				t.Errorf("verdict %s, want %s: %s", c.Verdict, tc.want, c.Reason)
			}
			for _, s := range tc.reason {
				if !strings.Contains(c.Reason, s) {
					t.Errorf("reason %q does not say %q", c.Reason, s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(c.Reason, s) {
					t.Errorf("reason %q says %q", c.Reason, s)
				}
			}
		})
	}
}

// healthy0 is a subtask that took 2 ms; with0 the four of a vertex so, but
// index i, which took p.
var healthy0 = ph{sd: 1, sy: 1}

func with0(i int, p ph) []*ph {
	s := all4(healthy0)
	s[i] = &p
	return s
}

// stretch makes a completed checkpoint's last acknowledgement, and so its
// end-to-end time, ms after its trigger.
func stretch(c *model.Checkpoint, ms int64) {
	for t := range c.Tasks {
		for s := range c.Tasks[t].Subtasks {
			st := &c.Tasks[t].Subtasks[s]
			if st.EndToEndMs > 10 {
				st.EndToEndMs, st.AckMs = ms, c.TriggerMs+ms
				c.Tasks[t].EndToEndMs, c.Tasks[t].LatestAckMs = ms, c.TriggerMs+ms
			}
		}
	}
	c.EndToEndMs, c.LatestAckMs, c.CompletionMs = ms, c.TriggerMs+ms, c.TriggerMs+ms
}

// The bound is the larger of the floor and a tenth of the smaller of the
// interval and the timeout, each where known.
func TestHealthyBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  *model.JobConfig
		want int64
		code string
	}{
		{"unknown", nil, 1000, "healthy_floor"},
		{"neither reported", &model.JobConfig{}, 1000, "healthy_floor"},
		{"interval 60 s", &model.JobConfig{IntervalMs: i64p(60_000)}, 6000, "healthy_interval"},
		{"interval 60 s, timeout 10 min", &model.JobConfig{IntervalMs: i64p(60_000), TimeoutMs: i64p(600_000)}, 6000, "healthy_interval"},
		{"timeout 20 s below the interval 60 s", &model.JobConfig{IntervalMs: i64p(60_000), TimeoutMs: i64p(20_000)}, 2000, "healthy_timeout"},
		{"interval 5 s: a tenth is below the floor", &model.JobConfig{IntervalMs: i64p(5_000)}, 1000, "healthy_floor"},
		{"interval 0 (checkpointing off) is unknown", &model.JobConfig{IntervalMs: i64p(0), TimeoutMs: i64p(30_000)}, 3000, "healthy_timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, clause := HealthyBoundMs(tc.cfg)
			if got != tc.want || clause.Code != tc.code {
				t.Errorf("bound %d (%s), want %d (%s)", got, clause.Code, tc.want, tc.code)
			}
		})
	}
}

// Healthy is the answer where no rule explains the durations: a rule that
// does (here a rank correlation with backpressure, over checkpoints of 20 to
// 39 ms) keeps its verdict. A checkpoint judged slow, or a failed one, and
// the checkpoints are not healthy.
func TestHealthyWhereNoRuleExplains(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	gen := func(change func(i int, c *corrInput)) []corrInput {
		in := make([]corrInput, 20)
		for i := range in {
			in[i] = corrInput{id: int64(i + 1), completed: true, e2e: int64(20 + i), upstream: f(float64(i%5) / 25), size: 100}
			if change != nil {
				change(i, &in[i])
			}
		}
		return in
	}
	for _, tc := range []struct {
		name string
		in   []corrInput
		want Verdict
	}{
		{"20–39 ms, backpressure unrelated", gen(nil), VerdictHealthy},
		{"backpressure correlates", gen(func(i int, c *corrInput) { c.upstream = f(float64(i) / 25) }), VerdictBackpressure},
		{"one judged slow", gen(func(i int, c *corrInput) { c.slow = i == 19 }), VerdictInconclusive},
		{"one failed", gen(func(i int, c *corrInput) {
			if i == 3 {
				c.completed, c.failed = false, true
			}
		}), VerdictInconclusive},
		{"a failed savepoint, or an abort by the job, does not count", append(gen(nil), corrInput{id: 21}), VerdictHealthy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := correlate(tc.in, nil); c.Verdict != tc.want {
				t.Errorf("verdict %s, want %s: %s", c.Verdict, tc.want, c.Reason)
			}
		})
	}
}
