package interop

import (
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"strings"

	"checkpoint-explorer/backend/model"
)

// Span is one span of the checkpoint mapping before it is encoded: OTLP JSON here (OTLPWriter),
// the OpenTelemetry SDK's spans in backend/otlpexport. One mapping, so a file and a sent span
// say the same.
type Span struct {
	TraceID [16]byte
	SpanID  [8]byte
	// ParentID is zero for a checkpoint's own span.
	ParentID       [8]byte
	Name           string
	StartMs, EndMs int64
	Attrs          []Attr
}

// Attr is a span attribute: a string, or a 64-bit integer when IsInt.
type Attr struct {
	Key   string
	Str   string
	Int   int64
	IsInt bool
}

func str(k, v string) Attr { return Attr{Key: k, Str: v} }

func integer(k string, v int64) Attr { return Attr{Key: k, Int: v, IsInt: true} }

// ServiceName is the service.name of the app's spans (the resource of an OTLP file it writes, of
// the spans it sends): what a reader of them is given as the traces service.
const ServiceName = "checkpoint-explorer"

// Flink's job attributes: the checkpoint stats tracker's jobId on every version (what the traces
// source searches), and from 2.1 the job metric group's job_id and job_name.
const (
	attrFlinkJobID = "jobId"
	attrJobID      = "job_id"
	attrJobName    = "job_name"
)

// Attributes the app adds to Flink's, so its own exports read back whole (ReadOTLP).
const (
	attrCluster      = "checkpoint_explorer.cluster"
	attrEngine       = "checkpoint_explorer.engine"
	attrPipeline     = "checkpoint_explorer.pipeline"
	attrFailure      = "checkpoint_explorer.failure_message"
	attrEndToEnd     = "checkpoint_explorer.end_to_end_ms"
	attrLatestAck    = "checkpoint_explorer.latest_ack_ms"
	attrCompletion   = "checkpoint_explorer.completion_ms"
	attrFailureTime  = "checkpoint_explorer.failure_ms"
	attrFinalize     = "checkpoint_explorer.finalize_ms"
	attrNumSubtasks  = "checkpoint_explorer.num_subtasks"
	attrNumAcked     = "checkpoint_explorer.num_acknowledged"
	attrStateBlobs   = "checkpoint_explorer.state_blobs"
	attrFailureCause = "checkpoint_explorer.failure_cause"
	attrDeclined     = "checkpoint_explorer.declined"
	attrExternalPath = "checkpoint_explorer.external_path"
)

// ids derives a trace id and a span id from what a span is about, so that exporting the same
// checkpoint twice gives the same ids: the first 16 bytes of SHA-256 over the parts (joined by
// NUL) are the trace id, the next 8 the span id.
func ids(parts ...string) (trace [16]byte, span [8]byte) {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	copy(trace[:], h[:16])
	copy(span[:], h[16:24])
	return trace, span
}

func keyParts(k model.Key) []string {
	return []string{k.Cluster, k.JobID, strconv.Itoa(k.Pipeline), strconv.FormatInt(k.ID, 10)}
}

// CheckpointIDs are the trace id of checkpoint k and the id of its Checkpoint span.
func CheckpointIDs(k model.Key) (trace [16]byte, span [8]byte) { return ids(keyParts(k)...) }

// TaskSpanID is the id of checkpoint k's Checkpoint_Task span of vertex.
func TaskSpanID(k model.Key, vertex string) [8]byte {
	_, s := ids(append(keyParts(k), vertex)...)
	return s
}

// SubtaskSpanID is the id of checkpoint k's Checkpoint_Subtask span of a vertex's subtask.
func SubtaskSpanID(k model.Key, vertex string, subtask int) [8]byte {
	_, s := ids(append(keyParts(k), vertex, strconv.Itoa(subtask))...)
	return s
}

// CheckpointSpans maps a finished checkpoint of job to spans with Flink's names and attributes:
// a Checkpoint span (trigger to end), a Checkpoint_Task child per vertex with stats and a
// Checkpoint_Subtask grandchild per acknowledged subtask. A checkpoint in progress has none
// (Flink reports a span when a checkpoint ends). extra are added to the Checkpoint span's
// attributes (otlpexport's: what the analysis says of the checkpoint).
func CheckpointSpans(job model.Job, c *model.Checkpoint, extra ...Attr) []Span {
	if c.Status == model.StatusInProgress {
		return nil
	}
	key := c.Key()
	trace, root := CheckpointIDs(key)
	var all []*model.SubtaskStats
	for t := range c.Tasks {
		all = append(all, acknowledged(&c.Tasks[t])...)
	}
	attrs := append(append(checkpointAttrs(job, c), extra...), aggregates(all)...)
	spans := []Span{{TraceID: trace, SpanID: root, Name: SpanCheckpoint, StartMs: c.TriggerMs, EndMs: c.EndMs(), Attrs: attrs}}
	for t := range c.Tasks {
		task := &c.Tasks[t]
		tid := TaskSpanID(key, task.VertexID)
		subs := acknowledged(task)
		end := task.LatestAckMs
		if end == 0 {
			end = c.EndMs()
		}
		tattrs := append([]Attr{integer("checkpointId", c.ID), str("jobVertexId", task.VertexID)}, aggregates(subs)...)
		spans = append(spans, Span{TraceID: trace, SpanID: tid, ParentID: root, Name: SpanCheckpointTask,
			StartMs: c.TriggerMs, EndMs: end, Attrs: tattrs})
		for _, st := range subs {
			sattrs := []Attr{integer("checkpointId", c.ID), str("jobVertexId", task.VertexID), integer("subtaskId", int64(st.Index))}
			for _, m := range spanMetrics {
				sattrs = append(sattrs, integer(m.name, m.get(st)))
			}
			// A reader takes the span's end less the trigger; the engine's own figure when it
			// says otherwise (seen on a loaded Flink 1.20: 328 ms where the two are 5.6 s apart).
			if st.EndToEndMs != st.AckMs-c.TriggerMs {
				sattrs = append(sattrs, integer(attrEndToEnd, st.EndToEndMs))
			}
			spans = append(spans, Span{TraceID: trace, SpanID: SubtaskSpanID(key, task.VertexID, st.Index), ParentID: tid,
				Name: SpanCheckpointSubtask, StartMs: c.TriggerMs + st.StartDelayMs, EndMs: st.AckMs, Attrs: sattrs})
		}
	}
	return spans
}

func acknowledged(task *model.TaskStats) []*model.SubtaskStats {
	var subs []*model.SubtaskStats
	for s := range task.Subtasks {
		if st := &task.Subtasks[s]; st.Acknowledged() {
			subs = append(subs, st)
		}
	}
	return subs
}

// checkpointAttrs are the Checkpoint span's attributes but the subtask aggregates: Flink's, then
// the app's (times the span's start and end cannot say, finalize, the failure's details).
func checkpointAttrs(job model.Job, c *model.Checkpoint) []Attr {
	kind := "CHECKPOINT"
	if c.Kind == model.KindSavepoint {
		kind = "SAVEPOINT"
	}
	attrs := []Attr{
		integer("checkpointId", c.ID),
		integer("fullSize", c.StateSize),
		integer("checkpointedSize", c.CheckpointedSize),
		str("checkpointStatus", string(c.Status)),
		str("isUnaligned", strconv.FormatBool(c.Kind == model.KindUnaligned)),
		str("checkpointType", kind),
		str(attrFlinkJobID, c.JobID),
		str(attrJobID, c.JobID),
		str(attrJobName, job.Name),
		str(attrCluster, c.Cluster),
		integer(attrEndToEnd, c.EndToEndMs),
		integer(attrNumSubtasks, int64(c.NumSubtasks)),
		integer(attrNumAcked, int64(c.NumAcknowledged)),
	}
	for _, o := range []struct {
		key string
		v   int64
	}{{attrPipeline, int64(c.Pipeline)}, {attrLatestAck, c.LatestAckMs}, {attrCompletion, c.CompletionMs}, {attrFailureTime, c.FailureMs}} {
		if o.v != 0 {
			attrs = append(attrs, integer(o.key, o.v))
		}
	}
	for _, o := range []struct {
		key string
		v   *int64
	}{{attrFinalize, c.FinalizeMs}, {attrStateBlobs, c.StateBlobs}} {
		if o.v != nil {
			attrs = append(attrs, integer(o.key, *o.v))
		}
	}
	for _, o := range []struct{ key, v string }{{attrFailure, c.FailureMessage}, {attrFailureCause, c.FailureCause},
		{attrExternalPath, c.ExternalPath}, {attrEngine, string(job.Engine)}} {
		if o.v != "" {
			attrs = append(attrs, str(o.key, o.v))
		}
	}
	if a, ok := JSONAttr(attrDeclined, c.Declined); ok {
		attrs = append(attrs, a)
	}
	return attrs
}

// JSONAttr is an attribute holding v as JSON, a record a tracing UI shows as text (ReadOTLP
// reads the declining task back); false for a nil pointer or an empty slice.
func JSONAttr(key string, v any) (Attr, bool) {
	s := jsonOf(v)
	return str(key, s), s != "" && s != "[]"
}

// jsonOf is v as JSON, "" for a nil pointer.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return ""
	}
	return string(b)
}

// aggregates are Flink's max<Metric> and sum<Metric> over subtasks.
func aggregates(subs []*model.SubtaskStats) []Attr {
	if len(subs) == 0 {
		return nil
	}
	var out []Attr
	for _, m := range spanMetrics {
		var mx, sum int64
		for _, s := range subs {
			v := m.get(s)
			mx = max(mx, v)
			sum += v
		}
		out = append(out, integer("max"+m.name, mx))
		if m.sum {
			out = append(out, integer("sum"+m.name, sum))
		}
	}
	return out
}
