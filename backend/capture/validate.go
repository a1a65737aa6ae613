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

// intField is a named value, for checks of several fields alike.
type intField struct {
	name string
	v    int64
}

// nonNegs checks that none of fields is negative.
func (c *checker) nonNegs(fields ...intField) {
	for _, f := range fields {
		c.nonNeg(f.name, f.v)
	}
}

func (c *checker) nonNegPtr(field string, v *int64) {
	if v != nil {
		c.nonNeg(field, *v)
	}
}

// sizes checks the byte counts that a checkpoint, its tasks and their
// subtasks all carry; level prefixes the field names ("", "tasks.", …).
func (c *checker) sizes(level string, state, checkpointed, processed, persisted int64) {
	for _, f := range [...]struct {
		name string
		v    int64
	}{{"state_size", state}, {"checkpointed_size", checkpointed}, {"processed_data", processed}, {"persisted_data", persisted}} {
		if f.v < 0 {
			c.fail("negative %s%s %d", level, f.name, f.v)
		}
	}
}

// counts checks the subtask counts of a checkpoint or a task.
func (c *checker) counts(level string, subtasks, acknowledged int) {
	if subtasks < 0 {
		c.fail("negative %snum_subtasks %d", level, subtasks)
	}
	if acknowledged < 0 {
		c.fail("negative %snum_acknowledged %d", level, acknowledged)
	}
}

// oneOf fails unless v is one of valid.
func oneOf[T comparable](c *checker, field string, v T, valid ...T) {
	if !slices.Contains(valid, v) {
		c.fail("invalid %s %q", field, v)
	}
}

func (c *checker) engine(e model.Engine) {
	if !e.Valid() {
		c.fail("unknown engine %q (want %q or %q)", e, model.EngineFlink, model.EngineSeaTunnel)
	}
}

// jobRecord starts the checks of a record that belongs to a job: it names
// its cluster and its job.
func jobRecord(rec string, lim Limits, cluster, jobID string) checker {
	c := checker{rec: rec, lim: lim}
	c.required("cluster", cluster)
	c.required("job_id", jobID)
	return c
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
	c.nonNegs(intField{"start_ms", j.StartMs}, intField{"end_ms", j.EndMs}, intField{"updated_ms", j.UpdatedMs})
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
	c := jobRecord(TypeCheckpoint, lim, cp.Cluster, cp.JobID)
	c.nonNeg("id", cp.ID)
	c.nonNeg("pipeline", int64(cp.Pipeline))
	oneOf(&c, "kind", cp.Kind, model.KindCheckpoint, model.KindUnaligned, model.KindSavepoint)
	oneOf(&c, "status", cp.Status, model.StatusInProgress, model.StatusCompleted, model.StatusFailed)
	c.nonNegs(intField{"trigger_ms", cp.TriggerMs}, intField{"latest_ack_ms", cp.LatestAckMs}, intField{"completion_ms", cp.CompletionMs},
		intField{"failure_ms", cp.FailureMs}, intField{"end_to_end_ms", cp.EndToEndMs})
	c.nonNegPtr("finalize_ms", cp.FinalizeMs)
	c.sizes("", cp.StateSize, cp.CheckpointedSize, cp.ProcessedData, cp.PersistedData)
	c.nonNegPtr("state_blobs", cp.StateBlobs)
	c.counts("", cp.NumSubtasks, cp.NumAcknowledged)
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
		c.sizes("tasks.", t.StateSize, t.CheckpointedSize, t.ProcessedData, t.PersistedData)
		c.counts("tasks.", t.NumSubtasks, t.NumAcknowledged)
		for k := range t.Subtasks {
			s := &t.Subtasks[k]
			c.nonNeg("subtasks.index", int64(s.Index))
			switch s.Status {
			case model.SubtaskCompleted, model.SubtaskPendingOrFailed:
			default:
				c.fail("task %s subtask %d: invalid status %q", t.VertexID, s.Index, s.Status)
			}
			c.nonNegs(intField{"subtasks.ack_ms", s.AckMs}, intField{"subtasks.end_to_end_ms", s.EndToEndMs},
				intField{"subtasks.start_delay_ms", s.StartDelayMs}, intField{"subtasks.alignment_ms", s.AlignmentMs},
				intField{"subtasks.sync_ms", s.SyncMs}, intField{"subtasks.async_ms", s.AsyncMs})
			c.sizes("subtasks.", s.StateSize, s.CheckpointedSize, s.ProcessedData, s.PersistedData)
			if c.err != nil {
				return c.err
			}
		}
	}
	return c.err
}

func validateAckSample(a *model.AckSample, lim Limits) error {
	c := jobRecord(TypeAckSample, lim, a.Cluster, a.JobID)
	c.nonNegs(intField{"pipeline", int64(a.Pipeline)}, intField{"checkpoint_id", a.CheckpointID}, intField{"time_ms", a.TimeMs},
		intField{"acknowledged", int64(a.Acknowledged)}, intField{"total", int64(a.Total)})
	return c.err
}

func validateMetricSample(m *model.MetricSample, lim Limits) error {
	c := jobRecord(TypeMetricSample, lim, m.Cluster, m.JobID)
	c.str("vertex_id", m.VertexID)
	c.str("target", m.Target)
	c.required("metric", m.Metric)
	c.str("source", m.Source)
	if m.Subtask < -1 {
		c.fail("invalid subtask %d (want an index, or -1 for an aggregate)", m.Subtask)
	}
	oneOf(&c, "agg", m.Agg, model.AggNone, model.AggMax, model.AggAvg)
	c.nonNeg("time_ms", m.TimeMs)
	if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
		c.fail("metric %s: value %v is not a finite number", m.Metric, m.Value)
	}
	return c.err
}

func validateGap(g *model.Gap, lim Limits) error {
	c := jobRecord(TypeGap, lim, g.Cluster, g.JobID)
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
	c := jobRecord(TypeReconciliation, lim, r.Cluster, r.JobID)
	c.nonNegs(intField{"at_ms", r.AtMs}, intField{"polls", r.Polls}, intField{"failed_polls", r.FailedPolls}, intField{"first_id", r.FirstID},
		intField{"latest_id", r.LatestID}, intField{"ids", r.IDs}, intField{"stored", r.Stored}, intField{"gaps", r.Gaps},
		intField{"unaccounted", r.Unaccounted}, intField{"without_id", r.WithoutID})
	if r.EngineCounted < -1 {
		c.fail("engine_counted %d: want -1 (unknown) or more", r.EngineCounted)
	}
	if r.Stored+r.Gaps+r.Unaccounted != r.IDs {
		c.fail("stored %d + gaps %d + unaccounted %d is not ids %d", r.Stored, r.Gaps, r.Unaccounted, r.IDs)
	}
	if e := r.Engine; e != nil {
		c.nonNegs(intField{"engine.triggered", e.Triggered}, intField{"engine.completed", e.Completed}, intField{"engine.failed", e.Failed},
			intField{"engine.in_progress", e.InProgress}, intField{"engine.restored", e.Restored})
	}
	if len(r.TriggerFailures) > model.MaxTriggerFailureReasons {
		c.fail("%d trigger_failures, over the limit of %d reasons", len(r.TriggerFailures), model.MaxTriggerFailureReasons)
	}
	for _, g := range r.TriggerFailures {
		c.str("trigger_failures.reason", g.Reason)
		c.str("trigger_failures.task", g.Task)
		c.str("trigger_failures.example", g.Example)
		c.nonNegs(intField{"trigger_failures.first_ms", g.FirstMs}, intField{"trigger_failures.last_ms", g.LastMs})
		if g.Count < 1 {
			c.fail("trigger_failures: count %d for %q, want at least 1", g.Count, g.Reason)
		}
		if g.LastMs < g.FirstMs {
			c.fail("trigger_failures: last_ms %d is before first_ms %d", g.LastMs, g.FirstMs)
		}
	}
	return c.err
}

func validateJobConfig(jc *model.JobConfig, lim Limits) error {
	c := jobRecord(TypeJobConfig, lim, jc.Cluster, jc.JobID)
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
	if len(jc.Unknown) > lim.MaxTasks {
		c.fail("%d unknown parts, over the limit of %d", len(jc.Unknown), lim.MaxTasks)
	}
	for _, g := range jc.Unknown {
		c.required("unknown.part", string(g.Part))
		c.str("unknown.endpoint", g.Endpoint)
		c.str("unknown.error", g.Error)
	}
	return c.err
}

func validateRestoreCount(rc *model.RestoreCount, lim Limits) error {
	c := jobRecord(TypeRestoreCount, lim, rc.Cluster, rc.JobID)
	if rc.AtMs <= 0 || rc.Restored < 0 || rc.LastRestoreMs < 0 {
		c.fail("at_ms %d, restored %d, last_restore_ms %d: want a time, a count of 0 or more, a time or 0", rc.AtMs, rc.Restored, rc.LastRestoreMs)
	}
	return c.err
}

func validateJobNote(n *model.Change, lim Limits) error {
	c := jobRecord(TypeJobNote, lim, n.Cluster, n.JobID)
	if n.Kind != model.ChangeNote {
		c.fail("kind %q, want %q", n.Kind, model.ChangeNote)
	}
	c.str("detail.text", n.Detail.Text)
	c.str("source", n.Source)
	if err := n.Validate(); err != nil {
		c.fail("%v", err)
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
