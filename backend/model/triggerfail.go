package model

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// TriggerFailure is one checkpoint trigger that failed before the checkpoint
// got an id, as the engine's log tells it (Flink's JobManager log: "Failed to
// trigger checkpoint for job … since …"). The engine counts it as failed; its
// history has nothing of it.
type TriggerFailure struct {
	// AtMs is when it was logged (epoch ms, UTC); 0 when the log gave no usable time.
	AtMs int64
	// Reason is the short reason ("Not all required tasks are currently running").
	Reason string
	// Task is the task the message names, "" if none ("Source: Numbers (1/2)").
	Task string
	// Message is the whole message, as logged.
	Message string
}

// TriggerFailureReason is one reason of a job's failed triggers: how many
// failed for it, when the first and the last did, and one of them in full.
type TriggerFailureReason struct {
	// Reason is the short reason; "" stands for the other reasons, beyond
	// the MaxTriggerFailureReasons-1 most frequent.
	Reason  string `json:"reason"`
	Count   int64  `json:"count"`
	FirstMs int64  `json:"first_ms"`
	LastMs  int64  `json:"last_ms"`
	// Task is the task the latest of them named, "" if none.
	Task string `json:"task,omitempty"`
	// Example is the latest one's whole message.
	Example string `json:"example"`
}

// MaxTriggerFailureReasons bounds the reasons a reconciliation keeps: the
// most frequent first, the rest summed in a last one of Reason "".
const MaxTriggerFailureReasons = 5

// maxTriggerFailureText caps a reason's words and its example: a log line
// may carry a whole exception.
const maxTriggerFailureText = 1000

// GroupTriggerFailures groups the failures logged at or after sinceMs (all
// when sinceMs ≤ 0; those of unknown time always) by reason: the most
// frequent first (then the earliest), at most MaxTriggerFailureReasons. Nil
// when none.
func GroupTriggerFailures(fs []TriggerFailure, sinceMs int64) []TriggerFailureReason {
	byReason := map[string]*TriggerFailureReason{}
	var groups []*TriggerFailureReason
	for _, f := range fs {
		if sinceMs > 0 && f.AtMs != 0 && f.AtMs < sinceMs {
			continue
		}
		reason := clip(f.Reason)
		g := byReason[reason]
		if g == nil {
			g = &TriggerFailureReason{Reason: reason}
			byReason[reason] = g
			groups = append(groups, g)
		}
		g.merge(TriggerFailureReason{Count: 1, FirstMs: f.AtMs, LastMs: f.AtMs, Task: clip(f.Task), Example: clip(f.Message)})
	}
	if len(groups) == 0 {
		return nil
	}
	sort.SliceStable(groups, func(a, b int) bool {
		if groups[a].Count != groups[b].Count {
			return groups[a].Count > groups[b].Count
		}
		return groups[a].FirstMs < groups[b].FirstMs
	})
	out := make([]TriggerFailureReason, 0, min(len(groups), MaxTriggerFailureReasons))
	for i, g := range groups {
		switch {
		case i < MaxTriggerFailureReasons-1 || len(groups) == MaxTriggerFailureReasons:
			out = append(out, *g)
		case i == MaxTriggerFailureReasons-1:
			out = append(out, TriggerFailureReason{}) // the other reasons
			fallthrough
		default:
			out[len(out)-1].merge(*g)
		}
	}
	return out
}

// merge folds o's failures into g: the counts add up, the times widen, the
// latest example wins.
func (g *TriggerFailureReason) merge(o TriggerFailureReason) {
	g.Count += o.Count
	if o.FirstMs != 0 && (g.FirstMs == 0 || o.FirstMs < g.FirstMs) {
		g.FirstMs = o.FirstMs
	}
	if o.LastMs >= g.LastMs {
		g.LastMs = o.LastMs
		g.Task, g.Example = o.Task, o.Example
	}
}

// clip trims s and cuts it at maxTriggerFailureText bytes, on a rune boundary.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxTriggerFailureText {
		return s
	}
	cut := maxTriggerFailureText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
