package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/flinkenv"
)

// Did the change help (#32), on Flink 2.3 and 1.20: a knob job whose Slow Map backpressures its source
// runs with aligned checkpoints, is stopped with a savepoint, and is resubmitted from it with
// unaligned checkpoints. The second run's report links the two runs (the same name, the first
// ended before the second started), marks the resubmission from that savepoint and the
// configuration change at the second run's start, and measures its before/after on the first
// run's checkpoints against the second's: end-to-end falls, with intervals that exclude zero.
//
// The edge into Slow Map is a rebalance: Flink keeps a forward (pointwise) edge aligned even with
// unaligned checkpoints on, and with the knob job's default forward edge the switch changed
// nothing measurable (1.4–1.5 s end to end either way).
func TestChangeMeasuredAcrossAResubmissionWithUnalignedCheckpoints(t *testing.T) {
	checkChangeMeasured(t, flinkOn(t, trackFlinkB))
}

// The same on Flink 1.20 (the user story's version), whose configuration reads under its own key
// names and whose backpressure gauge shows later.
func TestFlink120ChangeMeasuredAcrossAResubmissionWithUnalignedCheckpoints(t *testing.T) {
	checkChangeMeasured(t, flinkOn(t, trackFlink120))
}

func checkChangeMeasured(t *testing.T, env flinkenv.Env) {
	start := time.Now()
	args := []string{"--name", fmt.Sprintf("ce-change-%d", start.UnixNano()), "--rate", "0", "--sleep-ms", "5", "--slow-map-input", "rebalance"}
	aligned := env.Submit(t, args...)
	a := newAdviceApp(t, env.RESTURL)
	// The advice is judged from when the source's backpressure showed.
	fromMs := waitSourcesBackpressured(t, a, aligned)
	waitFor(t, 3*time.Minute, "8 completed checkpoints of the aligned run since the backpressure showed", func() bool {
		return len(finalSince(t, a, aligned, fromMs, true)) >= 8
	})
	jobConfigEventually(t, a, aligned)
	savepoint := env.StopWithSavepoint(t, aligned, 3*time.Minute)
	ctx := context.Background()
	waitFor(t, 2*time.Minute, "the aligned run ended in the cache with its savepoint", func() bool {
		j, err := a.store.Job(ctx, "flink", aligned)
		if err != nil || !model.JobEnded(j.State) {
			return false
		}
		for _, c := range finalCheckpoints(t, a, aligned) {
			if c.Kind == model.KindSavepoint && c.Status == model.StatusCompleted && c.ExternalPath == savepoint {
				return true
			}
		}
		return false
	})
	unaligned := env.Submit(t, append([]string{"--restore", savepoint}, append(args, "--unaligned", "true")...)...)
	waitDetailed(t, a, 3*time.Minute, 8, unaligned)
	if cfg := jobConfigEventually(t, a, unaligned); cfg.Unaligned == nil || !*cfg.Unaligned {
		t.Fatalf("the second run's configuration says unaligned %v, want true", cfg.Unaligned)
	}
	stopAndCancel(t, a, env, unaligned)

	r, err := a.Report("flink", unaligned, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var resubmit, config *analyze.ChangeEffect
	for i, c := range r.Changes {
		t.Logf("change %s at %d: %+v; %s", c.Kind, c.TimeMs, c.Detail, c.Effect.Finding)
		switch {
		case c.Kind == model.ChangeResubmit:
			resubmit = &r.Changes[i]
		case c.Kind == model.ChangeConfig && hasKey(c.Detail.Keys, model.ConfigKeyChange{Key: unalignedKey, Old: "false", New: "true"}):
			config = &r.Changes[i]
		}
	}
	if resubmit == nil || resubmit.Detail.PreviousJobID != aligned || resubmit.Detail.Savepoint != savepoint {
		t.Fatalf("no resubmission after run %s from its savepoint %s among the changes", aligned, savepoint)
	}
	if config == nil {
		t.Fatalf("no change of %s false → true among the changes", unalignedKey)
	}
	e := config.Effect
	t.Logf("before: %s\nafter: %s\np50 %s, p90 %s", mustJSON(t, e.Before), mustJSON(t, e.After), mustJSON(t, e.EndToEndP50),
		mustJSON(t, e.EndToEndP90))
	if e.Before.Completed < 8 || e.After.Completed < 8 || e.Before.ToMs != config.TimeMs || e.After.FromMs != config.TimeMs {
		t.Errorf("sides of %d and %d completed checkpoints, [%d, %d) and [%d, %d): want the first run's before %d and the second's after",
			e.Before.Completed, e.After.Completed, e.Before.FromMs, e.Before.ToMs, e.After.FromMs, e.After.ToMs, config.TimeMs)
	}
	for stat, sh := range map[string]analyze.Shift{"p50": e.EndToEndP50, "p90": e.EndToEndP90} {
		if sh.Before == nil || sh.After == nil || sh.Change == nil || sh.Low == nil || sh.High == nil || *sh.Low > *sh.Change || *sh.High < *sh.Change {
			t.Errorf("end-to-end %s %s: want every figure, the change inside its interval", stat, mustJSON(t, sh))
		}
	}
	// The p90 falls with its interval below zero; the finding says so.
	if sh := e.EndToEndP90; sh.High == nil || *sh.High >= 0 {
		t.Errorf("end-to-end p90 %s: want a fall whose interval excludes zero", mustJSON(t, sh))
	}
	if !strings.Contains(e.Finding, "after "+unalignedKey+" went false → true") || !strings.Contains(e.Finding, "end-to-end p90 fell") {
		t.Errorf("finding %q: want the change named and the p90's fall", e.Finding)
	}
	if b, af := waitingShare(e.Before), waitingShare(e.After); b < 0.5 {
		t.Errorf("start delay and alignment took %.2f of the first run's critical path, want most of it (backpressure)", b)
	} else if af >= b {
		t.Errorf("start delay and alignment took %.2f of the critical path after, %.2f before: want less after", af, b)
	} else {
		t.Logf("start delay and alignment: %.2f of the critical path before, %.2f after", b, af)
	}

	first, err := a.Report("flink", aligned, fromMs, 0)
	if err != nil {
		t.Fatal(err)
	}
	advised := false
	for i, adv := range first.Advice {
		f := first.AdviceFollowUp[i]
		t.Logf("the first run's advice %s: %s", adv.Code, f.Status)
		if adv.Code == analyze.AdviceUnaligned {
			advised = true
			if f.Status != analyze.AdviceApplied || f.Effect == nil || f.Change.TimeMs != config.TimeMs {
				t.Errorf("the unaligned advice's follow-up %s, want applied by the change at %d", mustJSON(t, f), config.TimeMs)
			}
		}
	}
	if !advised {
		t.Error("the first run was not advised unaligned checkpoints")
	}
	t.Logf("%s: %v", t.Name(), time.Since(start).Round(time.Second))
}

func hasKey(keys []model.ConfigKeyChange, k model.ConfigKeyChange) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// waitingShare is the share of the critical path a side's barriers spent waiting: start delay
// and alignment.
func waitingShare(s analyze.EffectSide) float64 {
	var sum float64
	for _, p := range s.PhaseShares {
		if p.Phase == analyze.PhaseStartDelay || p.Phase == analyze.PhaseAlignment {
			sum += p.Share
		}
	}
	return sum
}
