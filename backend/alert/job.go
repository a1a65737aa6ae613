package alert

import (
	"fmt"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

// Job is what the app knows of one job after a poll: Engine.Evaluate's input.
type Job struct {
	Cluster string
	Engine  model.Engine
	JobID   string
	Name    string
	// State is the engine's job state: a job that has ended
	// (model.JobEnded) raises nothing, and its firing alerts are dropped.
	State string
	// Checkpoints are the job's newest final checkpoints (completed or
	// failed, savepoints aside), oldest first: a fleet row's sparkline.
	Checkpoints []analyze.SparkPoint
	// LatestFailure is the newest failure's reason; "" when unknown.
	LatestFailure string
	// BaselineP90Ms is the job's baseline p90 end-to-end time (the fleet's,
	// docs/fleet.md); nil without a baseline.
	BaselineP90Ms *int64
	// LastCompletedMs is when the newest completed checkpoint completed;
	// 0 when none is known.
	LastCompletedMs int64
}

// Ref is the job's reference, for opening it.
func (j Job) Ref() JobRef { return JobRef{Cluster: j.Cluster, JobID: j.JobID} }

// title names the job in a notification: its name, or its id.
func (j Job) title() string {
	if j.Name != "" {
		return j.Name
	}
	return j.JobID
}

// FromFleet makes the Evaluate input of fleet rows (fleet.Read's, of the
// configured clusters: a capture's jobs do not run). The newest completion
// is the newest completed checkpoint on the row's sparkline: a job with none
// in the window has LastCompletedMs 0, and no_completion counts from when
// the Engine first saw it.
func FromFleet(rows []analyze.FleetJob) []Job {
	jobs := make([]Job, len(rows))
	for i, r := range rows {
		j := Job{Cluster: r.Cluster, Engine: r.Engine, JobID: r.JobID, Name: r.Name, State: r.State,
			Checkpoints: r.Sparkline, LatestFailure: r.LatestFailure, BaselineP90Ms: r.BaselineP90Ms}
		for _, p := range r.Sparkline {
			if !p.Failed {
				j.LastCompletedMs = max(j.LastCompletedMs, p.TriggerMs+p.Ms)
			}
		}
		jobs[i] = j
	}
	return jobs
}

// finding is what a rule makes of a job now.
type finding struct {
	state findingState
	// sinceMs is when the trouble began (firing only).
	sinceMs int64
	// detail is a sentence for the notification's body.
	detail string
}

type findingState int

const (
	// unknown: the job gives the rule nothing to judge by (no checkpoint,
	// no baseline); the rule's state for it stays as it was.
	unknown findingState = iota
	clear
	firing
)

// check judges the job by the rule at nowMs; seenMs is when the Engine
// first saw the job (no_completion's start without a completion).
func (r Rule) check(j Job, nowMs, seenMs int64) finding {
	cps := j.Checkpoints
	switch r.Kind {
	case KindCheckpointFailed:
		if len(cps) == 0 {
			return finding{}
		}
		newest := cps[len(cps)-1]
		if !newest.Failed {
			return finding{state: clear, detail: fmt.Sprintf("A checkpoint completed in %s.", human(newest.Ms))}
		}
		first := len(cps) - 1
		for first > 0 && cps[first-1].Failed {
			first--
		}
		detail := "The newest checkpoint failed"
		if n := len(cps) - first; n > 1 {
			detail = fmt.Sprintf("The newest %d checkpoints failed", n)
		}
		return finding{state: firing, sinceMs: cps[first].TriggerMs, detail: detail + reason(j.LatestFailure)}
	case KindFailures:
		n, since := 0, int64(0)
		for _, c := range cps {
			if c.Failed && c.TriggerMs > nowMs-r.WindowMs {
				n++
				if since == 0 {
					since = c.TriggerMs
				}
			}
		}
		detail := fmt.Sprintf("%d checkpoints failed in the last %s (the rule: %d)", n, human(r.WindowMs), r.Count)
		if n < r.Count {
			return finding{state: clear, detail: detail + "."}
		}
		return finding{state: firing, sinceMs: since, detail: detail + reason(j.LatestFailure)}
	case KindSlowerThanBaseline:
		newest := -1
		for k := range cps {
			if !cps[k].Failed {
				newest = k
			}
		}
		if newest < 0 || j.BaselineP90Ms == nil || *j.BaselineP90Ms <= 0 {
			return finding{}
		}
		c, base := cps[newest], *j.BaselineP90Ms
		detail := fmt.Sprintf("The newest checkpoint took %s, %.1f× the baseline p90 of %s (the rule: above %g×).",
			human(c.Ms), float64(c.Ms)/float64(base), human(base), r.Factor)
		if float64(c.Ms) <= r.Factor*float64(base) || c.Ms-base < analyze.SlowFloorMs {
			return finding{state: clear, detail: detail}
		}
		return finding{state: firing, sinceMs: c.TriggerMs, detail: detail}
	case KindNoCompletion:
		// A job with no checkpoint known (checkpointing off) is not judged.
		from, what := j.LastCompletedMs, "since the newest one"
		if from == 0 && len(cps) == 0 {
			return finding{}
		}
		if from == 0 {
			from, what = seenMs, "since the job was first seen"
		}
		idle := nowMs - from
		if idle < r.ForMs {
			return finding{state: clear, detail: fmt.Sprintf("The newest checkpoint completed %s ago.", human(idle))}
		}
		detail := fmt.Sprintf("No checkpoint completed for %s, %s (the rule: %s).", human(idle), what, human(r.ForMs))
		return finding{state: firing, sinceMs: from, detail: detail}
	}
	return finding{}
}

// reason ends a sentence with the failure's reason, when known.
func reason(r string) string {
	if r == "" {
		return "."
	}
	return ": " + r
}

// human writes a duration for people: 850 ms, 4.2 s, 15 min, 2 h 5 min.
func human(ms int64) string {
	const s, m, h = 1000, 60 * 1000, 60 * 60 * 1000
	switch {
	case ms < s:
		return fmt.Sprintf("%d ms", ms)
	case ms < m:
		return fmt.Sprintf("%.1f s", float64(ms)/s)
	case ms < h:
		return fmt.Sprintf("%d min", ms/m)
	case ms%h < m:
		return fmt.Sprintf("%d h", ms/h)
	}
	return fmt.Sprintf("%d h %d min", ms/h, ms%h/m)
}
