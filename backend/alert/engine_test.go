package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"checkpoint-explorer/backend/analyze"
)

const sec = 1000

// clock is the fake clock the tests move.
type clock struct{ ms int64 }

func (c *clock) now() time.Time { return time.UnixMilli(c.ms) }

// recorder is a Notifier that keeps what it is given.
type recorder struct {
	alerts []Alert
	err    error
}

func (r *recorder) Notify(_ context.Context, a Alert) error {
	r.alerts = append(r.alerts, a)
	return r.err
}

// history is a running job of prod at atMs whose checkpoints were triggered
// every stepMs from 0 (the newest analyze.FleetSparkline of them), each
// taking 100 ms and failed where failed says, as the fleet row has it.
func history(id string, atMs, stepMs int64, failed func(triggerMs int64) bool) Job {
	row := analyze.FleetJob{Cluster: "prod", JobID: id, Name: "job " + id, State: "RUNNING", Engine: "flink"}
	for t := atMs - atMs%stepMs; t >= 0 && len(row.Sparkline) < analyze.FleetSparkline; t -= stepMs {
		row.Sparkline = append([]analyze.SparkPoint{{TriggerMs: t, Ms: 100, Failed: failed(t)}}, row.Sparkline...)
	}
	if p90 := int64(100); true {
		row.BaselineP90Ms = &p90
	}
	return FromFleet([]analyze.FleetJob{row})[0]
}

func never(int64) bool  { return false }
func always(int64) bool { return true }
func before(ms int64) func(int64) bool {
	return func(t int64) bool { return t < ms }
}

// tick is one Evaluate: its time and the jobs given.
type tick struct {
	at   int64
	jobs []Job
}

// every evaluates from fromMs to toMs (inclusive) every stepMs.
func every(fromMs, toMs, stepMs int64, jobs func(at int64) []Job) []tick {
	var out []tick
	for at := fromMs; at <= toMs; at += stepMs {
		out = append(out, tick{at, jobs(at)})
	}
	return out
}

// The state machine, with a fake clock and a recording notifier: each case
// gives the announcements it must make, in order, as "at state rule job".
func TestEvaluate(t *testing.T) {
	failedRule := Rule{Kind: KindCheckpointFailed, Cluster: "prod"}
	healthy := func(at int64) Job { return history("b", at, 10*sec, never) }
	cases := []struct {
		name  string
		rules []Rule
		ticks []tick
		want  []string
	}{
		{
			name:  "a job failing every second raises one alert, and one when it recovers; a healthy job none",
			rules: []Rule{failedRule},
			ticks: every(0, 400*sec, sec, func(at int64) []Job {
				return []Job{history("a", at, sec, before(30*sec)), healthy(at)}
			}),
			// Recovered at 30 s; the resolved waits for MinInterval after the firing.
			want: []string{"0s firing checkpoint_failed@prod a", "60s resolved checkpoint_failed@prod a"},
		},
		{
			name: "a healthy job raises none, whatever the rules",
			rules: []Rule{failedRule, {Kind: KindFailures, Cluster: "prod", Count: 1, WindowMs: 60 * sec},
				{Kind: KindSlowerThanBaseline, Cluster: "prod", Factor: 1}, {Kind: KindNoCompletion, Cluster: "prod", ForMs: 30 * sec}},
			ticks: every(0, 600*sec, 10*sec, func(at int64) []Job { return []Job{healthy(at)} }),
		},
		{
			name:  "a flapping job announces at most once per MinInterval, the state it is in then",
			rules: []Rule{failedRule},
			ticks: every(0, 300*sec, 10*sec, func(at int64) []Job {
				return []Job{history("a", at, 10*sec, func(t int64) bool { return t/(10*sec)%2 == 0 })}
			}),
			want: []string{"0s firing checkpoint_failed@prod a", "70s resolved checkpoint_failed@prod a",
				"140s firing checkpoint_failed@prod a", "210s resolved checkpoint_failed@prod a", "280s firing checkpoint_failed@prod a"},
		},
		{
			name:  "three failures in a minute fire; resolved once fewer remain in the window and MinInterval passed",
			rules: []Rule{{Name: "3 in 1m", Kind: KindFailures, Cluster: "prod", Count: 3, WindowMs: 60 * sec}},
			ticks: every(0, 300*sec, 10*sec, func(at int64) []Job { return []Job{history("a", at, 10*sec, before(25*sec))} }),
			// The failure at 0 s leaves the window at 60 s; 80 s is a minute after the firing.
			want: []string{"20s firing 3 in 1m a", "80s resolved 3 in 1m a"},
		},
		{
			name:  "no checkpoint completed for 2 minutes, counted from the newest completion the engine saw",
			rules: []Rule{{Kind: KindNoCompletion, Cluster: "prod", ForMs: 120 * sec}},
			ticks: every(0, 500*sec, 10*sec, func(at int64) []Job {
				return []Job{history("a", at, 10*sec, func(t int64) bool { return t > 30*sec && t < 400*sec })}
			}),
			// The newest completion is 30.1 s (it left the row's 30 checkpoints at 330 s); 400 s completes again.
			want: []string{"160s firing no_completion@prod a", "400s resolved no_completion@prod a"},
		},
		{
			name:  "no completion ever: counted from when the job was first seen",
			rules: []Rule{{Kind: KindNoCompletion, Cluster: "prod", ForMs: 120 * sec}},
			ticks: every(50*sec, 400*sec, 10*sec, func(at int64) []Job { return []Job{history("a", at, 10*sec, always)} }),
			want:  []string{"170s firing no_completion@prod a"},
		},
		{
			name:  "a job without checkpoints (checkpointing off) is not judged",
			rules: []Rule{{Kind: KindNoCompletion, Cluster: "prod", ForMs: 60 * sec}},
			ticks: every(0, 600*sec, 10*sec, func(int64) []Job { return []Job{{Cluster: "prod", JobID: "a", State: "RUNNING"}} }),
		},
		{
			name: "a rule watches its scope only",
			rules: []Rule{{Kind: KindCheckpointFailed, Cluster: "prod", JobID: "a"},
				{Name: "by name", Kind: KindCheckpointFailed, Cluster: "prod", JobName: "job c"}},
			ticks: every(0, 100*sec, 10*sec, func(at int64) []Job {
				other := history("a", at, 10*sec, always)
				other.Cluster = "test"
				return []Job{history("b", at, 10*sec, always), other, history("c", at, 10*sec, always)}
			}),
			want: []string{"0s firing by name c"},
		},
		{
			name:  "a job that ended has its alert dropped without a notification",
			rules: []Rule{failedRule},
			ticks: every(0, 200*sec, 10*sec, func(at int64) []Job {
				j := history("a", at, 10*sec, always)
				if at >= 30*sec {
					j.State = "FAILED"
				}
				return []Job{j}
			}),
			want: []string{"0s firing checkpoint_failed@prod a"},
		},
		{
			name:  "a job the rule cannot judge keeps its state",
			rules: []Rule{{Kind: KindSlowerThanBaseline, Cluster: "prod", Factor: 2}},
			ticks: every(0, 200*sec, 10*sec, func(at int64) []Job {
				j := history("a", at, 10*sec, never)
				j.Checkpoints[len(j.Checkpoints)-1].Ms = 5000
				if at >= 20*sec {
					j.BaselineP90Ms = nil
				}
				return []Job{j}
			}),
			want: []string{"0s firing slower_than_baseline@prod a"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk, rec := &clock{}, &recorder{}
			e, err := New(Options{Rules: c.rules, Notifier: rec, Now: clk.now, MinInterval: time.Minute,
				Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tk := range c.ticks {
				clk.ms = tk.at
				for _, a := range e.Evaluate(context.Background(), tk.jobs) {
					got = append(got, fmt.Sprintf("%ds %s %s %s", a.AtMs/sec, a.State, a.Rule, a.Job.JobID))
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("announced\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
			if len(rec.alerts) != len(got) {
				t.Errorf("%d notifications for %d announcements", len(rec.alerts), len(got))
			}
		})
	}
}

// Each announcement is a log line naming the rule, cluster and job, a
// count on /metrics, and a notification with its text.
func TestAnnouncement(t *testing.T) {
	clk, rec := &clock{}, &recorder{}
	var logs bytes.Buffer
	e, err := New(Options{Rules: []Rule{{Name: "failed", Kind: KindCheckpointFailed, Cluster: "prod"}}, Notifier: rec, Now: clk.now,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := e.Register(reg); err != nil {
		t.Fatal(err)
	}
	failing := history("a", 0, 10*sec, always)
	failing.LatestFailure = "Checkpoint expired before completing."
	e.Evaluate(context.Background(), []Job{failing})
	if f := e.Firing(); len(f) != 1 || f[0].Job != (JobRef{"prod", "a"}) {
		t.Errorf("firing %+v", f)
	}
	if v := value(e.metrics.firing.WithLabelValues("failed", "prod")); v != 1 {
		t.Errorf("alerts_firing %v, want 1", v)
	}
	clk.ms = DefaultMinInterval.Milliseconds() + 10*sec
	e.Evaluate(context.Background(), []Job{history("a", clk.ms, 10*sec, never)})

	want := []Alert{
		{Rule: "failed", Kind: KindCheckpointFailed, State: StateFiring, Job: JobRef{"prod", "a"}, JobName: "job a", Engine: "flink",
			Summary: "Checkpoint failed: job a on prod",
			Body:    "The newest checkpoint failed: Checkpoint expired before completing.\nRule: failed"},
		{Rule: "failed", Kind: KindCheckpointFailed, State: StateResolved, Job: JobRef{"prod", "a"}, JobName: "job a", Engine: "flink",
			AtMs: clk.ms, Summary: "Resolved: job a on prod",
			Body: "A checkpoint completed in 100 ms. It lasted 5 min.\nRule: failed"},
	}
	if !slices.Equal(rec.alerts, want) {
		t.Errorf("notified\n%+v\nwant\n%+v", rec.alerts, want)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	for i, msg := range []string{"alert firing", "alert resolved"} {
		if l := lines[i]; l["msg"] != msg || l["rule"] != "failed" || l["cluster"] != "prod" || l["job_id"] != "a" || l["job"] != "job a" {
			t.Errorf("log line %d: %v", i, l)
		}
	}
	if names := gathered(t, reg); !slices.Equal(names, []string{"checkpoint_explorer_alert_notification_errors_total",
		"checkpoint_explorer_alerts_firing", "checkpoint_explorer_alerts_total"}) {
		t.Errorf("registered %v", names)
	}
	for state, want := range map[string]float64{"firing": 1, "resolved": 1} {
		if v := value(e.metrics.alerts.WithLabelValues("failed", "prod", state)); v != want {
			t.Errorf("alerts_total{state=%s} %v, want %v", state, v, want)
		}
	}
	if v := value(e.metrics.firing.WithLabelValues("failed", "prod")); v != 0 || len(e.Firing()) != 0 {
		t.Errorf("after the recovery: alerts_firing %v, firing %+v", v, e.Firing())
	}
}

// A notifier that fails (no session bus) is said once in the log; the
// alerts are still logged and counted.
func TestNotificationFailureLoggedOnce(t *testing.T) {
	clk, rec := &clock{}, &recorder{err: fmt.Errorf("alert: %w at unix:path=/nowhere", ErrNoSessionBus)}
	var logs bytes.Buffer
	e, err := New(Options{Rules: []Rule{{Kind: KindCheckpointFailed, Cluster: "prod"}}, Notifier: rec, Now: clk.now,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		e.Evaluate(context.Background(), []Job{history(id, 0, 10*sec, always)})
	}
	if n := strings.Count(logs.String(), "alert notification failed"); n != 1 || !strings.Contains(logs.String(), "no D-Bus session bus") {
		t.Errorf("%d failure lines:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "alert firing"); n != 3 {
		t.Errorf("%d firing lines, want 3", n)
	}
	if v := value(e.metrics.notifyErrors); v != 3 {
		t.Errorf("notification errors %v, want 3", v)
	}
}

// A rule kept as it was keeps its alerts; a changed one forgets them.
func TestSetRules(t *testing.T) {
	clk, rec := &clock{}, &recorder{}
	kept, changed := Rule{Kind: KindCheckpointFailed, Cluster: "prod"}, Rule{Name: "3", Kind: KindFailures, Cluster: "prod", Count: 3, WindowMs: 60 * sec}
	e, err := New(Options{Rules: []Rule{kept, changed}, Notifier: rec, Now: clk.now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e.Evaluate(context.Background(), []Job{history("a", 30*sec, 10*sec, always)})
	changed.Count = 2
	if err := e.SetRules([]Rule{kept, changed}); err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, a := range e.Firing() {
		rules = append(rules, a.Rule)
	}
	if !slices.Equal(rules, []string{"checkpoint_failed@prod"}) {
		t.Errorf("firing after the change: %v", rules)
	}
	if err := e.SetRules([]Rule{{Kind: "x", Cluster: "prod"}}); err == nil || e.Rules()[1].Name != "3" {
		t.Errorf("an invalid rule set replaced the rules (%v): %+v", err, e.Rules())
	}
}

func TestNewDefaults(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, desktop := e.notifier.(*Desktop); !desktop || e.minIntervalMs != DefaultMinInterval.Milliseconds() ||
		e.notifyTimeout != DefaultNotifyTimeout || e.now == nil || e.log == nil {
		t.Errorf("defaults: %+v", e)
	}
	if _, err := New(Options{Rules: []Rule{{Kind: KindFailures, Cluster: "prod"}}}); err == nil || !strings.Contains(err.Error(), "rules[0]: count") {
		t.Errorf("invalid rule: %v", err)
	}
	var fe *FieldError
	if _, err := New(Options{Rules: []Rule{{Cluster: "prod"}}}); !errors.As(err, &fe) || fe.Field != "kind" {
		t.Errorf("the field of an invalid rule: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Error(err)
	}
}

// value is a counter's or gauge's value.
func value(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		panic(err)
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}

// gathered names the metric families a registry serves.
func gathered(t *testing.T, reg *prometheus.Registry) []string {
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fams {
		names = append(names, f.GetName())
	}
	return names
}
