package analyze

import (
	"fmt"
	"sort"

	"checkpoint-explorer/backend/model"
)

// DefaultHeatmapBuckets is the target bucket count when the caller gives none.
const DefaultHeatmapBuckets = 60

const dayMs = 24 * 60 * 60 * 1000

// niceWidthsMs are the bucket widths a heatmap may use; past a day, whole days.
var niceWidthsMs = []int64{
	1_000, 5_000, 10_000, 30_000,
	60_000, 5 * 60_000, 15 * 60_000,
	60 * 60_000, 6 * 60 * 60_000, dayMs,
}

// BucketWidth is the smallest nice width (1s, 5s, 10s, 30s, 1m, 5m, 15m, 1h,
// 6h, 1d, then whole days) that splits [fromMs, toMs] into at most target
// buckets (DefaultHeatmapBuckets if target < 1).
func BucketWidth(fromMs, toMs int64, target int) int64 {
	if target < 1 {
		target = DefaultHeatmapBuckets
	}
	span := max(toMs-fromMs, 1)
	want := (span + int64(target) - 1) / int64(target)
	for _, w := range niceWidthsMs {
		if w >= want {
			return w
		}
	}
	return (want + dayMs - 1) / dayMs * dayMs
}

// Buckets is a heatmap's time axis: Count buckets of WidthMs starting at
// StartMs, which is a multiple of WidthMs since the epoch (UTC), so buckets
// stay put while the view pans. Count is at most the target plus one.
type Buckets struct {
	StartMs int64 `json:"start_ms"`
	WidthMs int64 `json:"width_ms"`
	Count   int   `json:"count"`
}

// NewBuckets lays buckets over [fromMs, toMs].
func NewBuckets(fromMs, toMs int64, target int) Buckets {
	if toMs < fromMs {
		toMs = fromMs
	}
	w := BucketWidth(fromMs, toMs, target)
	start := floorDiv(fromMs, w) * w
	return Buckets{StartMs: start, WidthMs: w, Count: int(floorDiv(toMs-start, w)) + 1}
}

// Of is the bucket index of a time, or -1 outside the axis.
func (b Buckets) Of(ms int64) int {
	if ms < b.StartMs || b.WidthMs <= 0 {
		return -1
	}
	i := int((ms - b.StartMs) / b.WidthMs)
	if i >= b.Count {
		return -1
	}
	return i
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// heatRange resolves a requested range; 0, 0 means the checkpoints' triggers.
func heatRange(cps []model.Checkpoint, fromMs, toMs int64) (int64, int64) {
	if fromMs != 0 || toMs != 0 {
		if toMs == 0 {
			toMs = fromMs
			for i := range cps {
				toMs = max(toMs, cps[i].TriggerMs)
			}
		}
		return fromMs, toMs
	}
	for i := range cps {
		t := cps[i].TriggerMs
		if i == 0 || t < fromMs {
			fromMs = t
		}
		toMs = max(toMs, t)
	}
	return fromMs, toMs
}

// PhaseHeatmap is phase × time bucket: how slow each phase was when.
type PhaseHeatmap struct {
	Buckets Buckets    `json:"buckets"`
	Rows    []PhaseRow `json:"rows"`
}

// PhaseRow is one phase (or end_to_end) across buckets.
type PhaseRow struct {
	Phase Phase `json:"phase"`
	// MaxMs is the row's largest value, to scale its colours.
	MaxMs int64 `json:"max_ms"`
	// Cells are the buckets that hold a value, in time order.
	Cells []PhaseCell `json:"cells"`
}

// PhaseCell summarises one phase over the completed checkpoints triggered in one bucket.
type PhaseCell struct {
	Bucket int   `json:"bucket"`
	Count  int   `json:"count"`
	MaxMs  int64 `json:"max_ms"`
	P90Ms  int64 `json:"p90_ms"`
	// MaxID is the checkpoint with the largest value, to open from the cell.
	MaxID       int64 `json:"max_id"`
	MaxPipeline int   `json:"max_pipeline,omitempty"`
}

// BuildPhaseHeatmap buckets completed checkpoints triggered in [fromMs, toMs]
// (0, 0 = all) by trigger time. Rows are end_to_end and each phase present,
// with the per-checkpoint (critical path) value of docs/phases.md.
func BuildPhaseHeatmap(job model.Job, cps []model.Checkpoint, fromMs, toMs int64, targetBuckets int) PhaseHeatmap {
	fromMs, toMs = heatRange(cps, fromMs, toMs)
	hm := PhaseHeatmap{Buckets: NewBuckets(fromMs, toMs, targetBuckets), Rows: []PhaseRow{}}
	order := sortedOrder(cps)
	g := newGraph(job, cps, order)
	sc := newScratch(len(g.vertices))
	type entry struct {
		row, bucket int
		v, id       int64
		pipeline    int
	}
	var es []entry
	const rows = 1 + numSubtaskPhases + 1 // end_to_end, the subtask phases, finalize
	for _, i := range order {
		c := &cps[i]
		b := hm.Buckets.Of(c.TriggerMs)
		if c.Status != model.StatusCompleted || b < 0 || c.TriggerMs < fromMs || c.TriggerMs > toMs {
			continue
		}
		es = append(es, entry{0, b, c.EndToEndMs, c.ID, c.Pipeline})
		r := scanCheckpoint(g, c, sc, nil)
		if r.critOK {
			for p, v := range r.critVec {
				es = append(es, entry{1 + p, b, v, c.ID, c.Pipeline})
			}
		}
		if c.FinalizeMs != nil {
			es = append(es, entry{rows - 1, b, max(0, *c.FinalizeMs), c.ID, c.Pipeline})
		}
	}
	sort.SliceStable(es, func(x, y int) bool {
		if es[x].row != es[y].row {
			return es[x].row < es[y].row
		}
		return es[x].bucket < es[y].bucket
	})
	names := append([]Phase{EndToEnd}, allPhases[:]...)
	var vals []int64
	for lo := 0; lo < len(es); {
		row := es[lo].row
		pr := PhaseRow{Phase: names[row], Cells: []PhaseCell{}}
		for lo < len(es) && es[lo].row == row {
			hi := lo
			cell := PhaseCell{Bucket: es[lo].bucket, MaxMs: -1}
			vals = vals[:0]
			for ; hi < len(es) && es[hi].row == row && es[hi].bucket == cell.Bucket; hi++ {
				e := es[hi]
				vals = append(vals, e.v)
				if e.v > cell.MaxMs {
					cell.MaxMs, cell.MaxID, cell.MaxPipeline = e.v, e.id, e.pipeline
				}
			}
			cell.Count = len(vals)
			cell.P90Ms = Quantile(vals, 0.9)
			pr.MaxMs = max(pr.MaxMs, cell.MaxMs)
			pr.Cells = append(pr.Cells, cell)
			lo = hi
		}
		hm.Rows = append(hm.Rows, pr)
	}
	return hm
}

// FailureHeatmap is failure signature × time bucket: how often each kind of failure happened when.
type FailureHeatmap struct {
	Buckets Buckets      `json:"buckets"`
	Rows    []FailureRow `json:"rows"`
}

// FailureRow is one signature across buckets.
type FailureRow struct {
	Signature string        `json:"signature"`
	Example   string        `json:"example"`
	Total     int           `json:"total"`
	Cells     []FailureCell `json:"cells"`
}

// FailureCell counts one signature's failures in one bucket, with the
// checkpoints so the cell can open them.
type FailureCell struct {
	Bucket        int     `json:"bucket"`
	Count         int     `json:"count"`
	CheckpointIDs []int64 `json:"checkpoint_ids"`
}

// BuildFailureHeatmap buckets failed checkpoints triggered in [fromMs, toMs]
// (0, 0 = all) by trigger time and signature; rows most frequent first.
func BuildFailureHeatmap(cps []model.Checkpoint, fromMs, toMs int64, targetBuckets int) FailureHeatmap {
	fromMs, toMs = heatRange(cps, fromMs, toMs)
	hm := FailureHeatmap{Buckets: NewBuckets(fromMs, toMs, targetBuckets), Rows: []FailureRow{}}
	order := sortedOrder(cps)
	sigOf := map[string]string{}
	rowOf := map[string]int{}
	firstAt := []int64{}
	for _, i := range order {
		c := &cps[i]
		b := hm.Buckets.Of(c.TriggerMs)
		if c.Status != model.StatusFailed || b < 0 || c.TriggerMs < fromMs || c.TriggerMs > toMs {
			continue
		}
		sig, ok := sigOf[c.FailureMessage]
		if !ok {
			sig = Signature(c.FailureMessage)
			sigOf[c.FailureMessage] = sig
		}
		r, ok := rowOf[sig]
		if !ok {
			r = len(hm.Rows)
			rowOf[sig] = r
			hm.Rows = append(hm.Rows, FailureRow{Signature: sig, Example: c.FailureMessage, Cells: []FailureCell{}})
			firstAt = append(firstAt, c.TriggerMs)
		}
		row := &hm.Rows[r]
		row.Total++
		if n := len(row.Cells); n > 0 && row.Cells[n-1].Bucket == b {
			row.Cells[n-1].Count++
			row.Cells[n-1].CheckpointIDs = append(row.Cells[n-1].CheckpointIDs, c.ID)
		} else {
			row.Cells = append(row.Cells, FailureCell{Bucket: b, Count: 1, CheckpointIDs: []int64{c.ID}})
		}
	}
	idx := make([]int, len(hm.Rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool {
		a, b := &hm.Rows[idx[x]], &hm.Rows[idx[y]]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return firstAt[idx[x]] < firstAt[idx[y]]
	})
	rows := make([]FailureRow, len(idx))
	for i, j := range idx {
		rows[i] = hm.Rows[j]
	}
	hm.Rows = rows
	return hm
}

// DefaultVertexColumns bounds the vertex heatmap's columns when the caller gives no limit.
const DefaultVertexColumns = 200

// VertexHeatmap is vertex × checkpoint: one phase's time per vertex.
type VertexHeatmap struct {
	Phase   Phase          `json:"phase"`
	Columns []VertexColumn `json:"columns"`
	Rows    []VertexRow    `json:"rows"`
}

// VertexColumn is one checkpoint, or Count consecutive ones merged (cells
// then hold the maximum) when there are more checkpoints than columns.
type VertexColumn struct {
	FirstID   int64 `json:"first_id"`
	LastID    int64 `json:"last_id"`
	Pipeline  int   `json:"pipeline,omitempty"`
	TriggerMs int64 `json:"trigger_ms"`
	Count     int   `json:"count"`
}

// VertexRow is one vertex across the columns; a null cell is absent (no
// acknowledged subtask of the vertex in that checkpoint).
type VertexRow struct {
	VertexID   string   `json:"vertex_id"`
	VertexName string   `json:"vertex_name,omitempty"`
	Cells      []*int64 `json:"cells"`
}

// BuildVertexHeatmap lays out, for checkpoints triggered in [fromMs, toMs]
// (0, 0 = all), the phase's value per vertex: the maximum over the vertex's
// acknowledged subtasks. phase may be a per-subtask phase or end_to_end
// (the vertex's slowest subtask ack after trigger); finalize has no
// per-vertex value. Vertices come upstream first.
func BuildVertexHeatmap(job model.Job, cps []model.Checkpoint, phase Phase, fromMs, toMs int64, maxColumns int) (VertexHeatmap, error) {
	p := phase.index()
	if phase != EndToEnd && (p < 0 || p >= numSubtaskPhases) {
		return VertexHeatmap{}, fmt.Errorf("analyze: vertex heatmap: %q has no per-vertex value; choose one of start_delay, alignment, sync, async, ack, end_to_end", phase)
	}
	if maxColumns < 1 {
		maxColumns = DefaultVertexColumns
	}
	fromMs, toMs = heatRange(cps, fromMs, toMs)
	order := sortedOrder(cps)
	g := newGraph(job, cps, order)
	nV := len(g.vertices)
	var in []int
	for _, i := range order {
		if t := cps[i].TriggerMs; t >= fromMs && t <= toMs {
			in = append(in, i)
		}
	}
	per := max(1, (len(in)+maxColumns-1)/maxColumns)
	nCols := (len(in) + per - 1) / per
	hm := VertexHeatmap{Phase: phase, Columns: make([]VertexColumn, 0, nCols), Rows: make([]VertexRow, nV)}
	vals := make([]int64, nV*nCols)
	has := make([]bool, nV*nCols)
	row := make([]int64, nV*numSubtaskPhases)
	sc := newScratch(nV)
	for col := range nCols {
		group := in[col*per : min((col+1)*per, len(in))]
		first := &cps[group[0]]
		vc := VertexColumn{FirstID: first.ID, LastID: first.ID, Pipeline: first.Pipeline, TriggerMs: first.TriggerMs, Count: len(group)}
		for _, i := range group {
			c := &cps[i]
			vc.FirstID, vc.LastID = min(vc.FirstID, c.ID), max(vc.LastID, c.ID)
			for j := range row {
				row[j] = -1
			}
			scanCheckpoint(g, c, sc, row)
			for v := range nV {
				var x int64 = -1
				if phase == EndToEnd {
					x = vertexEndToEnd(c, g.vertices[v].id)
				} else {
					x = row[v*numSubtaskPhases+p]
				}
				if x < 0 {
					continue
				}
				k := v*nCols + col
				if !has[k] || x > vals[k] {
					vals[k], has[k] = x, true
				}
			}
		}
		hm.Columns = append(hm.Columns, vc)
	}
	vs := make([]int, nV)
	for i := range vs {
		vs[i] = i
	}
	sort.SliceStable(vs, func(a, b int) bool { return g.before(vs[a], vs[b]) })
	for r, v := range vs {
		cells := make([]*int64, nCols)
		for col := range nCols {
			if k := v*nCols + col; has[k] {
				cells[col] = &vals[k]
			}
		}
		hm.Rows[r] = VertexRow{VertexID: g.vertices[v].id, VertexName: g.vertices[v].name, Cells: cells}
	}
	return hm, nil
}

// vertexEndToEnd is the vertex's slowest acknowledged subtask (trigger →
// ack), or its own figure when it has no subtask stats; -1 if unknown.
func vertexEndToEnd(c *model.Checkpoint, id string) int64 {
	best := int64(-1)
	for t := range c.Tasks {
		ts := &c.Tasks[t]
		if ts.VertexID != id {
			continue
		}
		if len(ts.Subtasks) == 0 {
			if ts.NumAcknowledged > 0 {
				best = max(best, ts.EndToEndMs)
			}
			continue
		}
		for s := range ts.Subtasks {
			if st := &ts.Subtasks[s]; st.Acknowledged() {
				best = max(best, subtaskEndToEnd(st, c.TriggerMs))
			}
		}
	}
	return best
}
