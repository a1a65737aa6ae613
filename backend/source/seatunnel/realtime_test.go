package seatunnel

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// realtimeFixture fills the fake with the shapes of PR #10572: vertices and edges with 5 s
// buckets; the last bucket (ts 20000) is still open at toMs 24000. The transform→sink queue
// (target vertex 3) is the backpressured one; the source→transform queue has no targetVertexId
// and names its target by queue id only (-9 → vertex 4).
func realtimeFixture(f *fakeZeta) {
	point := func(ts int64, bp, fill float64) obj {
		return obj{{"ts", ts}, {"emitBlockedNs", int64(bp * 5e9)}, {"bpRatio", bp}, {"queueSize", int64(fill * 1024)},
			{"queueCapacity", 1024}, {"queueFillRatio", fill}}
	}
	f.realtime = "on"
	f.realtimeEdges = obj{{"enabled", true}, {"bucketMs", 5000}, {"fromMs", 0}, {"toMs", 24000}, {"edges", []obj{
		{{"queueId", -9}, {"points", []obj{point(10000, 0.0, 0.01), point(15000, 0.01, 0.02), point(20000, 0.0, 0.0)}}},
		{{"queueId", -7}, {"targetVertexId", 3}, {"points", []obj{point(10000, 0.8, 0.95), point(15000, 0.9, 1.0), point(20000, 0.9, 1.0)}}},
	}}}
	vpoint := func(ts int64, read, idle, tbusy, sbusy float64, tin, sin int64) obj {
		commit := int64(0)
		if sin > 0 && ts == 15000 {
			commit = 250_000_000 // the sink committed for 250 ms in this bucket
		}
		return obj{{"ts", ts}, {"subtaskCount", 2}, {"sourceReadNs", 1}, {"sourceIdleNs", 1}, {"sourceReadRatio", read},
			{"sourceIdleRatio", idle}, {"transformProcessNs", 0}, {"transformRecordsIn", tin}, {"transformRecordsOut", tin},
			{"transformBusyRatio", tbusy}, {"transformProcessNsPerRecord", 0}, {"sinkWriteNs", 0}, {"sinkRecordsIn", sin},
			{"sinkPrepareCommitNs", commit / 5}, {"sinkCommitNs", commit - commit/5}, {"sinkAbortNs", 0}, {"sinkBusyRatio", sbusy}, {"sinkWriteNsPerRecord", 0}}
	}
	f.realtimeVerts = obj{{"enabled", true}, {"bucketMs", 5000}, {"fromMs", 0}, {"toMs", 24000}, {"vertices", []obj{
		{{"vertexId", 1}, {"points", []obj{vpoint(10000, 0.2, 0.7, 0, 0, 0, 0), vpoint(15000, 0.1, 0.8, 0, 0, 0, 0)}}},
		{{"vertexId", 4}, {"points", []obj{vpoint(10000, 0, 0, 0.05, 0, 500, 0), vpoint(15000, 0, 0, 0.04, 0, 480, 0)}}},
		{{"vertexId", 3}, {"points", []obj{vpoint(10000, 0, 0, 0, 0.97, 0, 100), vpoint(15000, 0, 0, 0, 0.99, 0, 100)}}},
	}}}
}

func TestRealtimeSamples(t *testing.T) {
	f, srv := newFakeZeta(t)
	realtimeFixture(f)
	c := newClient(t, srv.URL)
	ctx := context.Background()
	job, err := c.Job(ctx, fakeJobID)
	if err != nil {
		t.Fatal(err)
	}
	es, err := c.RealtimeEdges(ctx, fakeJobID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s := func(v, target, metric string, ts int64, val float64) model.MetricSample {
		return model.MetricSample{Cluster: "st", JobID: fakeJobID, VertexID: v, Target: target, Subtask: -1,
			Metric: metric, Agg: model.AggAvg, TimeMs: ts, Value: val, Source: "rest"}
	}
	got := c.EdgeSamples(&job, es, 10000)
	// Only 15000 is new and complete; the upstream of each queue comes from the job graph.
	want := []model.MetricSample{
		s("1", "4", model.MetricBPRatio, 15000, 0.01), s("1", "4", model.MetricQueueFillRatio, 15000, 0.02),
		s("4", "3", model.MetricBPRatio, 15000, 0.9), s("4", "3", model.MetricQueueFillRatio, 15000, 1.0),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("edge samples:\n got %+v\nwant %+v", got, want)
	}

	vs, err := c.RealtimeVertices(ctx, fakeJobID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	gotV := c.VertexSamples(&job, vs, 0)
	wantV := []model.MetricSample{
		s("1", "", model.MetricBusyRatio, 10000, 0.2), s("1", "", MetricSourceIdleRatio, 10000, 0.7),
		s("3", "", model.MetricBusyRatio, 10000, 0.97), s("4", "", model.MetricBusyRatio, 10000, 0.05),
		s("1", "", model.MetricBusyRatio, 15000, 0.1), s("1", "", MetricSourceIdleRatio, 15000, 0.8),
		s("3", "", model.MetricBusyRatio, 15000, 0.99),
		// The sink (vertex 3) spent 50 ms preparing and 200 ms doing commits in that bucket.
		s("3", "", model.MetricCommitDurationMs, 15000, 250),
		s("4", "", model.MetricBusyRatio, 15000, 0.04),
	}
	if !reflect.DeepEqual(gotV, wantV) {
		t.Errorf("vertex samples:\n got %+v\nwant %+v", gotV, wantV)
	}
	if f.count("/metrics/realtime/jobs/:jobId/edges") != 1 || f.count("/metrics/realtime/jobs/:jobId/vertices") != 1 {
		t.Errorf("requests = %v", f.requests)
	}
}

func TestRealtimeRoleWithoutGraph(t *testing.T) {
	p := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		name string
		pt   RealtimeVertexPoint
		want string
	}{
		{"sink counters", RealtimeVertexPoint{SinkRecordsIn: 5, SinkBusyRatio: p(0.5)}, "sink"},
		{"transform counters", RealtimeVertexPoint{TransformRecordsIn: 5}, "transform"},
		{"nothing moves", RealtimeVertexPoint{SourceReadRatio: p(0)}, "source"},
	} {
		if got := vertexRole("", tc.pt); got != tc.want {
			t.Errorf("%s: role %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := targetOfQueue(-8); got != "4" {
		t.Errorf("queue -8 → %s, want 4", got)
	}
	if got := targetOfQueue(12); got != "12" {
		t.Errorf("queue 12 → %s, want 12", got)
	}
}

func TestRealtimeUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    error
		text    string
	}{
		{"no such API (2.3.13 and older)", jetty404, ErrNoRealtimeAPI, "added by PR #10572"},
		{"v1 204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }, ErrNoRealtimeAPI, "no realtime metrics REST API"},
		{"disabled on the master", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"status":"fail","message":"Realtime metrics disabled"}`))
		}, ErrRealtimeDisabled, "503 Service Unavailable: Realtime metrics disabled"},
		{"job not tracked", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/metrics/realtime/jobs" {
				_, _ = w.Write([]byte(`{"jobs":[]}`))
				return
			}
			w.WriteHeader(404)
			_, _ = w.Write([]byte(`{"status":"fail","message":"job not found"}`))
		}, ErrNotFound, "engine.observability.enabled=true"},
		{"enabled false", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"enabled":false,"bucketMs":5000}`))
		}, ErrRealtimeDisabled, "realtime metrics disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			_, err := newClient(t, srv.URL).RealtimeEdges(context.Background(), "5", time.Hour)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestRealtimeToleratesNaNAndStrings(t *testing.T) {
	srv := serveFiles(t, map[string]string{"/metrics/realtime/jobs/5/vertices": `{"bucketMs":"5000","toMs":"30000",
		"vertices":[{"vertexId":"3","points":[{"ts":"10000","sinkBusyRatio":NaN,"sinkRecordsIn":"4"},
		{"ts":15000,"sinkBusyRatio":"0.5","sinkRecordsIn":4,"note":"NaN inside a string stays"}]}]}`})
	c := newClient(t, srv.URL)
	vs, err := c.RealtimeVertices(context.Background(), "5", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := c.VertexSamples(&model.Job{ID: "5"}, vs, 0)
	if len(got) != 1 || got[0].TimeMs != 15000 || got[0].Value != 0.5 || got[0].Metric != model.MetricBusyRatio {
		t.Fatalf("samples = %+v, want the 15000 sink busy ratio only (NaN is no value)", got)
	}
}

func TestRealtimeWindowIsCapped(t *testing.T) {
	var gotWindow []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotWindow = append(gotWindow, r.URL.Query().Get("windowMs"))
		_, _ = w.Write([]byte(`{"bucketMs":5000,"edges":[]}`))
	}))
	defer srv.Close()
	c := newClient(t, srv.URL)
	for _, w := range []time.Duration{time.Hour, time.Second, 90 * time.Second} {
		if _, err := c.RealtimeEdges(context.Background(), "5", w); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"600000", "10000", "90000"}; !reflect.DeepEqual(gotWindow, want) {
		t.Fatalf("windowMs = %v, want %v", gotWindow, want)
	}
}
