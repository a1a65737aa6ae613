package cli

import (
	"checkpoint-explorer/app/apptest"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/testenv/flinkenv"
)

// `collect` against a real Flink cluster with a job that fails every other
// checkpoint: while it runs, `status` on the same cache exits 3 with the job
// failing, `jobs` lists its id and /metrics counts what was stored; SIGTERM
// (its context) stops it with exit status 0.
func TestCollectThenStatusAndJobsOnARealCluster(t *testing.T) {
	env := flinkenv.Ensure(t)
	jid := env.Submit(t, "--name", "ce-cli-collect", "--interval-ms", "500", "--rate", "50", "--fail-every", "2")
	dir := t.TempDir()
	if _, stderr, err := runCLI(t, "clusters", "add", "--name", "lab", "--url", env.RESTURL, "--data-dir", dir); err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	if code, _, stderr := mainCLI(t, "collect", "--cluster", "elsewhere", "--data-dir", dir); code != ExitFailure ||
		!strings.Contains(stderr, `no cluster is configured as "elsewhere" (configured: lab;`) {
		t.Errorf("collect --cluster of an unknown name: exit %d, %q", code, stderr)
	}

	out, errb, stop := collectInProcess(t, "--data-dir", dir, "--metrics-addr", "127.0.0.1:0")
	var metricsURL string
	waitUntil(t, time.Minute, "collect to say where its metrics are", func() bool {
		m := regexp.MustCompile(`metrics at (http://\S+/metrics)`).FindStringSubmatch(out.String())
		if m != nil {
			metricsURL = m[1]
		}
		return m != nil
	})
	if !strings.HasPrefix(out.String(), "collecting 1 clusters (lab) into ") {
		t.Errorf("collect said %q", out.String())
	}

	type statusJob struct {
		JobID     string `json:"job_id"`
		Attention string `json:"attention"`
		Failed    int    `json:"failed"`
	}
	var seen statusJob
	waitUntil(t, 4*time.Minute, "status to rank the job failing", func() bool {
		code, sout, _ := mainCLI(t, "status", "--cluster", "lab", "--format", "json", "--data-dir", dir)
		var st struct{ Jobs []statusJob }
		if json.Unmarshal([]byte(sout), &st) != nil {
			return false
		}
		for _, j := range st.Jobs {
			if j.JobID == jid {
				seen = j
				return code == ExitAttention && j.Attention == "failing" && j.Failed > 0
			}
		}
		return false
	})
	t.Logf("status ranks the job %+v", seen)
	if jout, _, err := runCLI(t, "jobs", "--cluster", "lab", "--data-dir", dir); err != nil || !strings.Contains(jout, jid) {
		t.Errorf("jobs --cluster lab: %v\n%s", err, jout)
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !regexp.MustCompile(`checkpoint_explorer_checkpoints_ingested_total\{[^}]*\} [1-9]`).Match(body) {
		t.Errorf("/metrics counts no stored checkpoint:\n%.2000s", body)
	}

	if code := stop(); code != ExitOK || !strings.Contains(out.String(), "stopping: storing each job's last checkpoints") {
		t.Errorf("collect stopped with exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}

// collectInProcess runs `collect args…` in this process until stop, which ends its context (as
// SIGTERM does) and returns its exit status; the test fails when it does not stop within 2
// minutes.
func collectInProcess(t *testing.T, args ...string) (out, errb *apptest.Buffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errb = &apptest.Buffer{}, &apptest.Buffer{}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, append([]string{"collect"}, args...), out, errb, Options{}) }()
	var code int
	var once sync.Once
	stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(2 * time.Minute):
				t.Error("collect did not stop within 2 minutes of its signal")
			}
		})
		return code
	}
	t.Cleanup(func() { stop() })
	return out, errb, stop
}

// waitUntil polls cond every half second until it holds or d passes.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
	}
}

// The --export-* flags: each mistake says which flag and never echoes a secret; a good endpoint
// is named on stdout (scheme, host and path) and the token stays out of the output.
func TestCollectExportFlags(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, err := runCLI(t, "clusters", "add", "--name", "lab", "--url", "http://127.0.0.1:1", "--test=false", "--data-dir", dir); err != nil {
		t.Fatalf("clusters add: %v\n%s", err, stderr)
	}
	const token = "tok-7a6b5c4d-secret"
	t.Setenv("CE_TEST_EXPORT_TOKEN", token)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--export-header", "X-Org=a"}, "the --export-* flags need --export-otlp URL"},
		{[]string{"--export-otlp", "http://127.0.0.1:1", "--export-token-env", "CE_TEST_NO_SUCH_VAR"}, `--export-token-env: the environment variable "CE_TEST_NO_SUCH_VAR" is not set or empty`},
		{[]string{"--export-otlp", "http://127.0.0.1:1", "--export-header", token}, "--export-header takes KEY=VALUE"},
		{[]string{"--export-otlp", "http://127.0.0.1:1", "--export-header-env", "X-Key"}, `--export-header-env "X-Key": want KEY=VAR`},
		{[]string{"--export-otlp", "ftp://127.0.0.1:1", "--export-token-env", "CE_TEST_EXPORT_TOKEN"}, `endpoint scheme "ftp"`},
	} {
		code, out, stderr := mainCLI(t, append([]string{"collect", "--data-dir", dir, "--metrics-addr", ""}, c.args...)...)
		if code != ExitFailure || !strings.Contains(stderr, c.want) || strings.Contains(out+stderr, token) {
			t.Errorf("collect %v: exit %d, stdout %q, stderr %q; want %q and no token", c.args, code, out, stderr, c.want)
		}
	}

	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer rcv.Close()
	out, errb, stop := collectInProcess(t, "--data-dir", dir, "--metrics-addr", "", "--export-otlp", rcv.URL,
		"--export-token-env", "CE_TEST_EXPORT_TOKEN", "--export-header-env", "X-Key=CE_TEST_EXPORT_TOKEN")
	want := "exporting the final checkpoints to " + rcv.URL + "/v1/traces; what it has not taken waits in the cache\n"
	waitUntil(t, time.Minute, "collect to say where it exports", func() bool { return strings.Contains(out.String(), want) })
	if code := stop(); code != ExitOK || strings.Contains(out.String()+errb.String(), token) {
		t.Errorf("collect: exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}
