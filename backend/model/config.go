package model

import "strings"

// JobConfig is what the engine says of a job's checkpointing and state, as
// collected at one moment (a resubmission can change it). Pointer fields are
// nil when the engine did not say: advice never assumes a default the engine
// did not report.
type JobConfig struct {
	Cluster string `json:"cluster"`
	JobID   string `json:"job_id"`
	// SeenMs is when this configuration was first collected; a job keeps a
	// history of configurations, newest last.
	SeenMs int64 `json:"seen_ms"`

	// Mode is "exactly_once" or "at_least_once".
	Mode              string `json:"mode,omitempty"`
	IntervalMs        *int64 `json:"interval_ms,omitempty"`
	TimeoutMs         *int64 `json:"timeout_ms,omitempty"`
	MinPauseMs        *int64 `json:"min_pause_ms,omitempty"`
	MaxConcurrent     *int64 `json:"max_concurrent,omitempty"`
	TolerableFailures *int64 `json:"tolerable_failures,omitempty"`
	Unaligned         *bool  `json:"unaligned,omitempty"`
	// AlignedTimeoutMs is the aligned-checkpoint timeout after which a
	// barrier switches to unaligned (0 = never).
	AlignedTimeoutMs *int64 `json:"aligned_timeout_ms,omitempty"`
	// StateBackend is the engine's name for it, lower case: "hashmap",
	// "rocksdb", "forst", … ("" = not reported).
	StateBackend      string `json:"state_backend,omitempty"`
	Incremental       *bool  `json:"incremental,omitempty"`
	Changelog         *bool  `json:"changelog,omitempty"`
	CheckpointStorage string `json:"checkpoint_storage,omitempty"`
	// BufferDebloat is taskmanager.network.memory.buffer-debloat.enabled.
	BufferDebloat *bool `json:"buffer_debloat,omitempty"`

	// Keys are the raw key/value pairs the values above were read from
	// (the job's and the JobManager's configuration, the engine's spelling),
	// for advice to quote; secrets are never kept (keys naming a password,
	// secret, token or key are dropped).
	Keys map[string]string `json:"keys,omitempty"`
}

// SameSettings reports whether two configurations say the same thing,
// ignoring when they were seen: a new history entry is kept only when they
// differ.
func (c JobConfig) SameSettings(o JobConfig) bool {
	eqI := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	eqB := func(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	if c.Mode != o.Mode || c.StateBackend != o.StateBackend || c.CheckpointStorage != o.CheckpointStorage ||
		!eqI(c.IntervalMs, o.IntervalMs) || !eqI(c.TimeoutMs, o.TimeoutMs) || !eqI(c.MinPauseMs, o.MinPauseMs) ||
		!eqI(c.MaxConcurrent, o.MaxConcurrent) || !eqI(c.TolerableFailures, o.TolerableFailures) ||
		!eqI(c.AlignedTimeoutMs, o.AlignedTimeoutMs) || !eqB(c.Unaligned, o.Unaligned) ||
		!eqB(c.Incremental, o.Incremental) || !eqB(c.Changelog, o.Changelog) || !eqB(c.BufferDebloat, o.BufferDebloat) ||
		len(c.Keys) != len(o.Keys) {
		return false
	}
	for k, v := range c.Keys {
		if w, ok := o.Keys[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// SecretKey reports whether a configuration key looks like it names a
// secret (a password, secret, token, credential or key, as Flink's own list
// of sensitive keys and the usual spellings have it): its value is never kept.
func SecretKey(k string) bool {
	l := strings.ToLower(k)
	for _, s := range []string{"password", "passwd", "secret", "token", "credential", "keystore", "truststore",
		"apikey", "api-key", "auth-params", "basic-auth", "jaas.config", "http-headers", "private"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(l, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		if part == "key" {
			return true
		}
	}
	return false
}
