package analyze

import (
	"cmp"

	"checkpoint-explorer/backend/model"
)

// How ordinary checkpoints inside a stretch of slow or failed ones join it
// (docs/phases.md, "Episodes"): a gap of at most max(EpisodeGap,
// EpisodeGapShare × the checkpoints the episode spans so far) ordinary
// checkpoints does not split it.
const (
	EpisodeGap      = 3
	EpisodeGapShare = 0.2
)

// Episode is a stretch of slow or failed checkpoints read as one, as a
// person reads the chart: from its first to its last slow or failed
// checkpoint, with the few ordinary ones inside it.
type Episode struct {
	FirstID int64 `json:"first_id"`
	LastID  int64 `json:"last_id"`
	// StartMs is the first's trigger time, EndMs the last's end.
	StartMs int64 `json:"start_ms"`
	EndMs   int64 `json:"end_ms"`
	// Slow and Failed count its slow and failed checkpoints; Ordinary the
	// ordinary ones inside it.
	Slow     int `json:"slow"`
	Failed   int `json:"failed"`
	Ordinary int `json:"ordinary"`
	// Cause is the most frequent cause of its slow and failed checkpoints.
	Cause *EpisodeCause `json:"cause,omitempty"`
	// EndedBy is the first change after its last checkpoint's trigger and
	// by the end of the first ordinary checkpoint after it, if any.
	EndedBy *model.Change `json:"ended_by,omitempty"`
	// Open is set when it lasts to the last checkpoint analysed.
	Open bool `json:"open,omitempty"`
}

// EpisodeCause is a phase and the vertex it was spent at (where barriers
// queued, for a start delay or alignment that waited behind an upstream),
// as SlowRun names them, and how many of the episode's checkpoints it was
// the cause of.
type EpisodeCause struct {
	Phase       Phase  `json:"phase"`
	VertexID    string `json:"vertex_id,omitempty"`
	VertexName  string `json:"vertex_name,omitempty"`
	Checkpoints int    `json:"checkpoints"`
}

// Episodes groups a job's slow (CheckpointAnalysis.Slow) and failed
// checkpoints into episodes, in trigger order. cas are the analysed
// checkpoints in any order (savepoints, running ones and those that ended
// unseen are left out; completed ones that are not slow are ordinary);
// changes are the job's changes (DetectChanges). An ordinary gap that
// holds a change ending the episode before it splits even when short.
func Episodes(cas []CheckpointAnalysis, changes []model.Change) []Episode {
	var out []Episode
	var cur *episodeAcc
	gap := 0                              // ordinary checkpoints since cur's last bad one
	var firstOrdinary *CheckpointAnalysis // the first of them
	for _, i := range analysisOrder(len(cas), func(i int) orderKey { return cas[i].orderKey() }) {
		c := &cas[i]
		if !c.finalSeen() {
			continue
		}
		if c.Status == model.StatusCompleted && len(c.Slow) == 0 {
			if cur != nil {
				if gap == 0 {
					firstOrdinary = c
				}
				gap++
			}
			continue
		}
		if cur != nil && gap > 0 {
			ended := endingChange(changes, cur.last, firstOrdinary)
			if ended != nil || float64(gap) > max(EpisodeGap, EpisodeGapShare*float64(cur.span)) {
				out = append(out, cur.finish(ended, false))
				cur = nil
			}
		}
		if cur == nil {
			cur = &episodeAcc{first: c, causes: map[causeKey]int{}, names: map[string]string{}}
		} else {
			cur.ep.Ordinary += gap
			cur.span += gap
		}
		gap = 0
		cur.add(c)
	}
	if cur != nil {
		var ended *model.Change
		if gap > 0 {
			ended = endingChange(changes, cur.last, firstOrdinary)
		}
		out = append(out, cur.finish(ended, gap == 0))
	}
	if out == nil {
		out = []Episode{}
	}
	return out
}

// endingChange is the first change after last's trigger and by the end of
// the first ordinary checkpoint after it.
func endingChange(changes []model.Change, last, ordinary *CheckpointAnalysis) *model.Change {
	end := cmp.Or(ordinary.EndMs, ordinary.TriggerMs)
	var first *model.Change
	for i := range changes {
		c := &changes[i]
		if c.TimeMs > last.TriggerMs && c.TimeMs <= end && (first == nil || c.TimeMs < first.TimeMs) {
			first = c
		}
	}
	if first == nil {
		return nil
	}
	ch := *first
	return &ch
}

type causeKey struct {
	phase  Phase
	vertex string
}

// episodeAcc gathers one episode.
type episodeAcc struct {
	ep          Episode
	first, last *CheckpointAnalysis
	span        int // checkpoints from the first to the last bad one
	causes      map[causeKey]int
	order       []causeKey // first seen first, for ties
	names       map[string]string
}

func (a *episodeAcc) add(c *CheckpointAnalysis) {
	a.last = c
	a.span++
	if c.Status == model.StatusFailed {
		a.ep.Failed++
	} else {
		a.ep.Slow++
	}
	k, name, ok := causeOf(c)
	if !ok {
		return
	}
	if a.causes[k] == 0 {
		a.order = append(a.order, k)
	}
	a.causes[k]++
	if name != "" {
		a.names[k.vertex] = name
	}
}

func (a *episodeAcc) finish(ended *model.Change, open bool) Episode {
	e := a.ep
	e.FirstID, e.LastID, e.StartMs = a.first.ID, a.last.ID, a.first.TriggerMs
	e.EndMs = cmp.Or(a.last.EndMs, a.last.TriggerMs)
	e.EndedBy, e.Open = ended, open
	for _, k := range a.order {
		if e.Cause == nil || a.causes[k] > e.Cause.Checkpoints {
			e.Cause = &EpisodeCause{Phase: k.phase, VertexID: k.vertex, VertexName: a.names[k.vertex], Checkpoints: a.causes[k]}
		}
	}
	return e
}

// causeOf is what a slow or failed checkpoint's time went into: its
// bottleneck (at the vertex where barriers queued, when they queued behind
// an upstream), else its first slow phase, else the phase its failure was
// in, else end_to_end for a slow one.
func causeOf(c *CheckpointAnalysis) (k causeKey, vertexName string, ok bool) {
	if b := c.Bottleneck; b != nil {
		if o := b.Origin; o != nil {
			return causeKey{b.Phase, o.VertexID}, o.VertexName, true
		}
		return causeKey{b.Phase, b.VertexID}, b.VertexName, true
	}
	for _, f := range c.Slow {
		if f.Phase != EndToEnd {
			return causeKey{f.Phase, f.VertexID}, "", true
		}
	}
	if f := c.Failure; f != nil {
		if f.Phase == "" {
			return causeKey{}, "", false
		}
		k = causeKey{phase: f.Phase}
		if len(f.Vertices) > 0 {
			k.vertex, vertexName = f.Vertices[0].VertexID, f.Vertices[0].VertexName
		}
		return k, vertexName, true
	}
	return causeKey{phase: EndToEnd}, "", true
}
