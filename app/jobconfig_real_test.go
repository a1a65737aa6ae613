package app

import (
	"context"
	"fmt"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/flinkenv"
)

// What the knob job's flags become in the stored configuration, on Flink 2.3 and 1.20 alike
// (what each version's REST reports is in docs/collector.md, "The job's configuration").
type knobCase struct {
	name string
	args []string
	want model.JobConfig
	// incremental: the job asked for incremental checkpoints (in its own Configuration, which
	// REST does not show): some completed checkpoint has checkpointed_size < state_size.
	incremental bool
}

func knobCases() []knobCase {
	i64 := func(v int64) *int64 { return &v }
	b := func(v bool) *bool { return &v }
	return []knobCase{
		{name: "unaligned-rocksdb-incremental",
			args: []string{"--interval-ms", "500", "--unaligned", "true", "--tolerable-failures", "3",
				"--checkpoint-timeout-ms", "45000", "--min-pause-ms", "100", "--state-backend", "rocksdb", "--incremental", "true",
				"--rate", "200", "--state-bytes-per-record", "64"},
			want: model.JobConfig{Mode: "exactly_once", IntervalMs: i64(500), TimeoutMs: i64(45000), MinPauseMs: i64(100),
				MaxConcurrent: i64(1), TolerableFailures: i64(3), Unaligned: b(true), AlignedTimeoutMs: i64(0),
				StateBackend: "rocksdb", CheckpointStorage: "filesystem", Changelog: b(false)},
			incremental: true},
		{name: "aligned-hashmap",
			args: []string{"--interval-ms", "500", "--unaligned", "false", "--checkpoint-timeout-ms", "20000",
				"--rate", "200", "--state-bytes-per-record", "64"},
			want: model.JobConfig{Mode: "exactly_once", IntervalMs: i64(500), TimeoutMs: i64(20000), MinPauseMs: i64(0),
				MaxConcurrent: i64(1), TolerableFailures: i64(1000000), Unaligned: b(false), AlignedTimeoutMs: i64(0),
				StateBackend: "hashmap", CheckpointStorage: "filesystem", Changelog: b(false)}},
		// RocksDB's full snapshots: what the inference must not take for incremental.
		{name: "rocksdb-full",
			args: []string{"--interval-ms", "500", "--state-backend", "rocksdb", "--incremental", "false",
				"--rate", "200", "--state-bytes-per-record", "64"},
			want: model.JobConfig{Mode: "exactly_once", IntervalMs: i64(500), TimeoutMs: i64(600000), MinPauseMs: i64(0),
				MaxConcurrent: i64(1), TolerableFailures: i64(1000000), Unaligned: b(false), AlignedTimeoutMs: i64(0),
				StateBackend: "rocksdb", CheckpointStorage: "filesystem", Changelog: b(false)}},
	}
}

// checkJobConfigOnRealCluster submits each case's knob job (one at a time, cancelled after),
// lets the collector follow it and checks the configuration in the cache. smallerSeen says
// whether the version's incremental checkpoints show checkpointed_size < state_size here: on
// 2.3 they do; on 1.20.5 every checkpoint uploads all of its (freshly compacted) SST files on
// this small test cluster, so the sizes are equal though the files go to shared/ (the
// incremental path): equal sizes never prove a full checkpoint.
func checkJobConfigOnRealCluster(t *testing.T, env flinkenv.Env, smallerSeen bool) {
	for _, tc := range knobCases() {
		t.Run(tc.name, func(t *testing.T) {
			jid := env.Submit(t, append([]string{"--name", "ce-config-" + tc.name}, tc.args...)...)
			a := newCollectingApp(t, env.RESTURL)
			cfg := jobConfigEventually(t, a, jid)
			got := &cfg
			want := tc.want
			want.Cluster, want.JobID, want.SeenMs, want.Keys = "flink", jid, got.SeenMs, got.Keys
			if !got.SameSettings(want) {
				t.Errorf("stored configuration\n%s\nwant\n%s", describeConfig(*got), describeConfig(want))
			}
			if got.SeenMs < time.Now().Add(-2*time.Minute).UnixMilli() {
				t.Errorf("seen_ms %d is not when it was read", got.SeenMs)
			}
			// The job set incremental checkpoints in its own Configuration; Flink's REST does not
			// say so (nor does it say buffer debloating, not set in the test cluster's config).
			if got.Incremental != nil || got.BufferDebloat != nil {
				t.Errorf("incremental %v, buffer debloat %v: REST does not report them here, want nil",
					got.Incremental, got.BufferDebloat)
			}
			if got.Keys["execution-config.job-parallelism"] != "1" ||
				got.Keys["execution.checkpointing.externalized-checkpoint-retention"] != "RETAIN_ON_CANCELLATION" {
				t.Errorf("keys %v lack the execution config and the cluster's checkpointing keys", got.Keys)
			}
			for k := range got.Keys {
				if model.SecretKey(k) {
					t.Errorf("secret-looking key %q kept", k)
				}
			}
			// What REST does show of incremental checkpoints: their checkpointed size (what this
			// checkpoint uploaded) below the state size (everything it references).
			var smaller, completed int
			waitFor(t, time.Minute, "5 completed checkpoints", func() bool {
				smaller, completed = 0, 0
				for _, c := range finalCheckpoints(t, a, jid) {
					if c.Status != model.StatusCompleted || c.StateSize == 0 {
						continue
					}
					completed++
					if c.CheckpointedSize < c.StateSize {
						smaller++
					}
				}
				return completed >= 5
			})
			if tc.incremental && smallerSeen && smaller == 0 {
				t.Errorf("incremental: none of %d completed checkpoints has checkpointed_size < state_size", completed)
			}
			if tc.incremental && !smallerSeen && smaller != 0 {
				t.Logf("Flink %s: %d of %d incremental checkpoints now show checkpointed_size < state_size", env.Version, smaller, completed)
			}
			if !tc.incremental && smaller != 0 {
				t.Errorf("full snapshots: %d of %d completed checkpoints have checkpointed_size < state_size", smaller, completed)
			}
			// One entry: the re-reads (none within this test's minutes) and the same settings add nothing.
			if hist, err := a.store.JobConfigs(context.Background(), "flink", jid); err != nil || len(hist) != 1 {
				t.Errorf("history %d entries (%v), want 1", len(hist), err)
			}
		})
	}
}

func describeConfig(c model.JobConfig) string {
	p := func(v *int64) string { return optText(v, "nil") }
	q := func(v *bool) string { return optText(v, "nil") }
	return fmt.Sprintf("mode=%s interval=%s timeout=%s min_pause=%s max_concurrent=%s tolerable=%s unaligned=%s aligned_timeout=%s "+
		"backend=%s storage=%s changelog=%s incremental=%s debloat=%s", c.Mode, p(c.IntervalMs), p(c.TimeoutMs), p(c.MinPauseMs),
		p(c.MaxConcurrent), p(c.TolerableFailures), q(c.Unaligned), p(c.AlignedTimeoutMs), c.StateBackend, c.CheckpointStorage,
		q(c.Changelog), q(c.Incremental), q(c.BufferDebloat))
}

func TestFlinkJobConfigReachesTheCache(t *testing.T) {
	checkJobConfigOnRealCluster(t, flinkOn(t, trackFlinkB), true)
}

func TestFlink120JobConfigReachesTheCache(t *testing.T) {
	checkJobConfigOnRealCluster(t, flinkOn(t, trackFlink120), false)
}

// TestFlinkJobConfigRequests counts, through the counting proxy, what reading the job's
// configuration costs a real cluster: 3 requests on the first poll (checkpoints/config is asked
// once more for the poll interval, as before), none more until ConfigEvery (10 min) is up.
func TestFlinkJobConfigRequests(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-config-requests", "--interval-ms", "1000")
	proxy, proxyURL := startCountingProxy(t, env.RESTURL, jid)
	a := newCollectingApp(t, proxyURL)
	waitFor(t, time.Minute, "the job's configuration in the cache", func() bool {
		c, err := a.JobConfig("flink", jid)
		return err == nil && c != nil
	})
	time.Sleep(20 * time.Second) // a few more polls
	counts, _ := proxy.snapshot()
	want := map[string]int{
		"/jobs/:id/checkpoints/config": 2, // the poll interval, and the configuration
		"/jobs/:id/config":             1,
		"/jobs/:id/jobmanager/config":  1,
		"/jobmanager/config":           0, // only when the per-job one is 404 (before Flink 1.17)
	}
	for ep, n := range want {
		if counts[ep] != n {
			t.Errorf("%s: %d requests, want %d", ep, counts[ep], n)
		}
	}
	t.Logf("configuration requests in the job's first %s: checkpoints/config %d, config %d, jobmanager/config %d",
		"~25 s", counts["/jobs/:id/checkpoints/config"], counts["/jobs/:id/config"], counts["/jobs/:id/jobmanager/config"])
}
