package seatunnel

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// Answers of a real SeaTunnel 2.3.13 node (testdata/v2.3.13, recorded as the node sent them;
// see /work/shared/reference/seatunnel-2.3.13/README.md), decoded as the collector reads them.

const recorded = "v2.3.13/"

func TestRecorded2313Overviews(t *testing.T) {
	const expiredReason = "Checkpoint expired before completing. Please increase checkpoint timeout in the seatunnel.yaml or jobConfig env."
	for _, tc := range []struct {
		name, file, jobID string
		timeoutMs         int64
		check             func(t *testing.T, o CheckpointOverview, h model.History)
	}{
		{
			name: "in progress: 2 of 5 acknowledged, nothing finished yet", file: "checkpoint-overview-in-progress.json",
			jobID: "1181370821395939329",
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if o.UpdatedMs != 1796425703853 || len(o.Pipelines) != 1 {
					t.Fatalf("overview %+v", o)
				}
				p := o.Pipelines[0]
				if p.Counts != (CheckpointCounts{Triggered: 1, InProgress: 1}) || p.LatestCompleted != nil || p.LatestFailed != nil ||
					p.LatestSavepoint != nil || len(p.History) != 0 {
					t.Errorf("pipeline %+v, want one triggered, in progress, {} latest entries, an empty ring", p)
				}
				want := InProgressCheckpoint{Pipeline: 1, ID: 1, Type: TypeCheckpoint, TriggerMs: 1796425703843, Acknowledged: 2, Total: 5}
				if len(p.InProgress) != 1 || p.InProgress[0] != want {
					t.Errorf("in progress %+v, want %+v", p.InProgress, want)
				}
				if len(h.Checkpoints) != 1 || h.Checkpoints[0].Status != model.StatusInProgress || h.Checkpoints[0].NumAcknowledged != 2 ||
					h.Checkpoints[0].NumSubtasks != 5 || h.Triggered != 1 {
					t.Errorf("history %+v", h)
				}
				wantAck := model.AckSample{Cluster: "st", JobID: "1181370821395939329", Pipeline: 1, CheckpointID: 1,
					TimeMs: 1796425703853, Acknowledged: 2, Total: 5}
				if len(h.InFlight) != 1 || h.InFlight[0] != wantAck {
					t.Errorf("ack samples %+v, want %+v stamped with updatedAt", h.InFlight, wantAck)
				}
			},
		},
		{
			name: "expired: failed checkpoints without completion, restores counted", file: "checkpoint-overview-expired.json",
			jobID: "1181370821395087361", timeoutMs: 5000,
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				p := o.Pipelines[0]
				if p.Counts != (CheckpointCounts{Triggered: 4, Failed: 4, Restored: 3}) || p.LatestCompleted != nil || p.LatestSavepoint != nil {
					t.Errorf("pipeline %+v", p)
				}
				lf := p.LatestFailed
				if lf == nil || lf.ID != 4 || lf.Status != "FAILED" || lf.TriggerMs != 1796425667768 || lf.CompletedMs != 0 ||
					lf.DurationMs != nil || lf.StateBlobs == nil || *lf.StateBlobs != 0 || lf.FailureReason != expiredReason {
					t.Errorf("latest failed %+v", lf)
				}
				triggers := map[int64]int64{1: 1796425639854, 2: 1796425649106, 3: 1796425658371, 4: 1796425667768}
				if len(h.Checkpoints) != 4 {
					t.Fatalf("checkpoints %+v", h.Checkpoints)
				}
				for _, cp := range h.Checkpoints {
					// No failure time from the engine: trigger + the job's timeout, for an expiry.
					if cp.Status != model.StatusFailed || cp.FailureMessage != expiredReason || cp.TriggerMs != triggers[cp.ID] ||
						cp.FailureMs != triggers[cp.ID]+5000 || cp.EndToEndMs != 5000 || cp.CompletionMs != 0 {
						t.Errorf("checkpoint %+v", cp)
					}
				}
				if len(h.InFlight) != 0 || h.Counts[1].Restored != 3 {
					t.Errorf("in flight %+v counts %+v", h.InFlight, h.Counts)
				}
			},
		},
		{
			name: "expired, the job's timeout unknown: no failure time", file: "checkpoint-overview-expired.json",
			jobID: "1181370821395087361",
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				for _, cp := range h.Checkpoints {
					if cp.FailureMs != 0 || cp.EndToEndMs != 0 {
						t.Errorf("checkpoint %d: failure at %d after %d ms, want both absent", cp.ID, cp.FailureMs, cp.EndToEndMs)
					}
				}
			},
		},
		{
			name: "a savepoint after checkpoints; latestFailed {}", file: "checkpoint-overview-savepoint.json",
			jobID: "1181372235210817537",
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				p := o.Pipelines[0]
				if o.UpdatedMs != 1796425971381 || p.Counts.Triggered != 41 || p.Counts.Completed != 41 || p.LatestFailed != nil {
					t.Errorf("overview %+v", o)
				}
				sp := p.LatestSavepoint
				if sp == nil || sp.ID != 41 || sp.Type != TypeSavepoint || sp.CompletedMs != 1796425971377 || *sp.DurationMs != 12 || *sp.StateBlobs != 1922 {
					t.Errorf("latest savepoint %+v", sp)
				}
				byID := map[int64]model.Checkpoint{}
				for _, cp := range h.Checkpoints {
					byID[cp.ID] = cp
				}
				if cp := byID[41]; len(byID) != 2 || cp.Kind != model.KindSavepoint || cp.Status != model.StatusCompleted ||
					cp.TriggerMs != 1796425971365 || cp.CompletionMs != 1796425971377 || cp.LatestAckMs != cp.CompletionMs || cp.EndToEndMs != 12 {
					t.Errorf("savepoint 41 = %+v (of %d)", cp, len(byID))
				}
				if cp := byID[40]; cp.Kind != model.KindCheckpoint || cp.EndToEndMs != 9 || *cp.StateBlobs != 1923 {
					t.Errorf("checkpoint 40 = %+v", cp)
				}
			},
		},
		{
			name: "after a cancel without savepoint: the jobId only", file: "checkpoint-overview-after-cancel.json",
			jobID: "1181370821395939329",
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if o.JobID != "1181370821395939329" || o.UpdatedMs != 0 || len(o.Pipelines) != 0 || len(h.Checkpoints) != 0 ||
					h.Triggered != -1 || h.Counts != nil {
					t.Errorf("overview %+v history %+v, want nothing", o, h)
				}
			},
		},
		{
			name: "an unknown job: the jobId only", file: `{"jobId":"1181370821395939999"}`,
			jobID: "1181370821395939999",
			check: func(t *testing.T, o CheckpointOverview, h model.History) {
				if len(o.Pipelines) != 0 || len(o.Problems) != 0 || len(h.Checkpoints) != 0 {
					t.Errorf("overview %+v", o)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.file
			if strings.HasSuffix(body, ".json") {
				body = recorded + body
			}
			srv := serveFiles(t, map[string]string{"/jobs/checkpoints/" + tc.jobID: body})
			c := newClient(t, srv.URL)
			o, err := c.Checkpoints(context.Background(), tc.jobID)
			if err != nil {
				t.Fatal(err)
			}
			if o.JobID != tc.jobID || len(o.Problems) != 0 {
				t.Errorf("job %q problems %v", o.JobID, o.Problems)
			}
			tc.check(t, o, c.History(o, 2000, tc.timeoutMs))
		})
	}
}

func TestRecorded2313History(t *testing.T) {
	const id = "1181372235210817537"
	srv := serveFiles(t, map[string]string{"/jobs/checkpoints/history/" + id: recorded + "checkpoint-history.json"})
	c := newClient(t, srv.URL)
	got, problems, err := c.CheckpointHistory(context.Background(), id, HistoryQuery{})
	if err != nil || len(problems) != 0 {
		t.Fatalf("err %v problems %v", err, problems)
	}
	want := []struct {
		id, trigger, completed, duration, blobs int64
	}{
		{32, 1796425954799, 1796425954809, 10, 1939},
		{31, 1796425952798, 1796425952811, 13, 1941},
		{30, 1796425950798, 1796425950807, 9, 1943},
	}
	if len(got) != len(want) {
		t.Fatalf("entries %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Pipeline != 1 || g.ID != w.id || g.Status != "COMPLETED" || g.Type != TypeCheckpoint || g.TriggerMs != w.trigger ||
			g.CompletedMs != w.completed || *g.DurationMs != w.duration || *g.StateBlobs != w.blobs {
			t.Errorf("entry %d = %+v, want %+v (newest first)", i, g, w)
		}
	}
	// What the node answers an unknown or cancelled job.
	srv = serveFiles(t, map[string]string{"/jobs/checkpoints/history/" + id: `[]`})
	if got, _, err := newClient(t, srv.URL).CheckpointHistory(context.Background(), id, HistoryQuery{}); err != nil || len(got) != 0 {
		t.Errorf("empty history: %+v, %v", got, err)
	}
}

func TestRecorded2313JobInfo(t *testing.T) {
	const id = "1181370821394825217"
	srv := serveFiles(t, map[string]string{"/job-info/" + id: recorded + "job-info-running.json"})
	c := newClient(t, srv.URL)
	info, err := c.JobInfo(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "st213-fake" || info.State != "RUNNING" || info.CheckpointIntervalMs != 2000 || info.CheckpointTimeoutMs != 20000 ||
		info.Parallelism != 2 || info.StartMs != 1796425553000 { // 2026-12-04 23:05:53 UTC
		t.Errorf("job %+v", info)
	}
	if len(info.Vertices) != 2 || info.Vertices[0] != (model.Vertex{ID: "1", Name: "Source[0]-FakeSource", Parallelism: 2, Pipeline: 1}) ||
		info.Vertices[1] != (model.Vertex{ID: "2", Name: "Sink[0]-Console-MultiTableSink", Parallelism: 2, Pipeline: 1}) ||
		len(info.Edges) != 1 || info.Edges[0] != (model.Edge{Source: "1", Target: "2"}) {
		t.Errorf("graph %+v %+v", info.Vertices, info.Edges)
	}
	m := info.Metrics
	if m == nil {
		t.Fatal("no metrics block")
	}
	i64 := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	if i64(m.SourceReceivedCount) != 8600 || i64(m.SinkWriteCount) != 8600 || i64(m.SinkCommittedCount) != 8200 ||
		i64(m.IntermediateQueueSize) != 0 || m.SinkWriteQPS == nil || *m.SinkWriteQPS != 194.60763563862412 ||
		*m.SourceReceivedQPS != 194.62083220069445 || *m.SinkCommittedQPS != 185.58128665451056 {
		t.Errorf("metrics %+v", m)
	}
	const sink = "Sink[0].default.default.default"
	if m.TableSinkCommittedCount[sink] != 8200 || m.TableSinkWriteCount[sink] != 8600 ||
		m.TableSourceReceivedCount["Source[0].default.default.default"] != 8600 {
		t.Errorf("per-table metrics %+v", m)
	}
	// As samples: an empty queue into the sink, 8,200 committed and 400 waiting for a checkpoint.
	got := c.JobMetricSamples(&info.Job, m, 1796425600000)
	want := map[string]model.MetricSample{
		model.MetricQueueSize:        {VertexID: "1", Target: "2", Agg: model.AggNone, Value: 0},
		model.MetricQueueFillRatio:   {VertexID: "1", Target: "2", Agg: model.AggAvg, Value: 0},
		model.MetricCommittedRecords: {VertexID: "2", Agg: model.AggNone, Value: 8200},
		model.MetricCommitLagRecords: {VertexID: "2", Agg: model.AggNone, Value: 400},
	}
	if len(got) != len(want) {
		t.Errorf("samples %+v", got)
	}
	for _, s := range got {
		w, ok := want[s.Metric]
		if !ok || s.VertexID != w.VertexID || s.Target != w.Target || s.Agg != w.Agg || s.Value != w.Value ||
			s.Subtask != -1 || s.TimeMs != 1796425600000 || s.JobID != id || s.Cluster != "st" {
			t.Errorf("sample %+v, want %+v", s, w)
		}
	}
}

func TestRecorded2313Refusals(t *testing.T) {
	const id = "1181370821394825217"
	// What the node's ExceptionHandlingFilter answers bad input with (here a status the
	// history servlet has no enum constant for).
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"status":"fail","message":"No enum constant org.apache.seatunnel.engine.core.checkpoint.CheckpointStatus.DONE"}`))
	}))
	t.Cleanup(bad.Close)
	c := newClient(t, bad.URL)
	_, _, err := c.CheckpointHistory(context.Background(), id, HistoryQuery{Status: "FAILED"})
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || errors.Is(err, ErrNoCheckpointAPI) || errors.Is(err, ErrNotFound) ||
		!strings.Contains(err.Error(), "400 Bad Request: No enum constant org.apache.seatunnel.engine.core.checkpoint.CheckpointStatus.DONE") ||
		!strings.Contains(err.Error(), "/jobs/checkpoints/history/"+id) {
		t.Errorf("err = %v, want the engine's message with the status and path", err)
	}
	if _, err := c.Checkpoints(context.Background(), id); err == nil || !strings.Contains(err.Error(), "400 Bad Request: No enum constant") {
		t.Errorf("overview: err = %v", err)
	}
	// An unknown job's /job-info: {"jobId":""} and nothing else.
	srv := serveFiles(t, map[string]string{"/job-info/" + id: `{"jobId":""}`})
	if _, err := newClient(t, srv.URL).JobInfo(context.Background(), id); !errors.Is(err, ErrNotFound) ||
		!strings.Contains(err.Error(), "not known to the cluster") {
		t.Errorf("unknown job: err = %v", err)
	}
}

// The metrics block of 2.3.8 (REST v1) has no queue size and no committed count, and keys its
// per-table counters by the table alone: the counters go to the only source and sink.
func TestJobMetricsOf238(t *testing.T) {
	const id = "1179434693738364929"
	srv := serveFiles(t, map[string]string{"/job-info/" + id: "v1-2.3.8-job-info-running.json"})
	c := newClient(t, srv.URL)
	info, err := c.JobInfo(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	m := info.Metrics
	if m == nil || m.IntermediateQueueSize != nil || m.SinkCommittedCount != nil || *m.SourceReceivedCount != 2800 ||
		m.TableSinkWriteCount["fake"] != 2800 {
		t.Fatalf("metrics %+v", m)
	}
	if s := c.JobMetricSamples(&info.Job, m, 1); len(s) != 0 {
		t.Errorf("samples %+v, want none: no queue, no commits", s)
	}
	next := *m
	read, written := int64(3800), int64(3300)
	next.SourceReceivedCount, next.SinkWriteCount = &read, &written
	next.TableSourceReceivedCount, next.TableSinkWriteCount = map[string]int64{"fake": read}, map[string]int64{"fake": written}
	rates := c.RateSamples(&info.Job, m, &next, 5e9, 2)
	byMetric := map[string]model.MetricSample{}
	for _, s := range rates {
		byMetric[s.Metric] = s
	}
	src, sink := byMetric[model.MetricSourceRecordsPerSec], byMetric[model.MetricSinkRecordsPerSec]
	if len(rates) != 2 || src.VertexID != "1" || math.Abs(src.Value-200) > 1e-9 || sink.VertexID != "4" || math.Abs(sink.Value-100) > 1e-9 {
		t.Errorf("rates %+v, want 200/s read by the source, 100/s written by the sink", rates)
	}
}
