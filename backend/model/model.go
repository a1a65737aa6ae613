// Package model holds the engine-neutral types every other package speaks:
// clusters, jobs, checkpoints with their per-vertex and per-subtask stats,
// sampled ack progress, metric samples and explicit gaps.
//
// Conventions, so that "absent" never masquerades as "zero":
//   - timestamps are epoch milliseconds on the engine's clock; 0 means absent;
//   - durations that an engine may not expose are *int64 (nil = not observable);
//   - sizes are bytes unless the field name says otherwise.
package model

import "fmt"

// Engine names the kind of cluster a source talks to.
type Engine string

const (
	EngineFlink     Engine = "flink"
	EngineSeaTunnel Engine = "seatunnel"
)

// Valid reports whether e is an engine the app knows.
func (e Engine) Valid() bool { return e == EngineFlink || e == EngineSeaTunnel }

// AuthKind is how requests to a cluster authenticate.
type AuthKind string

const (
	AuthNone   AuthKind = "none"
	AuthBasic  AuthKind = "basic"
	AuthBearer AuthKind = "bearer"
)

// JobManagerLogMode is whether Flink's JobManager log is read (Cluster.JobManagerLog).
type JobManagerLogMode string

// Modes of reading Flink's JobManager log; "" reads as JobManagerLogAuto.
const (
	// JobManagerLogAuto reads the log when it grew, at most once a minute,
	// up to a size cap; failures only show in the log's state.
	JobManagerLogAuto JobManagerLogMode = "auto"
	// JobManagerLogOn reads it whatever its size; failures are health problems.
	JobManagerLogOn JobManagerLogMode = "on"
	// JobManagerLogOff never reads it.
	JobManagerLogOff JobManagerLogMode = "off"
)

// Auth carries credentials. It is never written to captures, exports or logs:
// use Cluster.Public to get a copy without it.
type Auth struct {
	Kind     AuthKind `json:"kind"`
	Username string   `json:"username,omitempty"`
	Password string   `json:"password,omitempty"`
	Token    string   `json:"token,omitempty"`
}

// String never prints secrets, so an Auth that slips into a log line is harmless.
func (a Auth) String() string {
	switch a.Kind {
	case AuthBasic:
		return fmt.Sprintf("basic(user=%s, password=***)", a.Username)
	case AuthBearer:
		return "bearer(***)"
	default:
		return "none"
	}
}

// Cluster is one configured engine endpoint, or a capture opened read-only.
type Cluster struct {
	Name               string `json:"name"`
	Engine             Engine `json:"engine"`
	BaseURL            string `json:"base_url"`
	PrometheusURL      string `json:"prometheus_url,omitempty"`
	Auth               Auth   `json:"auth"`
	CAFile             string `json:"ca_file,omitempty"`
	InsecureSkipVerify bool   `json:"insecure_skip_verify,omitempty"`
	// PrometheusNames overrides metric and label names for relabelled setups
	// (keys as in docs/prometheus.md, e.g. "task_label", "back_pressured").
	PrometheusNames map[string]string `json:"prometheus_names,omitempty"`
	// ReporterURLs are Flink Prometheus reporter endpoints (JobManager and
	// TaskManagers) scraped directly for backpressure when set.
	ReporterURLs []string `json:"reporter_urls,omitempty"`
	// RequestsPerSecond and MaxInFlight bound what the app asks of the
	// cluster (its request budget); 0 takes the defaults in docs/collector.md.
	RequestsPerSecond float64 `json:"requests_per_second,omitempty"`
	MaxInFlight       int     `json:"max_in_flight,omitempty"`
	// JobManagerLog says whether Flink's JobManager log is read for finalize
	// times and history beyond REST: "auto" (or ""), "on" or "off"
	// (docs/flink.md).
	JobManagerLog JobManagerLogMode `json:"jobmanager_log,omitempty"`
	// TracesURL is the query service of a Jaeger that Flink's OpenTelemetry
	// trace reporter sends checkpoint spans to (Flink only): checkpoints the
	// cache has no record of are read from there (docs/interop.md).
	TracesURL string `json:"traces_url,omitempty"`
	// TracesService is the service.name those spans carry
	// (traces.reporter.<name>.service.name); required with TracesURL.
	TracesService string `json:"traces_service,omitempty"`
	// Lanes are the custom lanes drawn on the cluster's job timelines.
	Lanes []Lane `json:"lanes,omitempty"`
	// ReadOnly marks data that came from a capture file: nothing polls it.
	ReadOnly bool `json:"read_only,omitempty"`
}

// Public returns the cluster without credentials, safe for captures and exports.
func (c Cluster) Public() Cluster {
	c.Auth = Auth{Kind: c.Auth.Kind}
	if c.Auth.Kind == "" {
		c.Auth.Kind = AuthNone
	}
	return c
}

// Job is one job on a cluster with its graph.
type Job struct {
	Cluster   string   `json:"cluster"`
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Engine    Engine   `json:"engine"`
	State     string   `json:"state"`
	StartMs   int64    `json:"start_ms,omitempty"`
	EndMs     int64    `json:"end_ms,omitempty"`
	Vertices  []Vertex `json:"vertices,omitempty"`
	Edges     []Edge   `json:"edges,omitempty"`
	UpdatedMs int64    `json:"updated_ms,omitempty"`
	// Split: the user said this run does not follow the earlier runs of its
	// name (docs/fleet.md, "Jobs across restarts"): it starts a logical job
	// of its own. Kept by the cache apart from what the engine reports.
	Split bool `json:"split,omitempty"`
}

// StateReplaced is the state of a run whose job id a newer run took (the cache
// keeps it apart, store.KeepRunApart): it ended, how is not known.
const StateReplaced = "REPLACED"

// NewRun reports whether a job of prev's id that started at startMs is a new
// run of it: a later start (by more than the second engines round to).
func NewRun(prev Job, startMs int64) bool {
	return prev.StartMs > 0 && startMs-prev.StartMs > 1000
}

// JobEnded reports whether a job state is one the job does not leave (Flink's
// terminal and suspended states, SeaTunnel's ended ones).
func JobEnded(state string) bool {
	switch state {
	case "FINISHED", "CANCELED", "CANCELLED", "FAILED", "SAVEPOINT_DONE", "UNKNOWABLE", "SUSPENDED", StateReplaced:
		return true
	}
	return false
}

// Vertex is an operator chain (Flink JobVertex) or a SeaTunnel pipeline vertex.
type Vertex struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	// Pipeline groups vertices checkpointed together (SeaTunnel); 0 for Flink.
	Pipeline int `json:"pipeline,omitempty"`
}

// Edge connects two vertices, data flowing Source → Target.
type Edge struct {
	Source       string `json:"source"`
	Target       string `json:"target"`
	ShipStrategy string `json:"ship_strategy,omitempty"`
}

// CheckpointKind distinguishes regular, unaligned checkpoints and savepoints.
type CheckpointKind string

const (
	KindCheckpoint CheckpointKind = "checkpoint"
	KindUnaligned  CheckpointKind = "unaligned"
	KindSavepoint  CheckpointKind = "savepoint"
)

// Status is a checkpoint's state.
type Status string

const (
	StatusInProgress Status = "IN_PROGRESS"
	StatusCompleted  Status = "COMPLETED"
	StatusFailed     Status = "FAILED"
)

// Final reports whether a checkpoint in this status will not change any more.
func (s Status) Final() bool { return s == StatusCompleted || s == StatusFailed }

// Rank orders statuses by how much attention they need (failed first); used to
// merge checkpoints for display and to decide which of two states is newer.
func (s Status) Rank() int {
	switch s {
	case StatusFailed:
		return 2
	case StatusCompleted:
		return 1
	default:
		return 0
	}
}

// Checkpoint is one checkpoint (or savepoint) of a job with everything the
// engine reported about it.
type Checkpoint struct {
	Cluster string `json:"cluster"`
	JobID   string `json:"job_id"`
	ID      int64  `json:"id"`
	// Pipeline is SeaTunnel's unit of checkpointing; 0 for Flink.
	Pipeline int            `json:"pipeline,omitempty"`
	Kind     CheckpointKind `json:"kind"`
	Status   Status         `json:"status"`

	TriggerMs    int64 `json:"trigger_ms"`
	LatestAckMs  int64 `json:"latest_ack_ms,omitempty"`
	CompletionMs int64 `json:"completion_ms,omitempty"`
	FailureMs    int64 `json:"failure_ms,omitempty"`
	// EndToEndMs is trigger → latest ack (Flink) or → completion (SeaTunnel).
	EndToEndMs int64 `json:"end_to_end_ms"`
	// FinalizeMs is last ack → completion/commit where the engine shows it; nil otherwise.
	FinalizeMs *int64 `json:"finalize_ms,omitempty"`

	StateSize        int64 `json:"state_size"`
	CheckpointedSize int64 `json:"checkpointed_size"`
	ProcessedData    int64 `json:"processed_data"`
	PersistedData    int64 `json:"persisted_data"`
	// StateBlobs is SeaTunnel's stateSize: a count of non-empty state blobs, not bytes.
	StateBlobs *int64 `json:"state_blobs,omitempty"`

	NumSubtasks     int `json:"num_subtasks"`
	NumAcknowledged int `json:"num_acknowledged"`

	FailureMessage string `json:"failure_message,omitempty"`
	// FailureCause is the root cause the engine's log gives for a failure
	// (the innermost exception), where it was read.
	FailureCause string `json:"failure_cause,omitempty"`
	// Declined names the task whose decline failed the checkpoint, where the
	// engine's log says.
	Declined     *Decline `json:"declined,omitempty"`
	ExternalPath string   `json:"external_path,omitempty"`
	// Source says where the record came from: "" the engine's checkpoint
	// API; OriginJobManagerLog when only the JobManager log had it (no
	// per-subtask stats then); OriginTraces when only a tracing backend had it.
	Source CheckpointSource `json:"source,omitempty"`

	// Tasks holds per-vertex stats; empty when the engine gives none or they were trimmed.
	Tasks []TaskStats `json:"tasks,omitempty"`
	// DetailLoss says why a final checkpoint has no Tasks although its engine
	// reports them (DetailTrimmed or DetailMissed), or that only part of them
	// came (DetailPartial); empty otherwise.
	DetailLoss DetailLoss `json:"detail_loss,omitempty"`
}

// CheckpointSource is where a checkpoint's record came from: empty for the
// engine's checkpoint API (REST), else OriginJobManagerLog or OriginTraces.
type CheckpointSource string

// OriginJobManagerLog is Checkpoint.Source for a checkpoint read from
// Flink's JobManager log: beyond the REST history, or filling a gap.
const OriginJobManagerLog CheckpointSource = "jobmanager_log"

// OriginTraces is Checkpoint.Source for a checkpoint read from the spans
// Flink's trace reporter sent to a tracing backend (model.Cluster.TracesURL).
const OriginTraces CheckpointSource = "traces"

// Decline is the task that declined a checkpoint (Flink's JobManager log:
// "Decline checkpoint N by task <attempt> of job J").
type Decline struct {
	VertexID string `json:"vertex_id,omitempty"`
	Subtask  int    `json:"subtask"`
	Attempt  int    `json:"attempt"`
	// Task is the task's name with its subtask, e.g. "Map (2/4)#0", where the log gives it.
	Task string `json:"task,omitempty"`
	// Message is the decline's own exception message.
	Message string `json:"message,omitempty"`
}

// DetailLoss is why a final checkpoint lacks (some of) the per-subtask
// stats its engine reports.
type DetailLoss string

// Reasons a checkpoint lacks the per-subtask stats its engine reports.
const (
	// DetailTrimmed: the cache's retention removed them to stay within its size cap.
	DetailTrimmed DetailLoss = "trimmed"
	// DetailMissed: the checkpoint left the engine's history before the app
	// fetched them (a small request budget, a slow engine, the app closed).
	DetailMissed DetailLoss = "missed"
	// DetailPartial: some vertices' per-subtask stats could not be fetched
	// (their requests failed, and retries did not get them before the
	// checkpoint left the engine's history); those vertices are Missing.
	DetailPartial DetailLoss = "partial"
)

// Key identifies a checkpoint across the whole store.
type Key struct {
	Cluster  string `json:"cluster"`
	JobID    string `json:"job_id"`
	Pipeline int    `json:"pipeline"`
	ID       int64  `json:"id"`
}

// Key returns the checkpoint's identity.
func (c *Checkpoint) Key() Key {
	return Key{Cluster: c.Cluster, JobID: c.JobID, Pipeline: c.Pipeline, ID: c.ID}
}

// EndMs is when the checkpoint ended (completion, failure or latest ack), or 0 while running.
func (c *Checkpoint) EndMs() int64 {
	return endMs(c.Status, c.TriggerMs, c.LatestAckMs, c.CompletionMs, c.FailureMs, c.EndToEndMs)
}

func endMs(st Status, triggerMs, latestAckMs, completionMs, failureMs, endToEndMs int64) int64 {
	switch {
	case completionMs > 0:
		return completionMs
	case failureMs > 0:
		return failureMs
	case latestAckMs > 0 && st.Final():
		return latestAckMs
	case st.Final():
		return triggerMs + endToEndMs
	}
	return 0
}

// Span is a checkpoint's place on the time axis and how it ended, without
// its statistics: what a timeline draws of it. A long history is read as
// spans (a day at 1 s is 100,000 checkpoints; whole, each is some 300 bytes
// and a dozen columns to read).
type Span struct {
	Pipeline         int
	ID               int64
	Status           Status
	TriggerMs        int64
	LatestAckMs      int64
	CompletionMs     int64
	FailureMs        int64
	EndToEndMs       int64
	CheckpointedSize int64
}

// Span is the checkpoint's span.
func (c *Checkpoint) Span() Span {
	return Span{Pipeline: c.Pipeline, ID: c.ID, Status: c.Status, TriggerMs: c.TriggerMs, LatestAckMs: c.LatestAckMs,
		CompletionMs: c.CompletionMs, FailureMs: c.FailureMs, EndToEndMs: c.EndToEndMs, CheckpointedSize: c.CheckpointedSize}
}

// EndMs is when the checkpoint ended, as Checkpoint.EndMs.
func (s *Span) EndMs() int64 {
	return endMs(s.Status, s.TriggerMs, s.LatestAckMs, s.CompletionMs, s.FailureMs, s.EndToEndMs)
}

// TaskStats is one vertex's part of a checkpoint.
type TaskStats struct {
	VertexID         string         `json:"vertex_id"`
	LatestAckMs      int64          `json:"latest_ack_ms,omitempty"`
	EndToEndMs       int64          `json:"end_to_end_ms"`
	StateSize        int64          `json:"state_size"`
	CheckpointedSize int64          `json:"checkpointed_size"`
	ProcessedData    int64          `json:"processed_data"`
	PersistedData    int64          `json:"persisted_data"`
	NumSubtasks      int            `json:"num_subtasks"`
	NumAcknowledged  int            `json:"num_acknowledged"`
	Subtasks         []SubtaskStats `json:"subtasks,omitempty"`
	// Missing says the vertex's per-subtask stats were asked for and could not
	// be fetched (the checkpoint's DetailLoss is DetailPartial).
	Missing bool `json:"missing,omitempty"`
}

// Subtask statuses as Flink names them.
const (
	SubtaskCompleted       = "completed"
	SubtaskPendingOrFailed = "pending_or_failed"
)

// SubtaskStats is one parallel instance's part of a checkpoint. Durations are
// milliseconds; for a pending subtask only Index and Status are meaningful.
type SubtaskStats struct {
	Index            int    `json:"index"`
	Status           string `json:"status"`
	AckMs            int64  `json:"ack_ms,omitempty"`
	EndToEndMs       int64  `json:"end_to_end_ms"`
	StartDelayMs     int64  `json:"start_delay_ms"`
	AlignmentMs      int64  `json:"alignment_ms"`
	SyncMs           int64  `json:"sync_ms"`
	AsyncMs          int64  `json:"async_ms"`
	StateSize        int64  `json:"state_size"`
	CheckpointedSize int64  `json:"checkpointed_size"`
	ProcessedData    int64  `json:"processed_data"`
	PersistedData    int64  `json:"persisted_data"`
	Unaligned        bool   `json:"unaligned,omitempty"`
	Aborted          bool   `json:"aborted,omitempty"`
}

// Acknowledged reports whether the subtask's ack reached the JobManager.
func (s SubtaskStats) Acknowledged() bool { return s.Status == SubtaskCompleted }

// AckSample is one observation of an in-flight checkpoint's progress.
type AckSample struct {
	Cluster      string `json:"cluster"`
	JobID        string `json:"job_id"`
	Pipeline     int    `json:"pipeline,omitempty"`
	CheckpointID int64  `json:"checkpoint_id"`
	TimeMs       int64  `json:"time_ms"`
	Acknowledged int    `json:"acknowledged"`
	Total        int    `json:"total"`
}

// Well-known metric names, shared by all sources so the same analysis works.
const (
	MetricBackPressuredMsPerSec = "backPressuredTimeMsPerSecond"
	// Soft and hard backpressure are the two parts of backPressuredTimeMsPerSecond
	// (Flink 1.17+); either alone says nothing about the total.
	MetricSoftBackPressuredMsPerSec = "softBackPressuredTimeMsPerSecond"
	MetricHardBackPressuredMsPerSec = "hardBackPressuredTimeMsPerSecond"
	MetricBusyMsPerSec              = "busyTimeMsPerSecond"
	MetricIdleMsPerSec              = "idleTimeMsPerSecond"
	// SeaTunnel edge metrics (VertexID is the upstream vertex, Target the downstream one).
	MetricBPRatio        = "bpRatio"
	MetricQueueFillRatio = "queueFillRatio"
	MetricBusyRatio      = "busyRatio"

	// A sink's commits, from its committer's metrics (docs/phases.md, "Sink
	// commits"): the last commit's duration (Iceberg lastCommitDurationMs;
	// SeaTunnel: commit time per realtime window), and cumulative counts of
	// what was committed (Iceberg committedDataFilesCount and
	// committedDataFilesRecordCount; Flink Sink V2 successfulCommittables).
	MetricCommitDurationMs      = "commit.durationMs"
	MetricCommittedFiles        = "commit.files"
	MetricCommittedRecords      = "commit.records"
	MetricCommittedCommittables = "commit.committables"

	// What SeaTunnel engines without realtime metrics (2.3.13) show in the
	// metrics block of /job-info: MetricQueueSize is the records waiting in
	// the intermediate queues in front of a sink (VertexID the upstream
	// vertex, Target the sink; the engine's sum over the job's queues);
	// MetricSourceRecordsPerSec and MetricSinkRecordsPerSec are the records
	// a source read and a sink wrote per second between two snapshots (the
	// source or sink vertex); MetricCommitLagRecords is the records a sink
	// wrote that no completed checkpoint has committed yet (the sink vertex).
	MetricQueueSize           = "queueSize"
	MetricSourceRecordsPerSec = "sourceRecordsPerSec"
	MetricSinkRecordsPerSec   = "sinkRecordsPerSec"
	MetricCommitLagRecords    = "commit.lagRecords"
)

// MetricLanePrefix starts the metric name of a custom lane's samples:
// "lane:" + Lane.Name.
const MetricLanePrefix = "lane:"

// Lane is a line a user adds to the timelines of a cluster's jobs: a
// PromQL query on the cluster's Prometheus ("$job_id" stands for the job's
// id; the lane is the maximum over the series it returns), or a Flink
// metric of the job's vertices (a name such as "numRecordsOutPerSecond" or
// an operator's "IcebergFilesCommitter.…" metric; the maximum over the
// vertices that have it).
type Lane struct {
	Name   string `json:"name"`
	PromQL string `json:"promql,omitempty"`
	Metric string `json:"metric,omitempty"`
}

// Aggregations across subtasks; AggNone for a per-subtask value.
const (
	AggNone = ""
	AggMax  = "max"
	AggAvg  = "avg"
)

// MetricSample is one value of one metric for a vertex (or one of its subtasks) at a time.
type MetricSample struct {
	Cluster  string `json:"cluster"`
	JobID    string `json:"job_id"`
	VertexID string `json:"vertex_id"`
	// Target is the downstream vertex for edge metrics; empty otherwise.
	Target string `json:"target,omitempty"`
	// Subtask is the subtask index, or -1 for an aggregate over subtasks.
	Subtask int     `json:"subtask"`
	Metric  string  `json:"metric"`
	Agg     string  `json:"agg,omitempty"`
	TimeMs  int64   `json:"time_ms"`
	Value   float64 `json:"value"`
	// Source says where the value came from: "rest", "prometheus", "reporter", "capture".
	Source string `json:"source,omitempty"`
}

// Gap records checkpoints known to exist but never seen (evicted from the
// engine's history before a poll reached them). IDs are inclusive.
type Gap struct {
	Cluster    string `json:"cluster"`
	JobID      string `json:"job_id"`
	Pipeline   int    `json:"pipeline,omitempty"`
	FromID     int64  `json:"from_id"`
	ToID       int64  `json:"to_id"`
	DetectedMs int64  `json:"detected_ms"`
	Reason     string `json:"reason,omitempty"`
}

// Count is how many checkpoints the gap covers.
func (g Gap) Count() int64 { return g.ToID - g.FromID + 1 }
