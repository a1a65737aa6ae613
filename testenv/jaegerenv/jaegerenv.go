// Package jaegerenv gives tests a real Jaeger (testenv/jaeger/start.sh: the all-in-one
// github.com/jaegertracing/jaeger/cmd/jaeger pinned in testenv/tools/jaeger/go.mod, in-memory
// storage, every listener on 127.0.0.1): an OTLP receiver to point Flink's trace reporter at and
// the query API the app reads.
//
//	j := jaegerenv.Ensure(t)
//	flink := flinkenv.DedicatedTraced(t, "traces", j.OTLPGRPCEndpoint, "")
//	// ... j.QueryURL is what the app's traces source is given
//
// Ensure starts the server once per test binary (the first start builds the binary, minutes) and
// skips the test when CE_SKIP_REAL=1. The server is left running for other tests and test
// binaries; testenv/stop-all.sh (or testenv/jaeger/stop.sh) stops it.
package jaegerenv

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// Env is a running Jaeger.
type Env struct {
	// QueryURL is the query service's HTTP root, http://127.0.0.1:PORT (/api/traces,
	// /api/v3/traces, the UI).
	QueryURL string
	// OTLPGRPCEndpoint is the OTLP/gRPC receiver, http://127.0.0.1:PORT.
	OTLPGRPCEndpoint string
	// OTLPHTTPURL is the OTLP/HTTP receiver's root (POST /v1/traces).
	OTLPHTTPURL string
	PID         int
	RunDir      string
	// Version is the pinned module version, e.g. v1.75.0.
	Version string
}

// startTimeout covers the first start, which builds Jaeger from source (several minutes on 2
// cores).
const startTimeout = 20 * time.Minute

var shared = envscript.Shared[*Env]{Pkg: "jaegerenv", What: "a real Jaeger", Timeout: startTimeout}

// Ensure returns the shared Jaeger, starting it on first use in this test binary. It skips the
// test when CE_SKIP_REAL=1 and fails it when the server cannot start.
func Ensure(t testing.TB) *Env {
	t.Helper()
	return shared.Get(t, func(ctx context.Context) (*Env, error) { return Start(ctx) })
}

// Start runs testenv/jaeger/start.sh (idempotent: a running Jaeger of ours is reused) with
// extraEnv (e.g. JAEGER_RUN_DIR=... for a server of one's own) and returns it.
func Start(ctx context.Context, extraEnv ...string) (*Env, error) {
	v, err := envscript.Start(ctx, extraEnv, "jaeger", "JAEGER_QUERY_URL", "JAEGER_OTLP_GRPC_ENDPOINT")
	if err != nil {
		return nil, fmt.Errorf("jaegerenv: %w", err)
	}
	pid, _ := strconv.Atoi(v["JAEGER_PID"])
	return &Env{QueryURL: v["JAEGER_QUERY_URL"], OTLPGRPCEndpoint: v["JAEGER_OTLP_GRPC_ENDPOINT"],
		OTLPHTTPURL: v["JAEGER_OTLP_HTTP_URL"], PID: pid, RunDir: v["JAEGER_RUN_DIR"], Version: v["JAEGER_VERSION"]}, nil
}

// Stop runs testenv/jaeger/stop.sh with extraEnv (normally JAEGER_RUN_DIR=... of a server
// started with the same). It stops only the pid that start.sh recorded, if it still is ours.
func Stop(ctx context.Context, extraEnv ...string) error {
	if _, err := envscript.RunScript(ctx, extraEnv, "jaeger", "stop.sh"); err != nil {
		return fmt.Errorf("jaegerenv: %w", err)
	}
	return nil
}
