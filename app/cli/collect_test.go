package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/testenv/flinkenv"
)

// lockedBuffer is an output a running command writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"collect", "--data-dir", dir, "--metrics-addr", "127.0.0.1:0"}, &out, &errb, Options{})
	}()
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

	stop()
	select {
	case code := <-done:
		if code != ExitOK || !strings.Contains(out.String(), "stopping: storing each job's last checkpoints") {
			t.Errorf("collect stopped with exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("collect did not stop within 2 minutes of its signal")
	}
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
