package seatunnel

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"
)

// countAcquire counts the requests a Source spends.
type countAcquire struct{ n atomic.Int64 }

func (c *countAcquire) Acquire(context.Context) (func(), error) {
	c.n.Add(1)
	return func() {}, nil
}

func TestJobConfigFromRealJobInfo(t *testing.T) {
	const id = "1179434693738364929"
	srv := serveFiles(t, map[string]string{"/job-info/" + id: "v1-2.3.8-job-info-running.json"})
	budget := &countAcquire{}
	src := NewSource(newClient(t, srv.URL), budget)
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	src.now = func() time.Time { return now }
	ctx := context.Background()
	job, err := src.Job(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := src.JobConfig(ctx, &job)
	if err != nil {
		t.Fatal(err)
	}
	// SeaTunnel 2.3.8's job-info sends env options as strings: checkpoint.interval "1500",
	// checkpoint.timeout "20000".
	if cfg.Cluster != "st" || cfg.JobID != id || cfg.IntervalMs == nil || *cfg.IntervalMs != 1500 ||
		cfg.TimeoutMs == nil || *cfg.TimeoutMs != 20000 {
		t.Fatalf("config = %+v, want interval 1500 ms and timeout 20000 ms", cfg)
	}
	// Nothing else is reported by Zeta: no assumed defaults.
	if cfg.Mode != "" || cfg.Unaligned != nil || cfg.StateBackend != "" || cfg.Incremental != nil || cfg.TolerableFailures != nil {
		t.Errorf("settings SeaTunnel does not report: %+v", cfg)
	}
	if cfg.Keys["job.mode"] != "STREAMING" || cfg.Keys["parallelism"] != "2" || cfg.Keys["checkpoint.interval"] != "1500" {
		t.Errorf("keys = %v, want the env options", cfg.Keys)
	}
	if n := budget.n.Load(); n != 1 {
		t.Errorf("Job then JobConfig spent %d requests, want 1 (the config comes with job-info)", n)
	}
	// Later, JobConfig reads job-info again: one request.
	now = now.Add(configFresh)
	if _, err := src.JobConfig(ctx, &job); err != nil {
		t.Fatal(err)
	}
	if n := budget.n.Load(); n != 2 {
		t.Errorf("a later JobConfig spent %d requests in all, want 2", n)
	}
}

func TestJobConfigEnvOptions(t *testing.T) {
	cfg := jobConfig("st", "1", rawEnv(nil))
	if cfg.IntervalMs != nil || cfg.TimeoutMs != nil || cfg.Keys != nil {
		t.Errorf("no env options: %+v, want nothing set", cfg)
	}
	cfg = jobConfig("st", "1", rawEnv(map[string]string{
		"checkpoint.interval": `10000`, "checkpoint.timeout": `"often"`,
		"sink.password": `"hunter2"`, "engine.observability.enabled": `true`,
		"nested": `{"a":1}`,
	}))
	if cfg.IntervalMs == nil || *cfg.IntervalMs != 10000 || cfg.TimeoutMs != nil {
		t.Errorf("interval %v timeout %v, want 10000 and nil (unreadable)", cfg.IntervalMs, cfg.TimeoutMs)
	}
	want := map[string]string{"checkpoint.interval": "10000", "checkpoint.timeout": "often", "engine.observability.enabled": "true"}
	if len(cfg.Keys) != len(want) {
		t.Errorf("keys = %v, want %v", cfg.Keys, want)
	}
	for k, v := range want {
		if cfg.Keys[k] != v {
			t.Errorf("key %s = %q, want %q", k, cfg.Keys[k], v)
		}
	}
}

func rawEnv(m map[string]string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range m {
		out[k] = json.RawMessage(v)
	}
	return out
}
