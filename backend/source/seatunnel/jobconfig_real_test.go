package seatunnel_test

import (
	"context"
	"testing"
	"time"

	"checkpoint-explorer/testenv/seatunnelenv"
)

// TestRealNodeJobConfig: the job's env options checkpoint.interval and checkpoint.timeout reach
// the cache through the collector.
func TestRealNodeJobConfig(t *testing.T) {
	t.Parallel()
	e := checkpointNode(t)
	id := seatunnelenv.SubmitJob(t, e, "SEATUNNEL_JOB_NAME=ce-real-config",
		"SEATUNNEL_CHECKPOINT_INTERVAL_MS=2500", "SEATUNNEL_CHECKPOINT_TIMEOUT_MS=30000")
	h := newRealCollector(t, realClient(t, e))
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		cfgs, err := h.st.JobConfigs(ctx, "real", id)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfgs) > 0 {
			c := cfgs[len(cfgs)-1]
			if len(cfgs) != 1 || c.IntervalMs == nil || *c.IntervalMs != 2500 || c.TimeoutMs == nil || *c.TimeoutMs != 30000 {
				t.Fatalf("configs %+v, want one with interval 2500 ms and timeout 30000 ms", cfgs)
			}
			if c.Keys["job.name"] != "ce-real-config" || c.Keys["checkpoint.interval"] != "2500" {
				t.Errorf("keys %v, want the job's env options", c.Keys)
			}
			if c.Mode != "" || c.Unaligned != nil || c.StateBackend != "" || c.TolerableFailures != nil {
				t.Errorf("settings SeaTunnel does not report: %+v", c)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no configuration of job %s in the cache after a minute", id)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
