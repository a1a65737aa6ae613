package seatunnel

import (
	"context"
	"testing"
)

// BenchmarkCheckpointsPoll is one History poll of a job with 8 pipelines whose rings are full
// (8 × 32 finished checkpoints, one in flight each): request, decode and conversion. The
// collector runs it about once a second while a checkpoint is in flight.
func BenchmarkCheckpointsPoll(b *testing.B) {
	f, srv := newFakeZeta(&testing.T{})
	defer srv.Close()
	for p := 1; p <= 8; p++ {
		for i := 0; i < HistoryCapacity; i++ {
			f.trigger(p, TypeCheckpoint, 4)
			if i%7 == 6 {
				f.fail(p, "CHECKPOINT_EXPIRED", expired, "")
			} else {
				f.complete(p, 4)
			}
		}
		f.trigger(p, TypeCheckpoint, 4)
		f.ack(p, 2)
	}
	var bytes int64
	src := NewSource(must(New(Config{BaseURL: srv.URL, Cluster: "b", OnRequest: func(ri RequestInfo) { bytes = ri.Bytes }})), nil)
	ctx := context.Background()
	job, err := src.Job(ctx, fakeJobID)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h, err := src.History(ctx, &job)
		if err != nil || len(h.Checkpoints) != 8*(HistoryCapacity+1) {
			b.Fatalf("%d checkpoints, %v", len(h.Checkpoints), err)
		}
	}
	b.ReportMetric(float64(bytes), "body-bytes/poll")
}

func must(c *Client, err error) *Client {
	if err != nil {
		panic(err)
	}
	return c
}
