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
	"queue_dominant":      "in {{share}}% of the slowest quarter of checkpoints the largest part of the time ({{cause_share}}% on average) was barriers queued at the input of {{vertex}} behind {{upstream}}, with upstream backpressure up to {{level}}%: {{vertex}} is the slow operator",
	"queue_second":        "the next cause, in {{n}} of them: {{phase}} in {{vertex}}",
	"size_too_small":      "checkpointed size correlates ({{stat}}) but varies by only {{spread}}%, too little to explain the slowdown",
	"sustained":           "in {{share}}% of the slowest quarter of checkpoints the bottleneck is start_delay or alignment while upstream backpressure is at least {{level}}% in their window: barriers wait behind backpressured data (the backpressure is sustained, so a correlation cannot show it: {{stat}})",
	"storage":             "async is the bottleneck in {{share}}% of the slowest quarter of checkpoints while duration does not rise with checkpointed size ({{stat}}): the time goes into writing to checkpoint storage",
	"barrier_one":         "checkpoint {{id}}, the one judged slow, spent its time waiting for barriers",
	"barrier_many":        "{{waited}} of the {{slow}} checkpoints judged slow ({{ids}}) spent their time waiting for barriers",
	"barrier_gauge":       "the sampled alignment time reached {{ms}} ms of checkpoint {{id}}'s {{e2e}} ms, far above the other checkpoints",
	"barrier_mark":        "in an aligned checkpoint barriers queue behind buffered in-flight data, so a long start delay or alignment is the mark of backpressure",
	"barrier_no_gauge":    "no backpressure gauge was recorded in their windows",
	"barrier_measured":    "upstream backpressure reached {{level}} in their windows",
	"cannot_confirm":      "a correlation cannot confirm it",
	"healthy":             "checkpoints are fast and regular: {{n}} completed, none failed and none was slower than its baseline; end-to-end median {{p50}} ms, p90 {{p90}} ms, within {{bound}} ms — there is no slowness to explain",
	"healthy_floor":       "the bound is the floor of {{ms}} ms (no checkpoint interval or timeout is known, or {{share}}% of it is less)",
	"healthy_interval":    "the bound is {{share}}% of the checkpoint interval of {{ms}} ms",
	"healthy_timeout":     "the bound is {{share}}% of the checkpoint timeout of {{ms}} ms",
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
	"slowest_origin":      "{{share}}% of its time was barriers queued at the input of {{vertex}} behind {{upstream}}",
	"slowest_no_phases":   "it has no per-subtask stats, so its phases are unknown",
	"slowest_bp":          "backpressure in its window peaked at {{level}} over {{n}} sample(s)",
	"slowest_no_bp":       "no backpressure samples cover it",
	"slowest_queue":       "the queue into the vertex its barrier waited for was up to {{level}} full over {{n}} sample(s)",
	"slowest_busy":        "busy ratio peaked at {{level}}",
	"slowest_gauge":       "the sampled alignment time reached {{ms}} ms in its window (at most {{others}} ms around the other checkpoints)",
	"slowest_gauge_mark":  "much of its time went into barrier alignment, which is where backpressure (barriers queued behind buffered data) delays an aligned checkpoint",
	// The slow checkpoints against the others (contrast.go).
	"contrast_quarter":        "no checkpoint was judged slow against its baseline, so the slowest quarter ({{n}} checkpoints of at least {{ms}} ms) stands for the slow ones",
	"contrast_slow_few":       "only {{slow}} checkpoint(s) are slow: too few to set against the others (need {{need}})",
	"contrast_slow_unsampled": "{{n}} of the {{slow}} slow checkpoints have no backpressure sample in or just before their window ({{ids}}): too few are left to set against the others (need at least {{need}} of them, and {{share}}%)",
	"contrast_others_few":     "only {{n}} of the {{total}} other checkpoints have backpressure samples: too few to set the slow ones against (need {{need}})",
	"contrast_no_interval":    "{{n}} slow and {{m}} other checkpoints with backpressure samples are too few for a {{conf}}% interval of their difference",
	"contrast_bp":             "the {{n}} slow checkpoints with samples ({{ids}}) had a median backpressure of {{slow}} against {{others}} for the {{m}} others: {{diff}} higher ({{conf}}% interval {{lo}} to {{hi}}; {{samples}} samples in the slow ones' windows, {{other_samples}} in the others')",
	"contrast_unsampled":      "{{n}} of the {{slow}} slow checkpoints have no backpressure sample ({{ids}})",
	"contrast_nearest":        "{{n}} of them read the last sample before their trigger",
	"contrast_lower":          "the slow checkpoints had less backpressure than the others (median {{slow}} over {{n}} against {{others}} over {{m}}; difference {{diff}}, {{conf}}% interval {{lo}} to {{hi}}): it is not what slows them",
	"contrast_overlap":        "the slow checkpoints' backpressure and the others' overlap (median {{slow}} over {{n}} against {{others}} over {{m}}; difference {{diff}}, {{conf}}% interval {{lo}} to {{hi}})",
	"contrast_small":          "the slow checkpoints had more backpressure than the others (median {{slow}} over {{n}} against {{others}} over {{m}}; difference {{diff}}, {{conf}}% interval {{lo}} to {{hi}}), too little to explain them (need a difference of {{need_diff}} and a median of {{need_level}})",
	// How a failure's phase was found (CheckpointFailure.BasisParts).
	"f_expired":             "the checkpoint timeout elapsed",
	"f_msg_async":           "the message says the asynchronous part failed",
	"f_msg_sync":            "the message says a task's local (synchronous) snapshot failed",
	"f_msg_finalize":        "the message says finalisation failed",
	"f_msg_commit":          "the message says the commit after the last ack failed",
	"f_msg_notify":          "the message says notifying completion (the sink commit) failed",
	"f_msg_trigger":         "the message says triggering failed: no task started",
	"f_msg_not_running":     "the message says tasks were not running: no task started",
	"f_msg_not_ready":       "the message says a task was not ready to start its checkpoint",
	"f_msg_not_all_ready":   "the message says tasks were not ready",
	"f_msg_newer_barrier":   "the message says a newer barrier arrived during alignment",
	"f_msg_input_cancelled": "the message says an input cancelled the checkpoint during alignment",
	"f_msg_input_finished":  "the message says an input finished during alignment",
	"f_job_suspend":         "the job was stopping, failing or restarting (the coordinator suspended): the checkpoint was aborted, no phase is to blame",
	"f_job_shutdown":        "the job was shutting down: the checkpoint was aborted, no phase is to blame",
	"f_job_region":          "a failover region was restarting: the checkpoint was aborted, no phase is to blame",
	"f_job_task_failed":     "a task failed: the checkpoint was aborted with it, no phase is to blame",
	"f_job_failed":          "the job failed: the checkpoint was aborted with it, no phase is to blame",
	"f_job_task_closing":    "a task was closing (finishing or cancelled): the checkpoint was declined, no phase is to blame",
	"f_job_reset":           "the pipeline was restarting (the coordinator was reset): the checkpoint was aborted, no phase is to blame",
	"f_job_completed":       "the pipeline finished (the coordinator completed): the checkpoint was cancelled, no phase is to blame",
	"f_job_pipeline_end":    "the pipeline ended: the checkpoint was aborted, no phase is to blame",
	"f_late_ack":            "the last subtask acknowledged only {{ms}} ms after the trigger, after the checkpoint had failed (at {{failed}} ms): it was still in {{phase}} ({{phase_ms}} ms) when it failed",
	"f_all_acked":           "every subtask had acknowledged, so it failed after the last ack",
	"f_none_acked":          "no subtask acknowledged: the barrier did not get through the first tasks",
	"f_poll_all_acked":      "the last poll saw every task acknowledged, so it failed after the last ack",
	"f_poll_some":           "the engine shows no phases; the last poll saw {{acked}} of {{total}} tasks acknowledged",
	"f_no_stats":            "the engine shows no per-subtask stats for this checkpoint",
	"f_pending_unknown":     "some subtasks did not acknowledge, but the per-vertex stats do not show which",
	"f_none_acked_at":       "no subtask acknowledged: the barrier did not get through the first tasks ({{vertex}})",
	"f_siblings":            "the subtasks of {{vertex}} that did acknowledge spent most of their time, over a second on average, in {{phase}}",
	"f_no_edges":            "subtasks of {{vertex}} did not acknowledge; the job's edges are unknown, so the phase cannot be told",
	"f_in_snapshot":         "every downstream subtask acknowledged, so {{vertex}} had taken its barriers and forwarded its own (Flink does so before snapshotting): it was in its snapshot",
	"f_inputs_done":         "every upstream subtask acknowledged (so all barriers were sent), but {{vertex}} did not: its barriers were still queued or being aligned",
	"f_source_pending":      "no subtask of the source {{vertex}} acknowledged: the trigger was not processed, or its snapshot did not finish",
	"f_history_unknown":     "whether sync or async cannot be told: {{vertex}} never acknowledged in these checkpoints",
	"f_history":             "where {{vertex}} did acknowledge ({{n}} checkpoints, late acknowledgements included) its snapshot took longest in {{phase}} (median {{median}} ms; sync {{sync}} ms, async {{async}} ms)",
	"f_bp_unmeasured":       "no backpressure upstream of it was measured to say whether they were queued behind data",
	"f_bp_quiet":            "but upstream backpressure stayed at {{level}} in the window, so they were not queued behind data: {{vertex}} itself was slow to take them (a long record, a blocked thread)",
	"f_bp_high":             "upstream backpressure reached {{level}} in the window: barriers queued behind data",

	// What the data cannot show (JobAnalysis.NoteParts).
	"note_seatunnel":       "SeaTunnel exposes no start_delay, alignment, sync, async or ack timings: per-subtask phases, bottlenecks and stragglers are absent, and ack progress comes from polled in-flight counts",
	"note_no_subtasks":     "no per-subtask checkpoint stats in this data: phases, bottlenecks and stragglers are absent; durations, sizes and sampled metrics are used instead",
	"note_no_finalize":     "finalize (last ack → completion) is absent: the engine does not report it for these checkpoints",
	"note_gaps":            "{{n}} checkpoint(s) are known only as gaps (never seen: evicted from the engine's history before a poll, or not recorded) and are not analysed",
	"note_details_missed":  "{{n}} checkpoint(s) have no per-subtask stats because they left the engine's history before their details were fetched (the request budget or the engine could not keep up): they have no phases or bottleneck",
	"note_details_partial": "{{n}} checkpoint(s) have only part of their per-subtask stats: some vertices' requests failed and retries did not get them before the checkpoint left the engine's history; their phases and bottleneck cover the vertices that came",
	"note_details_trimmed": "{{n}} checkpoint(s) had their per-subtask stats trimmed by the cache's size cap: they have no phases or bottleneck",
	"note_from_log":        "{{n}} checkpoint(s) come from the JobManager log alone (they had left Flink's REST history): status, times, size, finalize and failure cause, no per-subtask stats",
	"note_from_traces":     "{{n}} checkpoint(s) come from the cluster's traces alone (Flink's checkpoint spans in Jaeger): status, times, sizes and, where the spans carry them, per-subtask phases; no failure message, finalize time or declining task",
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
func renderReason(parts []ReasonPart) string { return renderClauses(parts) + "." }

// renderClauses is the English of parts joined by "; ".
func renderClauses(parts []ReasonPart) string {
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
	return strings.Join(out, "; ")
}
