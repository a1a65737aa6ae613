package model

import (
	"errors"
	"fmt"
)

// ChangeKind is what changed in a job: its configuration, a restart, a
// rescale, a resubmission, or a note the user added (docs/phases.md,
// "Changes and their effect").
type ChangeKind string

const (
	ChangeConfig   ChangeKind = "config"
	ChangeRestart  ChangeKind = "restart"
	ChangeRescale  ChangeKind = "rescale"
	ChangeResubmit ChangeKind = "resubmit"
	ChangeNote     ChangeKind = "note"
)

// Valid reports whether k is a kind the app knows.
func (k ChangeKind) Valid() bool {
	switch k {
	case ChangeConfig, ChangeRestart, ChangeRescale, ChangeResubmit, ChangeNote:
		return true
	}
	return false
}

// Where a change was seen (Change.Source).
const (
	// ChangeFromConfigHistory: two consecutive entries of the job's
	// configuration history differ.
	ChangeFromConfigHistory = "config-history"
	// ChangeFromCheckpoints: the checkpoints show it (a vertex's subtask
	// count changed; a checkpoint aborted because the job restarted).
	ChangeFromCheckpoints = "checkpoints"
	// ChangeFromJobGraph: the job's vertices have a parallelism its newest
	// checkpoint does not.
	ChangeFromJobGraph = "job-graph"
	// ChangeFromEngine: the engine's own record (its restore count).
	ChangeFromEngine = "engine"
	// ChangeFromRuns: a new run of the same logical job (another job id).
	ChangeFromRuns = "job-runs"
	// ChangeFromUser: a note the user added.
	ChangeFromUser = "user"
)

// Change is one thing that changed in a job at a moment: what a timeline
// marks and a before/after measures. Its JSON is the report's `changes[]`
// contract (issue #32): kind, time_ms and detail, whose names do not change.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// TimeMs is when it took effect, as well as the data tells (see
	// docs/phases.md): checkpoints triggered from then on are "after" it.
	TimeMs int64 `json:"time_ms"`
	// Source is where it was seen (ChangeFrom…).
	Source  string       `json:"source"`
	Cluster string       `json:"cluster,omitempty"`
	JobID   string       `json:"job_id,omitempty"`
	Detail  ChangeDetail `json:"detail"`
}

// ChangeDetail says what changed; which fields are set depends on the kind.
type ChangeDetail struct {
	// Keys are a config change's settings, each old → new ("" = not set).
	Keys []ConfigKeyChange `json:"keys,omitempty"`

	// A rescale: the vertex and its parallelism before and after.
	VertexID   string `json:"vertex_id,omitempty"`
	VertexName string `json:"vertex_name,omitempty"`
	From       int    `json:"from,omitempty"`
	To         int    `json:"to,omitempty"`

	// Text is a note's text.
	Text string `json:"text,omitempty"`

	// A restart: the checkpoint it aborted and the reason template code of
	// that abort (f_job_region, f_job_reset, …), and the engine's restore
	// count after it, where known.
	CheckpointID int64  `json:"checkpoint_id,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Restored     int64  `json:"restored,omitempty"`

	// A resubmission: the run it follows, and the savepoint that run ended
	// with (its last checkpoint was a completed savepoint), if it did.
	PreviousJobID string `json:"previous_job_id,omitempty"`
	Savepoint     string `json:"savepoint,omitempty"`
}

// ConfigKeyChange is one setting of a config change, by its engine's key
// name (Flink 2.x's spelling; SeaTunnel's env key for SeaTunnel).
type ConfigKeyChange struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Validate reports what is wrong with a change read from outside (a
// capture, the user's note): an unknown kind, no time, or a detail its
// kind needs missing.
func (c Change) Validate() error {
	if !c.Kind.Valid() {
		return fmt.Errorf("change: unknown kind %q", c.Kind)
	}
	if c.TimeMs <= 0 {
		return errors.New("change: no time")
	}
	d := c.Detail
	switch c.Kind {
	case ChangeConfig:
		if len(d.Keys) == 0 {
			return errors.New("change: a config change names no key")
		}
		for _, k := range d.Keys {
			if k.Key == "" || k.Old == k.New {
				return fmt.Errorf("change: config key %q does not change (%q → %q)", k.Key, k.Old, k.New)
			}
		}
	case ChangeRescale:
		if d.VertexID == "" || d.From <= 0 || d.To <= 0 || d.From == d.To {
			return fmt.Errorf("change: a rescale needs a vertex and two different parallelisms (%q: %d → %d)", d.VertexID, d.From, d.To)
		}
	case ChangeNote:
		if d.Text == "" {
			return errors.New("change: a note without text")
		}
	}
	return nil
}
