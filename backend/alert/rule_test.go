package alert

import (
	"errors"
	"math"
	"strings"
	"testing"

	"checkpoint-explorer/backend/analyze"
)

// Each invalid rule names its bad field, and says what is wrong.
func TestRuleValidate(t *testing.T) {
	cases := []struct {
		name  string
		rule  Rule
		field string // "" when valid
		says  string
	}{
		{"checkpoint failed on a cluster", Rule{Kind: KindCheckpointFailed, Cluster: "prod"}, "", ""},
		{"failures on a job", Rule{Kind: KindFailures, Cluster: "prod", JobID: "a1", Count: 3, WindowMs: 600_000}, "", ""},
		{"slower on a job by name", Rule{Kind: KindSlowerThanBaseline, Cluster: "prod", JobName: "orders", Factor: 2.5}, "", ""},
		{"no completion", Rule{Name: "stuck", Kind: KindNoCompletion, Cluster: "prod", ForMs: 900_000}, "", ""},
		{"no kind", Rule{Cluster: "prod"}, "kind", "required"},
		{"unknown kind", Rule{Kind: "checkpoint_slow", Cluster: "prod"}, "kind", `unknown "checkpoint_slow"`},
		{"no cluster", Rule{Kind: KindCheckpointFailed, Cluster: " "}, "cluster", "required"},
		{"job id and name", Rule{Kind: KindCheckpointFailed, Cluster: "prod", JobID: "a", JobName: "b"}, "job_name", "not both"},
		{"control character in name", Rule{Name: "a\nb", Kind: KindCheckpointFailed, Cluster: "prod"}, "name", "control"},
		{"no count", Rule{Kind: KindFailures, Cluster: "prod", WindowMs: 60_000}, "count", "must be 1 to 30 failures"},
		{"count above what a row holds", Rule{Kind: KindFailures, Cluster: "prod", Count: 31, WindowMs: 60_000}, "count", "must be 1 to 30"},
		{"no window", Rule{Kind: KindFailures, Cluster: "prod", Count: 3}, "window_ms", "at least 1000 ms"},
		{"factor below 1", Rule{Kind: KindSlowerThanBaseline, Cluster: "prod", Factor: 0.5}, "factor", "at least 1 times"},
		{"factor NaN", Rule{Kind: KindSlowerThanBaseline, Cluster: "prod", Factor: math.NaN()}, "factor", "finite"},
		{"no for", Rule{Kind: KindNoCompletion, Cluster: "prod"}, "for_ms", "at least 1000 ms"},
		{"count on another kind", Rule{Kind: KindCheckpointFailed, Cluster: "prod", Count: 3}, "count", "only failures_in_window uses it"},
		{"for on another kind", Rule{Kind: KindFailures, Cluster: "prod", Count: 3, WindowMs: 60_000, ForMs: 1000}, "for_ms", "only no_completion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.rule.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatalf("valid rule refused: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %v, want field %s saying %q", err, c.field, c.says)
			}
		})
	}
}

func TestValidateRulesNamesTheRule(t *testing.T) {
	ok := Rule{Kind: KindCheckpointFailed, Cluster: "prod"}
	err := ValidateRules([]Rule{ok, {Kind: KindFailures, Cluster: "prod"}})
	if err == nil || !strings.HasPrefix(err.Error(), "rules[1]: count: ") {
		t.Errorf("bad second rule: %v", err)
	}
	// Two rules named alike, one by default.
	err = ValidateRules([]Rule{ok, {Name: ok.DefaultName(), Kind: KindCheckpointFailed, Cluster: "test"}})
	if err == nil || !strings.Contains(err.Error(), `rules[1]: name: "checkpoint_failed@prod" is also rules[0]'s name`) {
		t.Errorf("duplicate names: %v", err)
	}
}

// The baseline rule fires above k times the baseline p90, and at least
// analyze.SlowFloorMs above it; without a baseline or a completed
// checkpoint it cannot judge.
func TestSlowerThanBaseline(t *testing.T) {
	base := func(ms int64) *int64 { return &ms }
	cases := []struct {
		name     string
		factor   float64
		baseline *int64
		newest   []analyze.SparkPoint
		want     findingState
	}{
		{"2.5x a 1 s baseline, k 2", 2, base(1000), []analyze.SparkPoint{{Ms: 2500}}, firing},
		{"exactly k times is not above", 2, base(1000), []analyze.SparkPoint{{Ms: 2000}}, clear},
		{"under k", 3, base(1000), []analyze.SparkPoint{{Ms: 2500}}, clear},
		{"k 1.5", 1.5, base(4000), []analyze.SparkPoint{{Ms: 6500}}, firing},
		{"30x but only 145 ms above: the floor", 2, base(5), []analyze.SparkPoint{{Ms: 150}}, clear},
		{"a failure after it does not hide the newest completed", 2, base(1000), []analyze.SparkPoint{{Ms: 2500}, {Ms: 100, Failed: true}}, firing},
		{"the newest completed is judged, not an older one", 2, base(1000), []analyze.SparkPoint{{Ms: 9000}, {Ms: 900}}, clear},
		{"no baseline", 2, nil, []analyze.SparkPoint{{Ms: 9000}}, unknown},
		{"only failures", 2, base(1000), []analyze.SparkPoint{{Ms: 9000, Failed: true}}, unknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Rule{Kind: KindSlowerThanBaseline, Cluster: "prod", Factor: c.factor}
			f := r.check(Job{Cluster: "prod", Checkpoints: c.newest, BaselineP90Ms: c.baseline}, 0, 0)
			if f.state != c.want {
				t.Errorf("state %d, want %d (%s)", f.state, c.want, f.detail)
			}
		})
	}
	f := Rule{Kind: KindSlowerThanBaseline, Factor: 2}.check(Job{Checkpoints: []analyze.SparkPoint{{Ms: 2500}}, BaselineP90Ms: base(1000)}, 0, 0)
	if want := "The newest checkpoint took 2.5 s, 2.5× the baseline p90 of 1.0 s (the rule: above 2×)."; f.detail != want {
		t.Errorf("detail %q, want %q", f.detail, want)
	}
}

func TestFromFleet(t *testing.T) {
	p90 := int64(800)
	jobs := FromFleet([]analyze.FleetJob{{Cluster: "prod", JobID: "a1", Name: "orders", State: "RUNNING", BaselineP90Ms: &p90,
		LatestFailure: "Checkpoint expired before completing.",
		Sparkline:     []analyze.SparkPoint{{TriggerMs: 1000, Ms: 300}, {TriggerMs: 2000, Ms: 200}, {TriggerMs: 3000, Ms: 900, Failed: true}}}})
	j := jobs[0]
	if len(jobs) != 1 || j.Ref() != (JobRef{Cluster: "prod", JobID: "a1"}) || j.LastCompletedMs != 2200 || *j.BaselineP90Ms != 800 ||
		len(j.Checkpoints) != 3 || j.LatestFailure == "" {
		t.Errorf("%+v", jobs)
	}
}

func TestHuman(t *testing.T) {
	for ms, want := range map[int64]string{850: "850 ms", 4200: "4.2 s", 15 * 60_000: "15 min", 2 * 3600_000: "2 h", 2*3600_000 + 5*60_000: "2 h 5 min"} {
		if got := human(ms); got != want {
			t.Errorf("human(%d) = %q, want %q", ms, got, want)
		}
	}
}
