package analyze

import (
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestBucketWidth(t *testing.T) {
	const (
		s = int64(1000)
		m = 60 * s
		h = 60 * m
	)
	for _, tc := range []struct {
		name   string
		span   int64
		target int
		want   int64
	}{
		{"a minute in 60", m, 60, s},
		{"a minute in 10", m, 10, 10 * s},
		{"five minutes in 60", 5 * m, 60, 5 * s},
		{"five minutes in 11", 5 * m, 11, 30 * s},
		{"an hour in 60", h, 60, m},
		{"an hour in 10", h, 10, 15 * m},
		{"a day in 100", 24 * h, 100, 15 * m},
		{"a day in 20", 24 * h, 20, 6 * h},
		{"a week in 7", 7 * 24 * h, 7, 24 * h},
		{"thirty days in 10: whole days", 30 * 24 * h, 10, 3 * 24 * h},
		{"tiny span", 10, 60, s},
		{"no target: the default", 60 * m, 0, m},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BucketWidth(1_700_000_000_000, 1_700_000_000_000+tc.span, tc.target); got != tc.want {
				t.Errorf("width = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestBucketsAlignAndCover(t *testing.T) {
	b := NewBuckets(1_700_000_012_345, 1_700_000_612_345, 60) // 10 min in 60 → 10 s buckets
	if b.WidthMs != 10_000 || b.StartMs != 1_700_000_010_000 || b.Count != 61 {
		t.Fatalf("buckets = %+v", b)
	}
	for _, tc := range []struct {
		ms   int64
		want int
	}{
		{1_700_000_010_000, 0}, {1_700_000_019_999, 0}, {1_700_000_020_000, 1},
		{1_700_000_612_345, 60}, {1_700_000_009_999, -1}, {1_700_000_620_000, -1},
	} {
		if got := b.Of(tc.ms); got != tc.want {
			t.Errorf("Of(%d) = %d, want %d", tc.ms, got, tc.want)
		}
	}
	// Panning keeps bucket boundaries where they were.
	b2 := NewBuckets(1_700_000_015_000, 1_700_000_615_000, 60)
	if (b2.StartMs-b.StartMs)%b.WidthMs != 0 || b2.WidthMs != b.WidthMs {
		t.Errorf("panned buckets %+v are not aligned with %+v", b2, b)
	}
}

func TestPhaseHeatmap(t *testing.T) {
	const t0 = 1_700_000_000_000 // a multiple of 10 s
	slowAsync := []vtx{{vSrc, all4(healthy)}, {vMap, all4(healthy)}, {vWin, with(0, ph{sd: 2, al: 1, sy: 3, as: 7000, ack: 4})}, {vSink, all4(healthy)}}
	cps := []model.Checkpoint{
		healthyCP(1, t0+1_000), healthyCP(2, t0+4_000),
		buildCP(3, t0+12_000, slowAsync, 0, ""), healthyCP(4, t0+15_000),
		buildCP(5, t0+25_000, []vtx{{vSrc, []*ph{nil, nil, nil, nil}}}, 100, "Checkpoint expired before completing."),
	}
	cps[1].FinalizeMs = i64p(12)
	hm := BuildPhaseHeatmap(flinkJob(), cps, t0, t0+30_000, 3) // 10 s buckets
	if hm.Buckets.WidthMs != 10_000 || hm.Buckets.StartMs != t0 {
		t.Fatalf("buckets = %+v", hm.Buckets)
	}
	rows := map[Phase]PhaseRow{}
	var order []Phase
	for _, r := range hm.Rows {
		rows[r.Phase] = r
		order = append(order, r.Phase)
	}
	if want := []Phase{EndToEnd, PhaseStartDelay, PhaseAlignment, PhaseSync, PhaseAsync, PhaseAck, PhaseFinalize}; !reflect.DeepEqual(order, want) {
		t.Fatalf("rows = %v, want %v", order, want)
	}
	wantAsync := []PhaseCell{{Bucket: 0, Count: 2, MaxMs: 20, P90Ms: 20, MaxID: 1}, {Bucket: 1, Count: 2, MaxMs: 7000, P90Ms: 7000, MaxID: 3}}
	if got := rows[PhaseAsync]; !reflect.DeepEqual(got.Cells, wantAsync) || got.MaxMs != 7000 {
		t.Errorf("async row = %s\nwant cells %s", js(got), js(wantAsync))
	}
	if got := rows[PhaseFinalize].Cells; len(got) != 1 || got[0] != (PhaseCell{Bucket: 0, Count: 1, MaxMs: 12, P90Ms: 12, MaxID: 2}) {
		t.Errorf("finalize row = %s", js(got))
	}
	// The failed checkpoint (bucket 2) has no slowness to show.
	for _, r := range hm.Rows {
		for _, c := range r.Cells {
			if c.Bucket == 2 {
				t.Errorf("row %s has a cell for the failed checkpoint's bucket", r.Phase)
			}
		}
	}
}

func TestFailureHeatmap(t *testing.T) {
	const t0 = 1_700_000_000_000
	noAck := []vtx{{vSrc, []*ph{nil, nil, nil, nil}}}
	exp := func(id int64) string { return "Checkpoint " + string(rune('0'+id)) + " expired before completing." }
	cps := []model.Checkpoint{
		buildCP(1, t0+1_000, noAck, 10, exp(1)),
		buildCP(2, t0+2_000, noAck, 10, "Asynchronous task checkpoint failed."),
		healthyCP(3, t0+3_000),
		buildCP(4, t0+5_000, noAck, 10, exp(4)),
		buildCP(5, t0+61_000, noAck, 10, exp(5)),
	}
	hm := BuildFailureHeatmap(cps, t0, t0+120_000, 2) // 1 min buckets
	want := []FailureRow{
		{Signature: "Checkpoint <n> expired before completing.", Example: exp(1), Total: 3, Cells: []FailureCell{
			{Bucket: 0, Count: 2, CheckpointIDs: []int64{1, 4}}, {Bucket: 1, Count: 1, CheckpointIDs: []int64{5}}}},
		{Signature: "Asynchronous task checkpoint failed.", Example: "Asynchronous task checkpoint failed.", Total: 1, Cells: []FailureCell{
			{Bucket: 0, Count: 1, CheckpointIDs: []int64{2}}}},
	}
	if hm.Buckets.WidthMs != 60_000 || !reflect.DeepEqual(hm.Rows, want) {
		t.Errorf("heatmap = %s\nwant rows %s", js(hm), js(want))
	}
}

func TestVertexHeatmap(t *testing.T) {
	const t0 = 1_700_000_000_000
	var cps []model.Checkpoint
	for i := int64(1); i <= 10; i++ {
		p := healthy
		p.al = i * 100
		cps = append(cps, buildCP(i, t0+i*1000, []vtx{{vSrc, all4(healthy)}, {vMap, all4(healthy)}, {vWin, with(1, p)}}, 0, ""))
	}
	hm, err := BuildVertexHeatmap(flinkJob(), cps, PhaseAlignment, 0, 0, 4) // 10 checkpoints into ≤ 4 columns: 3 per column
	if err != nil {
		t.Fatal(err)
	}
	if len(hm.Columns) != 4 || hm.Columns[0] != (VertexColumn{FirstID: 1, LastID: 3, TriggerMs: t0 + 1000, Count: 3}) || hm.Columns[3].Count != 1 {
		t.Fatalf("columns = %s", js(hm.Columns))
	}
	if len(hm.Rows) != 4 || hm.Rows[0].VertexID != vSrc || hm.Rows[2].VertexID != vWin || hm.Rows[3].VertexID != vSink {
		t.Fatalf("rows = %s", js(hm.Rows))
	}
	if got := hm.Rows[2].Cells; !reflect.DeepEqual(got, []*int64{i64p(300), i64p(600), i64p(900), i64p(1000)}) {
		t.Errorf("Window cells = %s, want the max per column", js(got))
	}
	for _, c := range hm.Rows[3].Cells {
		if c != nil {
			t.Errorf("the Sink has no stats in these checkpoints, got a cell %d", *c)
		}
	}
	e2e, err := BuildVertexHeatmap(flinkJob(), cps, EndToEnd, 0, 0, 0)
	if err != nil || len(e2e.Columns) != 10 || *e2e.Rows[2].Cells[9] != 1029 {
		t.Errorf("end-to-end heatmap = %s, %v", js(e2e), err)
	}
	if _, err := BuildVertexHeatmap(flinkJob(), cps, PhaseFinalize, 0, 0, 0); err == nil {
		t.Error("finalize has no per-vertex value, want an error")
	}
	if _, err := BuildVertexHeatmap(flinkJob(), cps, "alignmnet", 0, 0, 0); err == nil {
		t.Error("unknown phase, want an error")
	}
}
