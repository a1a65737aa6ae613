package flink

// Fuzz targets for the REST decoders. Each serves the fuzz input (a status and a body) from one
// loopback server, reused across iterations, to the real Client method, so the whole path a
// response takes runs: status, body limit, error text, NaN rewriting, JSON decoding, mapping to
// the model. Seeds are real answers of Flink 2.3 and 1.20 (testdata/rest-2.3, rest-1.20,
// recorded from the testenv clusters by testenv/flink/record-fuzz-seeds.sh).
//
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes each target for a while.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/fuzzenv"
)

const (
	fuzzJob     = "b5ca7d45bbaf94c96793c46abb82fb39"
	fuzzVertex  = "6f4ef8783b9a22eb22cec1139d41c184"
	fuzzCluster = "fz"
	fuzzMaxBody = 1 << 20
)

// restOp is one client method under fuzzing; seeds are testdata file names (without the
// version directory) whose answer it decodes.
type restOp struct {
	name  string
	seeds []string
	call  func(t *testing.T, c *Client, body []byte) error
}

func fuzzREST(f *testing.F, ops []restOp, extra ...[]byte) {
	f.Helper()
	for i, op := range ops {
		for _, name := range op.seeds {
			for _, dir := range []string{"rest-2.3", "rest-1.20"} {
				status := 200
				if strings.Contains(name, "404") {
					status = 404
				}
				f.Add(uint8(i), fuzzenv.StatusByte(status), ReadTestdata(f, dir, name))
			}
		}
	}
	for _, b := range extra {
		for i := range ops {
			f.Add(uint8(i), uint8(0), b)
		}
	}
	srv := fuzzenv.New(f)
	c, err := New(Config{BaseURL: srv.URL, Cluster: fuzzCluster, Timeout: 10 * time.Second, MaxBodyBytes: fuzzMaxBody})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, op, status uint8, body []byte) {
		fuzzenv.Count()
		o := ops[int(op)%len(ops)]
		code := fuzzenv.Status(status)
		srv.Answer(code, "application/json", body)
		err := o.call(t, c, body)
		if err == nil {
			if code < 200 || code > 299 {
				t.Fatalf("%s: HTTP %d accepted", o.name, code)
			}
			return
		}
		checkError(t, o.name, code, err)
	})
}

// checkError: every error names the client and the request, and an HTTP error keeps its status.
func checkError(t *testing.T, op string, code int, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "flink: ") || len(msg) < len("flink: GET /x: y") {
		t.Fatalf("%s: error %q does not say what failed", op, msg)
	}
	var fe *Error
	if errors.As(err, &fe) {
		if code < 200 || code > 299 {
			if fe.Status != code {
				t.Fatalf("%s: HTTP %d reported as %d: %v", op, code, fe.Status, err)
			}
			if is := errors.Is(err, ErrNotFound); is != (code == http.StatusNotFound) {
				t.Fatalf("%s: HTTP %d: errors.Is(err, ErrNotFound) = %v", op, code, is)
			}
		}
		if !strings.Contains(msg, "GET /") {
			t.Fatalf("%s: error %q does not name the request", op, msg)
		}
	}
}

// checkCheckpoint holds a decoded checkpoint to what the store and the capture format accept
// (backend/store, backend/capture validation): what the client returns must be storable and
// exportable, whatever Flink sent.
func checkCheckpoint(t *testing.T, cp *model.Checkpoint, wantTasks bool) {
	t.Helper()
	if cp.Cluster != fuzzCluster || cp.JobID != fuzzJob {
		t.Fatalf("checkpoint %d: cluster %q job %q", cp.ID, cp.Cluster, cp.JobID)
	}
	switch cp.Kind {
	case model.KindCheckpoint, model.KindUnaligned, model.KindSavepoint:
	default:
		t.Fatalf("checkpoint %d: kind %q", cp.ID, cp.Kind)
	}
	switch cp.Status {
	case model.StatusCompleted, model.StatusFailed, model.StatusInProgress:
	default:
		t.Fatalf("checkpoint %d: status %q", cp.ID, cp.Status)
	}
	for name, v := range map[string]int64{"id": cp.ID, "trigger": cp.TriggerMs, "latest ack": cp.LatestAckMs,
		"failure": cp.FailureMs, "end to end": cp.EndToEndMs, "state size": cp.StateSize,
		"checkpointed size": cp.CheckpointedSize, "processed": cp.ProcessedData, "persisted": cp.PersistedData,
		"subtasks": int64(cp.NumSubtasks), "acknowledged": int64(cp.NumAcknowledged)} {
		if v < 0 {
			t.Fatalf("checkpoint %d: negative %s %d", cp.ID, name, v)
		}
	}
	if !wantTasks && len(cp.Tasks) > 0 {
		t.Fatalf("checkpoint %d: a history entry with %d tasks", cp.ID, len(cp.Tasks))
	}
	for i := range cp.Tasks {
		if i > 0 && cp.Tasks[i-1].VertexID >= cp.Tasks[i].VertexID {
			t.Fatalf("checkpoint %d: tasks not sorted by vertex or listed twice: %q, %q", cp.ID, cp.Tasks[i-1].VertexID, cp.Tasks[i].VertexID)
		}
		checkTask(t, &cp.Tasks[i])
	}
}

func checkTask(t *testing.T, ts *model.TaskStats) {
	t.Helper()
	for name, v := range map[string]int64{"latest ack": ts.LatestAckMs, "end to end": ts.EndToEndMs,
		"state size": ts.StateSize, "checkpointed size": ts.CheckpointedSize, "processed": ts.ProcessedData,
		"persisted": ts.PersistedData, "subtasks": int64(ts.NumSubtasks), "acknowledged": int64(ts.NumAcknowledged)} {
		if v < 0 {
			t.Fatalf("task %q: negative %s %d", ts.VertexID, name, v)
		}
	}
	for k, s := range ts.Subtasks {
		if s.Index < 0 || k > 0 && s.Index <= ts.Subtasks[k-1].Index {
			t.Fatalf("task %q: subtask indexes not ascending and unique: %+v", ts.VertexID, ts.Subtasks)
		}
		if s.Status != model.SubtaskCompleted && s.Status != model.SubtaskPendingOrFailed {
			t.Fatalf("task %q subtask %d: status %q", ts.VertexID, s.Index, s.Status)
		}
		for name, v := range map[string]int64{"ack": s.AckMs, "end to end": s.EndToEndMs, "start delay": s.StartDelayMs,
			"alignment": s.AlignmentMs, "sync": s.SyncMs, "async": s.AsyncMs, "state size": s.StateSize,
			"checkpointed size": s.CheckpointedSize, "processed": s.ProcessedData, "persisted": s.PersistedData} {
			if v < 0 {
				t.Fatalf("task %q subtask %d: negative %s %d", ts.VertexID, s.Index, name, v)
			}
		}
	}
}

func fuzzCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// FuzzCheckpointResponses: the checkpoint list, a checkpoint's details, a vertex's subtask
// stats and the checkpoint config.
func FuzzCheckpointResponses(f *testing.F) {
	fuzzREST(f, []restOp{
		{"Checkpoints", []string{"checkpoints.json"}, func(t *testing.T, c *Client, _ []byte) error {
			l, err := c.Checkpoints(fuzzCtx(t), fuzzJob)
			for i := range l.History {
				checkCheckpoint(t, &l.History[i], false)
			}
			if l.RestoredMs < 0 {
				t.Fatalf("negative restore time %d", l.RestoredMs)
			}
			return err
		}},
		{"CheckpointDetail", []string{"checkpoint-completed.json", "checkpoint-failed.json", "checkpoint-404.json"},
			func(t *testing.T, c *Client, body []byte) error {
				// Ask for the checkpoint the body is about, so that the mapping runs.
				var probe struct {
					ID int64 `json:"id"`
				}
				_ = json.Unmarshal(body, &probe)
				cp, err := c.CheckpointDetail(fuzzCtx(t), fuzzJob, probe.ID)
				if err == nil {
					if cp.ID != probe.ID {
						t.Fatalf("asked for checkpoint %d, got %d", probe.ID, cp.ID)
					}
					checkCheckpoint(t, &cp, true)
				}
				return err
			}},
		{"SubtaskStats", []string{"subtasks-completed.json", "subtasks-failed.json"}, func(t *testing.T, c *Client, _ []byte) error {
			ts, err := c.SubtaskStats(fuzzCtx(t), fuzzJob, 7, fuzzVertex)
			if err == nil {
				if ts.VertexID != fuzzVertex {
					t.Fatalf("stats of vertex %q", ts.VertexID)
				}
				checkTask(t, &ts)
			}
			return err
		}},
		{"CheckpointConfig", []string{"checkpoint-config.json"}, func(t *testing.T, c *Client, _ []byte) error {
			_, err := c.CheckpointConfig(fuzzCtx(t), fuzzJob)
			return err
		}},
	})
}

// FuzzJobResponses: a job with its graph, the jobs overview, the cluster overview, the
// version (GET /config) and the JobManager's log listing.
func FuzzJobResponses(f *testing.F) {
	fuzzREST(f, []restOp{
		{"Job", []string{"job.json"}, func(t *testing.T, c *Client, _ []byte) error {
			j, err := c.Job(fuzzCtx(t), fuzzJob)
			if err == nil {
				checkJob(t, &j)
				for _, v := range j.Vertices {
					if v.ID == "" || v.Parallelism < 0 {
						t.Fatalf("vertex %+v", v)
					}
				}
				for _, e := range j.Edges {
					if e.Source == "" || e.Target == "" {
						t.Fatalf("edge %+v", e)
					}
				}
			}
			return err
		}},
		{"Jobs", []string{"jobs-overview.json"}, func(t *testing.T, c *Client, _ []byte) error {
			jobs, err := c.Jobs(fuzzCtx(t))
			for i := range jobs {
				checkJob(t, &jobs[i])
			}
			return err
		}},
		{"Overview", []string{"overview.json"}, func(t *testing.T, c *Client, _ []byte) error {
			_, err := c.Overview(fuzzCtx(t))
			return err
		}},
		{"Version", []string{"config.json"}, func(t *testing.T, c *Client, _ []byte) error {
			v, err := c.Version(fuzzCtx(t))
			if err == nil && v == "" {
				t.Fatal("an empty version without an error")
			}
			return err
		}},
		{"LogFiles", []string{"logs.json"}, func(t *testing.T, c *Client, _ []byte) error {
			_, err := c.LogFiles(fuzzCtx(t))
			return err
		}},
	})
}

func checkJob(t *testing.T, j *model.Job) {
	t.Helper()
	if j.ID == "" || j.Cluster != fuzzCluster || j.Engine != model.EngineFlink || j.StartMs < 0 || j.EndMs < 0 || j.UpdatedMs < 0 {
		t.Fatalf("job %+v", j)
	}
}

// nanMetrics is the shape of TestMetricsSkipNaN: bare NaN and Infinity (not JSON), NaN as a
// string, null, a name holding "NaN", an entry without id. The recorded bodies hold "NaN"
// strings only in checkpoint summaries.
const nanMetrics = `[{"id":"busyTimeMsPerSecond","max":NaN,"avg":"NaN"},
	{"id":"backPressuredTimeMsPerSecond","max":12.5,"avg":null,"extra":{"x":[1,"NaN"]}},
	{"id":"idleTimeMsPerSecond","max":"Infinity","avg":3},
	{"id":"note \"NaN\" in a string","max":-Infinity,"avg":"1.5"},
	{"max":1}]`

const nanBackpressure = `{"status":"ok","backpressureLevel":"high","end-timestamp":1796129585474,"subtasks":[
	{"subtask":0,"backpressureLevel":"high","ratio":NaN,"idleRatio":"NaN","busyRatio":Infinity},
	{"subtask":1,"backpressure-level":"low","ratio":0.25,"idleRatio":0.5,"busyRatio":0.25}]}`

// FuzzMetricResponses: vertex metrics (with NaN and Infinity, bare or quoted), the metric
// listing and the backpressure endpoint.
func FuzzMetricResponses(f *testing.F) {
	names := []string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec}
	fuzzREST(f, []restOp{
		{"VertexMetrics", []string{"metrics.json"}, func(t *testing.T, c *Client, _ []byte) error {
			ms, err := c.VertexMetrics(fuzzCtx(t), fuzzJob, fuzzVertex, names, 1234)
			for _, m := range ms {
				if m.Metric == "" || m.Agg != model.AggMax && m.Agg != model.AggAvg || m.Subtask != -1 || m.TimeMs != 1234 {
					t.Fatalf("sample %+v", m)
				}
				checkFinite(t, m)
			}
			return err
		}},
		{"VertexMetricNames", []string{"metric-names.json"}, func(t *testing.T, c *Client, _ []byte) error {
			ids, err := c.VertexMetricNames(fuzzCtx(t), fuzzJob, fuzzVertex)
			for _, id := range ids {
				// Names go back into ?get=a,b,c: one with a comma would split.
				if id == "" || strings.Contains(id, ",") {
					t.Fatalf("metric name %q", id)
				}
			}
			return err
		}},
		{"Backpressure", []string{"backpressure.json"}, func(t *testing.T, c *Client, _ []byte) error {
			bp, err := c.Backpressure(fuzzCtx(t), fuzzJob, fuzzVertex)
			if err != nil {
				return err
			}
			if bp.EndMs < 0 {
				t.Fatalf("negative end time %d", bp.EndMs)
			}
			for _, s := range bp.Samples(fuzzCluster, fuzzJob, fuzzVertex, 1234) {
				if s.Subtask < 0 {
					t.Fatalf("sample of subtask %d", s.Subtask)
				}
				checkFinite(t, s)
			}
			return nil
		}},
	}, []byte(nanMetrics), []byte(nanBackpressure))
}

func checkFinite(t *testing.T, m model.MetricSample) {
	t.Helper()
	if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
		t.Fatalf("sample %s/%s: value %v", m.Metric, m.Agg, m.Value)
	}
}
