package analyze

import (
	"sort"
	"strings"
)

// ReasonPart is one clause of a verdict's reason: a template code and its
// arguments, so the UI can say it in the user's language (the "reason"
// section of frontend/src/i18n/*.json, whose English must equal
// reasonTemplates — a test checks). Correlation.Reason is the English.
type ReasonPart struct {
	Code string            `json:"code"`
	Args map[string]string `json:"args,omitempty"`
}

// reasonTemplates are the English clauses; {{name}} is an argument.
var reasonTemplates = map[string]string{
	"bp_rises_e2e":        "end-to-end duration rises with upstream backpressure ({{stat}})",
	"bp_rises_align":      "start_delay + alignment rises with upstream backpressure ({{stat}})",
	"size_also":           "it also rises with checkpointed size ({{stat}}), less strongly",
	"size_rises":          "end-to-end duration rises with checkpointed size ({{stat}})",
	"bp_also":             "it also rises with upstream backpressure ({{stat}}), less strongly",
	"sustained":           "in {{share}}% of the slowest quarter of checkpoints the bottleneck is start_delay or alignment while upstream backpressure is at least {{level}}% in their window: barriers wait behind backpressured data (the backpressure is sustained, so a correlation cannot show it: {{stat}})",
	"storage":             "async is the bottleneck in {{share}}% of the slowest quarter of checkpoints while duration does not rise with checkpointed size ({{stat}}): the time goes into writing to checkpoint storage",
	"barrier_one":         "checkpoint {{id}}, the one judged slow, spent its time waiting for barriers",
	"barrier_many":        "{{waited}} of the {{slow}} checkpoints judged slow ({{ids}}) spent their time waiting for barriers",
	"barrier_gauge":       "the sampled alignment time reached {{ms}} ms of checkpoint {{id}}'s {{e2e}} ms, far above the other checkpoints",
	"barrier_mark":        "in an aligned checkpoint barriers queue behind buffered in-flight data, so a long start delay or alignment is the mark of backpressure",
	"barrier_no_gauge":    "no backpressure gauge was recorded in their windows",
	"barrier_measured":    "upstream backpressure reached {{level}} in their windows",
	"cannot_confirm":      "a correlation cannot confirm it",
	"none_completed":      "no checkpoint completed ({{n}} failed or still running): there are no durations to explain — the failures say where they got stuck",
	"dominant":            "in {{share}}% of the slowest quarter of checkpoints the bottleneck is {{phase}}, which neither backpressure, state size nor storage explains: that is where the time goes",
	"dominant_vertex":     "in {{share}}% of the slowest quarter of checkpoints the bottleneck is {{phase}} in {{vertex}}, which neither backpressure, state size nor storage explains: that is where the time goes",
	"bp_none":             "no completed checkpoint has backpressure samples in its window (need {{need}} for a verdict on upstream backpressure)",
	"bp_few":              "only {{n}} completed checkpoints have backpressure samples in their window (need {{need}} for a verdict on upstream backpressure)",
	"bp_constant":         "upstream backpressure (or duration) did not vary across {{n}} checkpoints, so it cannot explain them",
	"bp_constant_value":   "upstream backpressure read {{value}} for every one of them",
	"bp_negative":         "duration falls as upstream backpressure rises ({{stat}}): not a cause",
	"bp_weak":             "upstream backpressure: {{stat}} is too weak (need ρ ≥ {{rho}} and p ≤ {{p}})",
	"size_none":           "no completed checkpoint has a checkpointed size (need {{need}} for a verdict on checkpointed size)",
	"size_few":            "only {{n}} completed checkpoints have a checkpointed size (need {{need}} for a verdict on checkpointed size)",
	"size_constant":       "checkpointed size (or duration) did not vary across {{n}} checkpoints, so it cannot explain them",
	"size_constant_value": "checkpointed size read {{value}} for every one of them",
	"size_negative":       "duration falls as checkpointed size rises ({{stat}}): not a cause",
	"size_weak":           "checkpointed size: {{stat}} is too weak (need ρ ≥ {{rho}} and p ≤ {{p}})",
	"async_unknown":       "no per-subtask phases, so whether async (storage) dominates cannot be told",
	"async_few":           "only {{n}} checkpoints have phases (need {{need}}) to tell whether async (storage) dominates",
	"async_low":           "async is the bottleneck in only {{share}}% of the slowest quarter (needs {{need}}% for storage)",
	"slowest":             "the slowest checkpoint, {{id}}, took {{ms}} ms ({{x}}× the median of {{median}} ms before it)",
	"slowest_bottleneck":  "its bottleneck is {{phase}}",
	"slowest_no_phases":   "it has no per-subtask stats, so its phases are unknown",
	"slowest_bp":          "backpressure in its window peaked at {{level}} over {{n}} sample(s)",
	"slowest_no_bp":       "no backpressure samples cover it",
	"slowest_busy":        "busy ratio peaked at {{level}}",
	"slowest_gauge":       "the sampled alignment time reached {{ms}} ms in its window (at most {{others}} ms around the other checkpoints)",
	"slowest_gauge_mark":  "much of its time went into barrier alignment, which is where backpressure (barriers queued behind buffered data) delays an aligned checkpoint",
}

// part builds a clause from a code and name, value pairs.
func part(code string, kv ...string) ReasonPart {
	if _, ok := reasonTemplates[code]; !ok {
		panic("analyze: no reason template " + code)
	}
	p := ReasonPart{Code: code}
	if len(kv) > 0 {
		p.Args = make(map[string]string, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			p.Args[kv[i]] = kv[i+1]
		}
	}
	return p
}

// renderReason is the English of parts: the clauses joined by "; ", with a full stop.
func renderReason(parts []ReasonPart) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		s := reasonTemplates[p.Code]
		keys := make([]string, 0, len(p.Args))
		for k := range p.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s = strings.ReplaceAll(s, "{{"+k+"}}", p.Args[k])
		}
		out[i] = s
	}
	return strings.Join(out, "; ") + "."
}
