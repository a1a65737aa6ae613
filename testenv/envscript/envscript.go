// Package envscript runs the testenv/ shell scripts for Go tests: it finds
// them from the module root, runs them with extra environment, and reads the
// KEY=VALUE lines they print. It also holds what the Go starters (flinkenv,
// seatunnelenv, jaegerenv, ...) share around the scripts: a service started
// once per test binary (Shared, SharedSet), the CE_SKIP_REAL switch, and a
// test job's submission and cancellation (Submit).
package envscript

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// RepoRoot walks up from the working directory (a package directory under go test) to go.mod.
func RepoRoot() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = fmt.Errorf("testenv: %w", err)
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				rootDir = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = errors.New("testenv: go.mod not found above the working directory")
				return
			}
			dir = parent
		}
	})
	return rootDir, rootErr
}

// Path returns testenv/<dir>/<name> under the module root, if it exists.
func Path(dir, name string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "testenv", dir, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("testenv: %w", err)
	}
	return p, nil
}

// RunScript runs testenv/<dir>/<name> with extraEnv, returning stdout (see Run).
func RunScript(ctx context.Context, extraEnv []string, dir, name string, args ...string) (string, error) {
	script, err := Path(dir, name)
	if err != nil {
		return "", err
	}
	return Run(ctx, extraEnv, script, args...)
}

// Run runs a script, returning stdout; on failure the error carries the end of
// stderr, which holds the scripts' progress and, for a failed start, the
// service's log tails.
func Run(ctx context.Context, extraEnv []string, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, script, args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The scripts detach the JVMs from their stdio, so Wait returns when the script ends.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", filepath.Base(script), strings.Join(args, " "), err, Tail(stderr.String(), 80))
	}
	return stdout.String(), nil
}

// ParseEnv reads the KEY=VALUE lines (optionally "export KEY=VALUE") a script printed.
func ParseEnv(out string) map[string]string {
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

// LastLine is the last non-blank line of s, trimmed (what submit scripts print as the id).
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Tail is the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// RunEnv runs testenv/<dir>/<name> with extraEnv and returns the KEY=VALUE lines it printed and
// its whole output.
func RunEnv(ctx context.Context, extraEnv []string, dir, name string, args ...string) (vars map[string]string, out string, err error) {
	if out, err = RunScript(ctx, extraEnv, dir, name, args...); err != nil {
		return nil, "", err
	}
	return ParseEnv(out), out, nil
}

// Start runs testenv/<dir>/start.sh with extraEnv and returns the KEY=VALUE lines it printed, of
// which every key in want must be set.
func Start(ctx context.Context, extraEnv []string, dir string, want ...string) (map[string]string, error) {
	vars, out, err := RunEnv(ctx, extraEnv, dir, "start.sh")
	if err != nil {
		return nil, err
	}
	for _, k := range want {
		if vars[k] == "" {
			return nil, fmt.Errorf("testenv/%s/start.sh printed no %s:\n%s", dir, k, out)
		}
	}
	return vars, nil
}

// SkipUnlessReal skips t when CE_SKIP_REAL=1, the switch that leaves out every test against a real
// service; what completes the message: "skipping test against " + what.
func SkipUnlessReal(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against " + what)
	}
}

// Submission is a run of a testenv submit script, which submits a test job and prints its id last.
type Submission struct {
	// Pkg prefixes failures ("flinkenv: ...").
	Pkg string
	// Dir names the script, testenv/<Dir>/submit.sh.
	Dir string
	// Env points the script at the cluster, and may carry the job's knobs; Args are its arguments.
	Env  []string
	Args []string
	// Timeout bounds the script (a CLI JVM of its own, or a first build of the job).
	Timeout time.Duration
	// IsID checks what the script printed last.
	IsID func(string) bool
	// Cancel stops the job when the test ends.
	Cancel func(id string) error
}

// Submit runs s's script and returns the job's id; the job is cancelled when the test ends. A
// script that fails or prints no id fails the test.
func Submit(t testing.TB, s Submission) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	out, err := RunScript(ctx, s.Env, s.Dir, "submit.sh", s.Args...)
	if err != nil {
		t.Fatalf("%s: testenv/%s/submit.sh %v %v: %v", s.Pkg, s.Dir, s.Env, s.Args, err)
	}
	id := LastLine(out)
	if !s.IsID(id) {
		t.Fatalf("%s: testenv/%s/submit.sh printed %q, want a job id", s.Pkg, s.Dir, out)
	}
	t.Cleanup(func() {
		if err := s.Cancel(id); err != nil {
			t.Logf("%s: %v", s.Pkg, err)
		}
	})
	return id
}

// Shared is a service a test binary starts once and its tests share.
type Shared[T any] struct {
	// Pkg prefixes the failure of a test ("jaegerenv: ...").
	Pkg string
	// What completes the skip message: "skipping test against " + What.
	What string
	// Timeout bounds the start.
	Timeout time.Duration

	once sync.Once
	v    T
	err  error
}

// SkipUnlessReal skips t when CE_SKIP_REAL=1, as Get does: for a test of the service's scripts
// that starts an instance of its own.
func (s *Shared[T]) SkipUnlessReal(t testing.TB) {
	t.Helper()
	SkipUnlessReal(t, s.What)
}

// Get returns the service, calling start on first use. It skips the test when CE_SKIP_REAL=1 and
// fails it when the service cannot start.
func (s *Shared[T]) Get(t testing.TB, start func(context.Context) (T, error)) T {
	t.Helper()
	s.SkipUnlessReal(t)
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
		defer cancel()
		s.v, s.err = start(ctx)
	})
	if s.err != nil {
		t.Fatalf("%s: %v", s.Pkg, s.err)
	}
	return s.v
}

// SharedSet is services a test binary starts once per key (a cluster per version or name) and its
// tests share; Pkg, What and Timeout are each one's, as in Shared.
type SharedSet[T any] struct {
	Pkg     string
	What    string
	Timeout time.Duration

	mu sync.Mutex
	m  map[string]*Shared[T]
}

// Get returns key's service, calling start on its first use; see Shared.Get.
func (s *SharedSet[T]) Get(t testing.TB, key string, start func(context.Context) (T, error)) T {
	t.Helper()
	s.mu.Lock()
	one := s.m[key]
	if one == nil {
		if s.m == nil {
			s.m = map[string]*Shared[T]{}
		}
		one = &Shared[T]{Pkg: s.Pkg, What: s.What, Timeout: s.Timeout}
		s.m[key] = one
	}
	s.mu.Unlock()
	return one.Get(t, start)
}
