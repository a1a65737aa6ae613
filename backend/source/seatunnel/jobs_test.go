package seatunnel

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

func TestOverviewFromRealV1Node(t *testing.T) {
	srv := serveFiles(t, map[string]string{"/overview": "v1-2.3.8-overview.json"})
	o, err := newClient(t, srv.URL).Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Version != "2.3.8" || o.Workers != 1 {
		t.Fatalf("overview = %+v, want version 2.3.8 with 1 worker (numbers sent as strings)", o)
	}
}

func TestOverviewRejectsOtherServers(t *testing.T) {
	srv := serveFiles(t, map[string]string{"/overview": `{"flink-version":"2.3.0","taskmanagers":1}`})
	_, err := newClient(t, srv.URL).Overview(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is this a SeaTunnel Zeta REST root") {
		t.Fatalf("err = %v, want a hint that this is not SeaTunnel", err)
	}
}

func TestJobsMergesRunningAndFinished(t *testing.T) {
	srv := serveFiles(t, map[string]string{
		"/running-jobs":  "v1-2.3.8-running-jobs.json",
		"/finished-jobs": "v1-2.3.8-finished-jobs.json",
	})
	jobs, err := newClient(t, srv.URL).Jobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The captured running job was cancelled moments later: it is in both lists, once in the result.
	byID := map[string]model.Job{}
	for _, j := range jobs {
		if _, dup := byID[j.ID]; dup {
			t.Errorf("job %s listed twice", j.ID)
		}
		byID[j.ID] = j
	}
	j, ok := byID["1179434693738364929"]
	if !ok {
		t.Fatalf("jobs %v lack the captured job", jobs)
	}
	want := model.Job{
		Cluster: "st", ID: "1179434693738364929", Name: "ce-knob", Engine: model.EngineSeaTunnel,
		State:   "CANCELED",
		StartMs: time.Date(2026, 11, 29, 14, 58, 19, 0, time.UTC).UnixMilli(),
		EndMs:   time.Date(2026, 11, 29, 14, 58, 34, 0, time.UTC).UnixMilli(),
	}
	if !reflect.DeepEqual(j, want) {
		t.Fatalf("job = %+v\nwant  %+v", j, want)
	}
	if len(jobs) < 2 {
		t.Fatalf("got %d jobs, want the earlier finished ones too", len(jobs))
	}
}

func TestJobGraphShapes(t *testing.T) {
	physical := []model.Vertex{
		{ID: "1", Name: "Source[0]-FakeSource", Parallelism: 2, Pipeline: 1},
		{ID: "4", Name: "TransformChain[Transform[0]-Sql]", Parallelism: 2, Pipeline: 1},
		{ID: "3", Name: "Sink[0]-Console-MultiTableSink", Parallelism: 2, Pipeline: 1},
	}
	physicalEdges := []model.Edge{{Source: "1", Target: "4"}, {Source: "4", Target: "3"}}
	for _, tc := range []struct {
		name      string
		body      string
		wantState string
		vertices  []model.Vertex
		edges     []model.Edge
		interval  int64
		timeout   int64
	}{
		{
			// 2.3.8 running: the logical DAG, vertices named with "(id=N)", edges by name.
			name: "v1 2.3.8 running", body: "v1-2.3.8-job-info-running.json", wantState: "RUNNING",
			vertices: []model.Vertex{
				{ID: "1", Name: "Source[0]-FakeSource", Parallelism: 2},
				{ID: "2", Name: "Transform[0]-Sql", Parallelism: 2},
				{ID: "4", Name: "Sink[0]-Console-MultiTableSink", Parallelism: 2},
			},
			edges:    []model.Edge{{Source: "1", Target: "2"}, {Source: "2", Target: "4"}},
			interval: 1500, timeout: 20000,
		},
		{
			// 2.3.8 finished: jobDag is a JSON string; vertexInfoMap an object; no envOptions.
			name: "v1 2.3.8 finished", body: "v1-2.3.8-job-info-finished.json", wantState: "CANCELED",
			vertices: []model.Vertex{
				{ID: "1", Name: "Source[0]-FakeSource", Pipeline: 1},
				{ID: "4", Name: "TransformChain[Transform[0]-Sql]", Pipeline: 1},
				{ID: "3", Name: "Sink[0]-Console-MultiTableSink", Pipeline: 1},
			},
			edges: physicalEdges,
		},
		{
			// 2.3.13: JobDAGInfo.toJsonObject(), edge ids as strings, vertexInfoMap an array.
			name: "v2 2.3.13", wantState: "RUNNING", vertices: physical, edges: physicalEdges,
			interval: 1500, timeout: 3000,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base string
			if tc.body != "" {
				base = serveFiles(t, map[string]string{"/job-info/1179434693738364929": tc.body}).URL
			} else {
				_, srv := newFakeZeta(t)
				base = srv.URL
			}
			info, err := newClient(t, base).JobInfo(context.Background(), "1179434693738364929")
			if err != nil {
				t.Fatal(err)
			}
			if info.State != tc.wantState || info.Engine != model.EngineSeaTunnel || info.Name != "ce-knob" {
				t.Errorf("job = %s %q %s", info.State, info.Name, info.Engine)
			}
			if !reflect.DeepEqual(info.Vertices, tc.vertices) {
				t.Errorf("vertices = %+v\nwant       %+v", info.Vertices, tc.vertices)
			}
			if !reflect.DeepEqual(info.Edges, tc.edges) {
				t.Errorf("edges = %+v, want %+v", info.Edges, tc.edges)
			}
			if info.CheckpointIntervalMs != tc.interval || info.CheckpointTimeoutMs != tc.timeout {
				t.Errorf("interval/timeout = %d/%d, want %d/%d", info.CheckpointIntervalMs, info.CheckpointTimeoutMs, tc.interval, tc.timeout)
			}
		})
	}
}

func TestJobBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, id, body string
		notFound       bool
		want           string
	}{
		{name: "v2 unknown job", id: "42", body: `{"jobId":""}`, notFound: true, want: "job 42 is not known to the cluster"},
		{name: "v1 unknown job", id: "42", body: "v1-2.3.8-job-info-unknown.json", notFound: true, want: "not known"},
		{name: "not a job id", id: "abc", want: `job id "abc" is not a SeaTunnel job id`},
		{name: "html", id: "42", body: "<html>login</html>", want: "response is HTML, not JSON"},
		{name: "edge to nowhere", id: "42",
			body: `{"jobId":"42","jobName":"x","jobStatus":"RUNNING","jobDag":{"vertices":[{"id":1,"name":"A(id=1)"}],"edges":[{"inputVertex":"A","targetVertex":"B"}]}}`,
			want: `edge "A" → "B" names a vertex not in the DAG`},
		{name: "jobDag of the wrong type", id: "42",
			body: `{"jobId":"42","jobName":"x","jobStatus":"RUNNING","jobDag":[1,2]}`, want: "jobDag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveFiles(t, map[string]string{"/job-info/42": tc.body})
			_, err := newClient(t, srv.URL).Job(context.Background(), tc.id)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if got := errors.Is(err, ErrNotFound); got != tc.notFound {
				t.Fatalf("errors.Is(err, ErrNotFound) = %v, want %v (err %v)", got, tc.notFound, err)
			}
		})
	}
}

func TestJobToleratesStringNumbersAndUnknownFields(t *testing.T) {
	srv := serveFiles(t, map[string]string{"/job-info/7": `{"jobId":7,"jobName":"n","jobStatus":"running",
		"someNewField":{"x":[1,2]},"envOptions":{"checkpoint.interval":2000,"parallelism":"3"},
		"createTime":"1795964400000",
		"jobDag":{"jobId":"7","pipelineEdges":{"2":[{"inputVertexId":10,"targetVertexId":"11"}]},
		"vertexInfoMap":[{"vertexId":"10","type":"source","vertexName":"pipeline-2 [Source[0]-X]","tablePaths":[],"extra":true},
		{"vertexId":11,"type":"sink","vertexName":"pipeline-2 [Sink[0]-Y]"}]}}`})
	info, err := newClient(t, srv.URL).JobInfo(context.Background(), "7")
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Vertex{{ID: "10", Name: "Source[0]-X", Parallelism: 3, Pipeline: 2}, {ID: "11", Name: "Sink[0]-Y", Parallelism: 3, Pipeline: 2}}
	if info.ID != "7" || info.State != "RUNNING" || info.CheckpointIntervalMs != 2000 || info.StartMs != 1795964400000 ||
		!reflect.DeepEqual(info.Vertices, want) {
		t.Fatalf("info = %+v", info)
	}
}
