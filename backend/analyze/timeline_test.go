package analyze

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"checkpoint-explorer/backend/model"
)

func cp(id, trigger, dur int64, st model.Status) model.Checkpoint {
	c := model.Checkpoint{ID: id, TriggerMs: trigger, EndToEndMs: dur, Status: st, CheckpointedSize: id * 10}
	switch st {
	case model.StatusCompleted:
		c.CompletionMs = trigger + dur
		c.LatestAckMs = trigger + dur
	case model.StatusFailed:
		c.FailureMs = trigger + dur
	}
	return c
}

func spansOf(cps []model.Checkpoint) []model.Span {
	out := make([]model.Span, len(cps))
	for i := range cps {
		out[i] = cps[i].Span()
	}
	return out
}

func TestBuildTimelineMergesPerPixelColumn(t *testing.T) {
	// 10,000 checkpoints one second apart into 100 pixels: 100 s per pixel.
	var cps []model.Checkpoint
	for i := int64(0); i < 10000; i++ {
		st := model.StatusCompleted
		if i == 4321 {
			st = model.StatusFailed
		}
		cps = append(cps, cp(i+1, 1_000_000+i*1000, 50+i%7, st))
	}
	tl := BuildTimeline(spansOf(cps), nil, nil, nil, 1_000_000, 1_000_000+10_000_000, 100, model.EngineFlink)
	if len(tl.Bars) > 100 {
		t.Fatalf("got %d bars for 100 px, want at most one starting per column", len(tl.Bars))
	}
	total, failed := 0, 0
	for _, b := range tl.Bars {
		total += b.Count
		if b.Status == model.StatusFailed {
			failed++
			if b.FirstID > 4322 || b.LastID < 4322 {
				t.Errorf("failed bar covers ids %d–%d, want 4322 inside", b.FirstID, b.LastID)
			}
		}
		if b.MaxDurationMs < 50 || b.MaxDurationMs > 56 {
			t.Errorf("bar max duration %d outside the inputs' 50–56", b.MaxDurationMs)
		}
	}
	if total != 10000 || tl.Total != 10000 {
		t.Errorf("merged bars count %d checkpoints (Total %d), want 10000", total, tl.Total)
	}
	if failed != 1 {
		t.Errorf("%d bars failed, want the one holding checkpoint 4322 (worst status wins)", failed)
	}
}

func TestBuildTimelineZoomKeepsSingles(t *testing.T) {
	cps := []model.Checkpoint{cp(3, 10_000, 40, model.StatusCompleted), cp(1, 1_000, 40, model.StatusCompleted), cp(2, 5_000, 19_000, model.StatusCompleted)}
	tl := BuildTimeline(spansOf(cps), nil, nil, nil, 0, 0, 1000, model.EngineFlink)
	if len(tl.Bars) != 3 {
		t.Fatalf("got %d bars, want 3 separate ones at 1000 px", len(tl.Bars))
	}
	for i, want := range []int64{1, 2, 3} {
		if tl.Bars[i].FirstID != want {
			t.Errorf("bar %d is checkpoint %d, want %d (sorted by trigger)", i, tl.Bars[i].FirstID, want)
		}
	}
	if tl.Extent.MinMs != 1_000 || tl.Extent.MaxMs != 24_000 {
		t.Errorf("extent %+v, want 1000–24000", tl.Extent)
	}
	if tl.FromMs >= 1_000 || tl.ToMs <= 24_000 {
		t.Errorf("fitted range %d–%d does not contain the extent", tl.FromMs, tl.ToMs)
	}
	// A zoomed range outside the data holds no bars.
	z := BuildTimeline(spansOf(cps), nil, nil, nil, 30_000, 40_000, 1000, model.EngineFlink)
	if len(z.Bars) != 0 || z.Total != 0 {
		t.Errorf("range after the data has %d bars", len(z.Bars))
	}
	// A range that cuts through the long checkpoint still shows it.
	z = BuildTimeline(spansOf(cps), nil, nil, nil, 15_000, 20_000, 1000, model.EngineFlink)
	if len(z.Bars) != 1 || z.Bars[0].FirstID != 2 {
		t.Errorf("range inside checkpoint 2 shows %+v, want checkpoint 2", z.Bars)
	}
}

func TestBuildTimelineGapsAndLanes(t *testing.T) {
	cps := []model.Checkpoint{cp(1, 1_000, 40, model.StatusCompleted), cp(5, 9_000, 40, model.StatusCompleted)}
	gaps := []model.Gap{{FromID: 2, ToID: 4}, {FromID: 100, ToID: 101}}
	bp := []model.MetricSample{
		{Metric: model.MetricBackPressuredMsPerSec, TimeMs: 2_000, Value: 650},
		{Metric: model.MetricBackPressuredMsPerSec, TimeMs: 2_001, Value: 100},
		{Metric: model.MetricBPRatio, TimeMs: 8_000, Value: 0.25},
		{Metric: model.MetricBusyMsPerSec, TimeMs: 8_000, Value: 1000},
	}
	tl := BuildTimeline(spansOf(cps), gaps, bp, nil, 0, 10_000, 100, model.EngineFlink)
	if len(tl.Gaps) != 1 || tl.Gaps[0].AfterMs != 1_040 || tl.Gaps[0].BeforeMs != 9_000 {
		t.Errorf("gaps %+v, want one between 1040 and 9000 (the unanchored one dropped)", tl.Gaps)
	}
	if len(tl.Lanes.Backpressure) != 2 || tl.Lanes.Backpressure[0].Value != 0.65 || tl.Lanes.Backpressure[1].Value != 0.25 {
		t.Errorf("backpressure lane %+v, want max 0.65 in the first column and 0.25 later", tl.Lanes.Backpressure)
	}
	if len(tl.Lanes.Size) != 2 || tl.Lanes.Size[1].Value != 50 {
		t.Errorf("size lane %+v", tl.Lanes.Size)
	}
}

func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		in   []int64
		q    float64
		want int64
	}{
		{nil, 0.5, 0},
		{[]int64{5}, 0.9, 5},
		{[]int64{4, 1, 3, 2}, 0.5, 2},
		{[]int64{4, 1, 3, 2}, 1, 4},
		{[]int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 0.9, 90},
	} {
		if got := Quantile(tc.in, tc.q); got != tc.want {
			t.Errorf("Quantile(%v, %v) = %d, want %d", tc.in, tc.q, got, tc.want)
		}
	}
}

// The order checkpoints come in changes nothing: shuffled, the bars, the
// extent and the gaps are those of the sorted input (which skips the sort).
func TestBuildTimelineIgnoresInputOrder(t *testing.T) {
	var cps []model.Checkpoint
	for i := int64(0); i < 500; i++ {
		if i >= 200 && i < 205 {
			continue // a gap of ids 201–205
		}
		st := model.StatusCompleted
		if i%97 == 0 {
			st = model.StatusFailed
		}
		c := cp(i+1, 1_000_000+i*1000, 40+i%11, st)
		c.Pipeline = int(i % 2)
		cps = append(cps, c)
	}
	gaps := []model.Gap{{FromID: 201, ToID: 205}, {Pipeline: 1, FromID: 201, ToID: 205}}
	want := BuildTimeline(spansOf(cps), gaps, nil, nil, 0, 0, 120, model.EngineFlink)
	if len(want.Gaps) == 0 || len(want.Bars) == 0 {
		t.Fatalf("sorted input: %d bars, gaps %+v", len(want.Bars), want.Gaps)
	}
	shuffled := slices.Clone(cps)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got := BuildTimeline(spansOf(shuffled), gaps, nil, nil, 0, 0, 120, model.EngineFlink); !reflect.DeepEqual(got, want) {
		t.Errorf("shuffled input gives\n%+v\nsorted gives\n%+v", got, want)
	}
}

// A bar tells how many of its checkpoints stored in progress have ended
// unseen: on Flink, those with a later completed one of their pipeline.
func TestBuildTimelineEndedUnseen(t *testing.T) {
	cps := []model.Checkpoint{
		cp(1, 1_000, 40, model.StatusCompleted), cp(2, 2_000, 40, model.StatusInProgress),
		cp(3, 3_000, 40, model.StatusCompleted), cp(4, 4_000, 40, model.StatusInProgress),
	}
	for _, tc := range []struct {
		engine model.Engine
		want   []int // per bar, at 1000 px each checkpoint its own
	}{{model.EngineFlink, []int{0, 1, 0, 0}}, {model.EngineSeaTunnel, []int{0, 0, 0, 0}}, {"", []int{0, 0, 0, 0}}} {
		tl := BuildTimeline(spansOf(cps), nil, nil, nil, 0, 0, 1000, tc.engine)
		if len(tl.Bars) != 4 {
			t.Fatalf("%q: %d bars, want 4", tc.engine, len(tl.Bars))
		}
		for i, b := range tl.Bars {
			if b.EndedUnseen != tc.want[i] {
				t.Errorf("%q: bar of checkpoint %d has %d ended unseen, want %d", tc.engine, b.FirstID, b.EndedUnseen, tc.want[i])
			}
		}
		// Merged into one bar, the counts add up and the worst status still wins.
		one := BuildTimeline(spansOf(cps), nil, nil, nil, 0, 1_000_000, 1, tc.engine)
		if len(one.Bars) != 1 || one.Bars[0].Count != 4 || one.Bars[0].Status != model.StatusCompleted {
			t.Fatalf("%q: merged bars %+v, want one of 4, completed", tc.engine, one.Bars)
		}
		if want := tc.want[1]; one.Bars[0].EndedUnseen != want {
			t.Errorf("%q: merged bar has %d ended unseen, want %d", tc.engine, one.Bars[0].EndedUnseen, want)
		}
	}
}

// The commit lane shows the sink's commit durations; where the engine gives none (SeaTunnel
// 2.3.13), the records written and not yet committed, in their own unit.
func TestBuildTimelineCommitLane(t *testing.T) {
	cps := []model.Span{{ID: 1, TriggerMs: 1_000, EndToEndMs: 40, Status: model.StatusCompleted}}
	lag := []model.MetricSample{
		{Metric: model.MetricCommitLagRecords, TimeMs: 2_000, Value: 400},
		{Metric: model.MetricCommitLagRecords, TimeMs: 6_000, Value: 1_800},
	}
	tl := BuildTimeline(cps, nil, lag, nil, 0, 10_000, 100, model.EngineSeaTunnel)
	if tl.Lanes.CommitUnit != CommitUnitRecords || len(tl.Lanes.Commit) != 2 || tl.Lanes.Commit[1].Value != 1_800 {
		t.Errorf("commit lane %+v (%q), want the lag in records", tl.Lanes.Commit, tl.Lanes.CommitUnit)
	}
	both := append(lag, model.MetricSample{Metric: model.MetricCommitDurationMs, TimeMs: 3_000, Value: 250})
	tl = BuildTimeline(cps, nil, both, nil, 0, 10_000, 100, model.EngineFlink)
	if tl.Lanes.CommitUnit != CommitUnitMs || len(tl.Lanes.Commit) != 1 || tl.Lanes.Commit[0].Value != 250 {
		t.Errorf("commit lane %+v (%q), want the durations where there are some", tl.Lanes.Commit, tl.Lanes.CommitUnit)
	}
	if tl = BuildTimeline(cps, nil, nil, nil, 0, 10_000, 100, model.EngineFlink); tl.Lanes.CommitUnit != "" || len(tl.Lanes.Commit) != 0 {
		t.Errorf("no commit samples: lane %+v (%q)", tl.Lanes.Commit, tl.Lanes.CommitUnit)
	}
	if !IsTimelineMetric(model.MetricCommitLagRecords) {
		t.Error("the timeline must read the commit lag")
	}
}
