package analyze

import (
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

// chainJob is a job of named vertices, each edge given as source, target,
// ship strategy; every vertex has the parallelism given.
func chainJob(par map[string]int, edges ...[3]string) model.Job {
	j := model.Job{Cluster: "c", ID: "j", Engine: model.EngineFlink}
	for _, e := range edges {
		for _, id := range []string{e[0], e[1]} {
			found := false
			for _, v := range j.Vertices {
				found = found || v.ID == id
			}
			if !found {
				j.Vertices = append(j.Vertices, model.Vertex{ID: id, Name: "V " + id, Parallelism: par[id]})
			}
		}
		j.Edges = append(j.Edges, model.Edge{Source: e[0], Target: e[1], ShipStrategy: e[2]})
	}
	return j
}

// cause is a short form for the expected causes: phase, vertex, upstream, subtask, ms.
type cause struct {
	ph      Phase
	v, up   string
	sub, ms int64
}

func short(cs []Cause) []cause {
	out := make([]cause, 0, len(cs))
	for _, c := range cs {
		sub := int64(-1)
		if c.Subtask != nil {
			sub = int64(*c.Subtask)
		}
		out = append(out, cause{ph: c.Phase, v: c.VertexID, up: c.UpstreamVertexID, sub: sub, ms: c.Ms})
	}
	return out
}

// The barrier path, case by case; expected values worked out by hand (each
// case's causes add up to the critical subtask's end-to-end time, plus
// finalize).
func TestCausesFollowTheBarrierThroughTheGraph(t *testing.T) {
	p1 := func(ids ...string) map[string]int {
		m := map[string]int{}
		for _, id := range ids {
			m[id] = 1
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		job    model.Job
		cp     model.Checkpoint
		want   []cause
		origin *Origin
	}{
		{
			// The user story: barriers queue at Slow Map's input behind the
			// backpressured Source's data (925 − 35 = 890 ms), then Slow
			// Snapshot takes 302 ms to snapshot.
			name: "chain: barriers queued at a slow operator, then a slow sync downstream",
			job: chainJob(p1("src", "map", "cnt", "snap", "sink"),
				[3]string{"src", "map", "REBALANCE"}, [3]string{"map", "cnt", "HASH"},
				[3]string{"cnt", "snap", "FORWARD"}, [3]string{"snap", "sink", "FORWARD"}),
			cp: buildCP(1, 1_000_000, []vtx{
				{"src", []*ph{{35, 0, 1, 2, 2}}},
				{"map", []*ph{{925, 0, 1, 1, 3}}},
				{"cnt", []*ph{{928, 0, 1, 1, 2}}},
				{"snap", []*ph{{930, 0, 302, 5, 3}}},
				{"sink", []*ph{{931, 0, 1, 1, 2}}},
			}, 0, ""),
			want: []cause{
				{ph: PhaseStartDelay, v: "map", up: "src", sub: 0, ms: 890},
				{ph: PhaseSync, v: "snap", sub: 0, ms: 302},
				{ph: PhaseStartDelay, v: "src", sub: 0, ms: 35},
				{ph: PhaseAsync, v: "snap", sub: 0, ms: 5},
				{ph: PhaseAck, v: "snap", sub: 0, ms: 3},
				{ph: PhaseStartDelay, v: "cnt", up: "map", sub: 0, ms: 3},
				{ph: PhaseStartDelay, v: "snap", up: "cnt", sub: 0, ms: 2},
			},
			// The bottleneck is start delay at Slow Snapshot; the barriers queued at Slow Map.
			origin: &Origin{VertexID: "map", VertexName: "V map", UpstreamVertexID: "src", UpstreamVertexName: "V src"},
		},
		{
			name: "only a slow sync: no barrier queue is invented",
			job: chainJob(p1("src", "map", "snap"),
				[3]string{"src", "map", "REBALANCE"}, [3]string{"map", "snap", "FORWARD"}),
			cp: buildCP(2, 1_000_000, []vtx{
				{"src", []*ph{{2, 0, 1, 2, 1}}},
				{"map", []*ph{{4, 0, 1, 1, 1}}},
				{"snap", []*ph{{6, 0, 300, 5, 3}}},
			}, 0, ""),
			want: []cause{
				{ph: PhaseSync, v: "snap", sub: 0, ms: 300},
				{ph: PhaseAsync, v: "snap", sub: 0, ms: 5},
				{ph: PhaseAck, v: "snap", sub: 0, ms: 3},
				// Equal ones in the order the walk met them, downstream first.
				{ph: PhaseStartDelay, v: "snap", up: "map", sub: 0, ms: 2},
				{ph: PhaseStartDelay, v: "map", up: "src", sub: 0, ms: 2},
				{ph: PhaseStartDelay, v: "src", sub: 0, ms: 2},
			},
		},
		{
			// Fan-in: the join's first barrier came from A at 5 ms; it then
			// aligned for 498 ms waiting for B's, which left at 500 ms.
			name: "fan-in: alignment waits for the late input",
			job:  chainJob(p1("a", "b", "join"), [3]string{"a", "join", "HASH"}, [3]string{"b", "join", "HASH"}),
			cp: buildCP(3, 1_000_000, []vtx{
				{"a", []*ph{{2, 0, 1, 1, 1}}},
				{"b", []*ph{{500, 0, 1, 1, 1}}},
				{"join", []*ph{{5, 498, 3, 4, 5}}},
			}, 0, ""),
			want: []cause{
				{ph: PhaseAlignment, v: "join", up: "b", sub: 0, ms: 498},
				{ph: PhaseAck, v: "join", sub: 0, ms: 5},
				{ph: PhaseAsync, v: "join", sub: 0, ms: 4},
				{ph: PhaseSync, v: "join", sub: 0, ms: 3},
				{ph: PhaseStartDelay, v: "join", up: "a", sub: 0, ms: 3},
				{ph: PhaseStartDelay, v: "a", sub: 0, ms: 2},
			},
			origin: &Origin{VertexID: "join", VertexName: "V join", UpstreamVertexID: "b", UpstreamVertexName: "V b"},
		},
		{
			// Rebalance from 2 to 3 subtasks: Map subtask 0's first barrier
			// came from the earliest Source subtask (10 ms).
			name: "rebalance with changed parallelism",
			job:  chainJob(map[string]int{"src": 2, "map": 3}, [3]string{"src", "map", "REBALANCE"}),
			cp: buildCP(4, 1_000_000, []vtx{
				{"src", []*ph{{10, 0, 1, 1, 1}, {40, 0, 1, 1, 1}}},
				{"map", []*ph{{300, 30, 5, 5, 5}, {50, 0, 1, 1, 1}, {60, 0, 1, 1, 1}}},
			}, 0, ""),
			want: []cause{
				{ph: PhaseStartDelay, v: "map", up: "src", sub: 0, ms: 290},
				{ph: PhaseAlignment, v: "map", up: "src", sub: 0, ms: 30},
				{ph: PhaseStartDelay, v: "src", sub: 0, ms: 10},
				{ph: PhaseAck, v: "map", sub: 0, ms: 5},
				{ph: PhaseAsync, v: "map", sub: 0, ms: 5},
				{ph: PhaseSync, v: "map", sub: 0, ms: 5},
			},
			origin: &Origin{VertexID: "map", VertexName: "V map", UpstreamVertexID: "src", UpstreamVertexName: "V src"},
		},
		{
			// Forward between equal parallelisms: Map subtask 1 reads Source
			// subtask 1 only (emitted at 100 ms), not the earliest (10 ms).
			name: "forward: the same subtask upstream",
			job:  chainJob(map[string]int{"src": 2, "map": 2}, [3]string{"src", "map", "FORWARD"}),
			cp: buildCP(5, 1_000_000, []vtx{
				{"src", []*ph{{10, 0, 1, 1, 1}, {100, 0, 1, 1, 1}}},
				{"map", []*ph{{12, 0, 1, 1, 1}, {150, 0, 10, 5, 5}}},
			}, 0, ""),
			want: []cause{
				{ph: PhaseStartDelay, v: "src", sub: 1, ms: 100},
				{ph: PhaseStartDelay, v: "map", up: "src", sub: 1, ms: 50},
				{ph: PhaseSync, v: "map", sub: 1, ms: 10},
				{ph: PhaseAck, v: "map", sub: 1, ms: 5},
				{ph: PhaseAsync, v: "map", sub: 1, ms: 5},
			},
			// The trigger reached Source subtask 1 late: the delay starts there.
			origin: &Origin{VertexID: "src", VertexName: "V src"},
		},
		{
			// Clock skew: Map received the barrier "before" the Source sent it.
			// Nothing queued at Map; the delay is the Source's.
			name: "clamped: downstream start delay below the upstream's",
			job:  chainJob(p1("src", "map"), [3]string{"src", "map", "REBALANCE"}),
			cp: buildCP(6, 1_000_000, []vtx{
				{"src", []*ph{{100, 0, 1, 1, 1}}},
				{"map", []*ph{{80, 0, 5, 5, 20}}},
			}, 0, ""),
			want: []cause{
				{ph: PhaseStartDelay, v: "src", sub: 0, ms: 80},
				{ph: PhaseAck, v: "map", sub: 0, ms: 20},
				{ph: PhaseAsync, v: "map", sub: 0, ms: 5},
				{ph: PhaseSync, v: "map", sub: 0, ms: 5},
			},
			origin: &Origin{VertexID: "src", VertexName: "V src"},
		},
		{
			// Unaligned: the barrier overtook the buffered data (alignment is
			// the overtaking); the path is the same.
			name: "unaligned checkpoint",
			job:  chainJob(p1("src", "map"), [3]string{"src", "map", "REBALANCE"}),
			cp: func() model.Checkpoint {
				c := buildCP(7, 1_000_000, []vtx{
					{"src", []*ph{{5, 0, 1, 1, 1}}},
					{"map", []*ph{{20, 15, 2, 40, 3}}},
				}, 0, "")
				c.Kind = model.KindUnaligned
				for i := range c.Tasks[1].Subtasks {
					c.Tasks[1].Subtasks[i].Unaligned = true
				}
				return c
			}(),
			want: []cause{
				{ph: PhaseAsync, v: "map", sub: 0, ms: 40},
				{ph: PhaseAlignment, v: "map", up: "src", sub: 0, ms: 15},
				{ph: PhaseStartDelay, v: "map", up: "src", sub: 0, ms: 15},
				{ph: PhaseStartDelay, v: "src", sub: 0, ms: 5},
				{ph: PhaseAck, v: "map", sub: 0, ms: 3},
				{ph: PhaseSync, v: "map", sub: 0, ms: 2},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ja := Analyze(tc.job, []model.Checkpoint{tc.cp}, nil, nil, nil)
			got := ja.Checkpoints[0]
			if !reflect.DeepEqual(short(got.Causes), tc.want) {
				t.Errorf("causes\n got %+v\nwant %+v", short(got.Causes), tc.want)
			}
			var sum int64
			var share float64
			for _, c := range got.Causes {
				sum += c.Ms
				share += c.Share
			}
			if sum != tc.cp.EndToEndMs {
				t.Errorf("causes add up to %d ms, the checkpoint took %d", sum, tc.cp.EndToEndMs)
			}
			if share < 0.99 || share > 1.01 {
				t.Errorf("shares add up to %.3f", share)
			}
			if got.Bottleneck == nil || !reflect.DeepEqual(got.Bottleneck.Origin, tc.origin) {
				t.Errorf("bottleneck %s, want origin %s", js(got.Bottleneck), js(tc.origin))
			}
		})
	}
}

// An upstream vertex without stats (it reported none) ends the walk: the
// rest of the start delay stays at the vertex, naming that upstream. A
// failed checkpoint has no measured critical path and so no causes;
// finalize, where the engine shows it, is a cause of its own.
func TestCausesAtTheEdgesOfWhatIsKnown(t *testing.T) {
	job := chainJob(map[string]int{"src": 1, "map": 1}, [3]string{"src", "map", "REBALANCE"})
	c := buildCP(1, 1_000_000, []vtx{{"src", []*ph{{5, 0, 1, 1, 1}}}, {"map", []*ph{{200, 0, 2, 3, 5}}}}, 0, "")
	c.Tasks[0].Subtasks = nil // the source reported no per-subtask stats
	fin := int64(100)
	c.FinalizeMs = &fin
	got := Analyze(job, []model.Checkpoint{c}, nil, nil, nil).Checkpoints[0].Causes
	want := []cause{
		{ph: PhaseStartDelay, v: "map", up: "src", sub: 0, ms: 200},
		{ph: PhaseFinalize, sub: -1, ms: 100},
		{ph: PhaseAck, v: "map", sub: 0, ms: 5},
		{ph: PhaseAsync, v: "map", sub: 0, ms: 3},
		{ph: PhaseSync, v: "map", sub: 0, ms: 2},
	}
	if !reflect.DeepEqual(short(got), want) {
		t.Errorf("causes\n got %+v\nwant %+v", short(got), want)
	}
	if got[0].Share != 0.645 { // 200 of 310
		t.Errorf("share of the first cause %.3f, want 0.645", got[0].Share)
	}

	failed := buildCP(2, 1_000_000, []vtx{{"src", []*ph{{5, 0, 1, 1, 1}}}, {"map", []*ph{nil}}}, 60_000, "Checkpoint expired before completing.")
	if cs := Analyze(job, []model.Checkpoint{failed}, nil, nil, nil).Checkpoints[0].Causes; cs != nil {
		t.Errorf("a failed checkpoint with a pending subtask has causes %+v", cs)
	}
}

// Mixed causes: in every checkpoint barriers queue ~2 s at the Map's input
// behind a backpressured Source, and the Window's sync takes 300 ms and
// makes the last acknowledgement. The verdict is backpressure naming the Map,
// with the sync as the next cause, although backpressure never varies (no
// correlation) and the bottleneck is start delay at the Window.
func TestVerdictNamesTheOperatorWhereBarriersQueue(t *testing.T) {
	job := flinkJob()
	var cps []model.Checkpoint
	var ms []model.MetricSample
	for i := int64(0); i < 16; i++ {
		trig := 1_000_000 + i*10_000
		q := 1800 + (i%4)*100 // the queue varies a little
		p := func(sd, sy int64) *ph { v := ph{sd: sd, al: 0, sy: sy, as: 20, ack: 2}; return &v }
		cps = append(cps, buildCP(i+1, trig, []vtx{
			{vSrc, []*ph{p(30, 1), p(30, 1), p(30, 1), p(30, 1)}},
			{vMap, []*ph{p(30+q, 1), p(30+q, 1), p(30+q, 1), p(30+q, 1)}},
			{vWin, []*ph{p(40+q, 300), p(40+q, 2), p(40+q, 2), p(40+q, 2)}},
			{vSink, []*ph{p(45+q, 1), p(45+q, 1), p(45+q, 1), p(45+q, 1)}},
		}, 0, ""))
		ms = append(ms, model.MetricSample{JobID: job.ID, VertexID: vSrc, Subtask: -1, Agg: model.AggMax,
			Metric: model.MetricBackPressuredMsPerSec, TimeMs: trig + 1000, Value: 960},
			model.MetricSample{JobID: job.ID, VertexID: vMap, Subtask: -1, Agg: model.AggMax,
				Metric: model.MetricBusyMsPerSec, TimeMs: trig + 1000, Value: 1000})
	}
	ja := Analyze(job, cps, nil, ms, nil)
	c := ja.Correlation
	if c.Verdict != VerdictBackpressure || c.Basis != BasisSustained {
		t.Fatalf("verdict %s (%s): %s", c.Verdict, c.Basis, c.Reason)
	}
	codes := partsByCode(c.ReasonParts)
	if q := codes["queue_dominant"]; q == nil || q["vertex"] != nameMap || q["upstream"] != nameSrc || q["share"] != "100" || q["level"] != "96" {
		t.Errorf("reason parts %s: want barriers queued at %s behind %s in 100%% of the slowest, backpressure 96%%", js(c.ReasonParts), nameMap, nameSrc)
	}
	if s := codes["queue_second"]; s == nil || s["phase"] != "sync" || s["vertex"] != nameWin {
		t.Errorf("reason parts %s: want the Window's sync as the next cause", js(c.ReasonParts))
	}
	// The slowest checkpoint's clause names the origin too, after the phase of its last ack.
	if o := codes["slowest_origin"]; o == nil || o["vertex"] != nameMap || o["upstream"] != nameSrc {
		t.Errorf("reason parts %s: want the slowest checkpoint's origin at %s", js(c.ReasonParts), nameMap)
	}
	if b := ja.Checkpoints[15].Bottleneck; b == nil || b.Phase != PhaseStartDelay || b.VertexID != vWin || b.Origin == nil || b.Origin.VertexID != vMap {
		t.Errorf("bottleneck %s: want start delay at the Window with its origin at the Map", js(b))
	}
	// The queue says why: the Source is held back (96 % backpressured), the Map is busy (100 %).
	q := ja.Checkpoints[15].Causes[0]
	if q.UpstreamBackpressure == nil || *q.UpstreamBackpressure != 0.96 || q.Busy == nil || *q.Busy != 1 {
		t.Errorf("first cause %s: want the Source's backpressure 0.96 and the Map's busy 1", js(q))
	}
	if s := ja.Checkpoints[15].Causes[1]; s.UpstreamBackpressure != nil || s.Busy != nil {
		t.Errorf("second cause %s: a sync carries no queue evidence", js(s))
	}
}

// A checkpointed size that wanders by a few percent cannot explain durations
// that vary a hundredfold, however well it correlates.
func TestSizeThatBarelyVariesExplainsNothing(t *testing.T) {
	job := flinkJob()
	var cps []model.Checkpoint
	for i := int64(0); i < 24; i++ {
		trig := 1_000_000 + i*10_000
		async := 20 + i*i*10 // 20 ms … 5.3 s
		c := buildCP(i+1, trig, []vtx{{vSrc, all4(healthy)}, {vMap, all4(healthy)},
			{vWin, with(0, ph{sd: 2, al: 1, sy: 3, as: async, ack: 2})}, {vSink, all4(healthy)}}, 0, "")
		c.CheckpointedSize = 1_000_000 + i*1_000 // +2.3 % over the run, rising with the duration
		cps = append(cps, c)
	}
	ja := Analyze(job, cps, nil, nil, nil)
	c := ja.Correlation
	if c.CheckpointedSize.Rho == nil || *c.CheckpointedSize.Rho < 0.9 {
		t.Fatalf("size correlation %s: the test wants a strong one", js(c.CheckpointedSize))
	}
	if c.Verdict == VerdictStateSize {
		t.Errorf("verdict state_size from a size that varies by 2 %%: %s", c.Reason)
	}
	found := false
	for _, p := range c.ReasonParts {
		found = found || p.Code == "size_too_small"
	}
	if !found {
		t.Errorf("the reason does not say the size varies too little: %s", c.Reason)
	}
}
