package seatunnel

import (
	"math"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

func i64(v int64) *int64 { return &v }

// twoPipelines is a job of two chains at parallelism 2: Source[0] → Transform[0] → Sink[0] in
// pipeline 1, Source[1] → Sink[1] in pipeline 2.
func twoPipelines() *model.Job {
	return &model.Job{ID: "7", Vertices: []model.Vertex{
		{ID: "1", Name: "Source[0]-FakeSource", Parallelism: 2, Pipeline: 1},
		{ID: "2", Name: "TransformChain[Transform[0]-Sql]", Parallelism: 2, Pipeline: 1},
		{ID: "3", Name: "Sink[0]-Console-MultiTableSink", Parallelism: 2, Pipeline: 1},
		{ID: "4", Name: "Source[1]-FakeSource", Parallelism: 2, Pipeline: 2},
		{ID: "5", Name: "Sink[1]-Console-MultiTableSink", Parallelism: 2, Pipeline: 2},
	}, Edges: []model.Edge{{Source: "1", Target: "2"}, {Source: "2", Target: "3"}, {Source: "4", Target: "5"}}}
}

type sampleKey struct{ metric, vertex, target string }

func byKey(ss []model.MetricSample) map[sampleKey]float64 {
	out := map[sampleKey]float64{}
	for _, s := range ss {
		out[sampleKey{s.Metric, s.VertexID, s.Target}] = s.Value
	}
	return out
}

func TestJobMetricSamples(t *testing.T) {
	c := newClient(t, "http://127.0.0.1:1")
	for _, tc := range []struct {
		name string
		job  *model.Job
		m    JobMetrics
		want map[sampleKey]float64
	}{
		{
			// 4 queues (2 sinks × 2 subtasks) of 2048: 6144 queued is 3/4 full, on both
			// pipelines' sink edges (the engine sums over the job); commits per sink from the
			// per-table counters.
			name: "two pipelines", job: twoPipelines(),
			m: JobMetrics{IntermediateQueueSize: i64(6144), SinkWriteCount: i64(900), SinkCommittedCount: i64(700),
				TableSinkWriteCount:     map[string]int64{"Sink[0].db.a": 300, "Sink[0].db.b": 200, "Sink[1].db.c": 400},
				TableSinkCommittedCount: map[string]int64{"Sink[0].db.a": 250, "Sink[0].db.b": 150, "Sink[1].db.c": 300}},
			want: map[sampleKey]float64{
				{model.MetricQueueSize, "2", "3"}: 6144, {model.MetricQueueFillRatio, "2", "3"}: 0.75,
				{model.MetricQueueSize, "4", "5"}: 6144, {model.MetricQueueFillRatio, "4", "5"}: 0.75,
				{model.MetricCommittedRecords, "3", ""}: 400, {model.MetricCommitLagRecords, "3", ""}: 100,
				{model.MetricCommittedRecords, "5", ""}: 300, {model.MetricCommitLagRecords, "5", ""}: 100,
			},
		},
		{
			// Keys without the vertex (the engine could not tell it): the job's totals, on no
			// sink in particular; a count beyond the capacity (a connector's own parallelism)
			// is a full queue.
			name: "two sinks, tables not attributed", job: twoPipelines(),
			m: JobMetrics{IntermediateQueueSize: i64(9000), SinkWriteCount: i64(900), SinkCommittedCount: i64(700),
				TableSinkWriteCount: map[string]int64{"db.a": 500, "db.c": 400}},
			want: map[sampleKey]float64{
				{model.MetricQueueSize, "2", "3"}: 9000, {model.MetricQueueFillRatio, "2", "3"}: 1,
				{model.MetricQueueSize, "4", "5"}: 9000, {model.MetricQueueFillRatio, "4", "5"}: 1,
				{model.MetricCommittedRecords, "", ""}: 700, {model.MetricCommitLagRecords, "", ""}: 200,
			},
		},
		{
			// One sink fed by two sources is two copies, one per pipeline, under one name: the
			// engine's per-table keys cannot tell them apart either.
			name: "a sink copied into two pipelines",
			job: &model.Job{ID: "8", Vertices: []model.Vertex{
				{ID: "1", Name: "Source[0]-FakeSource", Pipeline: 1}, {ID: "2", Name: "Sink[0]-Console", Pipeline: 1},
				{ID: "3", Name: "Source[1]-FakeSource", Pipeline: 2}, {ID: "4", Name: "Sink[0]-Console", Pipeline: 2},
			}, Edges: []model.Edge{{Source: "1", Target: "2"}, {Source: "3", Target: "4"}}},
			m: JobMetrics{IntermediateQueueSize: i64(2048), SinkWriteCount: i64(50), SinkCommittedCount: i64(40),
				TableSinkWriteCount: map[string]int64{"Sink[0].db.a": 50}, TableSinkCommittedCount: map[string]int64{"Sink[0].db.a": 40}},
			want: map[sampleKey]float64{
				{model.MetricQueueSize, "1", "2"}: 2048, {model.MetricQueueFillRatio, "1", "2"}: 0.5,
				{model.MetricQueueSize, "3", "4"}: 2048, {model.MetricQueueFillRatio, "3", "4"}: 0.5,
				{model.MetricCommittedRecords, "", ""}: 40, {model.MetricCommitLagRecords, "", ""}: 10,
			},
		},
		{
			name: "no graph: the job as a whole",
			m:    JobMetrics{IntermediateQueueSize: i64(1024), SinkWriteCount: i64(10), SinkCommittedCount: i64(10)},
			want: map[sampleKey]float64{
				{model.MetricQueueSize, "", ""}: 1024, {model.MetricQueueFillRatio, "", ""}: 0.5,
				{model.MetricCommittedRecords, "", ""}: 10, {model.MetricCommitLagRecords, "", ""}: 0,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.JobMetricSamples(tc.job, &tc.m, 5000)
			if g := byKey(got); len(g) != len(tc.want) || len(got) != len(tc.want) {
				t.Errorf("samples %v, want %v", g, tc.want)
			}
			for _, s := range got {
				if w, ok := tc.want[sampleKey{s.Metric, s.VertexID, s.Target}]; !ok || math.Abs(s.Value-w) > 1e-9 || s.TimeMs != 5000 || s.Subtask != -1 {
					t.Errorf("sample %+v, want value %v", s, w)
				}
			}
		})
	}
}

func TestRateSamples(t *testing.T) {
	c := newClient(t, "http://127.0.0.1:1")
	job := twoPipelines()
	prev := &JobMetrics{TableSourceReceivedCount: map[string]int64{"Source[0].db.a": 1000, "Source[1].db.c": 50},
		TableSinkWriteCount: map[string]int64{"Sink[0].db.a": 900, "Sink[1].db.c": 40}}
	cur := &JobMetrics{TableSourceReceivedCount: map[string]int64{"Source[0].db.a": 3000, "Source[1].db.c": 10},
		TableSinkWriteCount: map[string]int64{"Sink[0].db.a": 1900, "Sink[1].db.c": 540}}
	got := byKey(c.RateSamples(job, prev, cur, 10*time.Second, 1))
	// Source[1] counts from 0 again (its pipeline was restored): no rate for it.
	want := map[sampleKey]float64{
		{model.MetricSourceRecordsPerSec, "1", ""}: 200,
		{model.MetricSinkRecordsPerSec, "3", ""}:   100, {model.MetricSinkRecordsPerSec, "5", ""}: 50,
	}
	if len(got) != len(want) {
		t.Errorf("rates %v, want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("%v = %v, want %v", k, got[k], w)
		}
	}
	if s := c.RateSamples(job, nil, cur, time.Second, 1); s != nil {
		t.Errorf("no previous snapshot: %v", s)
	}
}
