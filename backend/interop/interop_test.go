package interop

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
)

// realCheckpoints are a real recording's (Flink 2.3 knob jobs, with
// per-subtask stats): one job's checkpoints and the job.
func realCheckpoints(t *testing.T) (model.Job, []model.Checkpoint) {
	t.Helper()
	rec := capturetest.Read(t, capturetest.Sample("flink-knobs.ckpt.gz"))
	job := rec.Jobs[0]
	mine := rec.CheckpointsOf(job.ID)
	if len(mine) < 5 {
		t.Fatalf("the recording holds %d checkpoints of %s", len(mine), job.ID)
	}
	return job, mine
}

// Exported as OTLP and read back, the checkpoints are the same: status,
// kind, times, sizes, and each acknowledged subtask's phases.
func TestOTLPRoundTrip(t *testing.T) {
	job, cps := realCheckpoints(t)
	w := NewOTLPWriter(job)
	finished := 0
	withSubtasks := 0
	for i := range cps {
		w.Add(&cps[i])
		if cps[i].Status != model.StatusInProgress {
			finished++
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"name":"`+FlinkSpanScope+`"`) || !strings.Contains(buf.String(), `"maxAlignmentDurationMs"`) {
		t.Fatal("the file does not use Flink's scope and attribute names")
	}
	got, err := ReadOTLP(&buf, "ignored")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checkpoints) != finished || len(got.Jobs) != 1 || got.Jobs[0].ID != job.ID || got.Jobs[0].Name != job.Name {
		t.Fatalf("read %d checkpoints of %v; want %d of %s", len(got.Checkpoints), got.Jobs, finished, job.ID)
	}
	k := 0
	for i := range cps {
		a := &cps[i]
		if a.Status == model.StatusInProgress {
			continue
		}
		b := &got.Checkpoints[k]
		k++
		if a.ID != b.ID || a.Status != b.Status || a.Cluster != b.Cluster || a.TriggerMs != b.TriggerMs || a.EndMs() != b.EndMs() ||
			a.StateSize != b.StateSize || a.CheckpointedSize != b.CheckpointedSize || (a.Kind == model.KindUnaligned) != (b.Kind == model.KindUnaligned) {
			t.Errorf("checkpoint %d read back as\n%+v\nwant\n%+v", a.ID, *b, *a)
			continue
		}
		var want, have []model.SubtaskStats
		for _, task := range a.Tasks {
			for _, s := range task.Subtasks {
				if s.Acknowledged() {
					s.Aborted = false
					want = append(want, s)
				}
			}
		}
		for _, task := range b.Tasks {
			have = append(have, task.Subtasks...)
		}
		if len(want) > 0 {
			withSubtasks++
		}
		if !slices.EqualFunc(want, have, func(x, y model.SubtaskStats) bool {
			return x.Index == y.Index && x.AckMs == y.AckMs && x.StartDelayMs == y.StartDelayMs && x.AlignmentMs == y.AlignmentMs &&
				x.SyncMs == y.SyncMs && x.AsyncMs == y.AsyncMs && x.StateSize == y.StateSize && x.CheckpointedSize == y.CheckpointedSize
		}) {
			t.Errorf("checkpoint %d: subtasks read back as %+v, want %+v", a.ID, have, want)
		}
	}
	if withSubtasks == 0 {
		t.Error("no checkpoint of the recording had acknowledged subtasks: the round trip proved nothing for them")
	}
}

// A file of Flink 1.20's job-level spans (no children; a span Flink also
// reports, JobInitialization, among them) opens with what they say.
func TestReadOTLPJobLevelSpans(t *testing.T) {
	const file = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"flink"}}]},
	"scopeSpans":[{"scope":{"name":"org.apache.flink.runtime.checkpoint.CheckpointStatsTracker"},"spans":[
	{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"Checkpoint","kind":1,
	 "startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000001500000000","attributes":[
	 {"key":"checkpointId","value":{"intValue":"42"}},{"key":"checkpointStatus","value":{"stringValue":"COMPLETED"}},
	 {"key":"fullSize","value":{"intValue":1048576}},{"key":"checkpointedSize","value":{"intValue":"4096"}},
	 {"key":"isUnaligned","value":{"stringValue":"true"}},{"key":"maxAlignmentDurationMs","value":{"intValue":"900"}},
	 {"key":"job_id","value":{"stringValue":"aaaabbbbccccddddeeeeffff00001111"}}]},
	{"traceId":"0af7651916cd43dd8448eb211c80319d","spanId":"b7ad6b7169203332","name":"JobInitialization","kind":1,
	 "startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000000000000","attributes":[]}]}]}]}`
	got, err := ReadOTLP(strings.NewReader(file), "traces: lab")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checkpoints) != 1 || got.Skipped != 1 {
		t.Fatalf("%d checkpoints, %d skipped; want 1 and 1", len(got.Checkpoints), got.Skipped)
	}
	c := got.Checkpoints[0]
	if c.ID != 42 || c.Status != model.StatusCompleted || c.Kind != model.KindUnaligned || c.EndToEndMs != 1500 ||
		c.StateSize != 1<<20 || c.CheckpointedSize != 4096 || c.Cluster != "traces: lab" || c.JobID != "aaaabbbbccccddddeeeeffff00001111" || len(c.Tasks) != 0 {
		t.Fatalf("read %+v", c)
	}
	for _, bad := range []string{`{`, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"Checkpoint","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[]}]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"Checkpoint","startTimeUnixNano":"x","endTimeUnixNano":"2","attributes":[{"key":"checkpointId","value":{"intValue":"1"}}]}]}]}]}`} {
		if _, err := ReadOTLP(strings.NewReader(bad), "c"); err == nil || !strings.HasPrefix(err.Error(), "otlp: ") {
			t.Errorf("%.40s…: error %v, want one naming the problem", bad, err)
		}
	}
}

// Flink ends a failed checkpoint's span at its latest acknowledgement (-1
// when none came): that is the latest ack read, not a failure time.
func TestReadOTLPFailedSpansEndAtTheLatestAck(t *testing.T) {
	span := func(id, end string) string {
		return `{"traceId":"0af7651916cd43dd8448eb211c8031` + id + `","spanId":"b7ad6b71692033` + id + `","name":"Checkpoint","kind":1,
		 "startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"` + end + `","attributes":[
		 {"key":"checkpointId","value":{"intValue":"` + id + `"}},{"key":"checkpointStatus","value":{"stringValue":"FAILED"}},
		 {"key":"job_id","value":{"stringValue":"aaaabbbbccccddddeeeeffff00001111"}}]}`
	}
	file := `{"resourceSpans":[{"scopeSpans":[{"scope":{"name":"` + FlinkSpanScope + `"},"spans":[` +
		span("11", "1700000000045000000") + `,` + span("12", "-1000000") + `]}]}]}`
	got, err := ReadOTLP(strings.NewReader(file), "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checkpoints) != 2 {
		t.Fatalf("%d checkpoints, want 2", len(got.Checkpoints))
	}
	a, b := got.Checkpoints[0], got.Checkpoints[1]
	if a.Status != model.StatusFailed || a.LatestAckMs != 1700000000045 || a.EndToEndMs != 45 || a.FailureMs != 0 || a.EndMs() != 1700000000045 {
		t.Errorf("failed with acks: %+v", a)
	}
	if b.Status != model.StatusFailed || b.LatestAckMs != 0 || b.EndToEndMs != 0 || b.FailureMs != 0 {
		t.Errorf("failed without acks: %+v", b)
	}
}

// The CSV has one row per checkpoint with the documented columns, or one
// per subtask with --per-subtask.
func TestCSV(t *testing.T) {
	_, cps := realCheckpoints(t)
	for _, per := range []bool{false, true} {
		var buf bytes.Buffer
		w := NewCSVWriter(&buf, per)
		subtasks := 0
		for i := range cps {
			if err := w.Add(&cps[i]); err != nil {
				t.Fatal(err)
			}
			for _, task := range cps[i].Tasks {
				subtasks += len(task.Subtasks)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		cols, want := CheckpointColumns, len(cps)
		if per {
			cols, want = SubtaskColumns, subtasks
		}
		if !slices.Equal(rows[0], cols) || len(rows)-1 != want {
			t.Fatalf("per subtask %v: header %v and %d rows; want %v and %d", per, rows[0], len(rows)-1, cols, want)
		}
		if first := rows[1]; !per && (first[3] != strconv.FormatInt(cps[0].ID, 10) || first[5] != string(cps[0].Status) ||
			first[6] != strconv.FormatInt(cps[0].TriggerMs, 10)) {
			t.Errorf("first row %v, want checkpoint %d (%s, triggered %d)", first, cps[0].ID, cps[0].Status, cps[0].TriggerMs)
		}
	}
}

// The Perfetto trace of a real recording follows the Trace Event Format's
// rules: whole microseconds; on each thread, complete slices nest or do not
// overlap; every async begin has its end (same category and id), after it;
// every process and thread used is named.
func TestPerfettoFollowsTheTraceEventFormat(t *testing.T) {
	job, cps := realCheckpoints(t)
	w := NewPerfettoWriter(job)
	for i := range cps {
		w.Add(&cps[i])
	}
	w.AddMetric(&model.MetricSample{VertexID: job.Vertices[0].ID, Subtask: -1, Metric: model.MetricBackPressuredMsPerSec,
		TimeMs: cps[0].TriggerMs, Value: 420})
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Cat  string          `json:"cat"`
			Ph   string          `json:"ph"`
			Ts   json.Number     `json:"ts"`
			Dur  *json.Number    `json:"dur"`
			Pid  int             `json:"pid"`
			Tid  int             `json:"tid"`
			ID   string          `json:"id"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	type span struct{ from, to int64 }
	stacks := map[int][]span{}
	open := map[string]int64{}
	named := map[string]bool{}
	used := map[string]bool{}
	slicesOn, asyncs, counters := 0, 0, 0
	for _, e := range doc.TraceEvents {
		ts, err := e.Ts.Int64()
		if err != nil {
			t.Fatalf("%s %q: ts %s is not whole microseconds", e.Ph, e.Name, e.Ts)
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name":
				named[fmt.Sprint("p", e.Pid)] = true
			case "thread_name":
				named[fmt.Sprint("t", e.Pid, "/", e.Tid)] = true
			}
		case "X":
			slicesOn++
			used[fmt.Sprint("t", e.Pid, "/", e.Tid)], used[fmt.Sprint("p", e.Pid)] = true, true
			if e.Dur == nil {
				t.Fatalf("X %q without dur", e.Name)
			}
			d, err := e.Dur.Int64()
			if err != nil || d < 0 {
				t.Fatalf("X %q: dur %v", e.Name, e.Dur)
			}
			s := span{ts, ts + d}
			st := stacks[e.Tid]
			for len(st) > 0 && st[len(st)-1].to <= s.from {
				st = st[:len(st)-1]
			}
			if len(st) > 0 && s.to > st[len(st)-1].to {
				t.Fatalf("thread %d: %q [%d, %d] overlaps [%d, %d] without nesting", e.Tid, e.Name, s.from, s.to, st[len(st)-1].from, st[len(st)-1].to)
			}
			stacks[e.Tid] = append(st, s)
		case "b":
			asyncs++
			k := e.Cat + "/" + e.ID
			if _, dup := open[k]; dup || e.ID == "" {
				t.Fatalf("async %q begins twice or without an id", k)
			}
			open[k] = ts
		case "e":
			k := e.Cat + "/" + e.ID
			b, ok := open[k]
			if !ok || ts < b {
				t.Fatalf("async %q ends before it begins, or without a begin", k)
			}
			delete(open, k)
		case "C":
			counters++
		default:
			t.Fatalf("unexpected phase %q", e.Ph)
		}
	}
	if len(open) > 0 {
		t.Fatalf("%d async slices never end", len(open))
	}
	for k := range used {
		if !named[k] {
			t.Errorf("%s is used but not named", k)
		}
	}
	if slicesOn == 0 || asyncs == 0 || counters < 2 || doc.DisplayTimeUnit != "ms" {
		t.Fatalf("%d slices, %d async, %d counters, unit %q: the trace lacks a kind of event", slicesOn, asyncs, counters, doc.DisplayTimeUnit)
	}
}
