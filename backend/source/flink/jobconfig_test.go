package flink_test

// The job configuration decoders on answers recorded from the testenv clusters (Flink 2.3.0 and
// 1.20.5, the knob job with --state-backend rocksdb --incremental true --unaligned true
// --tolerable-failures 3 --checkpoint-timeout-ms 45000 --min-pause-ms 250 --interval-ms 2000).

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
)

const recordedJob = "2771d0274632235b014bc40d7b4d9809"

// serveRecorded answers the configuration endpoints from testdata/<dir> (routes: path → file,
// all read first); paths not in routes are 404 with Flink's recorded 404 body.
func serveRecorded(t *testing.T, dir string, routes map[string]string) *flink.Client {
	t.Helper()
	notFound := flink.ReadTestdata(t, dir, "checkpoint-config-404.json")
	bodies := map[string][]byte{}
	for path, name := range routes {
		bodies[path] = flink.ReadTestdata(t, dir, name)
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			w.Write(notFound)
			return
		}
		w.Write(b)
	})
	return newClient(t, flink.Config{BaseURL: srv.URL})
}

func allParts(jid string) map[string]string {
	return map[string]string{
		"/jobs/" + jid + "/checkpoints/config": "checkpoint-config-knobs.json",
		"/jobs/" + jid + "/config":             "job-config.json",
		"/jobs/" + jid + "/jobmanager/config":  "job-jobmanager-config.json",
		"/jobmanager/config":                   "job-jobmanager-config.json",
	}
}

func readParts(t *testing.T, c *flink.Client, jid string) flink.JobConfigParts {
	t.Helper()
	ctx := context.Background()
	var p flink.JobConfigParts
	cc, err := c.CheckpointConfig(ctx, jid)
	if err != nil {
		t.Fatalf("CheckpointConfig: %v", err)
	}
	p.Checkpoints = &cc.Settings
	if p.Execution, err = c.ExecutionConfig(ctx, jid); err != nil {
		t.Fatalf("ExecutionConfig: %v", err)
	}
	if p.JobManager, err = c.JobManagerConfig(ctx, jid); err != nil {
		t.Fatalf("JobManagerConfig: %v", err)
	}
	return p
}

func i64(v int64) *int64 { return &v }
func bl(v bool) *bool    { return &v }

func eqI(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func eqB(a, b *bool) bool  { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func TestBuildJobConfigFromRecordedAnswers(t *testing.T) {
	for _, dir := range []string{"rest-2.3", "rest-1.20"} {
		t.Run(dir, func(t *testing.T) {
			c := serveRecorded(t, dir, allParts(recordedJob))
			cfg := flink.BuildJobConfig("c1", recordedJob, readParts(t, c, recordedJob))
			if cfg.Cluster != "c1" || cfg.JobID != recordedJob || cfg.Mode != "exactly_once" {
				t.Errorf("cluster/job/mode = %q %q %q", cfg.Cluster, cfg.JobID, cfg.Mode)
			}
			ints := []struct {
				name      string
				got, want *int64
			}{
				{"interval", cfg.IntervalMs, i64(2000)}, {"timeout", cfg.TimeoutMs, i64(45000)},
				{"min pause", cfg.MinPauseMs, i64(250)}, {"max concurrent", cfg.MaxConcurrent, i64(1)},
				{"tolerable", cfg.TolerableFailures, i64(3)}, {"aligned timeout", cfg.AlignedTimeoutMs, i64(0)},
			}
			for _, f := range ints {
				if !eqI(f.got, f.want) {
					t.Errorf("%s = %v, want %d", f.name, f.got, *f.want)
				}
			}
			if !eqB(cfg.Unaligned, bl(true)) || !eqB(cfg.Changelog, bl(false)) {
				t.Errorf("unaligned %v changelog %v, want true false", cfg.Unaligned, cfg.Changelog)
			}
			if cfg.StateBackend != "rocksdb" || cfg.CheckpointStorage != "filesystem" {
				t.Errorf("state backend %q storage %q, want rocksdb filesystem", cfg.StateBackend, cfg.CheckpointStorage)
			}
			// The job set incremental checkpoints in its own Configuration: Flink's REST does not
			// show it anywhere, and the cluster's configuration does not set it.
			if cfg.Incremental != nil || cfg.BufferDebloat != nil {
				t.Errorf("incremental %v buffer debloat %v: neither is reported, want nil", cfg.Incremental, cfg.BufferDebloat)
			}
			if cfg.Keys["execution-config.job-parallelism"] != "1" || cfg.Keys["execution-config.object-reuse-mode"] != "false" {
				t.Errorf("execution-config keys missing: %v", cfg.Keys)
			}
			if cfg.Keys["execution.checkpointing.externalized-checkpoint-retention"] != "RETAIN_ON_CANCELLATION" {
				t.Errorf("JobManager checkpointing keys missing: %v", cfg.Keys)
			}
			for k := range cfg.Keys {
				if strings.HasPrefix(k, "rest.") || strings.HasPrefix(k, "web.") || strings.HasPrefix(k, "blob.") {
					t.Errorf("key %q kept: only checkpointing, state and debloat keys are", k)
				}
			}
		})
	}
}

func TestJobConfigPartsThatAre404(t *testing.T) {
	c := serveRecorded(t, "rest-2.3", map[string]string{"/jobmanager/config": "job-jobmanager-config.json"})
	ctx := context.Background()
	if _, err := c.CheckpointConfig(ctx, recordedJob); !errors.Is(err, flink.ErrNotFound) {
		t.Errorf("CheckpointConfig of an unknown job: %v, want ErrNotFound", err)
	}
	if _, err := c.ExecutionConfig(ctx, recordedJob); !errors.Is(err, flink.ErrNotFound) {
		t.Errorf("ExecutionConfig of an unknown job: %v, want ErrNotFound", err)
	}
	if _, err := c.JobManagerConfig(ctx, recordedJob); !errors.Is(err, flink.ErrNotFound) {
		t.Errorf("per-job JobManagerConfig: %v, want ErrNotFound", err)
	}
	jm, err := c.JobManagerConfig(ctx, "")
	if err != nil || jm["execution.checkpointing.externalized-checkpoint-retention"] == "" {
		t.Fatalf("cluster JobManagerConfig: %v %v", jm, err)
	}
	// Only the JobManager spoke: nothing of the job's checkpointing is assumed.
	cfg := flink.BuildJobConfig("c1", recordedJob, flink.JobConfigParts{JobManager: jm})
	if cfg.IntervalMs != nil || cfg.TimeoutMs != nil || cfg.Unaligned != nil || cfg.StateBackend != "" || cfg.Mode != "" {
		t.Errorf("settings from nowhere: %+v", cfg)
	}
}

func TestCheckpointConfigAbsentFieldsAreNil(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"mode":"at_least_once","interval":"10 s","timeout":"PT1M30S","unaligned_checkpoints":"true"}`))
	})
	cc, err := newClient(t, flink.Config{BaseURL: srv.URL}).CheckpointConfig(context.Background(), recordedJob)
	if err != nil {
		t.Fatal(err)
	}
	cfg := flink.BuildJobConfig("c", recordedJob, flink.JobConfigParts{Checkpoints: &cc.Settings})
	if cfg.Mode != "at_least_once" || !eqI(cfg.IntervalMs, i64(10000)) || !eqI(cfg.TimeoutMs, i64(90000)) || !eqB(cfg.Unaligned, bl(true)) {
		t.Errorf("got %+v", cfg)
	}
	if cfg.MinPauseMs != nil || cfg.MaxConcurrent != nil || cfg.TolerableFailures != nil || cfg.AlignedTimeoutMs != nil ||
		cfg.Changelog != nil || cfg.StateBackend != "" || cfg.CheckpointStorage != "" {
		t.Errorf("absent fields must stay unset: %+v", cfg)
	}
}

func TestCheckpointConfigBadValueNamesTheField(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"mode":"exactly_once","interval":"soon"}`))
	})
	_, err := newClient(t, flink.Config{BaseURL: srv.URL}).CheckpointConfig(context.Background(), recordedJob)
	if err == nil || !strings.Contains(err.Error(), "interval") || !strings.Contains(err.Error(), "soon") {
		t.Errorf("err = %v, want one naming the field and the value", err)
	}
}

func TestBuildJobConfigFromJobManagerKeys(t *testing.T) {
	// Keys as a cluster's config file may set them (Flink 1.x and 2.x spellings); the job's
	// checkpoint configuration, when it came, wins over them.
	jm := map[string]string{
		"state.backend.incremental":                            "true",
		"state.backend.type":                                   "rocksdb",
		"taskmanager.network.memory.buffer-debloat.enabled":    "TRUE",
		"execution.checkpointing.unaligned.enabled":            "true",
		"execution.checkpointing.aligned-checkpoint-timeout":   "30 s",
		"execution.checkpointing.tolerable-failed-checkpoints": "5",
		"execution.checkpointing.interval":                     "PT20S",
		"execution.checkpointing.timeout":                      "10 min",
		"execution.checkpointing.min-pause":                    "500",
		"execution.checkpointing.max-concurrent-checkpoints":   "banana",
		"s3.secret-key":                                   "hunter2",
		"state.backend.rocksdb.password":                  "hunter2",
		"fs.azure.account.key.acct.blob.core.windows.net": "hunter2",
		"rest.port": "8081",
	}
	cfg := flink.BuildJobConfig("c", "j", flink.JobConfigParts{JobManager: jm})
	checks := []struct {
		name string
		ok   bool
	}{
		{"incremental", eqB(cfg.Incremental, bl(true))},
		{"debloat", eqB(cfg.BufferDebloat, bl(true))},
		{"unaligned", eqB(cfg.Unaligned, bl(true))},
		{"aligned timeout", eqI(cfg.AlignedTimeoutMs, i64(30000))},
		{"tolerable", eqI(cfg.TolerableFailures, i64(5))},
		{"interval", eqI(cfg.IntervalMs, i64(20000))},
		{"timeout", eqI(cfg.TimeoutMs, i64(600000))},
		{"min pause", eqI(cfg.MinPauseMs, i64(500))},
		{"max concurrent unreadable → nil", cfg.MaxConcurrent == nil},
		{"state backend", cfg.StateBackend == "rocksdb"},
		{"unreadable key kept as sent", cfg.Keys["execution.checkpointing.max-concurrent-checkpoints"] == "banana"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: got %+v", c.name, cfg)
		}
	}
	for k := range cfg.Keys {
		if strings.Contains(k, "secret") || strings.Contains(k, "password") || strings.Contains(k, "account.key") || k == "rest.port" {
			t.Errorf("key %q kept", k)
		}
	}
	// The job's own checkpoint configuration says otherwise: it wins.
	interval, unaligned := int64(1000), false
	cfg = flink.BuildJobConfig("c", "j", flink.JobConfigParts{JobManager: jm,
		Checkpoints: &flink.CheckpointSettings{IntervalMs: &interval, Unaligned: &unaligned}})
	if !eqI(cfg.IntervalMs, i64(1000)) || !eqB(cfg.Unaligned, bl(false)) || !eqI(cfg.TimeoutMs, i64(600000)) {
		t.Errorf("the job's settings must win, the cluster's fill in: %+v", cfg)
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]int64{
		"10000": 10000, "10 s": 10000, "10s": 10000, "PT10S": 10000, "pt10s": 10000, "500 ms": 500,
		"1 min": 60000, "2h": 7200000, "1 d": 86400000, "PT1M30S": 90000, "PT0.5S": 500, "0 s": 0,
		"3 seconds": 3000, "1500000 us": 1500, "P1DT1H": 90000000,
	}
	for in, want := range good {
		if got, err := flink.ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "soon", "10 parsecs", "s10", "PT", "P1Y", "PT10", "99999999999999999999 d"} {
		if got, err := flink.ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %d, want an error", in, got)
		} else if in != "" && !strings.Contains(err.Error(), in) {
			t.Errorf("ParseDuration(%q): error %q does not name the value", in, err)
		}
	}
}

func TestSecretKeysAreDropped(t *testing.T) {
	for _, k := range []string{"s3.secret-key", "s3.access-key", "security.ssl.keystore-password", "fs.azure.account.key.x",
		"metrics.reporter.x.token", "jdbc.password", "kafka.sasl.jaas.config"} {
		if !model.SecretKey(k) {
			t.Errorf("%q not taken for a secret", k)
		}
	}
	for _, k := range []string{"state.backend.incremental", "execution.checkpointing.interval", "state.backend.type",
		"taskmanager.network.memory.buffer-debloat.enabled", "state.backend.rocksdb.metrics.estimate-num-keys"} {
		if model.SecretKey(k) {
			t.Errorf("%q taken for a secret", k)
		}
	}
}
