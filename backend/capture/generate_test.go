package capture

import (
	"bufio"
	"os"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// TestGenerateLargeCapture writes a synthetic capture of about CE_GEN_CAPTURE_MB
// megabytes of uncompressed JSON to CE_GEN_CAPTURE, for `make bench` to import.
// Without the variable it is skipped: it is a tool, not a test.
func TestGenerateLargeCapture(t *testing.T) {
	out := os.Getenv("CE_GEN_CAPTURE")
	if out == "" {
		t.Skip("CE_GEN_CAPTURE not set: nothing to generate")
	}
	targetMB := 200
	if v := os.Getenv("CE_GEN_CAPTURE_MB"); v != "" {
		var n int
		for _, ch := range v {
			n = n*10 + int(ch-'0')
		}
		targetMB = n
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	counter := &genCounter{w: bw}
	w, err := NewWriter(counter, Header{RecordedBy: "bench", RecordedAt: time.Unix(1_700_000_000, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	w.Cluster(model.Cluster{Name: "bench", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081"})
	job := model.Job{Cluster: "bench", ID: "0123456789abcdef0123456789abcdef", Name: "bench job", Engine: model.EngineFlink, State: "RUNNING"}
	for v := 0; v < 8; v++ {
		job.Vertices = append(job.Vertices, model.Vertex{ID: genVertexID(v), Name: "Operator " + genVertexID(v), Parallelism: 64})
		if v > 0 {
			job.Edges = append(job.Edges, model.Edge{Source: genVertexID(v - 1), Target: genVertexID(v), ShipStrategy: "HASH"})
		}
	}
	w.Job(job)
	// The uncompressed size is what the JSON encoder produced: track it by records.
	var id int64
	for plain := int64(0); plain < int64(targetMB)<<20; id++ {
		c := genCheckpoint(job, id+1)
		if err := w.Checkpoint(&c); err != nil {
			t.Fatal(err)
		}
		plain += genApproxJSONBytes(&c)
		for v := 0; v < 8; v++ {
			w.MetricSample(model.MetricSample{Cluster: "bench", JobID: job.ID, VertexID: genVertexID(v), Subtask: -1,
				Metric: model.MetricBackPressuredMsPerSec, Agg: model.AggMax, TimeMs: c.TriggerMs, Value: float64((id * 37) % 1000)})
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d checkpoints, %d compressed bytes", out, id, counter.n)
}

type genCounter struct {
	w interface{ Write([]byte) (int, error) }
	n int64
}

func (c *genCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func genVertexID(v int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 32)
	for i := range b {
		b[i] = hex[(v*7+i)%16]
	}
	return string(b)
}

func genCheckpoint(job model.Job, id int64) model.Checkpoint {
	trig := 1_700_000_000_000 + id*1000
	c := model.Checkpoint{Cluster: "bench", JobID: job.ID, ID: id, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
		TriggerMs: trig, LatestAckMs: trig + 80, CompletionMs: trig + 85, EndToEndMs: 80,
		StateSize: 1 << 20, CheckpointedSize: 64 << 10, NumSubtasks: 8 * 64, NumAcknowledged: 8 * 64}
	for _, v := range job.Vertices {
		ts := model.TaskStats{VertexID: v.ID, LatestAckMs: trig + 80, EndToEndMs: 80, StateSize: 1 << 17, CheckpointedSize: 8 << 10, NumSubtasks: 64, NumAcknowledged: 64}
		for s := 0; s < 64; s++ {
			ts.Subtasks = append(ts.Subtasks, model.SubtaskStats{Index: s, Status: model.SubtaskCompleted, AckMs: trig + 40 + int64(s%40),
				EndToEndMs: 40 + int64(s%40), StartDelayMs: int64(s % 5), AlignmentMs: int64(s % 7), SyncMs: 2, AsyncMs: 30,
				StateSize: 2048, CheckpointedSize: 128, ProcessedData: 4096, PersistedData: 0})
		}
		c.Tasks = append(c.Tasks, ts)
	}
	return c
}

// genApproxJSONBytes estimates a checkpoint record's JSON size (per subtask ~232 bytes).
func genApproxJSONBytes(c *model.Checkpoint) int64 {
	var n int64 = 600
	for _, t := range c.Tasks {
		n += 250 + int64(len(t.Subtasks))*232
	}
	return n
}
