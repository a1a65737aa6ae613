package analyze

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestBaselineThreshold(t *testing.T) {
	for _, tc := range []struct {
		name              string
		win               []int64
		median, threshold float64
	}{
		// The floor dominates for fast checkpoints: slow means at least 1 s worse.
		{"floor", []int64{100, 102, 98, 101, 99}, 100, 1100},
		// The ratio dominates for steady slow ones: slow means 1.5× the median.
		{"ratio", []int64{10000, 10400, 9600, 10200, 9800}, 10000, 15000},
		// The MAD dominates for noisy ones: median 5000, MAD 1000 → 3·1.4826·1000.
		{"spread", []int64{3000, 4000, 5000, 6000, 7000, 4000, 6000}, 5000, 5000 + 3*1.4826*1000},
		// Even count: the median is the mean of the middle two.
		{"even", []int64{10, 20, 30, 40}, 25, 1025},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := slices.Clone(tc.win)
			slices.Sort(s)
			med, thr := baseline(s)
			if med != tc.median || math.Abs(thr-tc.threshold) > 1e-9 {
				t.Errorf("baseline = (%v, %v), want (%v, %v)", med, thr, tc.median, tc.threshold)
			}
		})
	}
}

// madSorted walks outwards from the median instead of sorting deviations;
// it must agree with the definition.
func TestMADMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		n := 1 + r.IntN(BaselineWindow)
		s := make([]int64, n)
		for i := range s {
			s[i] = r.Int64N(50)
		}
		slices.Sort(s)
		med := medianSorted(s)
		dev := make([]float64, n)
		for i, v := range s {
			dev[i] = math.Abs(float64(v) - med)
		}
		slices.Sort(dev)
		want := dev[n/2]
		if n%2 == 0 {
			want = (dev[n/2-1] + dev[n/2]) / 2
		}
		if got := madSorted(s, med); got != want {
			t.Fatalf("MAD of %v = %v, want %v", s, got, want)
		}
	}
}

func TestSlowRuns(t *testing.T) {
	slowWin := []vtx{{vSrc, all4(healthy)}, {vMap, all4(healthy)}, {vWin, with(1, ph{sd: 2, al: 5000, sy: 3, as: 20, ack: 4})}, {vSink, all4(healthy)}}
	var cps []model.Checkpoint
	id := int64(0)
	add := func(n int, slow bool) {
		for range n {
			id++
			trig := 1_700_000_000_000 + id*10_000
			if slow {
				cps = append(cps, buildCP(id, trig, slowWin, 0, ""))
			} else {
				cps = append(cps, healthyCP(id, trig))
			}
		}
	}
	add(30, false) // 1–30
	add(5, true)   // 31–35: a run
	add(10, false) // 36–45
	add(25, true)  // 46–70: 20 slow, then the level is the new normal
	// A failed checkpoint between slow ones does not break a run.
	cps = append(cps, buildCP(71, 1_700_000_000_000+71*10_000, []vtx{{vSrc, []*ph{nil, nil, nil, nil}}}, 500, "Checkpoint was declined."))
	id++
	add(3, false) // 72–74: healthy values are fast again, no longer slow against a 5 s baseline
	ids := func(from, to int64) []int64 {
		var s []int64
		for i := from; i <= to; i++ {
			s = append(s, i)
		}
		return s
	}
	ja := Analyze(flinkJob(), cps, nil, nil, nil)

	wantPhase := []SlowRun{
		{Phase: PhaseAlignment, VertexID: vWin, VertexName: nameWin, CheckpointIDs: ids(31, 35),
			FirstMs: cps[30].TriggerMs, LastMs: cps[34].TriggerMs, MaxMs: 5000, BaselineMedianMs: 1, ThresholdMs: 1001},
		{Phase: PhaseAlignment, VertexID: vWin, VertexName: nameWin, CheckpointIDs: ids(46, 65),
			FirstMs: cps[45].TriggerMs, LastMs: cps[64].TriggerMs, MaxMs: 5000, BaselineMedianMs: 1, ThresholdMs: 1001, NewNormal: true},
	}
	if !reflect.DeepEqual(ja.SlowPhases, wantPhase) {
		t.Errorf("slow phases =\n%s\nwant\n%s", js(ja.SlowPhases), js(wantPhase))
	}
	if len(ja.SlowCheckpoints) != 2 || !reflect.DeepEqual(ja.SlowCheckpoints[0].CheckpointIDs, ids(31, 35)) ||
		ja.SlowCheckpoints[0].Phase != EndToEnd || ja.SlowCheckpoints[0].BaselineMedianMs != 30 ||
		!reflect.DeepEqual(ja.SlowCheckpoints[1].CheckpointIDs, ids(46, 65)) || !ja.SlowCheckpoints[1].NewNormal {
		t.Errorf("slow checkpoints = %s", js(ja.SlowCheckpoints))
	}
	// Per-checkpoint flags agree with the runs.
	for _, c := range ja.Checkpoints {
		slow := (c.ID >= 31 && c.ID <= 35) || (c.ID >= 46 && c.ID <= 65)
		if got := len(c.Slow) > 0; got != slow {
			t.Errorf("checkpoint %d slow = %v (%s), want %v", c.ID, got, js(c.Slow), slow)
		}
	}
	flags := ja.Checkpoints[31].Slow // checkpoint 32
	want := []SlowFlag{
		{Phase: EndToEnd, ValueMs: 5029, MedianMs: 30, ThresholdMs: 1030},
		{Phase: PhaseAlignment, VertexID: vWin, ValueMs: 5000, MedianMs: 1, ThresholdMs: 1001},
	}
	if !reflect.DeepEqual(flags, want) {
		t.Errorf("flags of 32 = %s\nwant %s", js(flags), js(want))
	}
}

func TestSlowRunStillOpen(t *testing.T) {
	var cps []model.Checkpoint
	for i := int64(1); i <= 12; i++ {
		c := healthyCP(i, 1_000_000+i*10_000)
		if i >= 10 {
			c.EndToEndMs = 8000 // only the summary says so: end_to_end, no phase
			c.Tasks = nil
		}
		cps = append(cps, c)
	}
	ja := Analyze(flinkJob(), cps, nil, nil, nil)
	if len(ja.SlowCheckpoints) != 1 || !ja.SlowCheckpoints[0].Open || !reflect.DeepEqual(ja.SlowCheckpoints[0].CheckpointIDs, []int64{10, 11, 12}) {
		t.Errorf("slow checkpoints = %s, want one open run 10–12", js(ja.SlowCheckpoints))
	}
	if len(ja.SlowPhases) != 0 {
		t.Errorf("slow phases = %s, want none (no phases in the slow ones)", js(ja.SlowPhases))
	}
}
