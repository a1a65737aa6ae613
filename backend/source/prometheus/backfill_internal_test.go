package prometheus

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

const t0 = 1_700_000_000_000 // a multiple of 15 s

func TestPlanBackfill(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ranges   [][2]int64
		minStep  time.Duration
		windows  int
		step     time.Duration
		notInGap []int64 // points between ranges that must not be returned
	}{
		{name: "one checkpoint", ranges: [][2]int64{{t0 + 300, t0 + 4700}}, minStep: time.Second, windows: 1, step: time.Second},
		{name: "close ranges share a request", ranges: [][2]int64{{t0, t0 + 2000}, {t0 + 30_000, t0 + 31_000}},
			minStep: time.Second, windows: 1, step: time.Second, notInGap: []int64{t0 + 10_000, t0 + 29_000}},
		{name: "distant ranges, one request each", ranges: [][2]int64{{t0 + 120_000, t0 + 121_000}, {t0, t0 + 1000}},
			minStep: time.Second, windows: 2, step: time.Second, notInGap: []int64{t0 + 60_000}},
		{name: "overlapping", ranges: [][2]int64{{t0, t0 + 5000}, {t0 + 3000, t0 + 9000}, {t0 + 1000, t0 + 2000}},
			minStep: time.Second, windows: 1, step: time.Second},
		{name: "an hour at 1 s is split", ranges: [][2]int64{{t0, t0 + 3_600_000}},
			minStep: time.Second, windows: 7, step: time.Second}, // 3601 points, 600 per request
		{name: "a day at 15 s", ranges: [][2]int64{{t0, t0 + 86_400_000}}, minStep: 15 * time.Second, windows: 10, step: 15 * time.Second},
		{name: "a year coarsens the step", ranges: [][2]int64{{t0, t0 + 365*86_400_000}},
			minStep: 15 * time.Second, windows: 200, step: 263 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planBackfill(tc.ranges, tc.minStep)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.windows) != tc.windows || p.windows[0].step != tc.step {
				t.Errorf("%d windows of step %s, want %d of %s", len(p.windows), p.windows[0].step, tc.windows, tc.step)
			}
			checkPlan(t, p, tc.ranges)
			for _, ms := range tc.notInGap {
				if p.wanted(ms) {
					t.Errorf("point %d between the ranges would be returned", ms)
				}
			}
		})
	}
}

func TestPlanBackfillRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		var ranges [][2]int64
		for j := rng.IntN(20) + 1; j > 0; j-- {
			from := t0 + rng.Int64N(6*3_600_000)
			ranges = append(ranges, [2]int64{from, from + rng.Int64N(300_000)})
		}
		minStep := time.Duration(1+rng.IntN(30)) * time.Second
		p, err := planBackfill(ranges, minStep)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, p, ranges)
	}
}

// checkPlan asserts what any plan must do: aligned, disjoint, bounded windows that cover every
// grid point of every range, each of which is wanted.
func checkPlan(t *testing.T, p plan, ranges [][2]int64) {
	t.Helper()
	step := p.windows[0].step.Milliseconds()
	for i, w := range p.windows {
		if w.step.Milliseconds() != step || w.from%step != 0 || w.to%step != 0 || w.to < w.from {
			t.Fatalf("window %d %+v not aligned to %d ms", i, w, step)
		}
		if points := (w.to-w.from)/step + 1; points > MaxPoints {
			t.Fatalf("window %d has %d points", i, points)
		}
		if i > 0 && w.from <= p.windows[i-1].to {
			t.Fatalf("window %d %+v overlaps %+v", i, w, p.windows[i-1])
		}
	}
	if len(p.windows) > maxBackfillRequests+len(ranges) {
		t.Fatalf("%d requests", len(p.windows))
	}
	covered := func(ms int64) bool {
		for _, w := range p.windows {
			if ms >= w.from && ms <= w.to {
				return true
			}
		}
		return false
	}
	for _, r := range ranges {
		for ms := r[0] / step * step; ms < r[1]+step; ms += step {
			if !covered(ms) || !p.wanted(ms) {
				t.Fatalf("point %d of range %v not fetched (covered %v, wanted %v)", ms, r, covered(ms), p.wanted(ms))
			}
		}
	}
}

func TestPlanBackfillRejectsBadRanges(t *testing.T) {
	for _, r := range [][2]int64{{0, 10}, {-5, 10}, {10, 9}} {
		_, err := planBackfill([][2]int64{{t0, t0 + 1}, r}, time.Second)
		if err == nil || !strings.Contains(err.Error(), "backfill range 1") {
			t.Errorf("range %v: err = %v", r, err)
		}
	}
}
