package flinkenv

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

func TestFromVars(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    Env
		wantErr string
	}{
		{
			name: "start.sh output",
			out: "FLINK_REST_URL=http://127.0.0.1:8081/\nFLINK_JM_PROM_PORT=9249\nFLINK_TM_PROM_PORT=9250\n" +
				"FLINK_VERSION=2.3.0\nFLINK_RUN_DIR=/r\nFLINK_LOG_DIR=/r/log\n",
			want: Env{RESTURL: "http://127.0.0.1:8081", JMPromPort: 9249, TMPromPort: 9250,
				JMPromURL: "http://127.0.0.1:9249/metrics", TMPromURL: "http://127.0.0.1:9250/metrics",
				Version: "2.3.0", RunDir: "/r", LogDir: "/r/log"},
		},
		{
			name: "env.sh output with exports, no reporters",
			out:  "export FLINK_REST_URL=http://127.0.0.1:1\n",
			want: Env{RESTURL: "http://127.0.0.1:1"},
		},
		{name: "no url", out: "FLINK_VERSION=2.3.0\n", wantErr: "no FLINK_REST_URL"},
		{name: "bad port", out: "FLINK_REST_URL=http://h\nFLINK_TM_PROM_PORT=x\n", wantErr: `FLINK_TM_PROM_PORT="x" is not a port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fromVars(envscript.ParseEnv(tt.out))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		v  string
		ok bool
	}{
		{"1.20.5", true},
		{"2.3.0", true},
		{"1.20", false},
		{"1.20.5.1", false},
		{"1.20.x", false},
		{"../../etc", false},
		{"", false},
	}
	for _, tt := range tests {
		if err := checkVersion(tt.v); (err == nil) != tt.ok {
			t.Errorf("checkVersion(%q) = %v, want ok=%v", tt.v, err, tt.ok)
		}
	}
}

// TestDefaultVersionMatchesScripts keeps DefaultVersion and the scripts' default in step: Ensure
// and EnsureVersion(DefaultVersion) must mean the same cluster.
func TestDefaultVersionMatchesScripts(t *testing.T) {
	lib, err := Script("lib.sh")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	want := "\nFLINK_DEFAULT_VERSION=" + DefaultVersion + "\n"
	if !strings.Contains(string(b), want) {
		t.Errorf("%s does not set FLINK_DEFAULT_VERSION=%s", lib, DefaultVersion)
	}
}

// TestDedicatedFailover runs the failover recipe end to end on a cluster of its own: a job, a
// killed and restarted JobManager that has forgotten it, the job resubmitted under its id from
// its retained checkpoint, checkpoint ids continuing.
func TestDedicatedFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a cluster of its own and a JobManager restart take about a minute")
	}
	e := Dedicated(t, "flinkenv-test")
	if shared := os.Getenv("FLINK_REST_URL"); shared != "" && e.RESTURL == shared {
		t.Fatalf("dedicated cluster took the shared cluster's URL %s", shared)
	}
	args := []string{"--name", "flinkenv-failover", "--interval-ms", "300"}
	jid := e.Submit(t, args...)
	var before checkpoints
	waitUntil(t, time.Minute, "3 completed checkpoints", func() bool {
		before = getCheckpoints(t, e, jid)
		return before.Latest.Completed != nil && before.Latest.Completed.ID >= 3
	})

	e.RestartJobManager(t, true)
	if got := getJSON(t, e.RESTURL+"/jobs/"+jid, nil); got != http.StatusNotFound {
		t.Fatalf("job after JobManager restart: HTTP %d, want 404 (no HA)", got)
	}

	if again := e.Submit(t, append([]string{"--job-id", jid, "--restore", "latest"}, args...)...); again != jid {
		t.Fatalf("resubmitted as %s, want %s", again, jid)
	}
	waitUntil(t, time.Minute, "a checkpoint after the restore", func() bool {
		after := getCheckpoints(t, e, jid)
		return after.Latest.Restored != nil && after.Latest.Completed != nil &&
			after.Latest.Completed.ID > after.Latest.Restored.ID
	})
	after := getCheckpoints(t, e, jid)
	if after.Latest.Restored.ID < before.Latest.Completed.ID || len(after.History) == 0 ||
		after.History[len(after.History)-1].ID <= after.Latest.Restored.ID {
		t.Errorf("before restart latest completed %d; after: restored %d, history %+v",
			before.Latest.Completed.ID, after.Latest.Restored.ID, after.History)
	}
}

type checkpoints struct {
	Latest struct {
		Completed, Restored *struct {
			ID int64 `json:"id"`
		}
	} `json:"latest"`
	History []struct {
		ID int64 `json:"id"`
	} `json:"history"`
}

func getCheckpoints(t *testing.T, e Env, jid string) checkpoints {
	t.Helper()
	var c checkpoints
	if code := getJSON(t, e.RESTURL+"/jobs/"+jid+"/checkpoints", &c); code != http.StatusOK {
		t.Fatalf("checkpoints of %s: HTTP %d", jid, code)
	}
	return c
}

func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
	return resp.StatusCode
}

func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
	}
}
