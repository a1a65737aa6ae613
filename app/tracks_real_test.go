package app

import (
	"os"
	"testing"
	"time"

	"checkpoint-explorer/testenv/flinkenv"
)

// The real tests run side by side on separate clusters and one after another on each: every
// real test first calls onTrack with its track, which marks it parallel (t.Parallel) and then
// waits for the track. A track is a cluster no other track's tests use (its jobs, its slots,
// its request budget and its JobManager log are the track's alone), so what each test sees is
// what it would see running alone, but for the CPU the other tracks take: a test that fails
// when the machine is busy is a broken test, not one to retry.
//
// go test runs at most -parallel tests at once (GOMAXPROCS by default) and a test waiting for
// its track holds one of those places: `make test` runs this package with -parallel 32 so
// that every track is busy (testenv/test-suites.sh).
type track string

const (
	// trackFlinkA is the shared cluster of the default version (flinkenv.Ensure), with the
	// Prometheus that scrapes it (promenv) and the toxiproxy in front of it.
	trackFlinkA track = "flink-a"
	// trackFlinkB is a second cluster of the default version (flinkenv.EnsureNamed).
	trackFlinkB track = "flink-b"
	// trackFlink120 is the shared 1.20 cluster (flinkenv.EnsureVersion), also the Iceberg sink's.
	trackFlink120 track = "flink-1.20"
	// trackOwnA and trackOwnB are for the tests that start a cluster of their own (a
	// JobManager restart, a trace reporter, a cluster no other job has used): two at a time,
	// so that no more JVMs start at once than the machine holds without starving the others.
	trackOwnA track = "own-cluster-a"
	trackOwnB track = "own-cluster-b"
)

var tracks = map[track]chan struct{}{
	trackFlinkA:   make(chan struct{}, 1),
	trackFlinkB:   make(chan struct{}, 1),
	trackFlink120: make(chan struct{}, 1),
	trackOwnA:     make(chan struct{}, 1),
	trackOwnB:     make(chan struct{}, 1),
}

// onTrack makes t a parallel test that runs when its track is free, and frees the track when
// t ends (after the cleanups registered later, which cancel its jobs and stop its app).
func onTrack(t *testing.T, tr track) {
	t.Helper()
	if os.Getenv("CE_SKIP_REAL") == "1" {
		t.Skip("CE_SKIP_REAL=1: skipping test against a real cluster")
	}
	ch, ok := tracks[tr]
	if !ok {
		t.Fatalf("no track %q", tr)
	}
	t.Parallel()
	start := time.Now()
	ch <- struct{}{}
	if w := time.Since(start); w > time.Second {
		t.Logf("waited %v for track %s", w.Round(100*time.Millisecond), tr)
	}
	t.Cleanup(func() { <-ch })
}

// flinkOn is onTrack for a track of a shared cluster, and that cluster.
func flinkOn(t *testing.T, tr track) flinkenv.Env {
	t.Helper()
	onTrack(t, tr)
	switch tr {
	case trackFlinkA:
		return flinkenv.Ensure(t)
	case trackFlinkB:
		return flinkenv.EnsureNamed(t, "app-b")
	case trackFlink120:
		return flinkenv.EnsureVersion(t, flink120)
	}
	t.Fatalf("track %s has no shared cluster", tr)
	return flinkenv.Env{}
}
