package analyze

import (
	"slices"
	"sort"

	"checkpoint-explorer/backend/model"
)

// Phase names one part of a checkpoint's time. The vocabulary is fixed and
// defined in docs/phases.md.
type Phase string

const (
	// PhaseStartDelay is trigger → the subtask started its checkpoint (first barrier received).
	PhaseStartDelay Phase = "start_delay"
	// PhaseAlignment is first barrier → last barrier (aligned) or the barrier overtaking (unaligned).
	PhaseAlignment Phase = "alignment"
	// PhaseSync is the synchronous part of the snapshot.
	PhaseSync Phase = "sync"
	// PhaseAsync is the asynchronous part: writing state (and, unaligned, in-flight data) to storage.
	PhaseAsync Phase = "async"
	// PhaseAck is the rest of the subtask's end-to-end time, until the JobManager received its ack.
	PhaseAck Phase = "ack"
	// PhaseFinalize is last ack → completion or commit, where the engine shows it.
	PhaseFinalize Phase = "finalize"

	// EndToEnd is not a phase: it names the whole trigger → last ack time
	// where a heatmap row or a slow run is about the checkpoint as a whole.
	EndToEnd Phase = "end_to_end"
)

const numSubtaskPhases = 5

// subtaskPhases are the per-subtask phases in the order they happen.
var subtaskPhases = [numSubtaskPhases]Phase{PhaseStartDelay, PhaseAlignment, PhaseSync, PhaseAsync, PhaseAck}

// SubtaskPhaseNames lists the per-subtask phases in the order they happen.
func SubtaskPhaseNames() []Phase { return slices.Clone(subtaskPhases[:]) }

// allPhases is every phase: the per-subtask ones, then finalize.
var allPhases = [numSubtaskPhases + 1]Phase{PhaseStartDelay, PhaseAlignment, PhaseSync, PhaseAsync, PhaseAck, PhaseFinalize}

// PhaseNames lists every phase: the per-subtask ones, then finalize.
func PhaseNames() []Phase { return slices.Clone(allPhases[:]) }

// index is the phase's position in PhaseNames, or -1.
func (p Phase) index() int {
	switch p {
	case PhaseStartDelay:
		return 0
	case PhaseAlignment:
		return 1
	case PhaseSync:
		return 2
	case PhaseAsync:
		return 3
	case PhaseAck:
		return 4
	case PhaseFinalize:
		return 5
	}
	return -1
}

// Valid reports whether p is one of the fixed phases.
func (p Phase) Valid() bool { return p.index() >= 0 }

// Phases holds phase durations in milliseconds. A nil field is a phase the
// data does not show: it is absent (omitted from JSON), never reported as 0.
type Phases struct {
	StartDelay *int64 `json:"start_delay,omitempty"`
	Alignment  *int64 `json:"alignment,omitempty"`
	Sync       *int64 `json:"sync,omitempty"`
	Async      *int64 `json:"async,omitempty"`
	Ack        *int64 `json:"ack,omitempty"`
	Finalize   *int64 `json:"finalize,omitempty"`
}

// field is where phase ph's duration sits, nil for no phase.
func (p *Phases) field(ph Phase) **int64 {
	i := ph.index()
	if i < 0 {
		return nil
	}
	return [...]**int64{&p.StartDelay, &p.Alignment, &p.Sync, &p.Async, &p.Ack, &p.Finalize}[i] // allPhases' order
}

// Get returns a phase's duration and whether it is present.
func (p Phases) Get(ph Phase) (int64, bool) {
	f := p.field(ph)
	if f == nil || *f == nil {
		return 0, false
	}
	return **f, true
}

// Present lists the phases that have a value, in vocabulary order.
func (p Phases) Present() []Phase {
	var out []Phase
	for _, ph := range allPhases {
		if _, ok := p.Get(ph); ok {
			out = append(out, ph)
		}
	}
	return out
}

// phaseVec is one subtask's per-subtask phases, indexed like subtaskPhases.
type phaseVec [numSubtaskPhases]int64

// subtaskEndToEnd is trigger → ack for one subtask, from its own figure or,
// when that is missing, from its ack time.
func subtaskEndToEnd(s *model.SubtaskStats, triggerMs int64) int64 {
	if s.EndToEndMs > 0 || s.AckMs == 0 || triggerMs == 0 {
		return max(0, s.EndToEndMs)
	}
	return max(0, s.AckMs-triggerMs)
}

// splitSubtask divides an acknowledged subtask's end-to-end time into the
// per-subtask phases. Measured phases are clamped at 0; ack is the residual,
// clamped at 0, so the phases sum to the end-to-end time exactly unless the
// measured ones already exceed it (clock skew in start_delay, which is
// measured on the TaskManager's clock), in which case ack is 0.
func splitSubtask(s *model.SubtaskStats, e2e int64) phaseVec {
	v := phaseVec{max(0, s.StartDelayMs), max(0, s.AlignmentMs), max(0, s.SyncMs), max(0, s.AsyncMs)}
	v[4] = max(0, e2e-(v[0]+v[1]+v[2]+v[3]))
	return v
}

// SubtaskPhases splits one subtask's end-to-end time into start_delay,
// alignment, sync, async and ack. ok is false for a subtask that did not
// acknowledge: its phases are not known.
func SubtaskPhases(s model.SubtaskStats) (p Phases, ok bool) {
	if !s.Acknowledged() {
		return Phases{}, false
	}
	v := splitSubtask(&s, subtaskEndToEnd(&s, 0))
	vals := v // one allocation for all five
	p.StartDelay, p.Alignment, p.Sync, p.Async, p.Ack = &vals[0], &vals[1], &vals[2], &vals[3], &vals[4]
	return p, true
}

// SubtaskRow is one subtask of a checkpoint with its phases, for the
// checkpoint detail view.
type SubtaskRow struct {
	VertexID   string `json:"vertex_id"`
	VertexName string `json:"vertex_name,omitempty"`
	Subtask    int    `json:"subtask"`
	// Acknowledged is false for a subtask still pending (or that never acked): its phases are absent.
	Acknowledged     bool   `json:"acknowledged"`
	EndToEndMs       int64  `json:"end_to_end_ms,omitempty"`
	Phases           Phases `json:"phases"`
	CheckpointedSize int64  `json:"checkpointed_size,omitempty"`
	Unaligned        bool   `json:"unaligned,omitempty"`
	// Critical marks the checkpoint's critical path: the last subtask to
	// acknowledge, or, if not all did, every subtask that did not.
	Critical bool `json:"critical,omitempty"`
}

// SubtaskRows lists every subtask of a checkpoint with its phases, vertices
// in job order (upstream first), subtasks by index.
func SubtaskRows(job model.Job, c *model.Checkpoint) []SubtaskRow {
	cps := []model.Checkpoint{*c}
	g := newGraph(job, cps, []int{0})
	res := scanCheckpoint(g, c, newScratch(len(g.vertices)), nil)
	var tasks []int
	for i := range c.Tasks {
		if _, ok := g.index[c.Tasks[i].VertexID]; ok {
			tasks = append(tasks, i)
		}
	}
	vidx := func(t int) int { return g.index[c.Tasks[t].VertexID] }
	sort.SliceStable(tasks, func(i, j int) bool { return g.before(vidx(tasks[i]), vidx(tasks[j])) })
	var rows []SubtaskRow
	for _, t := range tasks {
		ts := &c.Tasks[t]
		v := vidx(t)
		subs := indices(len(ts.Subtasks))
		sort.SliceStable(subs, func(i, j int) bool { return ts.Subtasks[subs[i]].Index < ts.Subtasks[subs[j]].Index })
		for _, si := range subs {
			s := &ts.Subtasks[si]
			r := SubtaskRow{VertexID: ts.VertexID, VertexName: g.vertices[v].name, Subtask: s.Index,
				Acknowledged: s.Acknowledged(), CheckpointedSize: s.CheckpointedSize, Unaligned: s.Unaligned}
			if r.Acknowledged {
				e2e := subtaskEndToEnd(s, c.TriggerMs)
				vec := splitSubtask(s, e2e)
				r.EndToEndMs = e2e
				r.Phases = phasesOf(&vec)
				r.Critical = res.critOK && res.crit.v == v && res.crit.sub == s.Index
			} else {
				r.Critical = !res.complete
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func phasesOf(v *phaseVec) Phases {
	vals := *v
	return Phases{StartDelay: &vals[0], Alignment: &vals[1], Sync: &vals[2], Async: &vals[3], Ack: &vals[4]}
}

// Bottleneck is the largest phase on a checkpoint's critical path, so the
// UI can say "alignment in Window(…) subtask 3: 16.9 s of 19.0 s".
type Bottleneck struct {
	Phase      Phase  `json:"phase"`
	VertexID   string `json:"vertex_id,omitempty"`
	VertexName string `json:"vertex_name,omitempty"`
	// Subtask is the subtask index; absent for finalize, which belongs to the whole checkpoint.
	Subtask *int `json:"subtask,omitempty"`
	// PhaseMs is the phase's duration on the critical path; absent when the
	// critical path is pending (its phase is then inferred, not measured).
	PhaseMs    *int64 `json:"phase_ms,omitempty"`
	EndToEndMs int64  `json:"end_to_end_ms"`
	// Pending is set for a failed or running checkpoint: the critical path is
	// the subtasks that never acknowledged, and Phase is where they were stuck.
	Pending bool `json:"pending,omitempty"`
	// PendingSubtasks counts the subtasks that never acknowledged.
	PendingSubtasks int `json:"pending_subtasks,omitempty"`
	// Origin, for a start-delay or alignment bottleneck, is where the
	// barriers queued: often upstream of the vertex named above.
	Origin *Origin `json:"origin,omitempty"`
}
