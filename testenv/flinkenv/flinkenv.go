// Package flinkenv gives tests a real Flink cluster: it runs testenv/flink/start.sh once per
// test binary (or uses the cluster named by FLINK_REST_URL) and submits the knob job.
//
// Tests using it skip only when CE_SKIP_REAL=1; otherwise a cluster that cannot start fails them.
package flinkenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env describes the running cluster.
type Env struct {
	RESTURL    string
	JMPromURL  string // "" when unknown (an external cluster without FLINK_JM_PROM_PORT)
	TMPromURL  string
	JMPromPort int
	TMPromPort int
	Version    string
	// RunDir holds conf/, log/ and checkpoints/ of a cluster started here; "" for an external one.
	RunDir string
	LogDir string
}

// startTimeout covers a first run that downloads the distribution (~330 MB).
const startTimeout = 10 * time.Minute

var (
	once    sync.Once
	env     Env
	envErr  error
	rootDir string
)

// Ensure returns the cluster, starting it on first use. It skips the test when CE_SKIP_REAL=1.
func Ensure(t testing.TB) Env {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against a real Flink cluster")
	}
	once.Do(func() { env, envErr = ensure() })
	if envErr != nil {
		t.Fatalf("flinkenv: %v", envErr)
	}
	return env
}

func ensure() (Env, error) {
	if url := os.Getenv("FLINK_REST_URL"); url != "" {
		vars := map[string]string{}
		for _, k := range []string{"FLINK_REST_URL", "FLINK_JM_PROM_PORT", "FLINK_TM_PROM_PORT", "FLINK_VERSION"} {
			vars[k] = os.Getenv(k)
		}
		return fromVars(vars)
	}
	script, err := Script("start.sh")
	if err != nil {
		return Env{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	out, err := run(ctx, nil, script)
	if err != nil {
		return Env{}, err
	}
	return fromVars(parseEnv(out))
}

// SubmitJob submits the knob job with args (see testenv/flink/README.md) and returns its job id.
// The job is cancelled, and its retained checkpoints deleted, when the test ends.
func SubmitJob(t testing.TB, args ...string) string {
	t.Helper()
	e := Ensure(t)
	script, err := Script("submit.sh")
	if err != nil {
		t.Fatalf("flinkenv: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := run(ctx, []string{"FLINK_REST_URL=" + e.RESTURL}, script, args...)
	if err != nil {
		t.Fatalf("flinkenv: submit %v: %v", args, err)
	}
	jid := lastLine(out)
	if len(jid) != 32 {
		t.Fatalf("flinkenv: submit.sh printed %q, want a job id", out)
	}
	t.Cleanup(func() {
		if err := Cancel(e, jid); err != nil {
			t.Logf("flinkenv: %v", err)
		}
	})
	return jid
}

// Cancel cancels a job and deletes its retained checkpoints.
func Cancel(e Env, jid string) error {
	script, err := Script("cancel.sh")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = run(ctx, []string{"FLINK_REST_URL=" + e.RESTURL}, script, jid)
	return err
}

// Script returns the path of a testenv/flink script, found from the module root.
func Script(name string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "testenv", "flink", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("flinkenv: %w", err)
	}
	return p, nil
}

// repoRoot walks up from the working directory (a package directory under go test) to go.mod.
func repoRoot() (string, error) {
	if rootDir != "" {
		return rootDir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("flinkenv: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rootDir = dir
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("flinkenv: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// run runs a script, returning stdout; on failure the error carries the end of stderr, which
// holds the scripts' progress and, for a failed start, the cluster's log tails.
func run(ctx context.Context, extraEnv []string, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The scripts detach the JVMs from their stdio, so Wait returns when the script ends.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", filepath.Base(script), strings.Join(args, " "), err, tail(stderr.String(), 80))
	}
	return stdout.String(), nil
}

func parseEnv(out string) map[string]string {
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "export "), "=")
		if ok {
			vars[k] = v
		}
	}
	return vars
}

func fromVars(v map[string]string) (Env, error) {
	e := Env{
		RESTURL: strings.TrimRight(v["FLINK_REST_URL"], "/"),
		Version: v["FLINK_VERSION"],
		RunDir:  v["FLINK_RUN_DIR"],
		LogDir:  v["FLINK_LOG_DIR"],
	}
	if e.RESTURL == "" {
		return Env{}, errors.New("flinkenv: start.sh printed no FLINK_REST_URL")
	}
	var err error
	if e.JMPromPort, err = optPort(v, "FLINK_JM_PROM_PORT"); err != nil {
		return Env{}, err
	}
	if e.TMPromPort, err = optPort(v, "FLINK_TM_PROM_PORT"); err != nil {
		return Env{}, err
	}
	if e.JMPromPort > 0 {
		e.JMPromURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", e.JMPromPort)
	}
	if e.TMPromPort > 0 {
		e.TMPromURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", e.TMPromPort)
	}
	return e, nil
}

func optPort(v map[string]string, key string) (int, error) {
	s := v[key]
	if s == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(s)
	if err != nil || p <= 0 || p > 65535 {
		return 0, fmt.Errorf("flinkenv: %s=%q is not a port", key, s)
	}
	return p, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
