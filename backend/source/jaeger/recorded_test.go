package jaeger

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
)

const recordedJob = "939d8f5627ab257b5641771c21f601da"

// The recorded answer of a real Jaeger holding Flink 2.3's spans (testdata/README.md) reads as
// the checkpoints the spans describe.
func TestRecordedAnswerReadsAsFlinksCheckpoints(t *testing.T) {
	a := recordedAnswer(t, "api-traces.json")
	cps, traces, skipped := a.checkpoints, a.traces, a.skipped
	if traces != 3 || len(cps) != 3 || skipped != 0 {
		t.Fatalf("%d traces, %d checkpoints, %d skipped; want 3, 3, 0", traces, len(cps), skipped)
	}
	byID := map[int64]model.Checkpoint{}
	for _, c := range cps {
		byID[c.ID] = c
		if c.JobID != recordedJob || c.Cluster != "c1" {
			t.Errorf("checkpoint %d: job %q cluster %q", c.ID, c.JobID, c.Cluster)
		}
	}
	// Values read off the file by hand (startTime, duration, tags).
	for _, w := range []struct {
		id                 int64
		status             model.Status
		trigger, e2e, size int64
		tasks, subtasks    int
	}{
		{24, model.StatusCompleted, 1796153759663, 187, 6666, 6, 12},
		{25, model.StatusFailed, 1796153760661, 70, 6280, 6, 8},
		{26, model.StatusCompleted, 1796153761661, 194, 6666, 6, 12},
	} {
		c, ok := byID[w.id]
		if !ok {
			t.Errorf("checkpoint %d missing", w.id)
			continue
		}
		n := 0
		for _, task := range c.Tasks {
			n += len(task.Subtasks)
		}
		if c.Status != w.status || c.TriggerMs != w.trigger || c.EndToEndMs != w.e2e || c.StateSize != w.size ||
			len(c.Tasks) != w.tasks || n != w.subtasks || c.NumAcknowledged != w.subtasks {
			t.Errorf("checkpoint %d: %s trigger %d e2e %d size %d, %d tasks %d subtasks (%d acked); want %+v",
				c.ID, c.Status, c.TriggerMs, c.EndToEndMs, c.StateSize, len(c.Tasks), n, c.NumAcknowledged, w)
		}
		if c.Status == model.StatusFailed && (c.LatestAckMs != w.trigger+w.e2e || c.FailureMs != 0) {
			t.Errorf("failed checkpoint %d: latest ack %d, failure %d; want the span's end as latest ack and no failure time", c.ID, c.LatestAckMs, c.FailureMs)
		}
	}
	// Subtask 1 of vertex 298755e8… in checkpoint 24: start delay 34, async 7, acked at
	// 1796153759725; the Slow Snapshot vertex's sync phase is the job's 150 ms.
	var found, slow bool
	for _, task := range byID[24].Tasks {
		for _, s := range task.Subtasks {
			if task.VertexID == "298755e8e632b439cafe5a0c747de7e1" && s.Index == 1 {
				found = s.StartDelayMs == 34 && s.AlignmentMs == 0 && s.SyncMs == 0 && s.AsyncMs == 7 && s.AckMs == 1796153759725 &&
					s.Status == model.SubtaskCompleted
				if !found {
					t.Errorf("subtask 298755e8…/1 of checkpoint 24: %+v", s)
				}
			}
			slow = slow || s.SyncMs == 150
		}
	}
	if !found || !slow {
		t.Errorf("checkpoint 24: subtask 298755e8…/1 found %v, a 150 ms sync phase %v", found, slow)
	}
}

// Converting Jaeger's JSON gives what Jaeger's own OTLP form of the same traces (GET
// /api/v3/traces, recorded alongside) reads as.
func TestConversionAgreesWithJaegersOwnOTLP(t *testing.T) {
	v1, v3 := recorded(t, "api-traces.json"), recorded(t, "api-v3-traces.json")
	var wrapped struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(v3, &wrapped); err != nil || len(wrapped.Result) == 0 {
		t.Fatalf("v3 answer: %v", err)
	}
	want, err := interop.ReadOTLP(bytes.NewReader(wrapped.Result), "c1")
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseAnswer(v1, "c1")
	if err != nil {
		t.Fatal(err)
	}
	got := a.checkpoints
	for i := range want.Checkpoints {
		want.Checkpoints[i].Source = model.OriginTraces
	}
	if len(want.Checkpoints) != 3 || len(got) != len(want.Checkpoints) {
		t.Fatalf("%d checkpoints from the conversion, %d from Jaeger's OTLP", len(got), len(want.Checkpoints))
	}
	norm := func(cs []model.Checkpoint) map[int64]string {
		out := map[int64]string{}
		for _, c := range cs {
			sortTasks(&c)
			b, _ := json.Marshal(c)
			out[c.ID] = string(b)
		}
		return out
	}
	g, w := norm(got), norm(want.Checkpoints)
	for id, wj := range w {
		if g[id] != wj {
			t.Errorf("checkpoint %d:\nconverted   %s\nJaeger OTLP %s", id, g[id], wj)
		}
	}
}

// Flink 1.20.5 with flink-metrics-otel 2.0.0 (testdata/README.md) sends job-level spans only,
// with the job id as jobId alone: they read as checkpoints without tasks.
func TestRecordedFlink120AnswerReadsJobLevelCheckpoints(t *testing.T) {
	a := recordedAnswer(t, "api-traces-flink-1.20.json")
	cps, traces := a.checkpoints, a.traces
	if traces != 3 || len(cps) != 3 {
		t.Fatalf("%d traces, %d checkpoints; want 3", traces, len(cps))
	}
	want := map[int64]struct {
		status       model.Status
		trigger, e2e int64
	}{
		4: {model.StatusCompleted, 1796154051604, 57},
		5: {model.StatusFailed, 1796154052603, 43},
		6: {model.StatusCompleted, 1796154053604, 53},
	}
	for _, c := range cps {
		w, ok := want[c.ID]
		if !ok || c.JobID != "44394607a0a8055ab7f9de4327e62b15" || c.Status != w.status || c.TriggerMs != w.trigger ||
			c.EndToEndMs != w.e2e || len(c.Tasks) != 0 {
			t.Errorf("checkpoint %+v, want %+v", c, w)
		}
	}
}

// recorded reads testdata/name, an answer recorded from a real Jaeger.
func recorded(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// recordedAnswer is the recorded answer testdata/name read as the client reads one, for the
// cluster "c1".
func recordedAnswer(t *testing.T, name string) answer {
	t.Helper()
	a, err := parseAnswer(recorded(t, name), "c1")
	if err != nil {
		t.Fatal(err)
	}
	return a
}
