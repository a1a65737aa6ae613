package capture

import (
	"errors"
	"fmt"
	"github.com/dustin/go-humanize"
	"maps"
	"math"
	"net/url"
	"slices"

	"checkpoint-explorer/backend/model"
)

// Validation is shared by the writer and the reader, so the writer never
// produces a file the reader refuses. Errors start with the record type; the
// caller adds "capture: line N: " or the writer's context.

// checker collects the first problem of one record.
type checker struct {
	rec string
	lim Limits
	err error
}

func (c *checker) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(c.rec+": "+format, args...)
	}
}

func (c *checker) str(field, s string) {
	if len(s) > c.lim.MaxStringBytes {
		c.fail("field %q is %d bytes, over the %s limit", field, len(s), humanize.IBytes(uint64(c.lim.MaxStringBytes)))
	}
}

func (c *checker) required(field, s string) {
	if s == "" {
		c.fail("empty %s", field)
		return
	}
	c.str(field, s)
}

func (c *checker) nonNeg(field string, v int64) {
	if v < 0 {
		c.fail("negative %s %d", field, v)
	}
}

func (c *checker) nonNegPtr(field string, v *int64) {
	if v != nil {
		c.nonNeg(field, *v)
	}
}

func (c *checker) engine(e model.Engine) {
	if !e.Valid() {
		c.fail("unknown engine %q (want %q or %q)", e, model.EngineFlink, model.EngineSeaTunnel)
	}
}

func validateCluster(cl *model.Cluster, lim Limits) error {
	c := checker{rec: TypeCluster, lim: lim}
	c.required("name", cl.Name)
	c.engine(cl.Engine)
	c.str("base_url", cl.BaseURL)
	c.str("prometheus_url", cl.PrometheusURL)
	c.str("traces_url", cl.TracesURL)
	c.str("traces_service", cl.TracesService)
	c.str("ca_file", cl.CAFile)
	switch cl.Auth.Kind {
	case "", model.AuthNone, model.AuthBasic, model.AuthBearer:
	default:
		c.fail("unknown auth kind %q", cl.Auth.Kind)
	}
	return c.err
}

// publicCluster is what a capture may hold of a cluster: no credentials, no
// user info in URLs, and always read-only so that opening a capture never
// starts polling an address written by someone else.
func publicCluster(cl model.Cluster) model.Cluster {
	cl = cl.Public()
	cl.BaseURL = stripUserinfo(cl.BaseURL)
	cl.PrometheusURL = stripUserinfo(cl.PrometheusURL)
	cl.TracesURL = stripUserinfo(cl.TracesURL)
	cl.ReadOnly = true
	return cl
}

// stripUserinfo removes "user:password@" from a URL. A URL that does not parse
// is dropped: it cannot be shown to hold no secret.
func stripUserinfo(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

func validateJob(j *model.Job, lim Limits) error {
	c := checker{rec: TypeJob, lim: lim}
	c.required("cluster", j.Cluster)
	c.required("id", j.ID)
	c.str("name", j.Name)
	c.engine(j.Engine)
	c.str("state", j.State)
	c.nonNeg("start_ms", j.StartMs)
	c.nonNeg("end_ms", j.EndMs)
	c.nonNeg("updated_ms", j.UpdatedMs)
	if len(j.Vertices) > lim.MaxTasks {
		c.fail("%d vertices, over the limit of %d", len(j.Vertices), lim.MaxTasks)
		return c.err
	}
	for i := range j.Vertices {
		v := &j.Vertices[i]
		if v.ID == "" {
			c.fail("vertices[%d]: empty id", i)
		}
		c.str("vertices.id", v.ID)
		c.str("vertices.name", v.Name)
		if v.Parallelism < 0 {
			c.fail("vertex %s: negative parallelism %d", v.ID, v.Parallelism)
		}
		if v.Pipeline < 0 {
			c.fail("vertex %s: negative pipeline %d", v.ID, v.Pipeline)
		}
	}
	if len(j.Edges) > lim.MaxSubtasks {
		c.fail("%d edges, over the limit of %d", len(j.Edges), lim.MaxSubtasks)
		return c.err
	}
	for i := range j.Edges {
		e := &j.Edges[i]
		if e.Source == "" || e.Target == "" {
			c.fail("edges[%d]: empty source or target", i)
		}
		c.str("edges.source", e.Source)
		c.str("edges.target", e.Target)
		c.str("edges.ship_strategy", e.ShipStrategy)
	}
	return c.err
}

func validateCheckpoint(cp *model.Checkpoint, lim Limits) error {
	if cp == nil {
		return errors.New("checkpoint: nil")
	}
	c := checker{rec: TypeCheckpoint, lim: lim}
	c.required("cluster", cp.Cluster)
	c.required("job_id", cp.JobID)
	c.nonNeg("id", cp.ID)
	c.nonNeg("pipeline", int64(cp.Pipeline))
	switch cp.Kind {
	case model.KindCheckpoint, model.KindUnaligned, model.KindSavepoint:
	default:
		c.fail("invalid kind %q", cp.Kind)
	}
	switch cp.Status {
	case model.StatusInProgress, model.StatusCompleted, model.StatusFailed:
	default:
		c.fail("invalid status %q", cp.Status)
	}
	c.nonNeg("trigger_ms", cp.TriggerMs)
	c.nonNeg("latest_ack_ms", cp.LatestAckMs)
	c.nonNeg("completion_ms", cp.CompletionMs)
	c.nonNeg("failure_ms", cp.FailureMs)
	c.nonNeg("end_to_end_ms", cp.EndToEndMs)
	c.nonNegPtr("finalize_ms", cp.FinalizeMs)
	c.nonNeg("state_size", cp.StateSize)
	c.nonNeg("checkpointed_size", cp.CheckpointedSize)
	c.nonNeg("processed_data", cp.ProcessedData)
	c.nonNeg("persisted_data", cp.PersistedData)
	c.nonNegPtr("state_blobs", cp.StateBlobs)
	c.nonNeg("num_subtasks", int64(cp.NumSubtasks))
	c.nonNeg("num_acknowledged", int64(cp.NumAcknowledged))
	c.str("failure_message", cp.FailureMessage)
	c.str("external_path", cp.ExternalPath)
	if c.err != nil {
		return c.err
	}
	if len(cp.Tasks) > lim.MaxTasks {
		c.fail("%d tasks, over the limit of %d", len(cp.Tasks), lim.MaxTasks)
		return c.err
	}
	subtasks := 0
	for i := range cp.Tasks {
		t := &cp.Tasks[i]
		subtasks += len(t.Subtasks)
		if subtasks > lim.MaxSubtasks {
			c.fail("more than %d subtasks", lim.MaxSubtasks)
			return c.err
		}
		if t.VertexID == "" {
			c.fail("tasks[%d]: empty vertex_id", i)
			return c.err
		}
		c.str("tasks.vertex_id", t.VertexID)
		c.nonNeg("tasks.latest_ack_ms", t.LatestAckMs)
		c.nonNeg("tasks.end_to_end_ms", t.EndToEndMs)
		c.nonNeg("tasks.state_size", t.StateSize)
		c.nonNeg("tasks.checkpointed_size", t.CheckpointedSize)
		c.nonNeg("tasks.processed_data", t.ProcessedData)
		c.nonNeg("tasks.persisted_data", t.PersistedData)
		c.nonNeg("tasks.num_subtasks", int64(t.NumSubtasks))
		c.nonNeg("tasks.num_acknowledged", int64(t.NumAcknowledged))
		for k := range t.Subtasks {
			s := &t.Subtasks[k]
			c.nonNeg("subtasks.index", int64(s.Index))
			switch s.Status {
			case model.SubtaskCompleted, model.SubtaskPendingOrFailed:
			default:
				c.fail("task %s subtask %d: invalid status %q", t.VertexID, s.Index, s.Status)
			}
			c.nonNeg("subtasks.ack_ms", s.AckMs)
			c.nonNeg("subtasks.end_to_end_ms", s.EndToEndMs)
			c.nonNeg("subtasks.start_delay_ms", s.StartDelayMs)
			c.nonNeg("subtasks.alignment_ms", s.AlignmentMs)
			c.nonNeg("subtasks.sync_ms", s.SyncMs)
			c.nonNeg("subtasks.async_ms", s.AsyncMs)
			c.nonNeg("subtasks.state_size", s.StateSize)
			c.nonNeg("subtasks.checkpointed_size", s.CheckpointedSize)
			c.nonNeg("subtasks.processed_data", s.ProcessedData)
			c.nonNeg("subtasks.persisted_data", s.PersistedData)
			if c.err != nil {
				return c.err
			}
		}
	}
	return c.err
}

func validateAckSample(a *model.AckSample, lim Limits) error {
	c := checker{rec: TypeAckSample, lim: lim}
	c.required("cluster", a.Cluster)
	c.required("job_id", a.JobID)
	c.nonNeg("pipeline", int64(a.Pipeline))
	c.nonNeg("checkpoint_id", a.CheckpointID)
	c.nonNeg("time_ms", a.TimeMs)
	c.nonNeg("acknowledged", int64(a.Acknowledged))
	c.nonNeg("total", int64(a.Total))
	return c.err
}

func validateMetricSample(m *model.MetricSample, lim Limits) error {
	c := checker{rec: TypeMetricSample, lim: lim}
	c.required("cluster", m.Cluster)
	c.required("job_id", m.JobID)
	c.str("vertex_id", m.VertexID)
	c.str("target", m.Target)
	c.required("metric", m.Metric)
	c.str("source", m.Source)
	if m.Subtask < -1 {
		c.fail("invalid subtask %d (want an index, or -1 for an aggregate)", m.Subtask)
	}
	switch m.Agg {
	case model.AggNone, model.AggMax, model.AggAvg:
	default:
		c.fail("invalid agg %q", m.Agg)
	}
	c.nonNeg("time_ms", m.TimeMs)
	if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
		c.fail("metric %s: value %v is not a finite number", m.Metric, m.Value)
	}
	return c.err
}

func validateGap(g *model.Gap, lim Limits) error {
	c := checker{rec: TypeGap, lim: lim}
	c.required("cluster", g.Cluster)
	c.required("job_id", g.JobID)
	c.nonNeg("pipeline", int64(g.Pipeline))
	c.nonNeg("from_id", g.FromID)
	if g.ToID < g.FromID {
		c.fail("to_id %d is before from_id %d", g.ToID, g.FromID)
	}
	c.nonNeg("detected_ms", g.DetectedMs)
	c.str("reason", g.Reason)
	return c.err
}

func validateReconciliation(r *model.Reconciliation, lim Limits) error {
	c := checker{rec: TypeReconciliation, lim: lim}
	c.required("cluster", r.Cluster)
	c.required("job_id", r.JobID)
	for _, f := range []struct {
		name string
		v    int64
	}{{"at_ms", r.AtMs}, {"polls", r.Polls}, {"failed_polls", r.FailedPolls}, {"first_id", r.FirstID},
		{"latest_id", r.LatestID}, {"ids", r.IDs}, {"stored", r.Stored}, {"gaps", r.Gaps},
		{"unaccounted", r.Unaccounted}, {"without_id", r.WithoutID}} {
		c.nonNeg(f.name, f.v)
	}
	if r.EngineCounted < -1 {
		c.fail("engine_counted %d: want -1 (unknown) or more", r.EngineCounted)
	}
	if r.Stored+r.Gaps+r.Unaccounted != r.IDs {
		c.fail("stored %d + gaps %d + unaccounted %d is not ids %d", r.Stored, r.Gaps, r.Unaccounted, r.IDs)
	}
	if e := r.Engine; e != nil {
		for _, f := range []struct {
			name string
			v    int64
		}{{"engine.triggered", e.Triggered}, {"engine.completed", e.Completed}, {"engine.failed", e.Failed},
			{"engine.in_progress", e.InProgress}, {"engine.restored", e.Restored}} {
			c.nonNeg(f.name, f.v)
		}
	}
	return c.err
}

func validateJobConfig(jc *model.JobConfig, lim Limits) error {
	c := checker{rec: TypeJobConfig, lim: lim}
	c.required("cluster", jc.Cluster)
	c.required("job_id", jc.JobID)
	c.nonNeg("seen_ms", jc.SeenMs)
	for _, f := range []struct {
		name string
		v    *int64
	}{{"interval_ms", jc.IntervalMs}, {"timeout_ms", jc.TimeoutMs}, {"min_pause_ms", jc.MinPauseMs},
		{"max_concurrent", jc.MaxConcurrent}, {"tolerable_failures", jc.TolerableFailures},
		{"aligned_timeout_ms", jc.AlignedTimeoutMs}} {
		c.nonNegPtr(f.name, f.v)
	}
	c.str("mode", jc.Mode)
	c.str("state_backend", jc.StateBackend)
	c.str("checkpoint_storage", jc.CheckpointStorage)
	if len(jc.Keys) > lim.MaxTasks {
		c.fail("%d keys, over the limit of %d", len(jc.Keys), lim.MaxTasks)
	}
	for _, k := range slices.Sorted(maps.Keys(jc.Keys)) {
		v := jc.Keys[k]
		if k == "" {
			c.fail("a key is empty")
		}
		if model.SecretKey(k) {
			c.fail("key %q looks like a secret: captures never carry one", k)
		}
		c.str("keys."+k, v)
		c.str("key name", k)
	}
	return c.err
}

func validateHeader(h *Header, lim Limits) error {
	c := checker{rec: TypeHeader, lim: lim}
	c.str("recorded_by", h.RecordedBy)
	c.str("app_version", h.AppVersion)
	c.str("host", h.Host)
	c.str("note", h.Note)
	if h.Source != nil {
		c.str("source.format", h.Source.Format)
		c.str("source.name", h.Source.Name)
		c.str("source.run_id", h.Source.RunID)
		c.str("source.revision", h.Source.Revision)
	}
	return c.err
}
