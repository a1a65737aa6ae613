package flink_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/testenv/flinkenv"
)

// BenchmarkRealPoll measures what one poll of a job costs against the real cluster: the list,
// then details and per-vertex subtasks of one final checkpoint (knob job, 6 vertices × 4
// subtasks). Reports bytes read per poll, the figure that matters for overhead on a JobManager.
func BenchmarkRealPoll(b *testing.B) {
	env := flinkenv.Ensure(b)
	var bytes, requests atomic.Int64
	c, err := flink.New(flink.Config{BaseURL: env.RESTURL, OnRequest: func(ri flink.RequestInfo) {
		bytes.Add(ri.Bytes)
		requests.Add(1)
	}})
	if err != nil {
		b.Fatal(err)
	}
	jid := flinkenv.SubmitJob(b, "--name", "flink-bench", "--parallelism", "4", "--interval-ms", "500")
	ctx := context.Background()
	job, err := c.Job(ctx, jid)
	if err != nil {
		b.Fatal(err)
	}
	var cid int64
	for deadline := time.Now().Add(time.Minute); cid == 0; time.Sleep(300 * time.Millisecond) {
		l, err := c.Checkpoints(ctx, jid)
		if err != nil {
			b.Fatal(err)
		}
		cid = l.LatestCompletedID
		if time.Now().After(deadline) {
			b.Fatal("no completed checkpoint after a minute")
		}
	}
	bytes.Store(0)
	requests.Store(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Checkpoints(ctx, jid); err != nil {
			b.Fatal(err)
		}
		if _, err := c.CheckpointDetail(ctx, jid, cid); err != nil {
			b.Fatal(err)
		}
		for _, v := range job.Vertices {
			if _, err := c.SubtaskStats(ctx, jid, cid, v.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(bytes.Load())/float64(b.N), "body-bytes/poll")
	b.ReportMetric(float64(requests.Load())/float64(b.N), "requests/poll")
}
