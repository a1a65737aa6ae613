package collect

import (
	"context"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// metricsEngine is the rolling engine whose metrics are sampled every 10 s
// by its traits; it answers empty for the first `empty` calls (the engine's
// fetcher not started yet) and records when it was asked.
type metricsEngine struct {
	*rollingEngine
	mu    sync.Mutex
	empty int
	calls []time.Time
}

func (e *metricsEngine) Traits() Traits {
	t := e.rollingEngine.Traits()
	t.MetricsEvery = 10 * time.Second
	return t
}

func (e *metricsEngine) Metrics(context.Context, *model.Job, int64) ([]model.MetricSample, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, time.Now())
	if len(e.calls) <= e.empty {
		return nil, nil
	}
	return []model.MetricSample{{VertexID: "v1", Subtask: -1, Agg: model.AggMax, Metric: model.MetricBackPressuredMsPerSec,
		TimeMs: time.Now().UnixMilli(), Value: 500}}, nil
}

func (e *metricsEngine) callCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.calls)
}

// Until the engine first answers with values, metrics are asked for once a
// second (emptyRetryEvery), not once per 10 s, and not at every poll: polls
// come faster (here every ~30 ms), and a try per poll spent the tries before
// Flink's fetcher had values. The first samples come with the engine's first
// values.
func TestCollectorSamplesMetricsSoonAfterEmptyAnswers(t *testing.T) {
	st := openStore(t)
	eng := &metricsEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 100 * time.Millisecond, dur: 5 * time.Millisecond,
		capacity: 10, details: map[int64]int{}}, empty: 3}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, fastOptions(st, nil), eng)
	for deadline := time.Now().Add(9 * time.Second); eng.callCount() < 4 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	m.Stop()
	// 3 empty answers a second apart, then values; then nothing until 10 s later.
	eng.mu.Lock()
	calls := append([]time.Time(nil), eng.calls...)
	eng.mu.Unlock()
	if len(calls) != 4 {
		t.Errorf("metrics asked for %d times, want 4 (3 empty answers, then the first values; then the 10 s cadence)", len(calls))
	}
	for i := 1; i < len(calls); i++ {
		if d := calls[i].Sub(calls[i-1]); d < emptyRetryEvery-50*time.Millisecond {
			t.Errorf("try %d came %v after the one before, want about %v", i+1, d, emptyRetryEvery)
		}
	}
	ms, err := st.MetricSamples(context.Background(), store.Query{Cluster: "c1", JobID: "job-1"})
	if err != nil || len(ms) != 1 {
		t.Errorf("stored %d samples (%v), want the first values", len(ms), err)
	}
}

// While a checkpoint runs longer than usual, metrics are sampled every 2 s
// (not every 10 s) so that the slow checkpoint has samples in its window.
func TestCollectorSamplesFasterWhileACheckpointRunsLong(t *testing.T) {
	st := openStore(t)
	// Checkpoints every 400 ms taking 5 ms: the usual is short.
	eng := &metricsEngine{rollingEngine: &rollingEngine{start: time.Now(), interval: 400 * time.Millisecond, dur: 5 * time.Millisecond,
		capacity: 10, details: map[int64]int{}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := startPolling(ctx, fastOptions(st, nil), eng)
	time.Sleep(1 * time.Second)
	before := eng.callCount()
	// From now on checkpoints take 10 s: the one in flight runs long.
	eng.rollingEngine.mu.Lock()
	eng.rollingEngine.dur = 10 * time.Second
	eng.rollingEngine.mu.Unlock()
	time.Sleep(5 * time.Second)
	m.Stop()
	during := eng.callCount() - before
	// The first long check passes after 1 s (twice the usual, at least 1 s); then every 2 s.
	if during < 2 || during > 3 {
		t.Errorf("metrics asked for %d times in 5 s while a checkpoint ran long, want 2–3 (every 2 s; 0 at the 10 s cadence)", during)
	}
}
