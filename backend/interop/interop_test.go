package interop

import (
	"bytes"
	"crypto/sha256"
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
	return recordedJob(t, "flink-knobs.ckpt.gz")
}

// recordedJob is the first job of a bundled sample and its checkpoints.
func recordedJob(t *testing.T, sample string) (model.Job, []model.Checkpoint) {
	t.Helper()
	rec := capturetest.Read(t, capturetest.Sample(sample))
	job := rec.Jobs[0]
	mine := rec.CheckpointsOf(job.ID)
	if len(mine) < 5 {
		t.Fatalf("the recording holds %d checkpoints of %s", len(mine), job.ID)
	}
	return job, mine
}

// Exported as OTLP and read back, the checkpoints are the same: status,
// kind, times (latest ack, completion and finalize too, which the span's end
// alone cannot say), sizes, and each acknowledged subtask's phases. Every
// Checkpoint span carries the job as Flink's spans do (jobId, which the
// traces source searches; job_id and job_name as 2.x sends them). The Flink
// 2.3 knob jobs have per-subtask stats; the 1.20 Iceberg job a finalize
// phase (completion after the latest ack). A file holding every span twice
// reads the same.
func TestOTLPRoundTrip(t *testing.T) {
	for _, sample := range []string{"flink-knobs.ckpt.gz", "flink120-iceberg.ckpt.gz"} {
		t.Run(sample, func(t *testing.T) { testOTLPRoundTrip(t, sample) })
	}
}

func testOTLPRoundTrip(t *testing.T, sample string) {
	job, cps := recordedJob(t, sample)
	// A subtask whose end-to-end time is not its ack less the trigger (the engine's figure
	// stands) reads back as it was.
	odd := false
	for i := range cps {
		for t := range cps[i].Tasks {
			for s := range cps[i].Tasks[t].Subtasks {
				if st := &cps[i].Tasks[t].Subtasks[s]; !odd && cps[i].Status != model.StatusInProgress && st.Acknowledged() {
					st.EndToEndMs, odd = st.AckMs-cps[i].TriggerMs-1234, true
				}
			}
		}
	}
	w := NewOTLPWriter(job)
	finished := 0
	withSubtasks, withFinalize := 0, 0
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
	var file OTLPFile
	if err := json.Unmarshal(buf.Bytes(), &file); err != nil {
		t.Fatal(err)
	}
	for _, sp := range file.ResourceSpans[0].ScopeSpans[0].Spans {
		if a := indexAttrs(sp.Attributes); sp.Name == SpanCheckpoint &&
			(a.str(attrFlinkJobID) != job.ID || a.str(attrJobID) != job.ID || a.str(attrJobName) != job.Name) {
			t.Fatalf("span %s: jobId %q, job_id %q, job_name %q; want %s and %q", sp.SpanID, a.str(attrFlinkJobID), a.str(attrJobID),
				a.str(attrJobName), job.ID, job.Name)
		}
	}
	// Every span twice, as a backend keeps spans sent twice: read once. The
	// copy read first lacks each span's last attribute, as a second
	// collector's that knew less of the checkpoint: the fuller copy is read.
	spans := len(file.ResourceSpans[0].ScopeSpans[0].Spans)
	lesser := make([]OTLPSpan, spans)
	for i, sp := range file.ResourceSpans[0].ScopeSpans[0].Spans {
		sp.Attributes = sp.Attributes[:max(0, len(sp.Attributes)-1)]
		lesser[i] = sp
	}
	lesserFile := file.ResourceSpans[0]
	lesserFile.ScopeSpans = []OTLPScopeSpans{{Scope: file.ResourceSpans[0].ScopeSpans[0].Scope, Spans: lesser}}
	file.ResourceSpans = append([]OTLPResourceSpans{lesserFile}, file.ResourceSpans...)
	twice, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadOTLP(bytes.NewReader(twice), "ignored")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checkpoints) != finished || len(got.Jobs) != 1 || got.Jobs[0].ID != job.ID || got.Jobs[0].Name != job.Name || got.Duplicates != spans {
		t.Fatalf("read %d checkpoints of %v, %d duplicate spans; want %d of %s, %d", len(got.Checkpoints), got.Jobs, got.Duplicates, finished, job.ID, spans)
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
			a.LatestAckMs != b.LatestAckMs || a.CompletionMs != b.CompletionMs || a.FailureMs != b.FailureMs || a.EndToEndMs != b.EndToEndMs ||
			!equalPtr(a.FinalizeMs, b.FinalizeMs) || a.NumSubtasks != b.NumSubtasks || a.NumAcknowledged != b.NumAcknowledged ||
			a.StateSize != b.StateSize || a.CheckpointedSize != b.CheckpointedSize || (a.Kind == model.KindUnaligned) != (b.Kind == model.KindUnaligned) {
			t.Errorf("checkpoint %d read back as\n%+v\nwant\n%+v", a.ID, *b, *a)
			continue
		}
		if a.FinalizeMs != nil {
			withFinalize++
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
			return x.Index == y.Index && x.AckMs == y.AckMs && x.EndToEndMs == y.EndToEndMs && x.StartDelayMs == y.StartDelayMs && x.AlignmentMs == y.AlignmentMs &&
				x.SyncMs == y.SyncMs && x.AsyncMs == y.AsyncMs && x.StateSize == y.StateSize && x.CheckpointedSize == y.CheckpointedSize
		}) {
			t.Errorf("checkpoint %d: subtasks read back as %+v, want %+v", a.ID, have, want)
		}
	}
	if withSubtasks == 0 || (strings.Contains(sample, "iceberg") && withFinalize == 0) {
		t.Errorf("%d checkpoints with acknowledged subtasks, %d with a finalize phase: the round trip proved nothing for them", withSubtasks, withFinalize)
	}
}

func equalPtr(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// What the app adds to Flink's attributes reads back as it was stored (a
// failed SeaTunnel pipeline's checkpoint with its failure's details), and
// the job's engine with it.
func TestOTLPCarriesTheAppsFields(t *testing.T) {
	fin, blobs := int64(7), int64(3)
	c := model.Checkpoint{Cluster: "st", JobID: "905", ID: 12, Pipeline: 2, Kind: model.KindCheckpoint, Status: model.StatusFailed,
		TriggerMs: 1_700_000_000_000, LatestAckMs: 1_700_000_000_400, FailureMs: 1_700_000_000_900, EndToEndMs: 400, FinalizeMs: &fin,
		StateBlobs: &blobs, NumSubtasks: 4, NumAcknowledged: 3, FailureMessage: "Checkpoint expired", FailureCause: "java.io.IOException: disk",
		Declined: &model.Decline{VertexID: "v1", Subtask: 2, Attempt: 1, Task: "Sink (3/4)#1", Message: "no space"}, ExternalPath: "hdfs://x/chk-12"}
	job := model.Job{Cluster: "st", ID: "905", Name: "orders", Engine: model.EngineSeaTunnel}
	w := NewOTLPWriter(job)
	w.Add(&c)
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOTLP(&buf, "ignored")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Checkpoints) != 1 || len(got.Jobs) != 1 || got.Jobs[0].Engine != model.EngineSeaTunnel {
		t.Fatalf("%d checkpoints of %+v read, want 1 of a SeaTunnel job", len(got.Checkpoints), got.Jobs)
	}
	if b, _ := json.Marshal(got.Checkpoints[0]); string(b) != jsonOf(c) {
		t.Errorf("read back\n%s\nwant\n%s", b, jsonOf(c))
	}
}

// Span ids derive from what the span is about: the same checkpoint, vertex
// and subtask give the same ids wherever they are computed; any other part
// gives others. The trace id is the first 16 bytes of SHA-256 over the key's
// parts joined by NUL, the checkpoint's span id the next 8.
func TestSpanIDsDerive(t *testing.T) {
	k := model.Key{Cluster: "prod", JobID: "aaaabbbbccccddddeeeeffff00001111", Pipeline: 0, ID: 42}
	sum := sha256.Sum256([]byte("prod\x00aaaabbbbccccddddeeeeffff00001111\x000\x0042"))
	trace, span := CheckpointIDs(k)
	if !bytes.Equal(trace[:], sum[:16]) || !bytes.Equal(span[:], sum[16:24]) {
		t.Fatalf("ids %x/%x, want %x/%x", trace, span, sum[:16], sum[16:24])
	}
	seen := map[[8]byte]string{}
	note := func(what string, id [8]byte) {
		if other, dup := seen[id]; dup {
			t.Errorf("%s has the span id of %s", what, other)
		}
		seen[id] = what
	}
	for _, other := range []model.Key{k, {Cluster: "test", JobID: k.JobID, ID: 42}, {Cluster: "prod", JobID: "b", ID: 42},
		{Cluster: "prod", JobID: k.JobID, Pipeline: 1, ID: 42}, {Cluster: "prod", JobID: k.JobID, ID: 43}} {
		_, s := CheckpointIDs(other)
		note(fmt.Sprint(other), s)
		note(fmt.Sprint(other, " v1"), TaskSpanID(other, "v1"))
		note(fmt.Sprint(other, " v2"), TaskSpanID(other, "v2"))
		note(fmt.Sprint(other, " v1#0"), SubtaskSpanID(other, "v1", 0))
		note(fmt.Sprint(other, " v1#1"), SubtaskSpanID(other, "v1", 1))
	}
	if again, _ := CheckpointIDs(k); again != trace || TaskSpanID(k, "v1") != TaskSpanID(k, "v1") {
		t.Error("the same key gave other ids")
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
