package model

import "errors"

// History is what an engine still remembers of a job's checkpoints at one
// moment: its bounded history (Flink: 10 by default; SeaTunnel: 32 per
// pipeline), the progress of checkpoints in flight, and its counters.
type History struct {
	// Checkpoints are summaries (no Tasks), in any order.
	Checkpoints []Checkpoint `json:"checkpoints"`
	// InFlight is the sampled progress of checkpoints still running.
	InFlight []AckSample `json:"in_flight,omitempty"`
	// Capacity is how many checkpoints the engine keeps per pipeline; 0 if unknown.
	Capacity int `json:"capacity"`
	// Triggered is the engine's count of checkpoints ever triggered for the job
	// (Flink counts.total; -1 if unknown). Used to cross-check gaps.
	Triggered int64 `json:"triggered"`
	// IntervalMs is the configured checkpoint interval; 0 if unknown.
	IntervalMs int64 `json:"interval_ms"`
	// Counts are the engine's own counters per pipeline, when it sends them
	// (Flink: /checkpoints counts, pipeline 0; SeaTunnel: per pipeline).
	Counts map[int]EngineCounts `json:"counts,omitempty"`
	// RefreshMs is how often the engine refreshes this answer, when it
	// does so on a period of its own rather than on every change (0:
	// unknown, or on every change). Polls for the progress of checkpoints in
	// flight are not made more often: they would return the same answer.
	RefreshMs int64 `json:"refresh_ms,omitempty"`
}

// EngineCounts are an engine's checkpoint counters for one pipeline of a
// job, since its JobManager (master) started following the job.
type EngineCounts struct {
	Triggered  int64 `json:"triggered"`
	Completed  int64 `json:"completed"`
	Failed     int64 `json:"failed"`
	InProgress int64 `json:"in_progress"`
	Restored   int64 `json:"restored"`
	// LastRestoreMs is when the engine says it last restored the job
	// (Flink's latest.restored.restore_timestamp); 0 when it does not say.
	LastRestoreMs int64 `json:"last_restore_ms,omitempty"`
}

// RestoreCount is an engine's restore count for a job as one poll saw it
// (the store keeps each poll's whose count or time differs from the one
// before): a count that grew between two is a restart, even one no aborted
// checkpoint shows (docs/phases.md, "Changes and their effect").
type RestoreCount struct {
	Cluster  string `json:"cluster"`
	JobID    string `json:"job_id"`
	AtMs     int64  `json:"at_ms"`
	Restored int64  `json:"restored"`
	// LastRestoreMs is EngineCounts.LastRestoreMs: where the restart is
	// placed when it falls between the two polls, else at AtMs.
	LastRestoreMs int64 `json:"last_restore_ms,omitempty"`
}

// Reconciliation compares, for one job, the checkpoints its engine reported
// with what the app accounted for, as of the last successful poll. Every id
// of the span FirstID..LatestID is either stored (Stored) or recorded as a
// gap (Gaps); Unaccounted counts the ids that are neither, and is 0 unless
// something was lost. For jobs with several pipelines the figures are sums.
type Reconciliation struct {
	Cluster string `json:"cluster"`
	JobID   string `json:"job_id"`
	// AtMs is the time of the last successful poll; Polls and FailedPolls
	// count the list polls of this run of the collector.
	AtMs        int64 `json:"at_ms"`
	Polls       int64 `json:"polls"`
	FailedPolls int64 `json:"failed_polls"`
	// FirstID and LatestID bound the ids accounted for (pipeline 0, or the
	// smallest first and largest latest over pipelines).
	FirstID  int64 `json:"first_id"`
	LatestID int64 `json:"latest_id"`
	// IDs is how many ids the span holds (summed over pipelines).
	IDs         int64 `json:"ids"`
	Stored      int64 `json:"stored"`
	Gaps        int64 `json:"gaps"`
	Unaccounted int64 `json:"unaccounted"`
	// EngineCounted is how many checkpoints the engine's counters say were
	// triggered over the span (-1 when the engine sends no counters);
	// WithoutID is how many of those never got an id in its history (a
	// trigger that failed before the checkpoint started: Flink counts it as
	// failed, and there is nothing to store).
	EngineCounted int64 `json:"engine_counted"`
	WithoutID     int64 `json:"without_id"`
	// TriggerFailures say why, where the engine's log tells (Flink's
	// JobManager log, once read): the failed triggers it logged over the
	// span, grouped by reason (at most MaxTriggerFailureReasons). Empty when
	// the log is off, not read yet, or logged none.
	TriggerFailures []TriggerFailureReason `json:"trigger_failures,omitempty"`
	// Engine holds the engine's counters at the last successful poll (summed
	// over pipelines); nil when it sends none.
	Engine *EngineCounts `json:"engine,omitempty"`
	// FromLog is how many ids of the span were stored from the engine's log
	// (they had left its API's history unseen: gaps filled); Earlier how many
	// checkpoints before the span the log gave (history beyond the API's).
	FromLog int64 `json:"from_log"`
	Earlier int64 `json:"earlier"`
	// Log is the state of the engine's log reader; nil where there is none.
	Log *LogState `json:"log,omitempty"`
	// EngineForgotMs is when the engine was first seen to have dropped the
	// job's checkpoint history while the cache held some (a SeaTunnel job
	// stopped without a savepoint loses it at once): from then on the cache
	// is the only record. 0 while the engine keeps it.
	EngineForgotMs int64 `json:"engine_forgot_ms,omitempty"`
}

// ErrDiskFull is what a sink's write returns (wrapped) when it found no room
// (store.ErrDiskFull): the collector pauses storing and keeps polling.
var ErrDiskFull = errors.New("the cache's disk is full")

// SameTrigger tells whether a checkpoint from an engine's log and one from
// its API, of the same id, are the same checkpoint: their trigger times,
// both the JobManager's clock, agree within 2 s (another run under a reused
// job id is minutes or more apart).
func SameTrigger(a, b int64) bool {
	d := a - b
	return d <= 2000 && d >= -2000
}

// LogMerge says what merging a log's checkpoints into the store did.
type LogMerge struct {
	// Added are the ids stored from the log: not stored before.
	Added []int64
	// FilledGaps are those of Added that were recorded as gaps.
	FilledGaps int
	// Updated counts stored checkpoints the log completed (finalize, cause, decline).
	Updated int
	// Resolved are the ids stored in progress whose end the log (or the traces) gave: their
	// summary is the log's now, their source and stored per-subtask stats kept.
	Resolved []int64
}

// LogStateKind is LogState.State.
type LogStateKind string

// States of LogState.
const (
	LogRead         LogStateKind = "read"         // read; its checkpoints are merged
	LogOff          LogStateKind = "off"          // turned off for the cluster
	LogWaiting      LogStateKind = "waiting"      // not read yet
	LogUnavailable  LogStateKind = "unavailable"  // the engine does not serve it (or it failed)
	LogTooLarge     LogStateKind = "too_large"    // bigger than the size cap: read on demand
	LogUnrecognised LogStateKind = "unrecognised" // read, but no checkpoint line matched the known messages
)

// LogState says whether a job's checkpoints come from the engine's log too
// (Flink's JobManager log: finalize times, history beyond REST) and, when
// they do not, why.
type LogState struct {
	State  LogStateKind `json:"state"`
	Reason string       `json:"reason,omitempty"`
	// ReadMs is when the log was last read; SizeBytes its size then (or the
	// size that exceeded LimitBytes).
	ReadMs     int64 `json:"read_ms,omitempty"`
	SizeBytes  int64 `json:"size_bytes,omitempty"`
	LimitBytes int64 `json:"limit_bytes,omitempty"`
	// Checkpoints is how many of the job's checkpoints the last read held.
	Checkpoints int `json:"checkpoints"`
}

// Missed is how many checkpoints of the span the app did not store.
func (r Reconciliation) Missed() int64 { return r.Gaps + r.Unaccounted }
