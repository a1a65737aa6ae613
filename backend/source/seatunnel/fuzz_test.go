package seatunnel

// Fuzz targets for the REST decoders. Each serves the fuzz input (a status and a body) from one
// loopback server, reused across iterations, to the real Client method and then through the
// conversions the collector applies (History, EdgeSamples, VertexSamples), so the whole path a
// response takes runs. Seeds: the real SeaTunnel 2.3.8 answers in testdata/ (REST v1), the
// 2.3.13-shaped checkpoint overview, and the realtime shapes of PR #10572 that the fake engine
// of the package's tests serves.
//
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes each target for a while.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/fuzzenv"
)

const fuzzCluster = "st"

type restOp struct {
	name  string
	seeds [][]byte
	call  func(t *testing.T, c *Client) error
}

func fuzzREST(f *testing.F, ops []restOp) {
	f.Helper()
	for i, op := range ops {
		for _, b := range op.seeds {
			f.Add(uint8(i), uint8(0), b)
		}
	}
	srv := fuzzenv.New(f)
	c := newClient(f, srv.URL, func(c *Config) { c.Cluster, c.Timeout, c.MaxBodyBytes = fuzzCluster, 10*time.Second, 1<<20 })
	f.Fuzz(func(t *testing.T, op, status uint8, body []byte) {
		fuzzenv.Count()
		o := ops[int(op)%len(ops)]
		code := fuzzenv.Status(status)
		srv.Answer(code, "application/json", body)
		err := o.call(t, c)
		if err == nil {
			return
		}
		if msg := err.Error(); !strings.Contains(msg, "seatunnel") || len(msg) < len("seatunnel: x") {
			t.Fatalf("%s: error %q does not say what failed", o.name, msg)
		}
		var se *Error
		if errors.As(err, &se) && se.Status != 0 && se.Status != code {
			t.Fatalf("%s: HTTP %d reported as %d: %v", o.name, code, se.Status, err)
		}
	})
}

func fuzzCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// checkJob holds a job to what the store and the capture format accept.
func checkJob(t *testing.T, j *model.Job) {
	t.Helper()
	if j.ID == "" || j.Cluster != fuzzCluster || j.Engine != model.EngineSeaTunnel || j.StartMs < 0 || j.EndMs < 0 || j.UpdatedMs < 0 {
		t.Fatalf("job %+v", *j)
	}
	for _, v := range j.Vertices {
		if v.ID == "" || v.Parallelism < 0 || v.Pipeline < 0 {
			t.Fatalf("vertex %+v", v)
		}
	}
	for _, e := range j.Edges {
		if e.Source == "" || e.Target == "" {
			t.Fatalf("edge %+v", e)
		}
	}
}

// FuzzJobResponses: the cluster overview, the job lists (running and finished: both get the
// same answer) and one job with its DAG in every shape SeaTunnel has sent.
func FuzzJobResponses(f *testing.F) {
	fuzzREST(f, []restOp{
		{"Overview", [][]byte{readTestdata(f, "v1-2.3.8-overview.json")}, func(t *testing.T, c *Client) error {
			_, err := c.Overview(fuzzCtx(t))
			return err
		}},
		{"Jobs", [][]byte{readTestdata(f, "v1-2.3.8-running-jobs.json"), readTestdata(f, "v1-2.3.8-finished-jobs.json")},
			func(t *testing.T, c *Client) error {
				jobs, err := c.Jobs(fuzzCtx(t))
				seen := map[string]bool{}
				for i := range jobs {
					checkJob(t, &jobs[i])
					if seen[jobs[i].ID] {
						t.Fatalf("job %s listed twice", jobs[i].ID)
					}
					seen[jobs[i].ID] = true
				}
				return err
			}},
		{"JobInfo", [][]byte{readTestdata(f, "v1-2.3.8-job-info-running.json"), readTestdata(f, "v1-2.3.8-job-info-finished.json"),
			readTestdata(f, "v1-2.3.8-job-info-unknown.json")}, func(t *testing.T, c *Client) error {
			info, err := c.JobInfo(fuzzCtx(t), fakeJobID)
			if err == nil {
				checkJob(t, &info.Job)
				if info.CheckpointIntervalMs < 0 || info.CheckpointTimeoutMs < 0 || info.Parallelism < 0 {
					t.Fatalf("job settings %+v", info)
				}
			}
			return err
		}},
	})
}

// checkCheckpoint holds a converted checkpoint to what the store and the capture format accept.
func checkCheckpoint(t *testing.T, cp *model.Checkpoint) {
	t.Helper()
	if cp.Cluster != fuzzCluster || cp.JobID == "" {
		t.Fatalf("checkpoint %d: cluster %q job %q", cp.ID, cp.Cluster, cp.JobID)
	}
	switch cp.Status {
	case model.StatusCompleted, model.StatusFailed, model.StatusInProgress:
	default:
		t.Fatalf("checkpoint %d: status %q", cp.ID, cp.Status)
	}
	for name, v := range map[string]int64{"id": cp.ID, "pipeline": int64(cp.Pipeline), "trigger": cp.TriggerMs,
		"latest ack": cp.LatestAckMs, "completion": cp.CompletionMs, "failure": cp.FailureMs, "end to end": cp.EndToEndMs,
		"subtasks": int64(cp.NumSubtasks), "acknowledged": int64(cp.NumAcknowledged)} {
		if v < 0 {
			t.Fatalf("checkpoint %d: negative %s %d", cp.ID, name, v)
		}
	}
	if cp.StateBlobs != nil && *cp.StateBlobs < 0 {
		t.Fatalf("checkpoint %d: negative state blobs %d", cp.ID, *cp.StateBlobs)
	}
	if cp.ID == CompletedPointID {
		t.Fatalf("the completed-point came through as checkpoint %d", cp.ID)
	}
}

// historyOf is the answer of GET /jobs/checkpoints/history/:jobId for the recorded overview:
// its ring, as the engine lists it.
func historyOf(f *testing.F, overview []byte) []byte {
	var o struct {
		Pipelines []struct {
			History []json.RawMessage `json:"history"`
		} `json:"pipelines"`
	}
	if err := json.Unmarshal(overview, &o); err != nil || len(o.Pipelines) == 0 {
		f.Fatalf("overview: %v", err)
	}
	b, err := json.Marshal(o.Pipelines[0].History)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzCheckpointResponses: the checkpoint overview (through History, as the collector uses it)
// and the history endpoint.
func FuzzCheckpointResponses(f *testing.F) {
	overview := readTestdata(f, "v2-2.3.13-checkpoints.json")
	fuzzREST(f, []restOp{
		{"Checkpoints", [][]byte{overview}, func(t *testing.T, c *Client) error {
			o, err := c.Checkpoints(fuzzCtx(t), fakeJobID)
			if err != nil {
				return err
			}
			h := c.History(o, 1500, 20000)
			seen := map[[2]int64]bool{}
			for i := range h.Checkpoints {
				cp := &h.Checkpoints[i]
				checkCheckpoint(t, cp)
				k := [2]int64{int64(cp.Pipeline), cp.ID}
				if seen[k] {
					t.Fatalf("checkpoint %d of pipeline %d twice", cp.ID, cp.Pipeline)
				}
				seen[k] = true
			}
			for _, a := range h.InFlight {
				if a.Pipeline < 0 || a.CheckpointID < 0 || a.TimeMs < 0 || a.Acknowledged < 0 || a.Total < 0 {
					t.Fatalf("ack sample %+v", a)
				}
			}
			return nil
		}},
		{"CheckpointHistory", [][]byte{historyOf(f, overview)}, func(t *testing.T, c *Client) error {
			infos, _, err := c.CheckpointHistory(fuzzCtx(t), fakeJobID, HistoryQuery{Limit: 20})
			for _, info := range infos {
				if cp, ok := c.Checkpoint(fakeJobID, info, 20000); ok {
					checkCheckpoint(t, &cp)
				}
			}
			return err
		}},
	})
}

// realtimeSeeds are the realtime answers of the fake engine (realtimeFixture: the shapes of
// PR #10572), and the same with bare NaN, which a Java serializer writes for an empty bucket.
func realtimeSeeds(f *testing.F) (edges, vertices []byte) {
	fz := &fakeZeta{}
	realtimeFixture(fz)
	var err error
	if edges, err = json.Marshal(fz.realtimeEdges); err != nil {
		f.Fatal(err)
	}
	if vertices, err = json.Marshal(fz.realtimeVerts); err != nil {
		f.Fatal(err)
	}
	return edges, vertices
}

// fuzzJob is the graph the realtime samples are attributed with (the fake engine's job).
var fuzzJob = &model.Job{Cluster: fuzzCluster, ID: fakeJobID, Engine: model.EngineSeaTunnel,
	Vertices: []model.Vertex{{ID: "1", Name: "Source[0]-FakeSource"}, {ID: "4", Name: "Transform[0]-Sql"}, {ID: "3", Name: "Sink[0]-Console"}},
	Edges:    []model.Edge{{Source: "1", Target: "4"}, {Source: "4", Target: "3"}}}

func checkSamples(t *testing.T, ms []model.MetricSample) {
	t.Helper()
	for _, m := range ms {
		if m.Metric == "" || m.JobID != fakeJobID || m.Subtask != -1 || m.TimeMs < 0 || math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			t.Fatalf("sample %+v", m)
		}
	}
}

// FuzzRealtimeResponses: the realtime edge and vertex windows, converted to samples.
func FuzzRealtimeResponses(f *testing.F) {
	edges, vertices := realtimeSeeds(f)
	nan := func(b []byte) []byte { return []byte(strings.Replace(string(b), "0.97", "NaN", 1)) }
	fuzzREST(f, []restOp{
		{"RealtimeEdges", [][]byte{edges, []byte(strings.Replace(string(edges), "0.95", "NaN", 1))}, func(t *testing.T, c *Client) error {
			e, err := c.RealtimeEdges(fuzzCtx(t), fakeJobID, time.Minute)
			if err == nil {
				checkSamples(t, c.EdgeSamples(fuzzJob, e, 0))
			}
			return err
		}},
		{"RealtimeVertices", [][]byte{vertices, nan(vertices)}, func(t *testing.T, c *Client) error {
			v, err := c.RealtimeVertices(fuzzCtx(t), fakeJobID, time.Minute)
			if err == nil {
				checkSamples(t, c.VertexSamples(fuzzJob, v, 0))
			}
			return err
		}},
	})
}
