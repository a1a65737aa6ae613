package model

import (
	"slices"
	"strings"
)

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

	// Unknown lists the parts of the read that did not answer (none when
	// all did): what only they say is unset here because it is unknown, not
	// because the engine left it out. The parts that answered are kept all
	// the same; a later read that agrees with them fills the rest in (Agrees).
	Unknown []ConfigGap `json:"unknown,omitempty"`
}

// ConfigPart names a part of a configuration read: an engine answers it
// from more than one endpoint, and each stands alone.
type ConfigPart string

const (
	// ConfigPartCheckpoints is the job's checkpoint settings (Flink's
	// /jobs/:jid/checkpoints/config).
	ConfigPartCheckpoints ConfigPart = "checkpoints"
	// ConfigPartExecution is the job's execution config (Flink's
	// /jobs/:jid/config): the Keys under ExecutionKeyPrefix.
	ConfigPartExecution ConfigPart = "execution"
	// ConfigPartJobManager is the JobManager's configuration (Flink's
	// /jobs/:jid/jobmanager/config): the other Keys.
	ConfigPartJobManager ConfigPart = "jobmanager"
)

// ExecutionKeyPrefix starts the Keys read from the job's execution config.
const ExecutionKeyPrefix = "execution-config."

// ConfigGap is a part of a configuration read that did not answer.
type ConfigGap struct {
	Part ConfigPart `json:"part"`
	// Endpoint is the request that failed, e.g. "GET /jobs/:jid/config".
	Endpoint string `json:"endpoint"`
	// Error is why (as the client words it: secrets already redacted).
	Error string `json:"error"`
}

// Partial reports whether a part of the read did not answer.
func (c JobConfig) Partial() bool { return len(c.Unknown) > 0 }

// Knows reports whether part p of the read answered.
func (c JobConfig) Knows(p ConfigPart) bool {
	return !slices.ContainsFunc(c.Unknown, func(g ConfigGap) bool { return g.Part == p })
}

// keyPart is the part of a read a key of Keys came from.
func keyPart(k string) ConfigPart {
	if strings.HasPrefix(k, ExecutionKeyPrefix) {
		return ConfigPartExecution
	}
	return ConfigPartJobManager
}

// Agrees reports whether o says what c says on everything c reports: each
// setting c has, o has with the same value, each key c has, o has with the
// same value, and of each part both read, o has no key c lacks. What c does
// not report (a setting the engine left out or a part that did not answer)
// is not compared, so a partial read agrees with the fuller one it is part
// of. The history uses it where a read is partial (see FilledBy); two full
// reads compare with SameSettings.
func (c JobConfig) Agrees(o JobConfig) bool {
	eqS := func(a, b string) bool { return a == "" || a == b }
	eqI := func(a, b *int64) bool { return a == nil || b != nil && *a == *b }
	eqB := func(a, b *bool) bool { return a == nil || b != nil && *a == *b }
	if !eqS(c.Mode, o.Mode) || !eqS(c.StateBackend, o.StateBackend) || !eqS(c.CheckpointStorage, o.CheckpointStorage) ||
		!eqI(c.IntervalMs, o.IntervalMs) || !eqI(c.TimeoutMs, o.TimeoutMs) || !eqI(c.MinPauseMs, o.MinPauseMs) ||
		!eqI(c.MaxConcurrent, o.MaxConcurrent) || !eqI(c.TolerableFailures, o.TolerableFailures) ||
		!eqI(c.AlignedTimeoutMs, o.AlignedTimeoutMs) || !eqB(c.Unaligned, o.Unaligned) ||
		!eqB(c.Incremental, o.Incremental) || !eqB(c.Changelog, o.Changelog) || !eqB(c.BufferDebloat, o.BufferDebloat) {
		return false
	}
	for k, v := range c.Keys {
		if w, ok := o.Keys[k]; !ok || w != v {
			return false
		}
	}
	for k := range o.Keys {
		if _, ok := c.Keys[k]; !ok && c.Knows(keyPart(k)) && o.Knows(keyPart(k)) {
			return false // a part both read: c's answer lacks a key o's had
		}
	}
	return true
}

// FilledBy reports whether n, read after the partial entry c, fills c in
// rather than changing it: n answered a part c did not, and agrees with c on
// everything c reported. The history then keeps n in c's place, under c's
// first sighting.
func (c JobConfig) FilledBy(n JobConfig) bool {
	if !c.Partial() {
		return false
	}
	for _, g := range c.Unknown {
		if n.Knows(g.Part) {
			return c.Agrees(n)
		}
	}
	return false
}

// SettledBy reports whether n, read while c is in effect, adds nothing to the
// history: it says the same (SameSettings), or it is partial and says
// nothing c contradicts (n.Agrees(c)).
func (c JobConfig) SettledBy(n JobConfig) bool {
	return c.SameSettings(n) || n.Partial() && n.Agrees(c)
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
