package analyze

import (
	"slices"

	"checkpoint-explorer/backend/model"
)

// Cause is one part of a checkpoint's end-to-end time along its critical
// path: a phase, where it was spent and for how long. For start delay the
// vertex is where barriers queued (the time between the upstream's barrier
// leaving and this vertex receiving it) and UpstreamVertexID the input they
// queued behind; for alignment, the input whose barrier came last. The
// causes of a checkpoint add up to its end-to-end time plus finalize.
type Cause struct {
	Phase              Phase   `json:"phase"`
	VertexID           string  `json:"vertex_id,omitempty"`
	VertexName         string  `json:"vertex_name,omitempty"`
	UpstreamVertexID   string  `json:"upstream_vertex_id,omitempty"`
	UpstreamVertexName string  `json:"upstream_vertex_name,omitempty"`
	Subtask            *int    `json:"subtask,omitempty"`
	Ms                 int64   `json:"ms"`
	Share              float64 `json:"share"`
	// For barriers queued behind an upstream (start delay or alignment with
	// an upstream), what the sampled metrics say in the checkpoint's window:
	// the upstream's backpressure (it is held back) and this vertex's busy
	// ratio (it is the slow one), 0..1; absent without samples.
	UpstreamBackpressure *float64 `json:"upstream_backpressure,omitempty"`
	Busy                 *float64 `json:"busy,omitempty"`
}

// Origin names where barriers queued for a start-delay or alignment
// bottleneck: the vertex at whose input they waited, and that input.
type Origin struct {
	VertexID           string `json:"vertex_id"`
	VertexName         string `json:"vertex_name,omitempty"`
	UpstreamVertexID   string `json:"upstream_vertex_id,omitempty"`
	UpstreamVertexName string `json:"upstream_vertex_name,omitempty"`
}

// barrierStats is what the barrier path needs of one vertex: its subtasks by
// index, and the subtask whose barrier left first and last (start delay +
// alignment: Flink forwards the barrier once aligned, before the snapshot).
type barrierStats struct {
	subs          []*model.SubtaskStats // by subtask index; nil where unknown or not acknowledged
	first, last   int                   // subtask indexes; -1 when none acknowledged
	firstT, lastT int64
	seen          bool // the vertex has per-subtask stats in this checkpoint
}

func emitTime(s *model.SubtaskStats) int64 { return max(0, s.StartDelayMs) + max(0, s.AlignmentMs) }

// causesOf walks the barrier of a completed checkpoint's critical subtask
// back through the job graph and returns the causes of its end-to-end time,
// largest first. A subtask's start delay is split at each edge: the part
// after the upstream barrier left (queued at this vertex's input), and the
// upstream's own alignment and start delay, recursively, down to a source
// (or a vertex whose upstream has no stats). The upstream followed is the
// one whose barrier left first: start delay ends with the first barrier
// received. Nil without a measured critical path.
func causesOf(g *graph, c *model.Checkpoint, r *cpResult, sc *scratch) []Cause {
	if !r.critOK || c.Status != model.StatusCompleted {
		return nil
	}
	// Per vertex, reused: subs keeps its capacity, first < 0 marks "no stats".
	for len(sc.barrier) < len(g.vertices) {
		sc.barrier = append(sc.barrier, barrierStats{})
	}
	stats := sc.barrier[:len(g.vertices)]
	for v := range stats {
		stats[v].subs, stats[v].first, stats[v].last, stats[v].seen = stats[v].subs[:0], -1, -1, false
	}
	for t := range c.Tasks {
		ts := &c.Tasks[t]
		v, ok := g.index[ts.VertexID]
		if !ok || len(ts.Subtasks) == 0 {
			continue
		}
		b := &stats[v]
		b.seen = true
		for i := range ts.Subtasks {
			s := &ts.Subtasks[i]
			if !s.Acknowledged() || s.Index < 0 || s.Index > 1<<16 {
				continue
			}
			for len(b.subs) <= s.Index {
				b.subs = append(b.subs, nil)
			}
			b.subs[s.Index] = s
			e := emitTime(s)
			if b.first < 0 || e < b.firstT {
				b.first, b.firstT = s.Index, e
			}
			if b.last < 0 || e > b.lastT {
				b.last, b.lastT = s.Index, e
			}
		}
	}
	// Built in the scratch buffer, then copied at its size: a day's
	// checkpoints keep theirs (7 on average), and growing slices by appending
	// left a third of each unused.
	out := sc.causes[:0]
	add := func(ph Phase, v, up, sub int, ms int64) {
		if ms <= 0 {
			return
		}
		cs := Cause{Phase: ph, Ms: ms}
		if v >= 0 {
			cs.VertexID, cs.VertexName = g.vertices[v].id, g.vertices[v].name
		}
		if up >= 0 {
			cs.UpstreamVertexID, cs.UpstreamVertexName = g.vertices[up].id, g.vertices[up].name
		}
		if sub >= 0 {
			s := sub
			cs.Subtask = &s
		}
		out = append(out, cs)
	}
	// lastInput is the input whose barrier left last: what alignment waited for.
	lastInput := func(v int) int {
		best, bestT := -1, int64(-1)
		for _, in := range g.inputs[v] {
			if b := &stats[in.v]; b.last >= 0 && b.lastT > bestT {
				best, bestT = in.v, b.lastT
			}
		}
		return best
	}

	v, sub := r.crit.v, r.crit.sub
	vec := r.critVec
	add(PhaseAck, v, -1, sub, vec[4])
	add(PhaseAsync, v, -1, sub, vec[3])
	add(PhaseSync, v, -1, sub, vec[2])
	add(PhaseAlignment, v, lastInput(v), sub, vec[1])
	budget := vec[0]
	for range len(g.vertices) { // a walk upstream visits each vertex once at most (a DAG)
		// The input whose barrier left first, and the subtask it came from.
		up, upSub, upT := -1, -1, int64(0)
		for _, in := range g.inputs[v] {
			b := &stats[in.v]
			if b.first < 0 {
				continue
			}
			s, t := b.first, b.firstT
			if in.forward && sub < len(b.subs) && b.subs[sub] != nil {
				s, t = sub, emitTime(b.subs[sub])
			}
			if up < 0 || t < upT {
				up, upSub, upT = in.v, s, t
			}
		}
		if up < 0 {
			// A source (start delay is the trigger reaching it), or upstream
			// without stats: the rest of the delay stays here.
			unknown := -1
			if len(g.inputs[v]) > 0 {
				unknown = g.inputs[v][0].v
			}
			add(PhaseStartDelay, v, unknown, sub, budget)
			break
		}
		queued := max(0, budget-upT)
		add(PhaseStartDelay, v, up, sub, queued)
		rest := budget - queued
		us := stats[up].subs[upSub]
		al := min(max(0, us.AlignmentMs), rest)
		add(PhaseAlignment, up, lastInput(up), upSub, al)
		budget = rest - al
		v, sub = up, upSub
		if budget <= 0 {
			break
		}
	}
	if c.FinalizeMs != nil {
		add(PhaseFinalize, -1, -1, -1, *c.FinalizeMs)
	}
	var total int64
	for _, cs := range out {
		total += cs.Ms
	}
	for i := range out {
		out[i].Share = round3(float64(out[i].Ms) / float64(total))
	}
	// Largest first; equal ones in the order the walk met them (downstream first).
	slices.SortStableFunc(out, func(a, b Cause) int {
		switch {
		case a.Ms > b.Ms:
			return -1
		case a.Ms < b.Ms:
			return 1
		}
		return 0
	})
	sc.causes = out[:0]
	if len(out) == 0 {
		return nil
	}
	return slices.Clone(out)
}

// annotate adds, to the causes where barriers queued behind an upstream, the
// upstream's backpressure and the vertex's busy ratio in the checkpoint's
// window (the same windows as Pressure).
func (mi *metricIndex) annotate(c *model.Checkpoint, causes []Cause) {
	from, to := windowOf(c)
	for i := range causes {
		cs := &causes[i]
		if cs.UpstreamVertexID == "" || (cs.Phase != PhaseStartDelay && cs.Phase != PhaseAlignment) {
			continue
		}
		if se := mi.by[kindBackpressure][cs.UpstreamVertexID]; se != nil {
			if v, _, _, ok := se.window(from, to); ok {
				cs.UpstreamBackpressure = &v
			}
		}
		if se := mi.by[kindBusy][cs.VertexID]; se != nil {
			if v, _, _, ok := se.window(from, to); ok {
				cs.Busy = &v
			}
		}
	}
}

// originOf is where barriers queued, for a start-delay or alignment
// bottleneck: the largest start-delay or alignment cause.
func originOf(b *Bottleneck, causes []Cause) *Origin {
	if b == nil || b.Pending || (b.Phase != PhaseStartDelay && b.Phase != PhaseAlignment) {
		return nil
	}
	for _, cs := range causes {
		if cs.Phase == PhaseStartDelay || cs.Phase == PhaseAlignment {
			return &Origin{VertexID: cs.VertexID, VertexName: cs.VertexName,
				UpstreamVertexID: cs.UpstreamVertexID, UpstreamVertexName: cs.UpstreamVertexName}
		}
	}
	return nil
}

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}
