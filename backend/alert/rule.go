// Package alert raises alerts on jobs' checkpoints by the user's opt-in rules
// (docs/alerts.md): after each poll the app gives the Engine what it knows of
// each job (Job), and the Engine announces each change of a rule's state for a
// job — firing, then resolved — once, rate-limited, as a log line, a counter
// on /metrics and a desktop notification (Notifier).
package alert

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Kind is what a rule watches.
type Kind string

const (
	// KindCheckpointFailed fires while the job's newest final checkpoint
	// failed, and resolves when a newer one completes.
	KindCheckpointFailed Kind = "checkpoint_failed"
	// KindFailures fires while at least Count checkpoints triggered in the
	// last WindowMs failed.
	KindFailures Kind = "failures_in_window"
	// KindSlowerThanBaseline fires while the newest completed checkpoint's
	// end-to-end time is above Factor times the job's baseline p90 (and at
	// least analyze.SlowFloorMs above it).
	KindSlowerThanBaseline Kind = "slower_than_baseline"
	// KindNoCompletion fires while no checkpoint of a running job has
	// completed for ForMs.
	KindNoCompletion Kind = "no_completion"
)

var kinds = []Kind{KindCheckpointFailed, KindFailures, KindSlowerThanBaseline, KindNoCompletion}

// The bounds of a rule's parameters.
const (
	// MaxCount is the largest Count: a fleet row holds the newest
	// analyze.FleetSparkline final checkpoints, so a larger count could
	// never be reached from it.
	MaxCount = 30
	// MinSpanMs is the shortest window_ms and for_ms: below a second, no
	// poll can tell.
	MinSpanMs = 1000
)

// Rule is one opt-in alert rule as the user's configuration file stores it.
// Its scope is a cluster, narrowed to one job by JobID or JobName; the
// parameters that apply depend on Kind (docs/alerts.md).
type Rule struct {
	// Name identifies the rule in log lines, metrics and notifications;
	// empty, it is made from the kind and the scope (DefaultName).
	Name    string `json:"name,omitempty"`
	Kind    Kind   `json:"kind"`
	Cluster string `json:"cluster"`
	JobID   string `json:"job_id,omitempty"`
	JobName string `json:"job_name,omitempty"`
	// Count and WindowMs: failures_in_window's threshold and window.
	Count    int   `json:"count,omitempty"`
	WindowMs int64 `json:"window_ms,omitempty"`
	// Factor: slower_than_baseline's k, at least 1.
	Factor float64 `json:"factor,omitempty"`
	// ForMs: no_completion's T.
	ForMs int64 `json:"for_ms,omitempty"`
}

// FieldError is a rule's invalid field, named as in the JSON.
type FieldError struct {
	Field   string
	Problem string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// DefaultName is the name of a rule that has none: kind@cluster, followed
// by /job id or /job name when the rule is for one job.
func (r Rule) DefaultName() string {
	name := string(r.Kind) + "@" + r.Cluster
	if job := r.JobID + r.JobName; job != "" {
		name += "/" + job
	}
	return name
}

// name is the rule's Name, or its DefaultName.
func (r Rule) name() string {
	if r.Name != "" {
		return r.Name
	}
	return r.DefaultName()
}

// Validate checks the rule; the error is a *FieldError naming the first bad field.
func (r Rule) Validate() error {
	switch {
	case r.Kind == "":
		return fieldErr("kind", "required (one of %s)", kindList())
	case !slices.Contains(kinds, r.Kind):
		return fieldErr("kind", "unknown %q (want one of %s)", r.Kind, kindList())
	case strings.TrimSpace(r.Cluster) == "":
		return fieldErr("cluster", "required: the name of the cluster the rule watches")
	case r.JobID != "" && r.JobName != "":
		return fieldErr("job_name", "set job_id or job_name, not both")
	case strings.ContainsFunc(r.Name, isControl):
		return fieldErr("name", "holds a control character")
	}
	// Each parameter: the kind it belongs to, and whether its value is valid.
	params := []struct {
		field string
		kind  Kind
		set   bool
		bad   string // what is wrong with it for its kind; "" when fine
	}{
		{"count", KindFailures, r.Count != 0, outside(float64(r.Count), 1, MaxCount, "failures")},
		{"window_ms", KindFailures, r.WindowMs != 0, outside(float64(r.WindowMs), MinSpanMs, 0, "ms")},
		{"factor", KindSlowerThanBaseline, r.Factor != 0, outside(r.Factor, 1, 0, "times the baseline p90")},
		{"for_ms", KindNoCompletion, r.ForMs != 0, outside(float64(r.ForMs), MinSpanMs, 0, "ms")},
	}
	for _, p := range params {
		switch {
		case p.kind != r.Kind && p.set:
			return fieldErr(p.field, "only %s uses it, not %s", p.kind, r.Kind)
		case p.kind == r.Kind && p.bad != "":
			return fieldErr(p.field, "%s for %s", p.bad, r.Kind)
		}
	}
	return nil
}

// ValidateRules checks each rule and that no two share a name; the error
// names the rule by its index, e.g. "rules[2]: count: …".
func ValidateRules(rules []Rule) error {
	seen := map[string]int{}
	for i, r := range rules {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("rules[%d]: %w", i, err)
		}
		if j, dup := seen[r.name()]; dup {
			return fmt.Errorf("rules[%d]: %w", i, fieldErr("name", "%q is also rules[%d]'s name", r.name(), j))
		}
		seen[r.name()] = i
	}
	return nil
}

// outside says how v misses [lo, hi] (hi 0: no upper bound); "" when within.
func outside(v, lo, hi float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "must be a finite number"
	case hi == 0 && v < lo:
		return fmt.Sprintf("must be at least %g %s", lo, unit)
	case hi != 0 && (v < lo || v > hi):
		return fmt.Sprintf("must be %g to %g %s", lo, hi, unit)
	}
	return ""
}

func kindList() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// applies reports whether the rule watches the job.
func (r Rule) applies(j Job) bool {
	return r.Cluster == j.Cluster && (r.JobID == "" || r.JobID == j.JobID) && (r.JobName == "" || r.JobName == j.Name)
}
