package capture

import (
	"bufio"
	"os"
	"strconv"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// TestGenerateLargeCapture writes a synthetic capture of about CE_GEN_CAPTURE_MB
// megabytes of uncompressed JSON to CE_GEN_CAPTURE, for `make bench` to import;
// or, with CE_GEN_CHECKPOINTS, exactly that many checkpoints of
// CE_GEN_VERTICES × CE_GEN_SUBTASKS (default 8 × 64).
// Without CE_GEN_CAPTURE it is skipped: it is a tool, not a test.
func TestGenerateLargeCapture(t *testing.T) {
	out := os.Getenv("CE_GEN_CAPTURE")
	if out == "" {
		t.Skip("CE_GEN_CAPTURE not set: nothing to generate")
	}
	envInt := func(k string, def int) int {
		v, err := strconv.Atoi(os.Getenv(k))
		if err != nil || v <= 0 {
			return def
		}
		return v
	}
	targetMB := envInt("CE_GEN_CAPTURE_MB", 200)
	count := int64(envInt("CE_GEN_CHECKPOINTS", 0))
	vertices := envInt("CE_GEN_VERTICES", 8)
	subtasks := envInt("CE_GEN_SUBTASKS", 64)
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
	for v := 0; v < vertices; v++ {
		job.Vertices = append(job.Vertices, model.Vertex{ID: genVertexID(v), Name: "Operator " + genVertexID(v), Parallelism: subtasks})
		if v > 0 {
			job.Edges = append(job.Edges, model.Edge{Source: genVertexID(v - 1), Target: genVertexID(v), ShipStrategy: "HASH"})
		}
	}
	w.Job(job)
	// The uncompressed size is what the JSON encoder produced: track it by records.
	var id int64
	// Recent trigger times, so the default age limit keeps them after import.
	base := time.Now().Add(-48 * time.Hour).UnixMilli()
	for plain := int64(0); (count > 0 && id < count) || (count == 0 && plain < int64(targetMB)<<20); id++ {
		c := genCheckpoint(job, id+1, base)
		if err := w.Checkpoint(&c); err != nil {
			t.Fatal(err)
		}
		plain += genApproxJSONBytes(&c)
		for v := 0; v < vertices; v++ {
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

func genCheckpoint(job model.Job, id, base int64) model.Checkpoint {
	trig := base + id*1000
	// Mostly quick, every 500th slow in alignment, every 97th failed: enough
	// variety for the views and the analysis to have something to show.
	dur := 40 + (id*37)%80
	align := int64(0)
	if id%500 == 0 {
		align = 4000 + (id*13)%3000
		dur += align
	}
	failed := id%97 == 0
	c := model.Checkpoint{Cluster: "bench", JobID: job.ID, ID: id, Kind: model.KindCheckpoint, Status: model.StatusCompleted,
		TriggerMs: trig, LatestAckMs: trig + dur, CompletionMs: trig + dur + 5, EndToEndMs: dur,
		StateSize: 1<<20 + id*64, CheckpointedSize: 64<<10 + (id%50)*512}
	if failed {
		c.Status, c.CompletionMs, c.FailureMs = model.StatusFailed, 0, trig+dur
		c.FailureMessage = "Checkpoint expired before completing."
	}
	for vi, v := range job.Vertices {
		ts := model.TaskStats{VertexID: v.ID, LatestAckMs: trig + dur, EndToEndMs: dur, StateSize: 1 << 17, CheckpointedSize: 8 << 10, NumSubtasks: v.Parallelism}
		c.NumSubtasks += v.Parallelism
		for s := 0; s < v.Parallelism; s++ {
			if failed && vi == len(job.Vertices)-1 {
				ts.Subtasks = append(ts.Subtasks, model.SubtaskStats{Index: s, Status: model.SubtaskPendingOrFailed})
				continue
			}
			e2e := dur - int64(s%40)
			st := model.SubtaskStats{Index: s, Status: model.SubtaskCompleted, AckMs: trig + e2e,
				EndToEndMs: e2e, StartDelayMs: int64(s % 5), AlignmentMs: int64(s%7) + align*int64(vi)/int64(len(job.Vertices)), SyncMs: 2, AsyncMs: 30,
				StateSize: 2048, CheckpointedSize: 128, ProcessedData: 4096, PersistedData: 0}
			ts.Subtasks = append(ts.Subtasks, st)
			ts.NumAcknowledged++
		}
		c.NumAcknowledged += ts.NumAcknowledged
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
