package jaeger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// fakeJaeger answers GET /api/traces like Jaeger's query service over a set of checkpoint
// traces: service, operation, tags, start/end (µs, inclusive) and limit honoured, newest first.
type fakeJaeger struct {
	mu       sync.Mutex
	traces   []jTrace
	requests []string
	status   int
	body     string
}

func checkpointTrace(job string, id int64, triggerMs, durMs int64, status string) jTrace {
	tag := func(k, typ string, v any) jTag {
		b, _ := json.Marshal(v)
		return jTag{Key: k, Type: typ, Value: b}
	}
	tid := fmt.Sprintf("%032x", id)
	return jTrace{TraceID: tid, Processes: map[string]jProcess{"p1": {ServiceName: "flink"}}, Spans: []jSpan{{
		TraceID: tid, SpanID: fmt.Sprintf("%016x", id), OperationName: "Checkpoint", ProcessID: "p1",
		StartTime: triggerMs * 1000, Duration: durMs * 1000,
		Tags: []jTag{tag("checkpointId", "int64", id), tag("checkpointStatus", "string", status), tag(JobIDTag, "string", job),
			tag("fullSize", "int64", 1234), tag("otel.scope.name", "string", "org.apache.flink.runtime.checkpoint.CheckpointStatsTracker")},
	}}}
}

func (f *fakeJaeger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.URL.RawQuery)
	if f.status != 0 {
		w.WriteHeader(f.status)
		_, _ = w.Write([]byte(f.body))
		return
	}
	q := r.URL.Query()
	if r.URL.Path != "/api/traces" || q.Get("service") != "flink" || q.Get("operation") != "Checkpoint" || q.Get("raw") != "true" {
		http.Error(w, `{"errors":[{"code":400,"msg":"unexpected request"}]}`, http.StatusBadRequest)
		return
	}
	var tags map[string]string
	if err := json.Unmarshal([]byte(q.Get("tags")), &tags); err != nil {
		http.Error(w, `{"errors":[{"code":400,"msg":"bad tags"}]}`, http.StatusBadRequest)
		return
	}
	start, _ := strconv.ParseInt(q.Get("start"), 10, 64)
	end, _ := strconv.ParseInt(q.Get("end"), 10, 64)
	limit, _ := strconv.Atoi(q.Get("limit"))
	var out []jTrace
	for i := len(f.traces) - 1; i >= 0 && len(out) < limit; i-- {
		sp := f.traces[i].Spans[0]
		var job string
		for _, tg := range sp.Tags {
			if tg.Key == JobIDTag {
				_ = json.Unmarshal(tg.Value, &job)
			}
		}
		if sp.StartTime >= start && sp.StartTime <= end && job == tags[JobIDTag] {
			out = append(out, f.traces[i])
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": out, "total": 0, "limit": 0, "offset": 0, "errors": nil})
}

func newFake(t *testing.T, f *fakeJaeger, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.Service = srv.URL, "flink"
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var t0 = time.UnixMilli(1_750_000_000_000)

func TestCheckpointsSplitsFullWindowsAndReadsTheRangeWhole(t *testing.T) {
	f := &fakeJaeger{}
	for i := int64(1); i <= 40; i++ {
		st := "COMPLETED"
		if i%7 == 0 {
			st = "FAILED"
		}
		f.traces = append(f.traces, checkpointTrace("job-a", i, t0.UnixMilli()+i*1000, 30+i, st))
		f.traces = append(f.traces, checkpointTrace("job-b", i, t0.UnixMilli()+i*1000+5, 10, "COMPLETED"))
	}
	var reqs []RequestInfo
	c := newFake(t, f, Config{PageSize: 8, EngineConfig: restclient.EngineConfig{Cluster: "c1", OnRequest: func(r RequestInfo) { reqs = append(reqs, r) }}})
	res, err := c.Checkpoints(context.Background(), "job-a", t0, t0.Add(41*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() {
		t.Fatalf("incomplete: %v", res.Incomplete)
	}
	if len(res.Checkpoints) != 40 {
		t.Fatalf("%d checkpoints, want 40", len(res.Checkpoints))
	}
	for i, cp := range res.Checkpoints {
		id := int64(i + 1)
		want := model.StatusCompleted
		if id%7 == 0 {
			want = model.StatusFailed
		}
		if cp.ID != id || cp.JobID != "job-a" || cp.Cluster != "c1" || cp.Status != want ||
			cp.TriggerMs != t0.UnixMilli()+id*1000 || cp.EndToEndMs != 30+id || cp.StateSize != 1234 {
			t.Errorf("checkpoint %d: %+v", id, cp)
		}
	}
	if res.Requests < 5 || res.Requests > DefaultMaxRequests || len(reqs) != res.Requests {
		t.Errorf("%d requests (%d seen), want a split range within the bound", res.Requests, len(reqs))
	}
	for _, r := range reqs {
		if r.Endpoint != "/api/traces" || r.Status != 200 || r.Bytes == 0 {
			t.Errorf("request info %+v", r)
		}
	}
	// Half-open: a checkpoint triggered exactly at the end is not in the range.
	res, err = c.Checkpoints(context.Background(), "job-a", t0.Add(10*time.Second), t0.Add(12*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checkpoints) != 2 || res.Checkpoints[0].ID != 10 || res.Checkpoints[1].ID != 11 {
		t.Errorf("[10 s, 12 s): %+v", res.Checkpoints)
	}
}

func TestCheckpointsStopsAtMaxRequestsAndSaysWhatItMissed(t *testing.T) {
	f := &fakeJaeger{}
	for i := int64(1); i <= 100; i++ {
		f.traces = append(f.traces, checkpointTrace("job-a", i, t0.UnixMilli()+i*100, 5, "COMPLETED"))
	}
	c := newFake(t, f, Config{PageSize: 5, MaxRequests: 4, MinWindow: 500 * time.Millisecond})
	res, err := c.Checkpoints(context.Background(), "job-a", t0, t0.Add(11*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 4 || len(f.requests) != 4 {
		t.Errorf("%d requests (%d served), want MaxRequests 4", res.Requests, len(f.requests))
	}
	if res.Complete() || len(res.Incomplete) == 0 {
		t.Fatalf("complete after 4 requests of 5 over 100 checkpoints: %+v", res)
	}
	var missed time.Duration
	for _, w := range res.Incomplete {
		missed += w.To.Sub(w.From)
	}
	if missed == 0 || missed > 11*time.Second {
		t.Errorf("incomplete windows %v", res.Incomplete)
	}

	// A window at MinWindow that is still full is reported, not split further.
	c = newFake(t, f, Config{PageSize: 5, MinWindow: 2 * time.Second})
	res, err = c.Checkpoints(context.Background(), "job-a", t0, t0.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 1 || len(res.Incomplete) != 1 || len(res.Checkpoints) != 5 {
		t.Errorf("full window at MinWindow: %d requests, incomplete %v, %d checkpoints", res.Requests, res.Incomplete, len(res.Checkpoints))
	}
}

func TestCheckpointsSplitsOnBodiesOverTheLimit(t *testing.T) {
	f := &fakeJaeger{}
	for i := int64(1); i <= 12; i++ {
		f.traces = append(f.traces, checkpointTrace("job-a", i, t0.UnixMilli()+i*1000, 5, "COMPLETED"))
	}
	// One trace is ~700 bytes: a body of more than 3 is over the limit.
	c := newFake(t, f, Config{PageSize: 100, EngineConfig: restclient.EngineConfig{MaxBodyBytes: 2500}})
	res, err := c.Checkpoints(context.Background(), "job-a", t0, t0.Add(13*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() || len(res.Checkpoints) != 12 || res.Requests < 3 {
		t.Errorf("complete %v, %d checkpoints in %d requests (incomplete %v)", res.Complete(), len(res.Checkpoints), res.Requests, res.Incomplete)
	}
}

func TestCheckpointsErrors(t *testing.T) {
	f := &fakeJaeger{status: http.StatusBadRequest, body: `{"data":null,"errors":[{"code":400,"msg":"malformed parameter start"}]}`}
	c := newFake(t, f, Config{})
	_, err := c.Checkpoints(context.Background(), "job-a", t0, t0.Add(time.Minute))
	var je *Error
	if !errors.As(err, &je) || je.Status != 400 || !strings.Contains(err.Error(), "malformed parameter start") ||
		!strings.HasPrefix(err.Error(), "jaeger: GET /api/traces?") {
		t.Errorf("error %v", err)
	}
	f.status, f.body = http.StatusOK, `<html>login</html>`
	if _, err := c.Checkpoints(context.Background(), "job-a", t0, t0.Add(time.Minute)); err == nil || !strings.Contains(err.Error(), "not Jaeger's trace JSON") {
		t.Errorf("HTML answer: %v", err)
	}
	if _, err := c.Checkpoints(context.Background(), "", t0, t0.Add(time.Minute)); err == nil {
		t.Error("no job id accepted")
	}
	if _, err := c.Checkpoints(context.Background(), "job-a", t0, t0); err == nil {
		t.Error("empty range accepted")
	}
	for _, cfg := range []Config{
		{EngineConfig: restclient.EngineConfig{BaseURL: "http://127.0.0.1:16686"}},
		{EngineConfig: restclient.EngineConfig{BaseURL: "http://127.0.0.1:16686"}, Service: "flink", PageSize: MaxPageSize + 1},
		{EngineConfig: restclient.EngineConfig{BaseURL: "http://127.0.0.1:16686"}, Service: "flink", MaxRequests: -1},
		{EngineConfig: restclient.EngineConfig{BaseURL: "ftp://127.0.0.1:16686"}, Service: "flink"},
	} {
		if _, err := New(cfg); err == nil || !strings.HasPrefix(err.Error(), "jaeger: ") {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
	// The transport error names the request and unwraps to the cause.
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err = New(Config{EngineConfig: restclient.EngineConfig{BaseURL: srv.URL}, Service: "flink"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Checkpoints(ctx, "job-a", t0, t0.Add(time.Minute)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
