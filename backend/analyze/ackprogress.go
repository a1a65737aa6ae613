package analyze

import (
	"slices"
	"sort"

	"checkpoint-explorer/backend/model"
)

// DefaultAckPoints bounds the ack progress curve when the caller gives no limit.
const DefaultAckPoints = 64

// maxPendingNamed bounds how many never-acknowledged subtasks are named.
const maxPendingNamed = 5

// AckProgress is how a checkpoint's acknowledgements arrived: the fraction
// of subtasks acknowledged over time since trigger.
type AckProgress struct {
	// Total and Acknowledged count subtasks (SeaTunnel: tasks); absent when unknown.
	Total        int `json:"total,omitempty"`
	Acknowledged int `json:"acknowledged,omitempty"`
	// Pending counts subtasks that never acknowledged (failed or running checkpoints).
	Pending int `json:"pending,omitempty"`
	// P50Ms, P90Ms and P100Ms are ms after trigger when 50 %, 90 % and 100 %
	// of subtasks had acknowledged; absent when that was never reached or is not known.
	P50Ms  *int64 `json:"p50_ms,omitempty"`
	P90Ms  *int64 `json:"p90_ms,omitempty"`
	P100Ms *int64 `json:"p100_ms,omitempty"`
	// Sampled is set when the progress comes from polling in-flight counts
	// (SeaTunnel, or Flink without subtask stats): each time is then the
	// first poll that saw the fraction, an upper bound.
	Sampled bool `json:"sampled,omitempty"`
	// Stragglers are the last subtasks to acknowledge, latest first; for a
	// checkpoint that did not complete, the subtasks that never acknowledged,
	// upstream vertices first.
	Stragglers []Straggler `json:"stragglers,omitempty"`
	// Curve is (ms since trigger, fraction acknowledged), starting at (0, 0),
	// downsampled to a bounded number of points. Only CheckpointAckProgress fills it.
	Curve []AckPoint `json:"curve,omitempty"`
}

// Straggler is one late or missing subtask.
type Straggler struct {
	VertexID   string `json:"vertex_id"`
	VertexName string `json:"vertex_name,omitempty"`
	Subtask    int    `json:"subtask"`
	// AckAfterMs is when it acknowledged (ms after trigger); absent if it never did.
	AckAfterMs *int64 `json:"ack_after_ms,omitempty"`
}

// AckPoint is one point of the ack progress curve.
type AckPoint struct {
	TMs      int64   `json:"t_ms"`
	Fraction float64 `json:"fraction"`
}

// CheckpointAckProgress computes one checkpoint's ack progress with its
// curve (at most maxPoints points; DefaultAckPoints if maxPoints < 2). acks
// may hold samples of other checkpoints; only this one's are used. It
// returns nil when nothing about the checkpoint's acknowledgements is known.
func CheckpointAckProgress(job model.Job, c *model.Checkpoint, acks []model.AckSample, maxPoints int) *AckProgress {
	if maxPoints < 2 {
		maxPoints = DefaultAckPoints
	}
	cps := []model.Checkpoint{*c}
	g := newGraph(job, cps, []int{0})
	res := scanCheckpoint(g, c, newScratch(len(g.vertices)), nil)
	var mine []model.AckSample
	for _, a := range acks {
		if a.CheckpointID == c.ID && a.Pipeline == c.Pipeline {
			mine = append(mine, a)
		}
	}
	sortAckSamples(mine)
	p := ackProgress(g, c, &res, mine)
	if p == nil {
		return nil
	}
	if res.hasSubtasks {
		times := make([]int64, 0, res.acked)
		for t := range c.Tasks {
			for s := range c.Tasks[t].Subtasks {
				if st := &c.Tasks[t].Subtasks[s]; st.Acknowledged() {
					times = append(times, subtaskEndToEnd(st, c.TriggerMs))
				}
			}
		}
		slices.Sort(times)
		p.Curve = curveFromAcks(times, res.total, maxPoints)
	} else if len(mine) > 0 {
		p.Curve = downsampleCurve(sampledCurve(c, mine), maxPoints)
	}
	return p
}

func sortAckSamples(s []model.AckSample) {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].TimeMs != s[j].TimeMs {
			return s[i].TimeMs < s[j].TimeMs
		}
		return s[i].Acknowledged < s[j].Acknowledged
	})
}

// ackProgress is the summary (no curve) from a scan and this checkpoint's
// ack samples in time order.
func ackProgress(g *graph, c *model.Checkpoint, r *cpResult, samples []model.AckSample) *AckProgress {
	switch {
	case r.hasSubtasks:
		p := &AckProgress{Total: r.total, Acknowledged: r.acked, Pending: max(0, r.total-r.acked)}
		p.P50Ms, p.P90Ms, p.P100Ms = msPtr(r.p50), msPtr(r.p90), msPtr(r.p100)
		if r.complete {
			p.Stragglers = make([]Straggler, r.nTop)
			for i := range r.nTop {
				a := r.top[i]
				ms := a.e2e
				p.Stragglers[i] = Straggler{VertexID: g.vertices[a.v].id, VertexName: g.vertices[a.v].name, Subtask: a.sub, AckAfterMs: &ms}
			}
		} else {
			p.Stragglers = pendingSubtasks(g, c, maxPendingNamed)
		}
		return p
	case len(samples) > 0:
		return sampledProgress(c, samples)
	case c.Status == model.StatusCompleted && c.EndToEndMs > 0:
		// Without subtasks or samples only the last ack is known: trigger → latest ack.
		ms := c.EndToEndMs
		return &AckProgress{Total: c.NumSubtasks, Acknowledged: c.NumAcknowledged, P100Ms: &ms}
	case c.NumSubtasks > 0:
		return &AckProgress{Total: c.NumSubtasks, Acknowledged: c.NumAcknowledged, Pending: max(0, c.NumSubtasks-c.NumAcknowledged)}
	}
	return nil
}

func msPtr(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// pendingSubtasks names up to n subtasks that did not acknowledge, upstream
// vertices first, then by index. It keeps only the first n while scanning.
func pendingSubtasks(g *graph, c *model.Checkpoint, n int) []Straggler {
	type ref struct{ v, sub int }
	less := func(a, b ref) bool {
		if a.v != b.v {
			return g.before(a.v, b.v)
		}
		return a.sub < b.sub
	}
	keep := make([]ref, 0, n+1)
	for t := range c.Tasks {
		v, ok := g.index[c.Tasks[t].VertexID]
		if !ok {
			continue
		}
		for s := range c.Tasks[t].Subtasks {
			st := &c.Tasks[t].Subtasks[s]
			if st.Acknowledged() {
				continue
			}
			r := ref{v, st.Index}
			if len(keep) == n && !less(r, keep[n-1]) {
				continue
			}
			i := sort.Search(len(keep), func(i int) bool { return less(r, keep[i]) })
			keep = slices.Insert(keep, i, r)
			if len(keep) > n {
				keep = keep[:n]
			}
		}
	}
	out := make([]Straggler, len(keep))
	for i, r := range keep {
		out[i] = Straggler{VertexID: g.vertices[r.v].id, VertexName: g.vertices[r.v].name, Subtask: r.sub}
	}
	return out
}

// sampledProgress reads ack progress from polled in-flight counts. A
// fraction's time is the first poll that saw it (an upper bound); for a
// completed checkpoint 100 % is its completion, which is its last ack.
func sampledProgress(c *model.Checkpoint, samples []model.AckSample) *AckProgress {
	p := &AckProgress{Sampled: true, Total: sampledTotal(c, samples)}
	for _, s := range samples {
		p.Acknowledged = max(p.Acknowledged, s.Acknowledged)
	}
	if p.Total <= 0 {
		return nil
	}
	need50, need90 := int(ceilFrac(0.5, p.Total)), int(ceilFrac(0.9, p.Total))
	for _, s := range samples {
		t := max(0, s.TimeMs-c.TriggerMs)
		if p.P50Ms == nil && s.Acknowledged >= need50 {
			p.P50Ms = &t
		}
		if p.P90Ms == nil && s.Acknowledged >= need90 {
			p.P90Ms = &t
		}
		if p.P100Ms == nil && s.Acknowledged >= p.Total {
			p.P100Ms = &t
		}
	}
	if c.Status == model.StatusCompleted && c.EndToEndMs > 0 {
		e2e := c.EndToEndMs
		p.Acknowledged = p.Total
		p.P100Ms = &e2e
		// A poll may never have seen 50 % or 90 %, or saw them only in a
		// snapshot stamped a moment after the completion (SeaTunnel's
		// updatedAt is set after the ack is handled): they were reached by
		// completion at the latest.
		if p.P50Ms == nil || *p.P50Ms > e2e {
			p.P50Ms = &e2e
		}
		if p.P90Ms == nil || *p.P90Ms > e2e {
			p.P90Ms = &e2e
		}
	}
	p.Pending = max(0, p.Total-p.Acknowledged)
	return p
}

// sampledTotal is the most subtasks the polls, or the checkpoint, counted.
func sampledTotal(c *model.Checkpoint, samples []model.AckSample) int {
	total := 0
	for _, s := range samples {
		total = max(total, s.Total)
	}
	return max(total, c.NumSubtasks)
}

func sampledCurve(c *model.Checkpoint, samples []model.AckSample) []AckPoint {
	pts := []AckPoint{{0, 0}}
	total := sampledTotal(c, samples)
	if total <= 0 {
		return pts
	}
	end := int64(-1)
	if c.Status == model.StatusCompleted && c.EndToEndMs > 0 {
		end = c.EndToEndMs
	}
	for _, s := range samples {
		t := max(0, s.TimeMs-c.TriggerMs)
		if end >= 0 && t >= end {
			break
		}
		pts = appendPoint(pts, AckPoint{t, float64(s.Acknowledged) / float64(total)})
	}
	if end >= 0 {
		pts = appendPoint(pts, AckPoint{end, 1})
	}
	return pts
}

// appendPoint adds a point, merging it into the last one at the same time.
func appendPoint(pts []AckPoint, p AckPoint) []AckPoint {
	if n := len(pts); n > 0 && pts[n-1].TMs == p.TMs {
		pts[n-1].Fraction = max(pts[n-1].Fraction, p.Fraction)
		return pts
	}
	return append(pts, p)
}

// curveFromAcks turns sorted ack times into the cumulative curve, keeping at
// most maxPoints points: beyond that only the times at which the fraction
// crosses each 1/(maxPoints-1) step.
func curveFromAcks(sorted []int64, total, maxPoints int) []AckPoint {
	pts := []AckPoint{{0, 0}}
	if total <= 0 {
		return pts
	}
	if total+1 <= maxPoints {
		for j, t := range sorted {
			pts = appendPoint(pts, AckPoint{t, float64(j+1) / float64(total)})
		}
		return pts
	}
	levels := maxPoints - 1
	for l := 1; l <= levels; l++ {
		j := int(ceilFrac(float64(l)/float64(levels), total)) - 1
		if j >= len(sorted) {
			break
		}
		pts = appendPoint(pts, AckPoint{sorted[j], float64(j+1) / float64(total)})
	}
	return pts
}

// downsampleCurve keeps the first point, the last, and the first point past
// each 1/(maxPoints-2) step of fraction; the curve is non-decreasing.
func downsampleCurve(pts []AckPoint, maxPoints int) []AckPoint {
	if len(pts) <= maxPoints {
		return pts
	}
	levels := float64(maxPoints - 2)
	out := []AckPoint{pts[0]}
	lastLevel := int(pts[0].Fraction * levels)
	for _, p := range pts[1 : len(pts)-1] {
		if l := int(p.Fraction * levels); l > lastLevel {
			out = append(out, p)
			lastLevel = l
		}
	}
	return append(out, pts[len(pts)-1])
}
