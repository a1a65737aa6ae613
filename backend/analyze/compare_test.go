package analyze

import (
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestCompare(t *testing.T) {
	a := healthyCP(1, 1_000_000)
	b := buildCP(2, 1_010_000, []vtx{
		{vSrc, all4(healthy)}, {vMap, all4(healthy)},
		{vWin, with(3, ph{sd: 2000, al: 16882, sy: 40, as: 90, ack: 10})},
	}, 0, "")
	cmp := Compare(flinkJob(), &a, &b)
	if cmp.A.ID != 1 || cmp.B.ID != 2 || cmp.B.Bottleneck == nil || cmp.B.Bottleneck.Phase != PhaseAlignment {
		t.Fatalf("sides = %s / %s", js(cmp.A), js(cmp.B))
	}
	// Each side carries its causes: b's largest is the Window's alignment, waiting for the Map.
	if len(cmp.B.Causes) == 0 || cmp.B.Causes[0].Phase != PhaseAlignment || cmp.B.Causes[0].VertexID != vWin || cmp.B.Causes[0].UpstreamVertexID != vMap || len(cmp.A.Causes) == 0 {
		t.Errorf("causes = %s / %s", js(cmp.A.Causes), js(cmp.B.Causes))
	}
	if !reflect.DeepEqual(cmp.EndToEnd, Delta{A: i64p(30), B: i64p(19022), Diff: i64p(18992)}) {
		t.Errorf("end to end = %s", js(cmp.EndToEnd))
	}
	wantPhases := []PhaseDelta{
		{PhaseStartDelay, Delta{i64p(2), i64p(2000), i64p(1998)}},
		{PhaseAlignment, Delta{i64p(1), i64p(16882), i64p(16881)}},
		{PhaseSync, Delta{i64p(3), i64p(40), i64p(37)}},
		{PhaseAsync, Delta{i64p(20), i64p(90), i64p(70)}},
		{PhaseAck, Delta{i64p(4), i64p(10), i64p(6)}},
	}
	if !reflect.DeepEqual(cmp.Phases, wantPhases) {
		t.Errorf("phases = %s\nwant %s", js(cmp.Phases), js(wantPhases))
	}
	if len(cmp.Vertices) != 4 {
		t.Fatalf("vertices = %s", js(cmp.Vertices))
	}
	win, sink := cmp.Vertices[2], cmp.Vertices[3]
	if win.VertexID != vWin || !reflect.DeepEqual(win.Phases[1], PhaseDelta{PhaseAlignment, Delta{i64p(1), i64p(16882), i64p(16881)}}) ||
		!reflect.DeepEqual(win.EndToEnd, Delta{i64p(30), i64p(19022), i64p(18992)}) {
		t.Errorf("Window = %s", js(win))
	}
	// B has no Sink stats: its side is absent, and so is the difference.
	if sink.VertexID != vSink || sink.EndToEnd.B != nil || sink.EndToEnd.Diff != nil || sink.EndToEnd.A == nil || sink.CheckpointedSize.B != nil {
		t.Errorf("Sink = %s", js(sink))
	}

	// A checkpoint whose details were missed says so instead of a bottleneck.
	lost := healthyCP(3, 1_020_000)
	lost.Tasks, lost.DetailLoss = nil, model.DetailMissed
	if c := Compare(flinkJob(), &a, &lost); c.B.Bottleneck != nil || c.B.DetailLoss != model.DetailMissed || c.A.DetailLoss != "" {
		t.Errorf("sides with a missed checkpoint = %s / %s", js(c.A), js(c.B))
	}
}

func TestDefaultComparePair(t *testing.T) {
	mk := func(id, trig, dur int64, st model.Status, pipe int) model.Checkpoint {
		return model.Checkpoint{ID: id, TriggerMs: trig, EndToEndMs: dur, Status: st, Pipeline: pipe}
	}
	for _, tc := range []struct {
		name string
		cps  []model.Checkpoint
		want ComparePair
		ok   bool
	}{
		{"latest failed against the median completed", []model.Checkpoint{
			mk(1, 100, 50, model.StatusCompleted, 0), mk(2, 200, 70, model.StatusCompleted, 0),
			mk(3, 300, 9000, model.StatusFailed, 0), mk(4, 400, 60, model.StatusCompleted, 0),
			mk(5, 500, 600000, model.StatusFailed, 0), mk(6, 600, 10, model.StatusInProgress, 0),
		}, ComparePair{Baseline: CheckpointRef{ID: 4}, Target: CheckpointRef{ID: 5}}, true},
		{"no failures: the slowest against the median of the rest (lower median)", []model.Checkpoint{
			mk(1, 100, 50, model.StatusCompleted, 0), mk(2, 200, 19022, model.StatusCompleted, 0),
			mk(3, 300, 40, model.StatusCompleted, 0), mk(4, 400, 60, model.StatusCompleted, 0),
			mk(5, 500, 45, model.StatusCompleted, 0),
		}, ComparePair{Baseline: CheckpointRef{ID: 5}, Target: CheckpointRef{ID: 2}}, true},
		{"the baseline comes from the target's pipeline", []model.Checkpoint{
			mk(1, 100, 50, model.StatusCompleted, 1), mk(1, 100, 5, model.StatusCompleted, 2),
			mk(2, 200, 900, model.StatusFailed, 2),
		}, ComparePair{Baseline: CheckpointRef{ID: 1, Pipeline: 2}, Target: CheckpointRef{ID: 2, Pipeline: 2}}, true},
		{"nothing to compare with", []model.Checkpoint{mk(1, 100, 50, model.StatusFailed, 0)}, ComparePair{}, false},
		{"empty", nil, ComparePair{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := DefaultComparePair(tc.cps)
			if ok != tc.ok || got.Baseline != tc.want.Baseline || got.Target != tc.want.Target {
				t.Errorf("pair = %s (%v), want %s (%v)", js(got), ok, js(tc.want), tc.ok)
			}
			if ok && got.Reason == "" {
				t.Error("no reason")
			}
		})
	}
}
