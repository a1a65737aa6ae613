package seatunnel

import (
	"context"
	"math"
	"testing"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// A 2.3.13 engine (no realtime metrics) behind a slow sink: the collector stores the queue into
// the sink filling up, the sink's commits and the records per second from /job-info's metrics
// block, spending the budget on every request, and the source says what it samples.
func TestCollectorSamplesJobInfoWithoutRealtime(t *testing.T) {
	f, srv := newFakeZeta(t)
	started := time.Now().Add(-time.Minute)
	// 200 records read and 100 written a second, the queue filling with the difference (4096
	// records make it full: 2 queues of 2048 at parallelism 2), as of each request.
	f.set(func(f *fakeZeta) {
		f.live = func() obj {
			at := time.Now()
			secs := at.Sub(started).Seconds()
			return metricsBlock(started, at, int64(200*secs), int64(100*secs), int64(90*secs), min(int64(100*(secs-55)), 4096))
		}
	})
	h := startCollectorWith(t, f, srv.URL, collect.Options{MinPoll: 50 * time.Millisecond, MaxPoll: 150 * time.Millisecond},
		func(s *Source) { s.infoEvery = time.Second })
	ctx := context.Background()
	q := store.Query{Cluster: "st", JobID: fakeJobID}
	var ms []model.MetricSample
	waitFor(t, "4 samples of the queue into the sink", 10*time.Second, func() bool {
		var err error
		if ms, err = h.st.MetricSamples(ctx, q); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range ms {
			if m.Metric == model.MetricQueueFillRatio {
				n++
			}
		}
		return n >= 4
	})
	var fills []float64
	got := map[string]int{}
	for _, m := range ms {
		got[m.Metric]++
		ok := true
		switch m.Metric {
		case model.MetricQueueFillRatio:
			fills = append(fills, m.Value)
			ok = m.VertexID == "4" && m.Target == "3" && m.Value >= 0 && m.Value <= 1
		case model.MetricQueueSize:
			ok = m.VertexID == "4" && m.Target == "3"
		case model.MetricCommittedRecords, model.MetricCommitLagRecords:
			ok = m.VertexID == "3" && m.Target == "" && m.Value > 0
		// Rates are the counts' change over the time between two snapshots as the source saw
		// it; the fake counts as of when it answers. On a busy machine the two clocks' gaps
		// differ by the answers' delays, a few per cent of a 1 s gap: within 15 %.
		case model.MetricSourceRecordsPerSec:
			ok = m.VertexID == "1" && math.Abs(m.Value-200) < 30
		case model.MetricSinkRecordsPerSec:
			ok = m.VertexID == "3" && math.Abs(m.Value-100) < 15
		default:
			ok = false
		}
		if !ok || m.Source != "rest" || m.Subtask != -1 {
			t.Errorf("sample %+v", m)
		}
	}
	for _, metric := range []string{model.MetricQueueSize, model.MetricCommittedRecords, model.MetricCommitLagRecords,
		model.MetricSourceRecordsPerSec, model.MetricSinkRecordsPerSec} {
		if got[metric] == 0 {
			t.Errorf("no %s samples (got %v)", metric, got)
		}
	}
	if fills[len(fills)-1] <= fills[0] {
		t.Errorf("queue fill %v, want it rising", fills)
	}
	if s := h.src.MetricsStatus(fakeJobID); s != "queue and rates from /job-info (no realtime metrics in this engine version)" {
		t.Errorf("status %q", s)
	}
	if spent, served := h.budget.n.Load(), int64(f.totalRequests()); spent != served {
		t.Errorf("budget spent on %d requests, the engine served %d: every request must spend it", spent, served)
	}
}

// An engine that refreshes its overview every 2 s on its own: once the source has seen that
// (the checkpoint's first 9 s, nothing changing), the checkpoint is polled about every 1.5 s
// rather than every 0.5 s, and each snapshot's ack progress reaches the store once.
func TestCollectorPollsNoFasterThanTheOverviewRefreshes(t *testing.T) {
	f, srv := newFakeZeta(t)
	f.refreshEvery = 2 * time.Second
	h := startCollectorWith(t, f, srv.URL, collect.Options{})
	ctx := context.Background()
	waitFor(t, "the job followed", 5*time.Second, func() bool {
		_, err := h.st.Job(ctx, "st", fakeJobID)
		return err == nil
	})
	id := f.trigger(1, TypeCheckpoint, 8)
	time.Sleep(9 * time.Second)
	polls, acks := f.count("/jobs/checkpoints/:jobId"), h.sink.acksOf(id)
	for _, a := range []int{2, 4, 6, 7} { // 6 s of acks coming in
		f.ack(1, a)
		time.Sleep(1500 * time.Millisecond)
	}
	polls, acks = f.count("/jobs/checkpoints/:jobId")-polls, h.sink.acksOf(id)-acks
	f.ack(1, 8)
	f.complete(1, 2)
	h.waitFinal(t, store.Query{Cluster: "st", JobID: fakeJobID}, 1, 5*time.Second)
	t.Logf("%d polls, %d ack samples over 6 s", polls, acks)
	if polls > 6 {
		t.Errorf("%d polls in 6 s of an overview refreshed every 2 s, want at most 6 (0.5 s apart: 12)", polls)
	}
	if acks < 2 || acks > 4 {
		t.Errorf("%d ack samples in 6 s handed to the store, want one per 2 s snapshot (2–4)", acks)
	}
	stored, err := h.st.AckSamples(ctx, store.Query{Cluster: "st", JobID: fakeJobID})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) < 5 || stored[len(stored)-1].Acknowledged <= stored[0].Acknowledged {
		t.Errorf("ack samples %+v, want progress over time, one per snapshot", stored)
	}
}
