// Package envscript runs the testenv/ shell scripts for Go tests: it finds
// them from the module root, runs them with extra environment, and reads the
// KEY=VALUE lines they print.
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
	script, err := Path(dir, name)
	if err != nil {
		return nil, "", err
	}
	if out, err = Run(ctx, extraEnv, script, args...); err != nil {
		return nil, "", err
	}
	return ParseEnv(out), out, nil
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

// Get returns the service, calling start on first use. It skips the test when CE_SKIP_REAL=1 and
// fails it when the service cannot start.
func (s *Shared[T]) Get(t testing.TB, start func(context.Context) (T, error)) T {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against " + s.What)
	}
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
