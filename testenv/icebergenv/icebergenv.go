// Package icebergenv runs the Iceberg sink job of testenv/iceberg on a real Flink 1.20 cluster:
// a streaming job that appends rows to an Apache Iceberg table (Hadoop catalog in a local
// directory) and commits on every completed checkpoint, with knobs that make commits slow.
//
//	env := flinkenv.EnsureVersion(t, "1.20.5")
//	jid, warehouse := icebergenv.Submit(t, env, "--commit-delay-ms", "300")
//
// The first use resolves the Iceberg and Hadoop jars with Maven (~48 MB, once, into
// testenv/.cache/iceberg) and builds the job; testenv/iceberg/fetch.sh holds a lock meanwhile.
// Tests using it skip when CE_SKIP_REAL=1 (flinkenv.EnsureVersion skips already).
package icebergenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
	"checkpoint-explorer/testenv/flinkenv"
)

const (
	// Version is the Flink version the job is built for (iceberg-flink-runtime-1.20).
	Version = "1.20.5"
	// CatalogName is the job's Hadoop catalog; Iceberg's table name (the "table" metric group's
	// value, before Flink replaces its dots) is CatalogName + "." + the --table argument.
	CatalogName = "ce_hadoop"
	// DefaultTable is the job's --table default (namespace.table).
	DefaultTable = "ce.events"
	// FlinkSinkCommitter is the committer's operator and vertex name with --sink flink (the
	// default) and no --uid-prefix; with --uid-prefix P it is P + "-IcebergFilesCommitter".
	FlinkSinkCommitter = "IcebergFilesCommitter"
	// CommitterGroup is the metric group Iceberg's committer registers its metrics under
	// (followed by the key-value group table=<table name>), with either sink.
	CommitterGroup = "IcebergFilesCommitter"
)

// CommitterMetrics are the metrics of Iceberg's committer (IcebergFilesCommitterMetrics), with
// both FlinkSink and the Sink V2 IcebergSink. The gauges and counters are all numbers.
var CommitterMetrics = []string{
	"lastCheckpointDurationMs", // FlinkSink: time its snapshotState spent writing the manifest
	"lastCommitDurationMs",     // time of the last Iceberg commit (operation.commit())
	"elapsedSecondsSinceLastSuccessfulCommit",
	"committedDataFilesCount",
	"committedDataFilesRecordCount",
	"committedDataFilesByteCount",
	"committedDeleteFilesCount",
	"committedDeleteFilesRecordCount",
	"committedDeleteFilesByteCount",
}

// V2Committer is the committer's operator and vertex name with --sink v2 for table (e.g.
// "ce.events"): Flink names Sink V2 operators "<sink name>: Committer", the sink name being
// Iceberg's table name.
func V2Committer(table string) string { return CatalogName + "." + table + ": Committer" }

// CommitterMetricID is the id Flink's REST API lists for a committer metric on the committer's
// vertex (GET /jobs/:jid/vertices/:vid/metrics; the committer runs with parallelism 1, so subtask
// 0): "0.<operator>.IcebergFilesCommitter.table.<table name>.<metric>", with the operator and table
// names filtered as Flink filters metric scope components (' ', '.', ':' and ',' become '_'),
// e.g. "0.IcebergFilesCommitter.IcebergFilesCommitter.table.ce_hadoop_ce_events.lastCommitDurationMs".
func CommitterMetricID(operator, table, metric string) string {
	return "0." + filterName(operator) + "." + CommitterGroup + ".table." +
		filterName(CatalogName+"."+table) + "." + metric
}

// filterName is the character filter of Flink's MetricQueryService (what the REST API shows).
func filterName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', ':', ',':
			return '_'
		}
		return r
	}, s)
}

// Submit submits the Iceberg sink job to env, a Flink 1.20 cluster (flinkenv.EnsureVersion(t,
// Version) or flinkenv.DedicatedVersion), with args (testenv/iceberg/README.md: --rate,
// --interval-ms, --parallelism, --writer-parallelism, --files-per-commit, --commit-delay-ms,
// --format, --sink, --table, --name, ...; also submit.sh's --job-id and --restore). Without
// --warehouse it appends one on a fresh t.TempDir(). It waits until the job runs and returns its
// id and the warehouse directory. The job is cancelled, and its retained checkpoints deleted, when
// the test ends (before the temporary warehouse goes).
func Submit(t testing.TB, env flinkenv.Env, args ...string) (jobID, warehouse string) {
	t.Helper()
	envscript.SkipUnlessReal(t, "a real Flink cluster")
	if env.Version != "" && !strings.HasPrefix(env.Version, "1.20.") {
		t.Fatalf("icebergenv: the Iceberg job needs Flink 1.20, the cluster at %s runs %s (use flinkenv.EnsureVersion(t, %q))",
			env.RESTURL, env.Version, Version)
	}
	for i, a := range args {
		if a == "--warehouse" && i+1 < len(args) {
			warehouse = args[i+1]
		}
	}
	if warehouse == "" {
		warehouse = filepath.Join(t.TempDir(), "warehouse")
		args = append(append([]string{}, args...), "--warehouse", warehouse)
	}
	// The first submission resolves ~48 MB from Maven Central and builds the job.
	return env.SubmitWith(t, "iceberg", 10*time.Minute, args...), warehouse
}

// TableDir is the directory of table (namespace.table, e.g. DefaultTable) in a warehouse.
func TableDir(warehouse, table string) string {
	return filepath.Join(append([]string{warehouse}, strings.Split(table, ".")...)...)
}

// Metadata counts what the table in tableDir has committed: table metadata versions
// (metadata/v*.metadata.json: one per commit, plus the table's creation) and snapshots (their
// manifest lists, metadata/snap-*.avro: one per commit that added files).
func Metadata(tableDir string) (versions, snapshots int, err error) {
	entries, err := os.ReadDir(filepath.Join(tableDir, "metadata"))
	if err != nil {
		return 0, 0, fmt.Errorf("icebergenv: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "v") && strings.HasSuffix(n, ".metadata.json"):
			versions++
		case strings.HasPrefix(n, "snap-") && strings.HasSuffix(n, ".avro"):
			snapshots++
		}
	}
	return versions, snapshots, nil
}
