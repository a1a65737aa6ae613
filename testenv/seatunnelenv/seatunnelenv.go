// Package seatunnelenv gives tests a real SeaTunnel Zeta node: it runs testenv/seatunnel/start.sh
// once per test binary and version (or uses the node named by SEATUNNEL_REST_URL) and submits
// test jobs.
//
// Ensure gives the 2.3.13 node (REST v2, the checkpoint API); EnsureV1 the 2.3.8 node, kept for
// REST v1 (the Hazelcast port). Tests using them skip only when CE_SKIP_REAL=1; otherwise a node
// that cannot start fails them.
package seatunnelenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// The versions testenv runs.
const (
	Version   = "2.3.13"
	VersionV1 = "2.3.8"
)

// Env describes a running node.
type Env struct {
	// RESTURL is the REST root the connector takes as BaseURL (v1 includes /hazelcast/rest/maps).
	RESTURL string
	Version string
	// CheckpointAPI reports whether the node serves /jobs/checkpoints (SeaTunnel ≥ 2.3.13, REST v2).
	CheckpointAPI bool
	// RealtimeAPI reports whether the node serves /metrics/realtime (PR #10572).
	RealtimeAPI bool
	// RunDir and LogDir belong to a node started here; "" for an external one.
	RunDir string
	LogDir string
}

// startTimeout covers a first run that resolves the jars from Maven Central (~110 MB).
const startTimeout = 10 * time.Minute

// nodes are the running nodes by version.
var nodes = envscript.SharedSet[Env]{Pkg: "seatunnelenv", What: "a real SeaTunnel node", Timeout: startTimeout}

// Ensure returns the 2.3.13 node (or the one SEATUNNEL_REST_URL names), starting it on first use.
// It skips the test when CE_SKIP_REAL=1.
func Ensure(t testing.TB) Env {
	t.Helper()
	return ensureVersion(t, Version, true)
}

// EnsureV1 returns the 2.3.8 node, which has REST v1 only, starting it on first use.
func EnsureV1(t testing.TB) Env {
	t.Helper()
	return ensureVersion(t, VersionV1, false)
}

func ensureVersion(t testing.TB, version string, external bool) Env {
	t.Helper()
	return nodes.Get(t, version, func(ctx context.Context) (Env, error) { return start(ctx, version, external) })
}

func start(ctx context.Context, version string, external bool) (Env, error) {
	if url := os.Getenv("SEATUNNEL_REST_URL"); url != "" && external {
		return fromVars(map[string]string{
			"SEATUNNEL_REST_URL":       url,
			"SEATUNNEL_VERSION":        os.Getenv("SEATUNNEL_VERSION"),
			"SEATUNNEL_CHECKPOINT_API": os.Getenv("SEATUNNEL_CHECKPOINT_API"),
			"SEATUNNEL_REALTIME_API":   os.Getenv("SEATUNNEL_REALTIME_API"),
		})
	}
	vars, _, err := envscript.RunEnv(ctx, []string{"SEATUNNEL_VERSION=" + version}, "seatunnel", "start.sh")
	if err != nil {
		return Env{}, err
	}
	return fromVars(vars)
}

// SubmitJob submits the test job to e with the given knobs (SEATUNNEL_SLOW_MS=50, ... see
// testenv/seatunnel/submit.sh) and returns its id. The job is cancelled when the test ends.
func SubmitJob(t testing.TB, e Env, knobs ...string) string {
	t.Helper()
	for _, k := range knobs {
		if !strings.HasPrefix(k, "SEATUNNEL_") || !strings.Contains(k, "=") {
			t.Fatalf("seatunnelenv: knob %q, want SEATUNNEL_NAME=value", k)
		}
	}
	return envscript.Submit(t, envscript.Submission{
		Pkg: "seatunnelenv", Dir: "seatunnel", Env: append(e.scriptEnv(), knobs...), Timeout: 2 * time.Minute,
		IsID: func(id string) bool {
			_, err := strconv.ParseInt(id, 10, 64)
			return err == nil
		},
		Cancel: func(id string) error { return Cancel(e, id) },
	})
}

// Cancel stops a job without a savepoint.
func Cancel(e Env, id string) error { return stop(e, id, false) }

// StopWithSavepoint stops a job with a savepoint.
func StopWithSavepoint(e Env, id string) error { return stop(e, id, true) }

func stop(e Env, id string, savepoint bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{id}
	if savepoint {
		args = []string{"-s", id}
	}
	_, err := envscript.RunScript(ctx, e.scriptEnv(), "seatunnel", "cancel.sh", args...)
	return err
}

// JobState is the job's state as the node's /job-info answers it ("RUNNING", "CANCELED", ...).
func JobState(ctx context.Context, e Env, id string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.RESTURL+"/job-info/"+id, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var body struct {
		JobStatus string `json:"jobStatus"`
	}
	if err := decodeJSON(resp, &body); err != nil {
		return "", fmt.Errorf("job-info %s: %w", id, err)
	}
	return body.JobStatus, nil
}

// scriptEnv points the scripts at this node.
func (e Env) scriptEnv() []string {
	env := []string{"SEATUNNEL_REST_URL=" + e.RESTURL}
	if e.Version == Version || e.Version == VersionV1 {
		env = append(env, "SEATUNNEL_VERSION="+e.Version)
	}
	return env
}

func fromVars(v map[string]string) (Env, error) {
	e := Env{
		RESTURL:       strings.TrimRight(v["SEATUNNEL_REST_URL"], "/"),
		Version:       v["SEATUNNEL_VERSION"],
		CheckpointAPI: v["SEATUNNEL_CHECKPOINT_API"] == "true",
		RealtimeAPI:   v["SEATUNNEL_REALTIME_API"] == "true",
		RunDir:        v["SEATUNNEL_RUN_DIR"],
		LogDir:        v["SEATUNNEL_LOG_DIR"],
	}
	if e.RESTURL == "" {
		return Env{}, errors.New("seatunnelenv: start.sh printed no SEATUNNEL_REST_URL")
	}
	return e, nil
}

func decodeJSON(resp *http.Response, out any) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
