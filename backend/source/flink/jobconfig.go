package flink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// CheckpointSettings is GET /jobs/:jid/checkpoints/config as Flink sent it: a nil field was
// absent from the answer (a field Flink does not have in this version, or a proxy's cut).
// Durations are milliseconds; Flink sends numbers, but a duration string ("10 s", "PT10S") is
// read too.
type CheckpointSettings struct {
	Mode              *string
	IntervalMs        *int64
	TimeoutMs         *int64
	MinPauseMs        *int64
	MaxConcurrent     *int64
	TolerableFailures *int64
	Unaligned         *bool
	AlignedTimeoutMs  *int64
	StateBackend      *string
	CheckpointStorage *string
	ChangelogEnabled  *bool
}

// checkpointConfigJSON decodes GET /jobs/:jid/checkpoints/config with every field optional.
type checkpointConfigJSON struct {
	Mode            *string   `json:"mode"`
	Interval        *flexMs   `json:"interval"`
	Timeout         *flexMs   `json:"timeout"`
	MinPause        *flexMs   `json:"min_pause"`
	MaxConcurrent   *flexInt  `json:"max_concurrent"`
	Unaligned       *flexBool `json:"unaligned_checkpoints"`
	AlignedTimeout  *flexMs   `json:"aligned_checkpoint_timeout"`
	Tolerable       *flexInt  `json:"tolerable_failed_checkpoints"`
	StateBackend    *string   `json:"state_backend"`
	Storage         *string   `json:"checkpoint_storage"`
	Changelog       *flexBool `json:"state_changelog_enabled"`
	Externalization *struct {
		Enabled        bool `json:"enabled"`
		DeleteOnCancel bool `json:"delete_on_cancellation"`
	} `json:"externalization"`
}

// UnmarshalJSON decodes field by field, so that a value that cannot be read names its field.
func (r *checkpointConfigJSON) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	fields := []struct {
		name string
		dst  any
	}{
		{"mode", &r.Mode}, {"interval", &r.Interval}, {"timeout", &r.Timeout}, {"min_pause", &r.MinPause},
		{"max_concurrent", &r.MaxConcurrent}, {"unaligned_checkpoints", &r.Unaligned},
		{"aligned_checkpoint_timeout", &r.AlignedTimeout}, {"tolerable_failed_checkpoints", &r.Tolerable},
		{"state_backend", &r.StateBackend}, {"checkpoint_storage", &r.Storage},
		{"state_changelog_enabled", &r.Changelog}, {"externalization", &r.Externalization},
	}
	for _, f := range fields {
		v, ok := raw[f.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	return nil
}

func (r *checkpointConfigJSON) settings() CheckpointSettings {
	return CheckpointSettings{
		Mode: r.Mode, IntervalMs: r.Interval.ptr(), TimeoutMs: r.Timeout.ptr(), MinPauseMs: r.MinPause.ptr(),
		MaxConcurrent: r.MaxConcurrent.ptr(), TolerableFailures: r.Tolerable.ptr(), Unaligned: r.Unaligned.ptr(),
		AlignedTimeoutMs: r.AlignedTimeout.ptr(), StateBackend: r.StateBackend, CheckpointStorage: r.Storage,
		ChangelogEnabled: r.Changelog.ptr(),
	}
}

// ExecutionConfig returns the scalar fields of GET /jobs/:jid/config's execution-config
// (restart-strategy, job-parallelism, object-reuse-mode, execution-mode in 1.x), as text.
// user-config (the job's global parameters: the user's own, not Flink settings, and free to
// hold secrets) is not returned.
func (c *Client) ExecutionConfig(ctx context.Context, jid string) (map[string]string, error) {
	if err := checkID("job id", jid); err != nil {
		return nil, err
	}
	var resp struct {
		Exec map[string]json.RawMessage `json:"execution-config"`
	}
	path := "/jobs/" + url.PathEscape(jid) + "/config"
	if err := c.get(ctx, "/jobs/:jid/config", path, nil, &resp); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, raw := range resp.Exec {
		if k == "user-config" {
			continue
		}
		if v, ok := scalarText(raw); ok {
			out[k] = v
		}
	}
	return out, nil
}

// JobManagerConfig returns the JobManager's configuration as key/value pairs: the job's
// (GET /jobs/:jid/jobmanager/config, Flink 1.17 on) when jid is set, else the cluster's
// (GET /jobmanager/config). Flink lists only the keys set in its configuration (its defaults
// are not listed) and masks the values of keys it deems sensitive. In a session cluster both
// are the same list, and the per-job one answers even for a job the cluster does not know.
func (c *Client) JobManagerConfig(ctx context.Context, jid string) (map[string]string, error) {
	endpoint, path := "/jobmanager/config", "/jobmanager/config"
	if jid != "" {
		endpoint, path = "/jobs/:jid/jobmanager/config", "/jobs/"+url.PathEscape(jid)+"/jobmanager/config"
	}
	var resp []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := c.get(ctx, endpoint, path, nil, &resp); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(resp))
	for i, kv := range resp {
		if kv.Key == "" {
			return nil, fmt.Errorf("flink: GET %s: entry %d has no key", path, i)
		}
		out[kv.Key] = kv.Value
	}
	return out, nil
}

// JobConfigParts are the answers a job's configuration is read from; a nil part did not
// answer (or was not asked).
type JobConfigParts struct {
	Checkpoints *CheckpointSettings
	Execution   map[string]string
	JobManager  map[string]string
}

// Configuration keys read from the JobManager's configuration, in both spellings where Flink
// 2.x renamed them (the first is the newer one).
var (
	keysIncremental    = []string{"execution.checkpointing.incremental", "state.backend.incremental"}
	keysStateBackend   = []string{"state.backend.type", "state.backend"}
	keysDebloat        = []string{"taskmanager.network.memory.buffer-debloat.enabled"}
	keysUnaligned      = []string{"execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned"}
	keysAlignedTimeout = []string{"execution.checkpointing.aligned-checkpoint-timeout", "execution.checkpointing.alignment-timeout"}
	keysTolerable      = []string{"execution.checkpointing.tolerable-failed-checkpoints"}
	keysInterval       = []string{"execution.checkpointing.interval"}
	keysTimeout        = []string{"execution.checkpointing.timeout"}
	keysMinPause       = []string{"execution.checkpointing.min-pause"}
	keysMaxConcurrent  = []string{"execution.checkpointing.max-concurrent-checkpoints"}
	keysMode           = []string{"execution.checkpointing.mode"}
	keysChangelog      = []string{"state.changelog.enabled", "state.backend.changelog.enabled"}
	keysStorage        = []string{"execution.checkpointing.storage", "state.checkpoint-storage"}
)

// keptPrefixes are the JobManager keys kept in JobConfig.Keys: checkpointing, state and
// buffer debloating. The rest (ports, directories of this JobManager's run, memory sizes)
// says nothing advice needs and changes with every restart.
var keptPrefixes = []string{"execution.checkpointing.", "state.", "taskmanager.network.memory.buffer-debloat."}

// BuildJobConfig turns what Flink reported into a model.JobConfig: the job's checkpoint
// settings first (they are what the job runs with), the JobManager's keys for what those do
// not say. Nothing is assumed: a setting no part reports stays nil. A key's value that cannot
// be read (a duration that is no duration) leaves its field nil; the key is kept as sent.
// Secret-looking keys are dropped.
func BuildJobConfig(cluster, jid string, p JobConfigParts) model.JobConfig {
	cfg := model.JobConfig{Cluster: cluster, JobID: jid}
	keys := map[string]string{}
	for k, v := range p.JobManager {
		if keptKey(k) && !model.SecretKey(k) {
			keys[k] = v
		}
	}
	for k, v := range p.Execution {
		if !model.SecretKey(k) {
			keys[model.ExecutionKeyPrefix+k] = v
		}
	}
	if len(keys) > 0 {
		cfg.Keys = keys
	}
	if cs := p.Checkpoints; cs != nil {
		if cs.Mode != nil {
			cfg.Mode = normMode(*cs.Mode)
		}
		cfg.IntervalMs, cfg.TimeoutMs, cfg.MinPauseMs = cs.IntervalMs, cs.TimeoutMs, cs.MinPauseMs
		cfg.MaxConcurrent, cfg.TolerableFailures = cs.MaxConcurrent, cs.TolerableFailures
		cfg.Unaligned, cfg.AlignedTimeoutMs, cfg.Changelog = cs.Unaligned, cs.AlignedTimeoutMs, cs.ChangelogEnabled
		if cs.StateBackend != nil {
			cfg.StateBackend = normBackend(*cs.StateBackend)
		}
		if cs.CheckpointStorage != nil {
			cfg.CheckpointStorage = normStorage(*cs.CheckpointStorage)
		}
	}
	jm := p.JobManager
	if cfg.Mode == "" {
		if v, ok := lookup(jm, keysMode); ok {
			cfg.Mode = normMode(v)
		}
	}
	orDuration(&cfg.IntervalMs, jm, keysInterval)
	orDuration(&cfg.TimeoutMs, jm, keysTimeout)
	orDuration(&cfg.MinPauseMs, jm, keysMinPause)
	orDuration(&cfg.AlignedTimeoutMs, jm, keysAlignedTimeout)
	orInt(&cfg.MaxConcurrent, jm, keysMaxConcurrent)
	orInt(&cfg.TolerableFailures, jm, keysTolerable)
	orBool(&cfg.Unaligned, jm, keysUnaligned)
	orBool(&cfg.Changelog, jm, keysChangelog)
	orBool(&cfg.Incremental, jm, keysIncremental)
	orBool(&cfg.BufferDebloat, jm, keysDebloat)
	if cfg.StateBackend == "" {
		if v, ok := lookup(jm, keysStateBackend); ok {
			cfg.StateBackend = normBackend(v)
		}
	}
	if cfg.CheckpointStorage == "" {
		if v, ok := lookup(jm, keysStorage); ok {
			cfg.CheckpointStorage = normStorage(v)
		}
	}
	return cfg
}

func keptKey(k string) bool {
	for _, p := range keptPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// lookup returns the first of keys that kv holds.
func lookup(kv map[string]string, keys []string) (string, bool) {
	for _, k := range keys {
		if v, ok := kv[k]; ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

func orDuration(dst **int64, kv map[string]string, keys []string) {
	if *dst != nil {
		return
	}
	if v, ok := lookup(kv, keys); ok {
		if ms, err := ParseDuration(v); err == nil {
			*dst = &ms
		}
	}
}

func orInt(dst **int64, kv map[string]string, keys []string) {
	if *dst != nil {
		return
	}
	if v, ok := lookup(kv, keys); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			*dst = &n
		}
	}
}

func orBool(dst **bool, kv map[string]string, keys []string) {
	if *dst != nil {
		return
	}
	if v, ok := lookup(kv, keys); ok {
		if b, err := strconv.ParseBool(strings.ToLower(v)); err == nil {
			*dst = &b
		}
	}
}

// normMode spells Flink's mode as the model does: exactly_once or at_least_once.
func normMode(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}

// normBackend names a state backend as Flink's state.backend.type does: "hashmap", "rocksdb",
// "forst"; the REST class names (EmbeddedRocksDBStateBackend, HashMapStateBackend,
// ForStStateBackend, and 1.x's deprecated MemoryStateBackend, FsStateBackend,
// RocksDBStateBackend) are mapped; anything else is lower-cased as it came.
func normBackend(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '.'); i >= 0 && strings.HasSuffix(s, "StateBackend") {
		s = s[i+1:] // a fully qualified class name
	}
	switch strings.ToLower(s) {
	case "embeddedrocksdbstatebackend", "rocksdbstatebackend", "rocksdb":
		return "rocksdb"
	case "hashmapstatebackend", "hashmap":
		return "hashmap"
	case "forststatebackend", "forst":
		return "forst"
	case "memorystatebackend", "jobmanager":
		return "jobmanager"
	case "fsstatebackend", "filesystem":
		return "filesystem"
	}
	return strings.ToLower(s)
}

// normStorage names a checkpoint storage as execution.checkpointing.storage does:
// "filesystem" (FileSystemCheckpointStorage) or "jobmanager" (JobManagerCheckpointStorage).
func normStorage(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '.'); i >= 0 && strings.HasSuffix(s, "CheckpointStorage") {
		s = s[i+1:]
	}
	switch strings.ToLower(s) {
	case "filesystemcheckpointstorage", "filesystem":
		return "filesystem"
	case "jobmanagercheckpointstorage", "jobmanager":
		return "jobmanager"
	}
	return strings.ToLower(s)
}

// ParseDuration reads a Flink duration as its configuration accepts it, in milliseconds: a
// bare number is milliseconds ("10000"); a number with a unit ("10 s", "500ms", "1 min",
// "2h", "1 d"); or ISO-8601 ("PT10S", "PT1M30S"). Fractions of a millisecond are cut.
func ParseDuration(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("empty duration")
	}
	if t[0] == 'P' || t[0] == 'p' {
		d, err := parseISODuration(t)
		if err != nil {
			return 0, fmt.Errorf("duration %q: %w", s, err)
		}
		return d.Milliseconds(), nil
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("duration %q does not start with a number", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w", s, err)
	}
	unit := strings.ToLower(strings.TrimSpace(t[i:]))
	var per time.Duration
	switch unit {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		per = time.Millisecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		per = time.Nanosecond
	case "us", "µs", "micro", "micros", "microsecond", "microseconds":
		per = time.Microsecond
	case "s", "sec", "secs", "second", "seconds":
		per = time.Second
	case "m", "min", "mins", "minute", "minutes":
		per = time.Minute
	case "h", "hour", "hours":
		per = time.Hour
	case "d", "day", "days":
		per = 24 * time.Hour
	default:
		return 0, fmt.Errorf("duration %q: unknown unit %q", s, unit)
	}
	if per >= time.Millisecond {
		f := int64(per / time.Millisecond)
		if n > math.MaxInt64/f {
			return 0, fmt.Errorf("duration %q is too long", s)
		}
		return n * f, nil
	}
	return n / int64(time.Millisecond/per), nil
}

// parseISODuration reads PnDTnHnMnS (what java.time.Duration prints: no years or months).
func parseISODuration(s string) (time.Duration, error) {
	u := strings.ToUpper(s)
	if !strings.HasPrefix(u, "P") || len(u) < 3 {
		return 0, errors.New("not an ISO-8601 duration")
	}
	u = u[1:]
	var total float64
	inTime := false
	num := ""
	for _, r := range u {
		switch {
		case r == 'T':
			if inTime || num != "" {
				return 0, errors.New("misplaced T")
			}
			inTime = true
		case r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+':
			num += string(r)
		default:
			if num == "" {
				return 0, fmt.Errorf("no number before %q", r)
			}
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, err
			}
			num = ""
			switch {
			case r == 'D' && !inTime:
				total += f * float64(24*time.Hour)
			case r == 'H' && inTime:
				total += f * float64(time.Hour)
			case r == 'M' && inTime:
				total += f * float64(time.Minute)
			case r == 'S' && inTime:
				total += f * float64(time.Second)
			default:
				return 0, fmt.Errorf("unit %q not supported", r)
			}
		}
	}
	if num != "" {
		return 0, errors.New("a number without unit at the end")
	}
	if total > math.MaxInt64 || total < math.MinInt64 {
		return 0, errors.New("too long")
	}
	return time.Duration(total), nil
}

// flex is a setting sent in more than one JSON form, which its form F reads.
type flex[T any, F interface{ parse(b []byte) (T, error) }] struct{ v T }

func (f *flex[T, F]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil // a pointer field stays nil before this runs; kept zero otherwise
	}
	var form F
	v, err := form.parse(b)
	if err != nil {
		return err
	}
	f.v = v
	return nil
}

func (f *flex[T, F]) ptr() *T {
	if f == nil {
		return nil
	}
	v := f.v
	return &v
}

// flexMs is a duration in milliseconds sent as a number or as a duration string.
type flexMs = flex[int64, msForm]

type msForm struct{}

func (msForm) parse(b []byte) (int64, error) {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		return ParseDuration(s)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, fmt.Errorf("want milliseconds, got %s", snippet(b))
	}
	v, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("want whole milliseconds, got %s", n)
	}
	return v, nil
}

// flexInt is a count sent as a number or a numeric string.
type flexInt = flex[int64, intForm]

type intForm struct{}

func (intForm) parse(b []byte) (int64, error) {
	b = bytes.Trim(b, `"`)
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want a whole number, got %s", snippet(b))
	}
	return v, nil
}

// flexBool is a boolean sent as true/false or "true"/"false".
type flexBool = flex[bool, boolForm]

type boolForm struct{}

func (boolForm) parse(b []byte) (bool, error) {
	v, err := strconv.ParseBool(strings.ToLower(string(bytes.Trim(b, `"`))))
	if err != nil {
		return false, fmt.Errorf("want true or false, got %s", snippet(b))
	}
	return v, nil
}

// scalarText is a JSON string, number or boolean as text; false for objects, arrays, null.
func scalarText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case '{', '[', 'n':
		return "", false
	}
	return string(raw), true
}
