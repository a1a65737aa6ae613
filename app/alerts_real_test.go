package app

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/alert"
	"checkpoint-explorer/testenv/notifyenv"
)

// Alerts on a real Flink cluster and a real notification daemon: a rule
// for the cluster's failed checkpoints raises one notification for a job
// failing every other checkpoint, none for a healthy job; the rule is
// saved; the alert is on /metrics; a click on the notification asks the UI
// to open the job.
func TestAlertsNotifyOnceForAFailingJobOfARealCluster(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	notes := notifyenv.Start(t)
	failing := env.Submit(t, "--name", "ce-alert-failing", "--interval-ms", "500", "--rate", "50", "--fail-every", "2")
	healthy := env.Submit(t, "--name", "ce-alert-healthy", "--interval-ms", "500", "--rate", "50")
	a := newCollectingAppWith(t, env.RESTURL, Options{AlertEvery: 500 * time.Millisecond, AlertBus: notes.BusAddress,
		Logger: failureLog(t)})
	var mu sync.Mutex
	var opened []OpenJobEvent
	defer a.events.subscribe(func(_ string, payload any) {
		if e, ok := payload.(OpenJobEvent); ok {
			mu.Lock()
			opened = append(opened, e)
			mu.Unlock()
		}
	})()
	if err := a.SetAlertRules([]alert.Rule{{Kind: "nope", Cluster: "flink"}}); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("a rule of an unknown kind: %v, want an error naming its kind", err)
	}
	if err := a.SetAlertRules([]alert.Rule{{Name: "any failure", Kind: alert.KindCheckpointFailed, Cluster: "flink"}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := a.config.read()
	if err != nil || len(cfg.AlertRules) != 1 || cfg.AlertRules[0].Name != "any failure" {
		t.Errorf("saved rules %+v (%v), want the one set", cfg.AlertRules, err)
	}

	waitForState(t, 4*time.Minute, "one notification", func() (bool, string) {
		shown, history := notes.Count(t)
		return shown+history >= 1, ""
	})
	// Both jobs are judged every half second for a few more seconds: still one.
	time.Sleep(5 * time.Second)
	shown, history := notes.Count(t)
	if shown+history != 1 {
		t.Errorf("%d notifications (%d on screen), want 1 for the failing job", shown+history, shown)
	}
	notes.Click(t, 0)
	waitFor(t, 30*time.Second, "the click to open the failing job", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(opened) == 1 && opened[0] == OpenJobEvent{Cluster: "flink", JobID: failing}
	})
	got := notes.History(t)
	if len(got) != 1 || got[0].AppName != alert.AppName || !strings.Contains(got[0].Summary+got[0].Body, "ce-alert-failing") ||
		strings.Contains(got[0].Summary+got[0].Body, "ce-alert-healthy") {
		t.Errorf("notifications %v, want one of ce-alert-failing", got)
	}
	rec := httptest.NewRecorder()
	metricsHandler(a).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if !regexp.MustCompile(`checkpoint_explorer_alerts_total\{cluster="flink",rule="any failure",state="firing"\} 1`).Match(body) {
		t.Errorf("/metrics lacks the firing alert:\n%s", grepLines(string(body), "alert"))
	}
	t.Logf("failing %s, healthy %s: %v", failing, healthy, got)
}

// grepLines is the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
