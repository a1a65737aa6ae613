package promenv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// The scripts on a dedicated server (own run dir) scraping two fake reporters, so the shared
// server is never disturbed: start, idempotent restart, reload on new targets, stop of only its
// own pid.
func TestScriptsOnADedicatedServer(t *testing.T) {
	shared.SkipUnlessReal(t)
	reporter := func(job string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			fmt.Fprintf(w, "flink_jobmanager_job_lastCheckpointDuration{job_id=%q,} 42.0\n", job)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/metrics"
	}
	jm, tm1, tm2 := reporter("a"), reporter("b"), reporter("c")
	runDir := filepath.Join(t.TempDir(), "prometheus")
	vars := func(tm string) []string {
		return []string{"PROM_RUN_DIR=" + runDir, "FLINK_JM_PROM_URL=" + jm, "FLINK_TM_PROM_URL=" + tm, "PROMETHEUS_PORT="}
	}
	stop := func() { runScript(t, "stop.sh", []string{"PROM_RUN_DIR=" + runDir}) }
	t.Cleanup(stop)

	first := runScript(t, "start.sh", vars(tm1))
	if first["PROMETHEUS_URL"] == "" || first["PROMETHEUS_PID"] == "" || first["PROMETHEUS_RUN_DIR"] != runDir {
		t.Fatalf("env = %v", first)
	}
	base := first["PROMETHEUS_URL"]
	if got := query(t, base, `sum(flink_jobmanager_job_lastCheckpointDuration)`); got != "84" {
		t.Errorf("sum over both targets = %s, want 84", got)
	}

	again := runScript(t, "start.sh", vars(tm1))
	if again["PROMETHEUS_PID"] != first["PROMETHEUS_PID"] || again["PROMETHEUS_URL"] != base {
		t.Errorf("second start.sh: %v, first: %v; want the same server", again, first)
	}

	moved := runScript(t, "start.sh", vars(tm2))
	if moved["PROMETHEUS_PID"] != first["PROMETHEUS_PID"] {
		t.Errorf("new targets restarted the server (%s → %s) instead of reloading it", first["PROMETHEUS_PID"], moved["PROMETHEUS_PID"])
	}
	deadline := time.Now().Add(20 * time.Second)
	for query(t, base, `count(flink_jobmanager_job_lastCheckpointDuration{job_id="c"})`) != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the reloaded server never scraped the new target")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// A pid file naming a process that is not our server: stop.sh must leave it alone.
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	pid := first["PROMETHEUS_PID"]
	stop()
	if err := syscall.Kill(atoi(t, pid), 0); err == nil {
		t.Errorf("server pid %s still alive after stop.sh", pid)
	}
	if err := os.WriteFile(filepath.Join(runDir, "pid"), []byte(fmt.Sprint(sleeper.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	stop()
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("stop.sh killed pid %d, which was not its server: %v", sleeper.Process.Pid, err)
	}
}

func runScript(t *testing.T, name string, vars []string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, _, err := envscript.RunEnv(ctx, vars, "prometheus", name)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func query(t *testing.T, base, q string) string {
	t.Helper()
	resp, err := http.PostForm(base+"/api/v1/query", url.Values{"query": {q}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Data.Result) == 0 {
		return ""
	}
	return fmt.Sprint(body.Data.Result[0].Value[1])
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("pid %q: %v", s, err)
	}
	return n
}

func TestInterval(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 15 * time.Second, "1s": time.Second, "2m": 2 * time.Minute} {
		if got, err := interval(in); err != nil || got != want {
			t.Errorf("interval(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"500ms", "x", "-1s"} {
		if _, err := interval(bad); err == nil {
			t.Errorf("interval(%q) accepted", bad)
		}
	}
}
