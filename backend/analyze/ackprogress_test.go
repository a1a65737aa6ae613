package analyze

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestAckProgressFlink(t *testing.T) {
	// 16 subtasks: the sources ack at 10 ms, the maps at 20, the windows at
	// 30, 40, 50 and 9000, the sinks at 60.
	at := func(ms int64) *ph { p := ph{as: ms}; return &p }
	c := buildCP(1, 1_000_000, []vtx{
		{vSrc, []*ph{at(10), at(10), at(10), at(10)}},
		{vMap, []*ph{at(20), at(20), at(20), at(20)}},
		{vWin, []*ph{at(30), at(40), at(9000), at(50)}},
		{vSink, []*ph{at(60), at(60), at(60), at(60)}},
	}, 0, "")
	p := CheckpointAckProgress(flinkJob(), &c, nil, 0)
	if p == nil {
		t.Fatal("no ack progress")
	}
	// 50 % = the 8th ack (20 ms); 90 % = the 15th (60 ms); 100 % = 9000 ms.
	if p.Total != 16 || p.Acknowledged != 16 || p.Pending != 0 || p.Sampled ||
		!reflect.DeepEqual([]*int64{p.P50Ms, p.P90Ms, p.P100Ms}, []*int64{i64p(20), i64p(60), i64p(9000)}) {
		t.Errorf("progress = %s", js(p))
	}
	wantStragglers := []Straggler{
		{VertexID: vWin, VertexName: nameWin, Subtask: 2, AckAfterMs: i64p(9000)},
		{VertexID: vSink, VertexName: nameSink, Subtask: 0, AckAfterMs: i64p(60)},
		{VertexID: vSink, VertexName: nameSink, Subtask: 1, AckAfterMs: i64p(60)},
	}
	if !reflect.DeepEqual(p.Stragglers, wantStragglers) {
		t.Errorf("stragglers = %s\nwant %s", js(p.Stragglers), js(wantStragglers))
	}
	wantCurve := []AckPoint{{0, 0}, {10, 4.0 / 16}, {20, 8.0 / 16}, {30, 9.0 / 16}, {40, 10.0 / 16}, {50, 11.0 / 16}, {60, 15.0 / 16}, {9000, 1}}
	if !reflect.DeepEqual(p.Curve, wantCurve) {
		t.Errorf("curve = %v\nwant %v", p.Curve, wantCurve)
	}
}

func TestAckProgressCurveIsBounded(t *testing.T) {
	// 8 vertices × 64 subtasks acking 1 ms apart; 16 points allowed.
	var vs []vtx
	var job model.Job
	for v := range 8 {
		id := string(rune('a'+v)) + "0000000000000000000000000000000"
		job.Vertices = append(job.Vertices, model.Vertex{ID: id, Name: "op" + string(rune('a'+v)), Parallelism: 64})
		subs := make([]*ph, 64)
		for s := range subs {
			p := ph{as: int64(v*64 + s + 1)}
			subs[s] = &p
		}
		vs = append(vs, vtx{id, subs})
	}
	c := buildCP(1, 5_000, vs, 0, "")
	p := CheckpointAckProgress(job, &c, nil, 16)
	if len(p.Curve) > 16 || len(p.Curve) < 10 {
		t.Fatalf("curve has %d points, want at most 16 and a usable shape", len(p.Curve))
	}
	if p.Curve[0] != (AckPoint{0, 0}) || p.Curve[len(p.Curve)-1] != (AckPoint{512, 1}) {
		t.Errorf("curve ends %v … %v", p.Curve[0], p.Curve[len(p.Curve)-1])
	}
	for i := 1; i < len(p.Curve); i++ {
		a, b := p.Curve[i-1], p.Curve[i]
		if b.TMs <= a.TMs || b.Fraction < a.Fraction {
			t.Errorf("curve not increasing at %d: %v then %v", i, a, b)
		}
		// Each kept point lies on the true curve: fraction = t/512.
		if b.Fraction != float64(b.TMs)/512 {
			t.Errorf("point %v is not on the curve", b)
		}
	}
}

func TestAckProgressFailedNamesThePending(t *testing.T) {
	c := buildCP(1, 1_000_000, []vtx{
		{vSrc, all4(healthy)}, {vMap, all4(healthy)},
		{vWin, []*ph{&healthy, nil, &healthy, nil}},
		{vSink, []*ph{nil, nil, nil, nil}},
	}, 600_000, "Checkpoint expired before completing.")
	p := CheckpointAckProgress(flinkJob(), &c, nil, 0)
	want := []Straggler{
		{VertexID: vWin, VertexName: nameWin, Subtask: 1}, {VertexID: vWin, VertexName: nameWin, Subtask: 3},
		{VertexID: vSink, VertexName: nameSink, Subtask: 0}, {VertexID: vSink, VertexName: nameSink, Subtask: 1},
		{VertexID: vSink, VertexName: nameSink, Subtask: 2},
	}
	if p.Pending != 6 || p.Acknowledged != 10 || p.P50Ms == nil || *p.P50Ms != 30 || p.P90Ms != nil || p.P100Ms != nil {
		t.Errorf("progress = %s", js(p))
	}
	if !reflect.DeepEqual(p.Stragglers, want) {
		t.Errorf("stragglers = %s\nwant %s", js(p.Stragglers), js(want))
	}
}

func TestAckProgressSampled(t *testing.T) {
	// SeaTunnel: polled in-flight counts; the checkpoint completed at 9 s.
	c := model.Checkpoint{ID: 4, Pipeline: 1, Status: model.StatusCompleted, TriggerMs: 100_000, EndToEndMs: 9_000, CompletionMs: 109_000}
	acks := []model.AckSample{
		{Pipeline: 1, CheckpointID: 4, TimeMs: 106_000, Acknowledged: 7, Total: 8},
		{Pipeline: 1, CheckpointID: 4, TimeMs: 102_000, Acknowledged: 2, Total: 8},
		{Pipeline: 1, CheckpointID: 4, TimeMs: 104_000, Acknowledged: 5, Total: 8},
		{Pipeline: 2, CheckpointID: 4, TimeMs: 104_000, Acknowledged: 1, Total: 8}, // another pipeline
	}
	p := CheckpointAckProgress(model.Job{Engine: model.EngineSeaTunnel}, &c, acks, 0)
	if p == nil || !p.Sampled || p.Total != 8 || p.Acknowledged != 8 {
		t.Fatalf("progress = %s", js(p))
	}
	// 50 % (4 of 8) first seen at 4 s; 90 % (8 of 8 rounded up) only at completion.
	if !reflect.DeepEqual([]*int64{p.P50Ms, p.P90Ms, p.P100Ms}, []*int64{i64p(4000), i64p(9000), i64p(9000)}) {
		t.Errorf("p50/p90/p100 = %s", js(p))
	}
	want := []AckPoint{{0, 0}, {2000, 0.25}, {4000, 0.625}, {6000, 0.875}, {9000, 1}}
	if !reflect.DeepEqual(p.Curve, want) {
		t.Errorf("curve = %v, want %v", p.Curve, want)
	}
	if len(p.Stragglers) != 0 {
		t.Errorf("SeaTunnel cannot name stragglers, got %s", js(p.Stragglers))
	}
}

// A snapshot stamped a moment after the completion (SeaTunnel sets updatedAt after handling the
// ack) still saw the checkpoint in flight at half: 50 % came by the completion, not after it.
func TestAckProgressSampledAfterCompletion(t *testing.T) {
	c := model.Checkpoint{ID: 7, Pipeline: 1, Status: model.StatusCompleted, TriggerMs: 100_000, EndToEndMs: 6_269, CompletionMs: 106_269}
	acks := []model.AckSample{{Pipeline: 1, CheckpointID: 7, TimeMs: 106_271, Acknowledged: 1, Total: 2}}
	p := CheckpointAckProgress(model.Job{Engine: model.EngineSeaTunnel}, &c, acks, 0)
	if p == nil || !reflect.DeepEqual([]*int64{p.P50Ms, p.P90Ms, p.P100Ms}, []*int64{i64p(6269), i64p(6269), i64p(6269)}) {
		t.Errorf("p50/p90/p100 = %s, want each at the completion, 6269 ms", js(p))
	}
}

func TestAckProgressUnknown(t *testing.T) {
	// Flink summary without tasks: only the last ack is known.
	c := model.Checkpoint{ID: 28, Status: model.StatusCompleted, TriggerMs: 1, EndToEndMs: 19022}
	p := CheckpointAckProgress(model.Job{}, &c, nil, 0)
	if p == nil || p.P100Ms == nil || *p.P100Ms != 19022 || p.P50Ms != nil || p.P90Ms != nil || p.Curve != nil {
		t.Errorf("progress = %s, want only p100", js(p))
	}
	running := model.Checkpoint{ID: 29, Status: model.StatusInProgress, TriggerMs: 1}
	if p := CheckpointAckProgress(model.Job{}, &running, nil, 0); p != nil {
		t.Errorf("progress of a checkpoint nothing is known about = %s", js(p))
	}
}

// selectKth must agree with sorting, duplicates included.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for range 2000 {
		n := 1 + r.IntN(70)
		s := make([]int64, n)
		for i := range s {
			s[i] = r.Int64N(int64(1 + r.IntN(40)))
		}
		sorted := slices.Clone(s)
		slices.Sort(sorted)
		k := r.IntN(n)
		selectKth(s, k)
		if s[k] != sorted[k] {
			t.Fatalf("selectKth(%v, %d) = %d, want %d", s, k, s[k], sorted[k])
		}
		for i := range s {
			if i < k && s[i] > s[k] || i > k && s[i] < s[k] {
				t.Fatalf("not partitioned around %d: %v", k, s)
			}
		}
	}
}
