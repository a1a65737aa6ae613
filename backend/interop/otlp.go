// Package interop writes checkpoints in other tools' formats and reads
// Flink's own checkpoint spans: OTLP JSON (docs/interop.md). It knows
// nothing of the cache or of HTTP: it turns model values into bytes and
// back.
package interop

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"checkpoint-explorer/backend/model"
)

// Flink's names for its checkpoint spans (FLIP-384; the scope is the class
// that reports them, CheckpointStatsTracker). The job-level span carries
// max<Metric> and sum<Metric> aggregates over the subtasks; with
// traces.checkpoint.span-detail-level CHILDREN_SPANS_PER_SUBTASK (Flink
// 2.2+) a child per task and a grandchild per subtask carry them too.
const (
	FlinkSpanScope        = "org.apache.flink.runtime.checkpoint.CheckpointStatsTracker"
	SpanCheckpoint        = "Checkpoint"
	SpanCheckpointTask    = "Checkpoint_Task"
	SpanCheckpointSubtask = "Checkpoint_Subtask"
)

// The metrics Flink aggregates, by its names, and where they live in a subtask.
var spanMetrics = []struct {
	name string
	get  func(s *model.SubtaskStats) int64
	set  func(s *model.SubtaskStats, v int64)
	sum  bool // Flink reports sum<name> too (not for the two sizes: fullSize and checkpointedSize say it)
}{
	{"StateSizeBytes", func(s *model.SubtaskStats) int64 { return s.StateSize }, func(s *model.SubtaskStats, v int64) { s.StateSize = v }, false},
	{"CheckpointedSizeBytes", func(s *model.SubtaskStats) int64 { return s.CheckpointedSize }, func(s *model.SubtaskStats, v int64) { s.CheckpointedSize = v }, false},
	{"CheckpointStartDelayMs", func(s *model.SubtaskStats) int64 { return s.StartDelayMs }, func(s *model.SubtaskStats, v int64) { s.StartDelayMs = v }, true},
	{"AlignmentDurationMs", func(s *model.SubtaskStats) int64 { return s.AlignmentMs }, func(s *model.SubtaskStats, v int64) { s.AlignmentMs = v }, true},
	{"SyncCheckpointDurationMs", func(s *model.SubtaskStats) int64 { return s.SyncMs }, func(s *model.SubtaskStats, v int64) { s.SyncMs = v }, true},
	{"AsyncCheckpointDurationMs", func(s *model.SubtaskStats) int64 { return s.AsyncMs }, func(s *model.SubtaskStats, v int64) { s.AsyncMs = v }, true},
	{"ProcessedDataBytes", func(s *model.SubtaskStats) int64 { return s.ProcessedData }, func(s *model.SubtaskStats, v int64) { s.ProcessedData = v }, true},
	{"PersistedDataBytes", func(s *model.SubtaskStats) int64 { return s.PersistedData }, func(s *model.SubtaskStats, v int64) { s.PersistedData = v }, true},
}

// The OTLP JSON encoding (opentelemetry-proto, ExportTraceServiceRequest), what WriteTo
// writes and ReadOTLP reads; a source with spans of another shape (Jaeger's) builds these.

// OTLPFile is a whole file (a request): the spans by resource.
type OTLPFile struct {
	ResourceSpans []OTLPResourceSpans `json:"resourceSpans"`
}

// OTLPResourceSpans are one resource's spans, by instrumentation scope.
type OTLPResourceSpans struct {
	Resource   OTLPResource     `json:"resource"`
	ScopeSpans []OTLPScopeSpans `json:"scopeSpans"`
}

// OTLPResource is what produced the spans (its service.name and other attributes).
type OTLPResource struct {
	Attributes []OTLPAttr `json:"attributes,omitempty"`
}

// OTLPScopeSpans are one instrumentation scope's spans.
type OTLPScopeSpans struct {
	Scope OTLPScope  `json:"scope"`
	Spans []OTLPSpan `json:"spans"`
}

// OTLPScope names an instrumentation scope (Flink's is FlinkSpanScope).
type OTLPScope struct {
	Name string `json:"name"`
}

// OTLPSpan is one span; times are nanoseconds since the epoch, as decimal strings.
type OTLPSpan struct {
	TraceID      string     `json:"traceId"`
	SpanID       string     `json:"spanId"`
	ParentSpanID string     `json:"parentSpanId,omitempty"`
	Name         string     `json:"name"`
	Kind         int        `json:"kind"`
	StartNano    string     `json:"startTimeUnixNano"`
	EndNano      string     `json:"endTimeUnixNano"`
	Attributes   []OTLPAttr `json:"attributes"`
}

// OTLPAttr is a span's or a resource's attribute.
type OTLPAttr struct {
	Key   string    `json:"key"`
	Value OTLPValue `json:"value"`
}

// OTLPValue is an AnyValue; OTLP JSON writes 64-bit integers as strings
// (some writers as numbers: both are read).
type OTLPValue struct {
	String *string          `json:"stringValue,omitempty"`
	Int    *json.RawMessage `json:"intValue,omitempty"`
	Double *float64         `json:"doubleValue,omitempty"`
	Bool   *bool            `json:"boolValue,omitempty"`
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// otlp is the span in OTLP JSON; kind 1 is SPAN_KIND_INTERNAL, as Flink's.
func (s *Span) otlp() OTLPSpan {
	o := OTLPSpan{TraceID: hexOf(s.TraceID[:]), SpanID: hexOf(s.SpanID[:]), Name: s.Name, Kind: 1,
		StartNano: nanos(s.StartMs), EndNano: nanos(s.EndMs), Attributes: make([]OTLPAttr, len(s.Attrs))}
	if s.ParentID != ([8]byte{}) {
		o.ParentSpanID = hexOf(s.ParentID[:])
	}
	for i, a := range s.Attrs {
		o.Attributes[i] = a.otlp()
	}
	return o
}

func (a Attr) otlp() OTLPAttr {
	if a.IsInt {
		raw := json.RawMessage(strconv.Quote(strconv.FormatInt(a.Int, 10)))
		return OTLPAttr{Key: a.Key, Value: OTLPValue{Int: &raw}}
	}
	v := a.Str
	return OTLPAttr{Key: a.Key, Value: OTLPValue{String: &v}}
}

func nanos(ms int64) string { return strconv.FormatInt(ms*1_000_000, 10) }

// OTLPWriter writes checkpoints as OTLP JSON spans with Flink's names and attributes
// (CheckpointSpans): one span per finished checkpoint, a child per task and a grandchild per
// acknowledged subtask. In-progress checkpoints are left out (Flink reports a span when a
// checkpoint ends).
type OTLPWriter struct {
	job   model.Job
	spans []OTLPSpan
}

// NewOTLPWriter starts a file of job's checkpoints.
func NewOTLPWriter(job model.Job) *OTLPWriter { return &OTLPWriter{job: job} }

// Add adds one checkpoint.
func (w *OTLPWriter) Add(c *model.Checkpoint) {
	for _, s := range CheckpointSpans(w.job, c) {
		w.spans = append(w.spans, s.otlp())
	}
}

// WriteTo writes the file.
func (w *OTLPWriter) WriteTo(out io.Writer) (int64, error) {
	f := OTLPFile{ResourceSpans: []OTLPResourceSpans{{
		Resource:   OTLPResource{Attributes: []OTLPAttr{str("service.name", ServiceName).otlp()}},
		ScopeSpans: []OTLPScopeSpans{{Scope: OTLPScope{Name: FlinkSpanScope}, Spans: w.spans}},
	}}}
	if f.ResourceSpans[0].ScopeSpans[0].Spans == nil {
		f.ResourceSpans[0].ScopeSpans[0].Spans = []OTLPSpan{}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return 0, err
	}
	n, err := out.Write(append(b, '\n'))
	return int64(n), err
}

// attrs indexes a span's attributes.
type attrs map[string]OTLPValue

func (a attrs) str(k string) string {
	if v, ok := a[k]; ok && v.String != nil {
		return *v.String
	}
	return ""
}

func (a attrs) int(k string) (int64, bool) {
	v, ok := a[k]
	if !ok {
		return 0, false
	}
	switch {
	case v.Int != nil:
		var s string
		if json.Unmarshal(*v.Int, &s) == nil {
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
		var n int64
		return n, json.Unmarshal(*v.Int, &n) == nil
	case v.Double != nil:
		return int64(*v.Double), true
	case v.String != nil:
		n, err := strconv.ParseInt(*v.String, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// job is the span's job id. Flink 2.3's OpenTelemetry reporter sends the job
// metric group's <job_id> as job_id (its angle brackets stripped) and the
// tracker's own jobId; Flink 1.20's spans carry only jobId.
func (a attrs) job() string {
	for _, k := range []string{attrJobID, attrFlinkJobID, "<job_id>", "job.id"} {
		if s := a.str(k); s != "" {
			return s
		}
	}
	return ""
}

// app reads what the app's own spans add to Flink's (CheckpointSpans) into c: with
// checkpoint_explorer.end_to_end_ms (its exports since the times were added) the stored times,
// which the span's end alone cannot say (it is the completion, or the failure, not the latest
// acknowledgement); and finalize, the state blobs and the failure's details where present.
func (a attrs) app(c *model.Checkpoint) {
	if e2e, ok := a.int(attrEndToEnd); ok {
		c.EndToEndMs = e2e
		c.LatestAckMs, _ = a.int(attrLatestAck)
		c.CompletionMs, _ = a.int(attrCompletion)
		c.FailureMs, _ = a.int(attrFailureTime)
	}
	for _, o := range []struct {
		key string
		to  **int64
	}{{attrFinalize, &c.FinalizeMs}, {attrStateBlobs, &c.StateBlobs}} {
		if v, ok := a.int(o.key); ok {
			*o.to = &v
		}
	}
	c.FailureCause, c.ExternalPath = a.str(attrFailureCause), a.str(attrExternalPath)
	if s := a.str(attrDeclined); s != "" {
		var d model.Decline
		if json.Unmarshal([]byte(s), &d) == nil {
			c.Declined = &d
		}
	}
}

func indexAttrs(as []OTLPAttr) attrs {
	m := make(attrs, len(as))
	for _, a := range as {
		m[a.Key] = a.Value
	}
	return m
}

func ms(nano string) (int64, error) {
	n, err := strconv.ParseInt(nano, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("time %q is not a number of nanoseconds", nano)
	}
	return n / 1_000_000, nil
}

// Spans is what an OTLP file of Flink checkpoint spans held.
type Spans struct {
	Jobs        []model.Job
	Checkpoints []model.Checkpoint
	// Skipped counts spans that are not Flink checkpoint spans.
	Skipped int
	// Duplicates counts spans read once already (the same trace and span id): a span sent twice,
	// which a backend such as Jaeger keeps twice.
	Duplicates int
}

// ReadOTLP reads Flink checkpoint spans from OTLP JSON: the job-level spans
// of Flink 1.19/1.20 (phases only as max/sum aggregates: no per-subtask
// stats) and, where the file has them, the per-task and per-subtask
// children of 2.2+. cluster names the cluster the checkpoints are stored
// under when the spans do not say (Flink's do not). A span read already (the
// same trace and span id: sent twice) is counted in Duplicates, and the copy
// with more attributes is read.
func ReadOTLP(r io.Reader, cluster string) (Spans, error) {
	var f OTLPFile
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return Spans{}, fmt.Errorf("otlp: not OTLP JSON: %w", err)
	}
	type node struct {
		span  *OTLPSpan
		attrs attrs
	}
	var roots []node
	children := map[string][]node{}
	var out Spans
	// One span per id, in the order first read: of two with one id (sent
	// twice, or by two collectors that knew the checkpoint differently: one
	// had its finalize time from the log, the other not), the one with more
	// attributes, so a reader never takes the lesser copy for the fuller.
	best := map[string]*OTLPSpan{}
	var order []string
	for i := range f.ResourceSpans {
		for j := range f.ResourceSpans[i].ScopeSpans {
			ss := &f.ResourceSpans[i].ScopeSpans[j]
			for k := range ss.Spans {
				sp := &ss.Spans[k]
				id := sp.TraceID + "/" + sp.SpanID
				if prev, ok := best[id]; ok {
					out.Duplicates++
					if len(sp.Attributes) > len(prev.Attributes) {
						best[id] = sp
					}
					continue
				}
				best[id] = sp
				order = append(order, id)
			}
		}
	}
	for _, id := range order {
		sp := best[id]
		n := node{sp, indexAttrs(sp.Attributes)}
		switch sp.Name {
		case SpanCheckpoint:
			roots = append(roots, n)
		case SpanCheckpointTask, SpanCheckpointSubtask:
			children[sp.ParentSpanID] = append(children[sp.ParentSpanID], n)
		default:
			out.Skipped++
		}
	}
	jobs := map[string]*model.Job{}
	for _, n := range roots {
		a := n.attrs
		id, ok := a.int("checkpointId")
		if !ok {
			return out, fmt.Errorf("otlp: span %s (Checkpoint) has no checkpointId", n.span.SpanID)
		}
		start, err := ms(n.span.StartNano)
		if err != nil {
			return out, fmt.Errorf("otlp: checkpoint %d: %w", id, err)
		}
		end, err := ms(n.span.EndNano)
		if err != nil {
			return out, fmt.Errorf("otlp: checkpoint %d: %w", id, err)
		}
		failed := strings.EqualFold(a.str("checkpointStatus"), "FAILED")
		if end < start {
			if !failed {
				return out, fmt.Errorf("otlp: checkpoint %d ends before it starts", id)
			}
			// A failed checkpoint no subtask acknowledged: Flink ends its span at the latest
			// acknowledgement, which it reports as -1.
			end = start
		}
		c := model.Checkpoint{Cluster: cluster, JobID: a.job(), ID: id, Kind: model.KindCheckpoint, TriggerMs: start, EndToEndMs: end - start,
			FailureMessage: a.str(attrFailure), NumSubtasks: 0}
		if s := a.str(attrCluster); s != "" {
			c.Cluster = s
		}
		if p, ok := a.int(attrPipeline); ok {
			c.Pipeline = int(p)
		}
		switch strings.ToUpper(a.str("checkpointStatus")) {
		case "COMPLETED":
			c.Status, c.CompletionMs, c.LatestAckMs = model.StatusCompleted, end, end
		case "FAILED":
			// Flink's span ends at the latest acknowledgement, not at the failure (REST's
			// failure_timestamp, which the span does not carry): EndToEndMs is trigger → latest
			// ack, shorter than REST's trigger → failure for a failed checkpoint.
			c.Status = model.StatusFailed
			if end > start {
				c.LatestAckMs = end
			}
		default:
			return out, fmt.Errorf("otlp: checkpoint %d: checkpointStatus %q: want COMPLETED or FAILED", id, a.str("checkpointStatus"))
		}
		if strings.EqualFold(a.str("isUnaligned"), "true") {
			c.Kind = model.KindUnaligned
		}
		if strings.Contains(strings.ToUpper(a.str("checkpointType")), "SAVEPOINT") {
			c.Kind = model.KindSavepoint
		}
		c.StateSize, _ = a.int("fullSize")
		c.CheckpointedSize, _ = a.int("checkpointedSize")
		c.ProcessedData, _ = a.int("sumProcessedDataBytes")
		c.PersistedData, _ = a.int("sumPersistedDataBytes")
		a.app(&c)
		for _, tn := range children[n.span.SpanID] {
			if tn.span.Name != SpanCheckpointTask {
				continue
			}
			task := model.TaskStats{VertexID: tn.attrs.str("jobVertexId")}
			if tend, err := ms(tn.span.EndNano); err == nil {
				task.LatestAckMs = tend
				task.EndToEndMs = tend - start
			}
			for _, sn := range children[tn.span.SpanID] {
				idx, ok := sn.attrs.int("subtaskId")
				if !ok {
					continue
				}
				st := model.SubtaskStats{Index: int(idx), Status: model.SubtaskCompleted}
				if ack, err := ms(sn.span.EndNano); err == nil {
					st.AckMs, st.EndToEndMs = ack, ack-start
				}
				if e2e, ok := sn.attrs.int(attrEndToEnd); ok {
					st.EndToEndMs = e2e
				}
				for _, m := range spanMetrics {
					if v, ok := sn.attrs.int(m.name); ok {
						m.set(&st, v)
					}
				}
				task.Subtasks = append(task.Subtasks, st)
				task.StateSize += st.StateSize
				task.CheckpointedSize += st.CheckpointedSize
				task.ProcessedData += st.ProcessedData
				task.PersistedData += st.PersistedData
			}
			task.NumSubtasks, task.NumAcknowledged = len(task.Subtasks), len(task.Subtasks)
			c.NumSubtasks += task.NumSubtasks
			c.NumAcknowledged += task.NumAcknowledged
			c.Tasks = append(c.Tasks, task)
		}
		if n, ok := a.int(attrNumSubtasks); ok {
			c.NumSubtasks = int(n)
			if n, ok := a.int(attrNumAcked); ok {
				c.NumAcknowledged = int(n)
			}
		}
		if _, ok := jobs[c.JobID]; !ok {
			j := model.Job{Cluster: c.Cluster, ID: c.JobID, Name: a.str(attrJobName), Engine: model.EngineFlink}
			if e := model.Engine(a.str(attrEngine)); e.Valid() {
				j.Engine = e
			}
			if j.Name == "" {
				j.Name = c.JobID
			}
			jobs[c.JobID] = &j
			out.Jobs = append(out.Jobs, j)
		}
		out.Checkpoints = append(out.Checkpoints, c)
	}
	return out, nil
}
