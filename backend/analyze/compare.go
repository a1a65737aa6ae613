package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"checkpoint-explorer/backend/model"
)

// Delta compares one value of two checkpoints: A (the baseline), B (the
// one examined) and B − A. A side is absent where that checkpoint does not
// show the value; the difference only when both do.
type Delta struct {
	A    *int64 `json:"a,omitempty"`
	B    *int64 `json:"b,omitempty"`
	Diff *int64 `json:"delta,omitempty"`
}

func delta(a, b *int64) Delta {
	d := Delta{A: a, B: b}
	if a != nil && b != nil {
		x := *b - *a
		d.Diff = &x
	}
	return d
}

func i64(v int64) *int64 { return &v }

// PhaseDelta is one phase in both checkpoints, in milliseconds.
type PhaseDelta struct {
	Phase Phase `json:"phase"`
	Delta
}

// VertexDelta is one vertex in both checkpoints: its slowest subtask's end
// to end time and the maximum over its subtasks of each phase (ms), and its
// checkpointed bytes.
type VertexDelta struct {
	VertexID         string       `json:"vertex_id"`
	VertexName       string       `json:"vertex_name,omitempty"`
	EndToEnd         Delta        `json:"end_to_end"`
	CheckpointedSize Delta        `json:"checkpointed_size"`
	Phases           []PhaseDelta `json:"phases"`
}

// CheckpointBrief identifies one side of a comparison.
type CheckpointBrief struct {
	ID               int64        `json:"id"`
	Pipeline         int          `json:"pipeline,omitempty"`
	Status           model.Status `json:"status"`
	TriggerMs        int64        `json:"trigger_ms"`
	DurationMs       int64        `json:"duration_ms"`
	CheckpointedSize int64        `json:"checkpointed_size"`
	Bottleneck       *Bottleneck  `json:"bottleneck,omitempty"`
	// Causes are the checkpoint's causes along the barrier path (CheckpointAnalysis.Causes).
	Causes []Cause `json:"causes,omitempty"`
	// DetailLoss is the checkpoint's model.Checkpoint.DetailLoss: why it has no bottleneck.
	DetailLoss model.DetailLoss `json:"detail_loss,omitempty"`
	// Source is model.Checkpoint.Source ("jobmanager_log": no per-subtask stats).
	Source model.CheckpointSource `json:"source,omitempty"`
}

// Comparison is two checkpoints side by side, B − A.
type Comparison struct {
	A                CheckpointBrief `json:"a"`
	B                CheckpointBrief `json:"b"`
	EndToEnd         Delta           `json:"end_to_end"`
	CheckpointedSize Delta           `json:"checkpointed_size"`
	// Phases are the checkpoint-level (critical path) phases and finalize.
	Phases   []PhaseDelta  `json:"phases"`
	Vertices []VertexDelta `json:"vertices"`
}

// Compare puts checkpoint b beside a (the baseline) phase by phase and
// vertex by vertex. Phases absent from both are left out.
func Compare(job model.Job, a, b *model.Checkpoint) Comparison {
	an := NewAnalyzer(job, nil, nil)
	an.Add(a)
	an.Add(b)
	g := an.g
	nV := len(g.vertices)
	// A vertex only b has lies beyond a's row.
	phaseMax := func(k, v, p int) int64 {
		row := an.row(k)
		if i := v*numSubtaskPhases + p; i < len(row) {
			return row[i]
		}
		return -1
	}
	brief := func(k int) CheckpointBrief {
		c, o := &an.heads[k], &an.out[k]
		return CheckpointBrief{ID: c.ID, Pipeline: c.Pipeline, Status: c.Status, TriggerMs: c.TriggerMs,
			DurationMs: c.EndToEndMs, CheckpointedSize: c.CheckpointedSize, Bottleneck: o.Bottleneck, Causes: o.Causes,
			DetailLoss: c.DetailLoss, Source: c.Source}
	}
	out := Comparison{
		A: brief(0), B: brief(1),
		EndToEnd:         delta(i64(a.EndToEndMs), i64(b.EndToEndMs)),
		CheckpointedSize: delta(i64(a.CheckpointedSize), i64(b.CheckpointedSize)),
		Phases:           []PhaseDelta{},
		Vertices:         []VertexDelta{},
	}
	for _, ph := range allPhases[:] {
		pa, okA := an.out[0].Phases.Get(ph)
		pb, okB := an.out[1].Phases.Get(ph)
		if !okA && !okB {
			continue
		}
		var x, y *int64
		if okA {
			x = i64(pa)
		}
		if okB {
			y = i64(pb)
		}
		out.Phases = append(out.Phases, PhaseDelta{Phase: ph, Delta: delta(x, y)})
	}
	vs := indices(nV)
	sort.SliceStable(vs, func(x, y int) bool { return g.before(vs[x], vs[y]) })
	for _, v := range vs {
		id := g.vertices[v].id
		ta, tb := taskOf(a, id), taskOf(b, id)
		if ta == nil && tb == nil {
			continue
		}
		vd := VertexDelta{VertexID: id, VertexName: g.vertices[v].name, Phases: []PhaseDelta{}}
		var ea, eb, sa, sb *int64
		if e := vertexEndToEnd(a, id); e >= 0 {
			ea = i64(e)
		}
		if e := vertexEndToEnd(b, id); e >= 0 {
			eb = i64(e)
		}
		if ta != nil {
			sa = i64(ta.CheckpointedSize)
		}
		if tb != nil {
			sb = i64(tb.CheckpointedSize)
		}
		vd.EndToEnd, vd.CheckpointedSize = delta(ea, eb), delta(sa, sb)
		for p, ph := range subtaskPhases {
			var x, y *int64
			if m := phaseMax(0, v, p); m >= 0 {
				x = i64(m)
			}
			if m := phaseMax(1, v, p); m >= 0 {
				y = i64(m)
			}
			if x != nil || y != nil {
				vd.Phases = append(vd.Phases, PhaseDelta{Phase: ph, Delta: delta(x, y)})
			}
		}
		out.Vertices = append(out.Vertices, vd)
	}
	return out
}

func taskOf(c *model.Checkpoint, id string) *model.TaskStats {
	for t := range c.Tasks {
		if c.Tasks[t].VertexID == id {
			return &c.Tasks[t]
		}
	}
	return nil
}

// CheckpointRef identifies a checkpoint within a job.
type CheckpointRef struct {
	ID       int64 `json:"id"`
	Pipeline int   `json:"pipeline,omitempty"`
}

// ComparePair is the pair the compare view opens with.
type ComparePair struct {
	Baseline CheckpointRef `json:"baseline"`
	Target   CheckpointRef `json:"target"`
	Reason   string        `json:"reason"`
}

// DefaultComparePair picks the checkpoint worth examining — the latest
// failed one, or else the slowest completed one — and as its baseline the
// median healthy (completed) checkpoint of the same pipeline (the lower
// median when even). ok is false when there is no such pair.
func DefaultComparePair(cps []model.Checkpoint) (ComparePair, bool) {
	target := -1
	for i := range cps {
		c := &cps[i]
		if c.Status != model.StatusFailed {
			continue
		}
		if target < 0 || c.TriggerMs > cps[target].TriggerMs || c.TriggerMs == cps[target].TriggerMs && c.ID > cps[target].ID {
			target = i
		}
	}
	why := "the latest failed checkpoint"
	if target < 0 {
		why = "the slowest completed checkpoint"
		for i := range cps {
			c := &cps[i]
			if c.Status != model.StatusCompleted {
				continue
			}
			if target < 0 || byDuration(c, &cps[target]) > 0 {
				target = i
			}
		}
	}
	if target < 0 {
		return ComparePair{}, false
	}
	t := &cps[target]
	var healthy, samePipe []int
	for i := range cps {
		if i == target || cps[i].Status != model.StatusCompleted {
			continue
		}
		healthy = append(healthy, i)
		if cps[i].Pipeline == t.Pipeline {
			samePipe = append(samePipe, i)
		}
	}
	if len(samePipe) > 0 {
		healthy = samePipe
	}
	if len(healthy) == 0 {
		return ComparePair{}, false
	}
	slices.SortStableFunc(healthy, func(x, y int) int { return byDuration(&cps[x], &cps[y]) })
	base := &cps[healthy[(len(healthy)-1)/2]]
	return ComparePair{
		Baseline: CheckpointRef{ID: base.ID, Pipeline: base.Pipeline},
		Target:   CheckpointRef{ID: t.ID, Pipeline: t.Pipeline},
		Reason: fmt.Sprintf("%s (%d, %d ms) against the median completed checkpoint (%d, %d ms)",
			why, t.ID, t.EndToEndMs, base.ID, base.EndToEndMs),
	}, true
}

// byDuration orders checkpoints by end-to-end time, then trigger time, then id.
func byDuration(a, b *model.Checkpoint) int {
	return cmp.Or(cmp.Compare(a.EndToEndMs, b.EndToEndMs), cmp.Compare(a.TriggerMs, b.TriggerMs), cmp.Compare(a.ID, b.ID))
}
