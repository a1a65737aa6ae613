package analyze

import (
	"slices"

	"checkpoint-explorer/backend/model"
)

// maxStragglers is how many subtasks ack progress names.
const maxStragglers = 3

// ackRef is one acknowledged subtask: when it acked (ms after trigger) and who it is.
type ackRef struct {
	e2e    int64
	v, sub int
}

// later orders acks latest first; equal times fall back to vertex then
// subtask order so the choice never depends on input order.
func later(a, b ackRef) bool {
	if a.e2e != b.e2e {
		return a.e2e > b.e2e
	}
	if a.v != b.v {
		return a.v < b.v
	}
	return a.sub < b.sub
}

// scratch is reused across checkpoints so the per-subtask loop allocates nothing.
type scratch struct {
	acks   []int64
	vAcked []int
	vTotal []int
	vSeen  []bool
	vSum   []phaseVec // per vertex, summed over its acknowledged subtasks
	roots  []int
	// barrier holds the barrier path's per-vertex stats (causes.go), reused
	// from one checkpoint to the next.
	barrier []barrierStats
	causes  []Cause
}

func newScratch(nV int) *scratch {
	return &scratch{vAcked: make([]int, nV), vTotal: make([]int, nV), vSeen: make([]bool, nV), vSum: make([]phaseVec, nV)}
}

// fit makes room for nV vertices (a streamed analysis meets new ones as it goes).
func (sc *scratch) fit(nV int) {
	if len(sc.vTotal) >= nV {
		return
	}
	sc.vAcked = append(sc.vAcked, make([]int, nV-len(sc.vAcked))...)
	sc.vTotal = append(sc.vTotal, make([]int, nV-len(sc.vTotal))...)
	sc.vSeen = append(sc.vSeen, make([]bool, nV-len(sc.vSeen))...)
	sc.vSum = append(sc.vSum, make([]phaseVec, nV-len(sc.vSum))...)
}

func (sc *scratch) reset() {
	sc.acks = sc.acks[:0]
	sc.roots = sc.roots[:0]
	clear(sc.vAcked)
	clear(sc.vTotal)
	clear(sc.vSeen)
	clear(sc.vSum)
}

// cpResult is what one pass over a checkpoint's subtasks finds.
type cpResult struct {
	hasTasks    bool // per-vertex stats present
	hasSubtasks bool // per-subtask stats present
	acked       int
	total       int
	complete    bool // every subtask acknowledged

	// crit is the last acknowledged subtask; it is the critical path only when complete.
	crit     ackRef
	critOK   bool
	critVec  phaseVec
	lastSeen bool

	top  [maxStragglers]ackRef
	nTop int

	p50, p90, p100 int64 // ms after trigger; -1 when not reached or not known

	// For a checkpoint that is not complete: where the pending subtasks are.
	pendingRoot  int // the most upstream vertex still pending whose inputs all acknowledged; -1 if none
	pendingPhase Phase
	pendingBasis []ReasonPart
	// pendingInputsDone is set when pendingPhase is alignment only because
	// every upstream subtask acknowledged; Finish adds what the backpressure
	// in the window says to the basis.
	pendingInputsDone bool
	// pendingSnapshot is set when the pending vertex had forwarded its
	// barrier (everything downstream acknowledged): it was in its snapshot,
	// sync or async, which Finish tells from the vertex's other checkpoints.
	pendingSnapshot bool
	pendingSub      int // the first pending subtask of pendingRoot
}

// lateAck reports whether a failed checkpoint's last acknowledgement came
// after it had failed (Flink records late acks): then the late subtasks were
// what it waited for, and their phases are known.
func (r *cpResult) lateAck(c *model.Checkpoint) bool {
	return r.complete && r.lastSeen && c.Status == model.StatusFailed && c.FailureMs > 0 && c.TriggerMs+r.crit.e2e > c.FailureMs
}

// largestPhase is the index of the largest of the pre-ack phases of v
// (ack is the message's travel, not where a subtask is stuck).
func largestPhase(v *phaseVec) int {
	best := 0
	for k := 1; k < numSubtaskPhases-1; k++ {
		if v[k] > v[best] {
			best = k
		}
	}
	return best
}

func (r *cpResult) pushTop(a ackRef) {
	if r.nTop == maxStragglers && !later(a, r.top[r.nTop-1]) {
		return
	}
	if r.nTop < maxStragglers {
		r.nTop++
	}
	i := r.nTop - 1
	for ; i > 0 && later(a, r.top[i-1]); i-- {
		r.top[i] = r.top[i-1]
	}
	r.top[i] = a
}

// scanCheckpoint makes the one pass over a checkpoint's subtasks that
// everything per checkpoint is derived from. vmax, when not nil, receives
// per vertex and per-subtask phase the maximum over acknowledged subtasks
// (index v*numSubtaskPhases+k; -1 where no subtask acknowledged).
func scanCheckpoint(g *graph, c *model.Checkpoint, sc *scratch, vmax []int64) cpResult {
	r := cpResult{pendingRoot: -1, p50: -1, p90: -1, p100: -1}
	sc.reset()
	for t := range c.Tasks {
		ts := &c.Tasks[t]
		v, ok := g.index[ts.VertexID]
		if !ok {
			continue
		}
		r.hasTasks = true
		sc.vSeen[v] = true
		total := max(ts.NumSubtasks, len(ts.Subtasks))
		sc.vTotal[v] += total
		if len(ts.Subtasks) == 0 {
			sc.vAcked[v] += min(max(ts.NumAcknowledged, 0), total)
			continue
		}
		r.hasSubtasks = true
		sum := &sc.vSum[v]
		for si := range ts.Subtasks {
			s := &ts.Subtasks[si]
			if !s.Acknowledged() {
				continue
			}
			sc.vAcked[v]++
			e2e := subtaskEndToEnd(s, c.TriggerMs)
			vec := splitSubtask(s, e2e)
			sc.acks = append(sc.acks, e2e)
			for k, x := range vec {
				sum[k] += x
			}
			if vmax != nil {
				row := vmax[v*numSubtaskPhases : (v+1)*numSubtaskPhases]
				for k, x := range vec {
					row[k] = max(row[k], x)
				}
			}
			a := ackRef{e2e: e2e, v: v, sub: s.Index}
			if !r.lastSeen || later(a, r.crit) {
				r.crit, r.critVec, r.lastSeen = a, vec, true
			}
			r.pushTop(a)
		}
	}
	for v := range sc.vTotal {
		r.total += sc.vTotal[v]
		r.acked += sc.vAcked[v]
	}
	if !r.hasTasks {
		r.total, r.acked = c.NumSubtasks, c.NumAcknowledged
	}
	r.total = max(r.total, c.NumSubtasks)
	r.complete = r.total > 0 && r.acked >= r.total
	r.critOK = r.complete && r.lastSeen && r.hasSubtasks

	if r.hasSubtasks && r.total > 0 {
		// Selection, not sorting: the quantiles are two order statistics.
		k90 := ackRank(r.total, 0.9)
		k50 := ackRank(r.total, 0.5)
		if k90 < len(sc.acks) {
			selectKth(sc.acks, k90)
			r.p90 = sc.acks[k90]
		}
		if k50 < len(sc.acks) {
			selectKth(sc.acks[:min(k90+1, len(sc.acks))], k50)
			r.p50 = sc.acks[k50]
		}
		if len(sc.acks) >= r.total && r.lastSeen {
			r.p100 = r.crit.e2e
		}
	}
	if r.p100 < 0 && r.complete && c.Status == model.StatusCompleted && c.EndToEndMs > 0 {
		// Some vertices' subtasks are missing (partial details), but every
		// subtask acknowledged: the last ack is the checkpoint's end.
		r.p100 = c.EndToEndMs
	}
	if !r.complete && r.hasTasks {
		r.inferPending(g, sc)
	}
	return r
}

// ackRank is the 0-based rank of the ack at which a fraction q of total
// subtasks had acknowledged (nearest rank).
func ackRank(total int, q float64) int {
	return max(int(ceilFrac(q, total)), 1) - 1
}

// selectKth reorders s so that s[k] is the value it would have if s were
// sorted, with no larger value before it and no smaller after (Hoare's
// selection, median-of-three pivot; deterministic).
func selectKth(s []int64, k int) {
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// ceilFrac is ceil(q*n) computed so that 0.9*10 is 9, not 9.000000000000002.
func ceilFrac(q float64, n int) int64 {
	x := q * float64(n)
	c := int64(x)
	if float64(c) < x-1e-9 {
		c++
	}
	return c
}

// inferPending finds where a checkpoint that did not complete was stuck,
// from which subtasks acknowledged (docs/phases.md, "Failures").
func (r *cpResult) inferPending(g *graph, sc *scratch) {
	pending := func(v int) bool { return sc.vTotal[v] > sc.vAcked[v] }
	for v := range sc.vTotal {
		if !pending(v) {
			continue
		}
		root := true
		if g.hasEdges {
			for _, u := range g.ancestors[v] {
				if sc.vSeen[u] && pending(u) {
					root = false
					break
				}
			}
		}
		if root {
			sc.roots = append(sc.roots, v)
		}
	}
	if len(sc.roots) == 0 {
		if r.acked > 0 && r.total > 0 && r.acked < r.total {
			r.pendingBasis = []ReasonPart{part("f_pending_unknown")}
		}
		return
	}
	slices.SortFunc(sc.roots, func(a, b int) int {
		if g.before(a, b) {
			return -1
		}
		if g.before(b, a) {
			return 1
		}
		return 0
	})
	root := sc.roots[0]
	r.pendingRoot = root
	name := g.label(root)
	switch {
	case r.acked == 0:
		r.pendingPhase = PhaseStartDelay
		r.pendingBasis = []ReasonPart{part("f_none_acked_at", "vertex", name)}
	case sc.vAcked[root] > 0 && slowSiblings(&sc.vSum[root], sc.vAcked[root]) >= 0:
		r.pendingPhase = subtaskPhases[slowSiblings(&sc.vSum[root], sc.vAcked[root])]
		r.pendingBasis = []ReasonPart{part("f_siblings", "vertex", name, "phase", string(r.pendingPhase))}
	case !g.hasEdges:
		r.pendingBasis = []ReasonPart{part("f_no_edges", "vertex", name)}
	case downstreamAcked(g, sc, root):
		// Flink forwards a barrier downstream before taking the snapshot: if
		// everything after the vertex acknowledged, it had its barriers and was
		// snapshotting. Finish tells sync from async by its other checkpoints.
		r.pendingSnapshot = true
		r.pendingBasis = []ReasonPart{part("f_in_snapshot", "vertex", name)}
	case len(g.ancestors[root]) > 0:
		r.pendingPhase = PhaseAlignment
		r.pendingInputsDone = true
		r.pendingBasis = []ReasonPart{part("f_inputs_done", "vertex", name)}
	default:
		r.pendingPhase = PhaseStartDelay
		r.pendingBasis = []ReasonPart{part("f_source_pending", "vertex", name)}
	}
}

// downstreamAcked reports whether v has vertices downstream in this
// checkpoint and every one of them acknowledged in full.
func downstreamAcked(g *graph, sc *scratch, v int) bool {
	found := false
	for w := range sc.vTotal {
		if w == v || !sc.vSeen[w] || !slices.Contains(g.ancestors[w], v) {
			continue
		}
		if sc.vTotal[w] == 0 || sc.vAcked[w] < sc.vTotal[w] {
			return false
		}
		found = true
	}
	return found
}

// slowSiblings is the phase (index) in which a vertex's acknowledged
// subtasks spent most of their time, if that averaged at least SlowFloorMs;
// -1 otherwise (siblings that were quick say nothing about the stuck ones).
// Ack is left out: a pending subtask is not waiting for its own ack to travel.
func slowSiblings(sum *phaseVec, acked int) int {
	best := -1
	for k := range numSubtaskPhases - 1 {
		if sum[k] > 0 && (best < 0 || sum[k] > sum[best]) {
			best = k
		}
	}
	if best < 0 || sum[best] < int64(acked)*SlowFloorMs {
		return -1
	}
	return best
}
