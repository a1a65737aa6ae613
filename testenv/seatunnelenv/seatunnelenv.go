// Package seatunnelenv gives tests a real SeaTunnel Zeta node: it runs testenv/seatunnel/start.sh
// once per test binary (or uses the node named by SEATUNNEL_REST_URL) and submits the test job.
//
// Tests using it skip only when CE_SKIP_REAL=1; otherwise a node that cannot start fails them.
package seatunnelenv

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// Env describes the running node.
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

// startTimeout covers a first run that resolves the jars from Maven Central (~100 MB).
const startTimeout = 10 * time.Minute

var (
	once   sync.Once
	env    Env
	envErr error
)

// Ensure returns the node, starting it on first use. It skips the test when CE_SKIP_REAL=1.
func Ensure(t testing.TB) Env {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against a real SeaTunnel node")
	}
	once.Do(func() { env, envErr = ensure() })
	if envErr != nil {
		t.Fatalf("seatunnelenv: %v", envErr)
	}
	return env
}

func ensure() (Env, error) {
	if url := os.Getenv("SEATUNNEL_REST_URL"); url != "" {
		return fromVars(map[string]string{
			"SEATUNNEL_REST_URL":       url,
			"SEATUNNEL_VERSION":        os.Getenv("SEATUNNEL_VERSION"),
			"SEATUNNEL_CHECKPOINT_API": os.Getenv("SEATUNNEL_CHECKPOINT_API"),
		})
	}
	script, err := Script("start.sh")
	if err != nil {
		return Env{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	out, err := envscript.Run(ctx, nil, script)
	if err != nil {
		return Env{}, err
	}
	return fromVars(envscript.ParseEnv(out))
}

// SubmitJob submits the test job with the given knobs (SEATUNNEL_SLOW_MS=50, ... see
// testenv/seatunnel/submit.sh) and returns its id. The job is cancelled when the test ends.
func SubmitJob(t testing.TB, knobs ...string) string {
	t.Helper()
	e := Ensure(t)
	script, err := Script("submit.sh")
	if err != nil {
		t.Fatalf("seatunnelenv: %v", err)
	}
	for _, k := range knobs {
		if !strings.HasPrefix(k, "SEATUNNEL_") || !strings.Contains(k, "=") {
			t.Fatalf("seatunnelenv: knob %q, want SEATUNNEL_NAME=value", k)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := envscript.Run(ctx, append([]string{"SEATUNNEL_REST_URL=" + e.RESTURL}, knobs...), script)
	if err != nil {
		t.Fatalf("seatunnelenv: submit %v: %v", knobs, err)
	}
	id := envscript.LastLine(out)
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		t.Fatalf("seatunnelenv: submit.sh printed %q, want a job id", out)
	}
	t.Cleanup(func() {
		if err := Cancel(e, id); err != nil {
			t.Logf("seatunnelenv: %v", err)
		}
	})
	return id
}

// Cancel stops a job.
func Cancel(e Env, id string) error {
	script, err := Script("cancel.sh")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = envscript.Run(ctx, []string{"SEATUNNEL_REST_URL=" + e.RESTURL}, script, id)
	return err
}

// Script returns the path of a testenv/seatunnel script, found from the module root.
func Script(name string) (string, error) { return envscript.Path("seatunnel", name) }

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
