package model

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
}
