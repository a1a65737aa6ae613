package analyze

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// analysedRun is n completed checkpoints from id on, one every 10 s from
// triggerMs, lasting from ms, ms+step, …, each with the given share of it
// (in whole percent) in alignment and the rest in async.
func analysedRun(id, triggerMs int64, n int, ms, step, alignPct int64) []CheckpointAnalysis {
	out := make([]CheckpointAnalysis, n)
	for i := range out {
		d := ms + int64(i)*step
		al, as := d*alignPct/100, d-d*alignPct/100
		out[i] = CheckpointAnalysis{ID: id + int64(i), Status: model.StatusCompleted, TriggerMs: triggerMs + int64(i)*10_000,
			DurationMs: d, CheckpointedSize: 1000 + int64(i), Phases: Phases{Alignment: &al, Async: &as}}
	}
	return out
}

var unalignedOn = model.Change{Kind: model.ChangeConfig, TimeMs: 1_200_000, Source: model.ChangeFromConfigHistory,
	Detail: model.ChangeDetail{Keys: []model.ConfigKeyChange{{Key: "execution.checkpointing.unaligned.enabled", Old: "false", New: "true"}}}}

// 20 checkpoints at 950, 955, …, 1045 ms (75 % alignment), then from
// 1,200,000 on 20 at 280, 282, …, 318 ms (3 % alignment). Nearest rank:
// p50 is the 10th value, p90 the 18th.
func knownShift() []CheckpointAnalysis {
	return append(analysedRun(1, 1_000_000, 20, 950, 5, 75), analysedRun(21, 1_200_000, 20, 280, 2, 3)...)
}

func TestBeforeAfterKnownShift(t *testing.T) {
	e := BeforeAfter(knownShift(), 1_200_000, BeforeAfterOptions{Changes: []model.Change{unalignedOn}})
	if e.Before.Completed != 20 || e.After.Completed != 20 || e.Before.Failed != 0 || e.Before.Bound != "" {
		t.Fatalf("sides = %s / %s", js(e.Before), js(e.After))
	}
	// p50: 995 → 298 ms, 298/995 − 1 = −0.7005; p90: 1035 → 314 ms, 314/1035 − 1 = −0.6966.
	checkShift(t, "p50", e.EndToEndP50, 995, 298, -0.701)
	checkShift(t, "p90", e.EndToEndP90, 1035, 314, -0.697)
	// No resample can move further than the extremes: 280/1045 − 1 = −0.732, 318/950 − 1 = −0.665.
	for _, s := range []Shift{e.EndToEndP50, e.EndToEndP90} {
		if *s.Low < -0.732 || *s.High > -0.665 || *s.Low > *s.Change || *s.High < *s.Change {
			t.Errorf("interval %v…%v around %v", *s.Low, *s.High, *s.Change)
		}
	}
	// Shares: alignment ⌊0.75·d⌋/d ≈ 0.75 before, ⌊0.03·d⌋/d ≈ 0.03 after.
	if a, b := e.Before.share(PhaseAlignment), e.After.share(PhaseAlignment); math.Abs(a-0.75) > 0.001 || math.Abs(b-0.03) > 0.002 {
		t.Errorf("alignment's share %v → %v", a, b)
	}
	if *e.Before.CheckpointedSizeP50 != 1009 || *e.Before.FailureRate != 0 || e.Before.UpstreamBackpressureP50 != nil {
		t.Errorf("before = %s", js(e.Before))
	}
	// The interval's bounds are the seeded bootstrap's (−0.704 and −0.690).
	want := "after execution.checkpointing.unaligned.enabled went false → true; end-to-end p90 fell from 1 s to 314 ms " +
		"(−70%, 95% interval −70…−69%); alignment's share of the critical path fell from 75% to 3%."
	if e.Finding != want {
		t.Errorf("finding = %q\nwant      %q", e.Finding, want)
	}
	wantZH := "在 execution.checkpointing.unaligned.enabled 由 false 改为 true 之后；端到端 p90 从 1 s 降到 314 ms" +
		"（−70%，95% 区间 −70…−69%）；alignment 在关键路径中的占比从 75% 降到 3%。"
	if got := renderIn(t, "zh", e.FindingParts); got != wantZH {
		t.Errorf("ZH finding = %q\nwant         %q", got, wantZH)
	}
	// The bootstrap is seeded: the same checkpoints give the same effect.
	if again := BeforeAfter(knownShift(), 1_200_000, BeforeAfterOptions{Changes: []model.Change{unalignedOn}}); !reflect.DeepEqual(again, e) {
		t.Errorf("a second run differs: %s\n%s", js(again), js(e))
	}
	// The effect's JSON is the report's contract.
	b, _ := json.Marshal(e.EndToEndP90)
	if string(b) != `{"before":1035,"after":314,"change":-0.697,"low":-0.704,"high":-0.69}` {
		t.Errorf("JSON = %s", b)
	}
}

func checkShift(t *testing.T, name string, s Shift, before, after int64, change float64) {
	t.Helper()
	if s.Before == nil || s.After == nil || s.Change == nil || s.Low == nil || s.High == nil ||
		*s.Before != before || *s.After != after || *s.Change != change {
		t.Errorf("%s = %s, want %d → %d (%v)", name, js(s), before, after, change)
	}
}

// renderIn says parts with the reason templates of the UI's language lang.
func renderIn(t *testing.T, lang string, parts []ReasonPart) string {
	t.Helper()
	doc := readUIReasons(t, lang)
	out := make([]string, len(parts))
	for i, p := range parts {
		s := doc.Reason[p.Code]
		for k, v := range p.Args {
			s = strings.ReplaceAll(s, "{{"+k+"}}", v)
		}
		out[i] = s
	}
	return strings.Join(out, doc.Join.Sep) + doc.Join.End
}

func TestBeforeAfterSides(t *testing.T) {
	failed := func(id, trig int64, msg string) CheckpointAnalysis {
		return CheckpointAnalysis{ID: id, Status: model.StatusFailed, TriggerMs: trig,
			Failure: &CheckpointFailure{Signature: Signature(msg), Message: msg}}
	}
	restart := model.Change{Kind: model.ChangeRestart, TimeMs: 1_100_000}
	note := model.Change{Kind: model.ChangeNote, TimeMs: 1_400_000, Detail: model.ChangeDetail{Text: "deployed v42"}}
	tests := []struct {
		name    string
		cas     []CheckpointAnalysis
		opts    BeforeAfterOptions
		check   func(t *testing.T, e Effect)
		finding string // "" = not checked
	}{
		{"no shift: the same durations on both sides", append(analysedRun(1, 1_000_000, 20, 950, 5, 75),
			analysedRun(21, 1_200_000, 20, 950, 5, 75)...), BeforeAfterOptions{},
			func(t *testing.T, e Effect) {
				checkShift(t, "p50", e.EndToEndP50, 995, 995, 0)
				if s := e.EndToEndP50; *s.Low > 0 || *s.High < 0 || s.measured() || e.EndToEndP90.measured() {
					t.Errorf("interval %v…%v should span zero", *s.Low, *s.High)
				}
			},
			"no measurable change: end-to-end p50 went from 995 ms to 995 ms and p90 from 1 s to 1 s, and neither 95% interval excludes zero."},
		{"too few before: no figures, the finding says so", append(analysedRun(1, 1_170_000, 3, 950, 5, 75),
			analysedRun(21, 1_200_000, 20, 280, 2, 3)...), BeforeAfterOptions{Changes: []model.Change{note, {Kind: model.ChangeNote,
			TimeMs: 1_200_000, Detail: model.ChangeDetail{Text: "deployed v41"}}}},
			func(t *testing.T, e Effect) {
				if e.Before.Completed != 3 || e.EndToEndP50 != (Shift{}) || e.EndToEndP90 != (Shift{}) {
					t.Errorf("p50 = %s, p90 = %s", js(e.EndToEndP50), js(e.EndToEndP90))
				}
				if b, _ := json.Marshal(e.EndToEndP50); string(b) != `{"before":null,"after":null,"change":null,"low":null,"high":null}` {
					t.Errorf("JSON = %s", b)
				}
				// The note at 1,400,000 cuts the after side: 20 checkpoints from 1,200,000 every 10 s end at 1,390,000.
				if e.After.Bound != BoundChange || e.After.ToMs != 1_400_000 || e.After.Completed != 20 {
					t.Errorf("after = %s", js(e.After))
				}
			},
			"after the note “deployed v41”; too few checkpoints to compare: 3 completed before and 20 after (need 5 on each side)."},
		{"a neighbouring restart cuts the before side, the window the after side; failures counted apart",
			slices.Concat(analysedRun(1, 1_000_000, 10, 2000, 0, 50), analysedRun(11, 1_100_000, 9, 1000, 0, 50),
				[]CheckpointAnalysis{failed(20, 1_190_000, "Checkpoint expired before completing.")},
				analysedRun(21, 1_200_000, 10, 500, 0, 50), analysedRun(31, 1_300_000, 5, 9000, 0, 50)),
			BeforeAfterOptions{Changes: []model.Change{restart}, WindowMs: 100_000},
			func(t *testing.T, e Effect) {
				// Before: the 9 at 1000 ms from the restart on, and the failure; the 10 at 2000 ms before it are out.
				if e.Before.FromMs != 1_100_000 || e.Before.Bound != BoundChange || e.Before.Completed != 9 || e.Before.Failed != 1 ||
					*e.Before.FailureRate != 0.1 || len(e.Before.Failures) != 1 || e.Before.Failures[0].Count != 1 {
					t.Errorf("before = %s", js(e.Before))
				}
				// After: the window ends at 1,300,000, before the 9 s ones.
				if e.After.ToMs != 1_300_000 || e.After.Bound != BoundWindow || e.After.Completed != 10 || *e.After.FailureRate != 0 {
					t.Errorf("after = %s", js(e.After))
				}
				if *e.EndToEndP50.Before != 1000 || *e.EndToEndP50.After != 500 || *e.EndToEndP50.Change != -0.5 {
					t.Errorf("p50 = %s", js(e.EndToEndP50))
				}
				if len(e.Before.PhaseShares) != 2 || e.Before.PhaseShares[0] != (PhaseShare{PhaseAlignment, 0.5}) {
					t.Errorf("shares = %s", js(e.Before.PhaseShares))
				}
			},
			// Constant sides: every resample gives −50 %.
			"end-to-end p90 fell from 1 s to 500 ms (−50%, 95% interval −50…−50%)."},
		{"a rise after a rescale", append(analysedRun(1, 1_000_000, 20, 280, 2, 3), analysedRun(21, 1_200_000, 20, 950, 5, 75)...),
			BeforeAfterOptions{Changes: []model.Change{{Kind: model.ChangeRescale, TimeMs: 1_200_000,
				Detail: model.ChangeDetail{VertexID: vMap, VertexName: nameMap, From: 4, To: 2}}}},
			func(t *testing.T, e Effect) {
				// 1035/314 − 1 = +2.296.
				if !e.EndToEndP90.measured() || *e.EndToEndP90.Low <= 0 || *e.EndToEndP90.Change != 2.296 {
					t.Errorf("p90 = %s", js(e.EndToEndP90))
				}
				if want := "after " + nameMap + " was rescaled from 4 to 2 parallel subtasks; end-to-end p90 rose from 314 ms to 1 s (+230%, 95% interval +"; !strings.HasPrefix(e.Finding, want) ||
					!strings.HasSuffix(e.Finding, "%); alignment's share of the critical path rose from 3% to 75%.") {
					t.Errorf("finding = %q", e.Finding)
				}
			}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := BeforeAfter(tc.cas, 1_200_000, tc.opts)
			tc.check(t, e)
			if tc.finding != "" && e.Finding != tc.finding {
				t.Errorf("finding = %q\nwant      %q", e.Finding, tc.finding)
			}
		})
	}
}

// Drawing each resample's order statistic from its Beta distribution is
// the ordinary bootstrap: its interval agrees with resampling n values.
func TestResampledQuantileIsTheBootstrap(t *testing.T) {
	before, after := make([]int64, 20), make([]int64, 20)
	for i := range before {
		before[i], after[i] = 950+5*int64(i), 280+int64(i*i)
	}
	fast := shiftOf(before, after, 0.9, 5, rand.New(rand.NewPCG(1, 2)))
	rng := rand.New(rand.NewPCG(3, 4))
	naive := func(s []int64) int64 {
		r := make([]int64, len(s))
		for i := range r {
			r[i] = s[rng.IntN(len(s))]
		}
		slices.Sort(r)
		return quantileSorted(r, 0.9)
	}
	changes := make([]float64, EffectResamples)
	for i := range changes {
		changes[i] = float64(naive(after))/float64(naive(before)) - 1
	}
	slices.Sort(changes)
	low, high := changes[nearestRank(len(changes), 0.025)], changes[nearestRank(len(changes), 0.975)]
	if math.Abs(*fast.Low-low) > 0.02 || math.Abs(*fast.High-high) > 0.02 {
		t.Errorf("interval %v…%v, resampling gives %v…%v", *fast.Low, *fast.High, low, high)
	}
}

func TestFindingFormats(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{{740, "740 ms"}, {1000, "1 s"}, {1940, "1.9 s"}, {59_960, "60 s"}, {150_000, "2.5 min"}} {
		if got := fmtLatency(tc.ms); got != tc.want {
			t.Errorf("fmtLatency(%d) = %q, want %q", tc.ms, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{{-0.632, "−63"}, {0.125, "+13"}, {0.004, "0"}, {-0.004, "0"}} {
		if got := signedPct(tc.f); got != tc.want {
			t.Errorf("signedPct(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
