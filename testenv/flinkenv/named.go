package flinkenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"checkpoint-explorer/testenv/envscript"
)

// EnsureNamed returns a shared cluster of its own name running FLINK_VERSION (else
// DefaultVersion), started on first use in testenv/.run/flink-shared-<name> on free ports. Like
// Ensure's, it serves every test binary and stays up after the tests (testenv/stop-all.sh stops
// it): a test binary whose real tests run side by side on more than one cluster of the same
// version takes one per track, so that each track's jobs, request budget and JobManager log are
// its own.
func EnsureNamed(t testing.TB, name string) Env {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against a real Flink cluster")
	}
	if name == "" || strings.ContainsAny(name, "/ .") {
		t.Fatalf("flinkenv: bad shared cluster name %q", name)
	}
	root, err := envscript.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(root, "testenv", ".run", "flink-shared-"+name)
	return sharedCluster(t, "shared cluster "+name, "FLINK_VERSION="+envVersion(), "FLINK_RUN_DIR="+runDir)
}
