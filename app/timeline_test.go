package app

import (
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/backend/store"
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The timeline's lanes drawn from the store's maxima across series equal
// those drawn from every sample: vertices, subtasks and aggregations that
// overlap in time, NaN and ±Inf among them, over several ranges and widths.
func TestTimelineLanesFromMaximaEqualThoseFromSamples(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "cache.db"), store.Retention{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	value := func(scale float64) float64 {
		switch rng.IntN(40) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		case 2:
			return math.Inf(-1)
		}
		return math.Round(rng.Float64()*scale*4) / 4 // ties between series are common
	}
	type series struct {
		metric, vertex, agg string
		subtask             int
		scale               float64
		everyMs             int64
	}
	all := []series{
		{model.MetricBackPressuredMsPerSec, "a", model.AggMax, -1, 1000, 5000},
		{model.MetricBackPressuredMsPerSec, "a", "avg", -1, 1000, 5000},
		{model.MetricBackPressuredMsPerSec, "b", model.AggMax, -1, 1200, 5000},
		{model.MetricBackPressuredMsPerSec, "c", model.AggMax, -1, 900, 3000},
		{model.MetricBPRatio, "d", "", -1, 1.2, 7000},
		{model.MetricCommitDurationMs, "sink", "", 0, 2000, 10000},
		{model.MetricCommitDurationMs, "sink", "", 1, 2000, 10000},
		{model.MetricLanePrefix + "lag", "", "", -1, 50, 4000},
		{model.MetricLanePrefix + "lag", "x", "", 2, 50, 6000},
		{model.MetricBusyMsPerSec, "a", model.AggMax, -1, 1000, 5000}, // not a lane
	}
	const start, end = int64(1_000_000), int64(1_000_000 + 600_000)
	err = s.Bulk(ctx, func(w store.Writer) error {
		for i := int64(0); i < 600; i++ {
			c := modeltest.Checkpoint("c", "j", i+1, start+i*1000, 1, 1)
			c.EndToEndMs = 100 + i%50
			c.CompletionMs = c.TriggerMs + c.EndToEndMs
			if err := w.PutCheckpoint(&c); err != nil {
				return err
			}
		}
		for _, se := range all {
			for ts := start; ts <= end; ts += se.everyMs {
				if err := w.PutMetricSample(model.MetricSample{Cluster: "c", JobID: "j", VertexID: se.vertex, Subtask: se.subtask,
					Metric: se.metric, Agg: se.agg, TimeMs: ts, Value: value(se.scale), Source: "rest"}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	q := store.Query{Cluster: "c", JobID: "j"}
	spans, err := s.CheckpointSpans(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	lanes := []string{"lag"}
	for _, r := range []struct {
		from, to int64
		width    int
	}{{0, 0, 1440}, {0, 0, 97}, {start + 100_000, start + 160_000, 800}, {start + 59_999, start + 61_001, 5000}} {
		mq := q
		mq.FromMs, mq.ToMs, mq.Metric = r.from, r.to, analyze.IsTimelineMetric
		samples, err := s.MetricSamples(ctx, mq)
		if err != nil {
			t.Fatal(err)
		}
		maxima, err := s.MetricMaxima(ctx, mq)
		if err != nil {
			t.Fatal(err)
		}
		if len(maxima) == 0 || len(maxima) >= len(samples) {
			t.Fatalf("%+v: %d maxima of %d samples", r, len(maxima), len(samples))
		}
		want := analyze.BuildTimeline(spans, nil, samples, lanes, r.from, r.to, r.width, model.EngineFlink)
		got := analyze.BuildTimeline(spans, nil, maxima, lanes, r.from, r.to, r.width, model.EngineFlink)
		if len(want.Lanes.Backpressure) == 0 || len(want.Lanes.Commit) == 0 || len(want.Lanes.Custom) != 1 {
			t.Fatalf("%+v: lanes not all drawn: %+v", r, want.Lanes)
		}
		if !reflect.DeepEqual(got.Lanes, want.Lanes) {
			t.Errorf("%+v: lanes from maxima\n%+v\nfrom samples\n%+v", r, got.Lanes, want.Lanes)
		}
	}
	if _, err := s.MetricMaxima(ctx, store.Query{Cluster: "c"}); err == nil {
		t.Error("maxima of a whole cluster (no job) were read")
	}
}

func TestParseLane(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want model.Lane
		err  string
	}{
		{in: "lag=promql:max(kafka_lag{job=\"$job_id\"})", want: model.Lane{Name: "lag", PromQL: `max(kafka_lag{job="$job_id"})`}},
		{in: " out = metric:numRecordsOutPerSecond", want: model.Lane{Name: "out", Metric: "numRecordsOutPerSecond"}},
		{in: "a=promql:x=y", want: model.Lane{Name: "a", PromQL: "x=y"}},
		{in: "noequals", err: "want NAME=promql:QUERY"},
		{in: "=promql:up", err: "want NAME=promql:QUERY"},
		{in: "a=sql:select", err: `"sql" is neither promql nor metric`},
		{in: "a=metric:", err: "want NAME="},
	} {
		got, err := ParseLane(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
