package flinkenv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// MatrixVersions returns the Flink versions of the version matrix, testenv/flink/versions.txt
// (the latest patch of every minor PyPI serves, 1.19 on), oldest first. FLINK_MATRIX
// ("1.19.3,2.3.0") narrows it to the versions it names.
func MatrixVersions() ([]string, error) {
	if s := os.Getenv("FLINK_MATRIX"); s != "" {
		var out []string
		for _, v := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
			if err := checkVersion(v); err != nil {
				return nil, fmt.Errorf("FLINK_MATRIX: %w", err)
			}
			out = append(out, v)
		}
		return out, nil
	}
	path, err := Script("versions.txt")
	if err != nil {
		return nil, err
	}
	return readVersions(path)
}

func readVersions(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := checkVersion(line); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no version", path)
	}
	return out, nil
}

// MatrixCluster is one version's cluster of the matrix.
type MatrixCluster struct {
	Version string
	Env     Env
	// Err is why it could not start (then Env is empty).
	Err error
	// Started says this call started it (it is stopped when the test ends); false: it was
	// already running (testenv/flink/matrix.sh start) and is left running.
	Started bool
	// StartTime is how long start.sh took.
	StartTime time.Duration
}

// StartMatrix starts one small cluster per version side by side (testenv/flink/matrix.sh start:
// 768 MB JobManager, 1 GB TaskManager with 4 slots, in testenv/.run/flink-matrix-<version>), all
// at once, and waits for every one. A cluster this call started is stopped when t ends unless
// FLINK_MATRIX_KEEP=1; one already running is used and left running. A version that cannot start
// has Err set: its test fails, the others go on. Skips t when CE_SKIP_REAL=1.
//
// A non-empty otlpEndpoint (a loopback OTLP/gRPC receiver, e.g. jaegerenv's OTLPGRPCEndpoint)
// starts every cluster with its trace reporter sending there under the service name
// flink-matrix-<version> (Env.TracesEndpoint, Env.TracesService); "" starts them without one. A
// running cluster started with another endpoint is not reused: its Err says to stop it.
func StartMatrix(t testing.TB, versions []string, otlpEndpoint string) map[string]*MatrixCluster {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against real Flink clusters")
	}
	script, err := Script("matrix.sh")
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]*MatrixCluster, len(versions))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, v := range versions {
		if err := checkVersion(v); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := startMatrixOne(script, v, otlpEndpoint)
			mu.Lock()
			out[v] = c
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		if os.Getenv("FLINK_MATRIX_KEEP") == "1" {
			return
		}
		var stop []string
		for _, c := range out {
			if c.Started || c.Err != nil { // a failed start may have left half a cluster
				stop = append(stop, c.Version)
			}
		}
		if len(stop) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := envscript.Run(ctx, nil, script, append([]string{"stop"}, stop...)...); err != nil {
			t.Logf("flinkenv: stopping the matrix: %v", err)
		}
	})
	return out
}

func startMatrixOne(script, version, otlpEndpoint string) *MatrixCluster {
	c := &MatrixCluster{Version: version}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c.Started = !matrixRunning(ctx, script, version)
	start := time.Now()
	out, err := envscript.Run(ctx, []string{"FLINK_MATRIX_TRACES_OTLP_ENDPOINT=" + otlpEndpoint}, script, "start", version)
	c.StartTime = time.Since(start)
	if err != nil {
		c.Err = fmt.Errorf("flinkenv: Flink %s of the matrix: %w", version, err)
		return c
	}
	c.Env, c.Err = fromVars(envscript.ParseEnv(out))
	switch {
	case c.Err != nil:
	case c.Env.Version != version:
		c.Err = fmt.Errorf("flinkenv: matrix cluster of %s reports version %q", version, c.Env.Version)
	case c.Env.TracesEndpoint != otlpEndpoint:
		c.Err = fmt.Errorf("flinkenv: matrix cluster of %s sends traces to %q, want %q", version, c.Env.TracesEndpoint, otlpEndpoint)
	}
	return c
}

// matrixRunning reports whether version's matrix cluster runs already: its env file is there
// and its JobManager's pid is alive.
func matrixRunning(ctx context.Context, script, version string) bool {
	out, err := envscript.Run(ctx, nil, script, "rundir", version)
	if err != nil {
		return false
	}
	vars, err := readEnvFile(filepath.Join(envscript.LastLine(out), "env"))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(vars["FLINK_JM_PID"])
	if err != nil || pid <= 0 {
		return false
	}
	_, err = os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

func readEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vars := envscript.ParseEnv(string(b))
	if len(vars) == 0 {
		return nil, errors.New("empty env file")
	}
	return vars, nil
}
