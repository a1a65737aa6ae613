package analyze

import (
	"cmp"
	"fmt"
	"slices"
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

// HeatmapBuilder gathers what the heatmaps need from checkpoints fed to it
// one at a time (Add), in any order, so that a caller streaming them from
// the cache never holds every subtask stat at once. Per checkpoint it keeps
// a short header, the critical path's phases and, per vertex, the subtask
// phase maxima and the slowest acknowledged subtask (heatPerVertex int64s).
// Phase, Failure and Vertex then build a heatmap over any range of what was
// added, the same as the Build*Heatmap functions over those checkpoints as a
// slice; they may be called any number of times, with more Adds between.
//
// Checkpoints with equal trigger time, pipeline and id (which the cache never
// holds) count in the order they were added.
type HeatmapBuilder struct {
	// g indexes vertices in the order they are met, which depends on the Add
	// order for vertices the job does not name (index nJob and up); see canonical.
	g    *graph
	nJob int
	sc   *scratch
	// firstSeen is, per vertex met only in checkpoints (index nJob+i), where
	// a pass in analysis order meets it first: that decides its place.
	firstSeen []seenAt
	recs      []heatRec
	vals      []int64 // per checkpoint, heatPerVertex values per vertex it could mention; -1 = absent
	msgs      []string
	msgOf     map[string]int32
	// ties holds, for the rare checkpoint whose last acknowledgement is a tie
	// between vertices met only in checkpoints, each one's candidate for the
	// critical path: which wins depends on those vertices' final order.
	ties             map[int][]tieCand
	minTrig, maxTrig int64
}

// heatPerVertex is what a checkpoint keeps per vertex: the subtask phase
// maxima (numSubtaskPhases values for each vertex), then end_to_end (one
// value each), laid out as scanCheckpoint fills the first part.
const heatPerVertex = numSubtaskPhases + 1

// heatRec is one checkpoint's header as the heatmaps read it.
type heatRec struct {
	orderKey
	e2e       int64
	finalize  int64 // max(0, FinalizeMs); -1 when absent
	msg       int32 // failure message (index in msgs); -1 unless failed
	completed bool
	failed    bool
	critOK    bool
	crit      phaseVec
	off, nV   int // vals[off : off+nV*heatPerVertex]
}

// seenAt places a checkpoint's task in analysis order: trigger, pipeline, id,
// then the order added, then the task's position in the checkpoint.
type seenAt struct {
	orderKey
	seq, pos int
}

func (a seenAt) compare(b seenAt) int {
	return cmp.Or(a.orderKey.compare(b.orderKey), cmp.Compare(a.seq, b.seq), cmp.Compare(a.pos, b.pos))
}

// tieCand is one vertex's candidate for the critical path: its lowest
// subtask among those tied for the last acknowledgement.
type tieCand struct {
	v, sub int
	vec    phaseVec
}

// NewHeatmapBuilder starts collecting job's checkpoints for heatmaps.
func NewHeatmapBuilder(job model.Job) *HeatmapBuilder {
	g := newJobGraph(job)
	return &HeatmapBuilder{g: g, nJob: len(g.vertices), sc: newScratch(len(g.vertices)), msgOf: map[string]int32{}, ties: map[int][]tieCand{}}
}

// Add takes what the heatmaps need from one checkpoint; c is not kept or modified.
func (b *HeatmapBuilder) Add(c *model.Checkpoint) {
	seq := len(b.recs)
	b.g.addTasks(c)
	nV := len(b.g.vertices)
	b.sc.fit(nV)
	for len(b.firstSeen) < nV-b.nJob {
		b.firstSeen = append(b.firstSeen, seenAt{seq: -1})
	}
	at := seenAt{orderKey: checkpointKey(c), seq: seq}
	for t := range c.Tasks {
		v, ok := b.g.index[c.Tasks[t].VertexID]
		if !ok || v < b.nJob {
			continue
		}
		at.pos = t
		if s := &b.firstSeen[v-b.nJob]; s.seq < 0 || at.compare(*s) < 0 {
			*s = at
		}
	}

	off := len(b.vals)
	b.vals = slices.Grow(b.vals, nV*heatPerVertex)
	for range nV * heatPerVertex {
		b.vals = append(b.vals, -1)
	}
	row := b.vals[off:]
	r := scanCheckpoint(b.g, c, b.sc, row[:nV*numSubtaskPhases])
	vertexEndToEnds(b.g, c, row[nV*numSubtaskPhases:])
	if r.critOK && r.crit.v >= b.nJob {
		if cands := b.tiedVertices(c, r.crit.e2e); len(cands) > 1 {
			b.ties[seq] = cands
		}
	}

	rec := heatRec{orderKey: checkpointKey(c), e2e: c.EndToEndMs, finalize: -1, msg: -1,
		completed: c.Status == model.StatusCompleted, failed: c.Status == model.StatusFailed,
		critOK: r.critOK, crit: r.critVec, off: off, nV: nV}
	if c.FinalizeMs != nil {
		rec.finalize = max(0, *c.FinalizeMs)
	}
	if rec.failed {
		m, ok := b.msgOf[c.FailureMessage]
		if !ok {
			m = int32(len(b.msgs))
			b.msgOf[c.FailureMessage] = m
			b.msgs = append(b.msgs, c.FailureMessage)
		}
		rec.msg = m
	}
	if seq == 0 || c.TriggerMs < b.minTrig {
		b.minTrig = c.TriggerMs
	}
	if seq == 0 || c.TriggerMs > b.maxTrig {
		b.maxTrig = c.TriggerMs
	}
	b.recs = append(b.recs, rec)
}

// tiedVertices lists, per vertex met only in checkpoints, the subtask that
// scanCheckpoint would pick among those acknowledged e2e ms after trigger
// (the lowest index, the first of equals).
func (b *HeatmapBuilder) tiedVertices(c *model.Checkpoint, e2e int64) []tieCand {
	var cands []tieCand
	for t := range c.Tasks {
		ts := &c.Tasks[t]
		v, ok := b.g.index[ts.VertexID]
		if !ok || v < b.nJob {
			continue
		}
		for s := range ts.Subtasks {
			st := &ts.Subtasks[s]
			if !st.Acknowledged() || subtaskEndToEnd(st, c.TriggerMs) != e2e {
				continue
			}
			switch i := slices.IndexFunc(cands, func(x tieCand) bool { return x.v == v }); {
			case i < 0:
				cands = append(cands, tieCand{v: v, sub: st.Index, vec: splitSubtask(st, e2e)})
			case st.Index < cands[i].sub:
				cands[i] = tieCand{v: v, sub: st.Index, vec: splitSubtask(st, e2e)}
			}
		}
	}
	return cands
}

// canonical maps each vertex's index to the one it has when the checkpoints
// are met in analysis order (as the slice builders and Analyze meet them):
// the job's vertices keep theirs, the others follow where first met.
func (b *HeatmapBuilder) canonical() []int {
	nV := len(b.g.vertices)
	canon := make([]int, nV)
	for v := range b.nJob {
		canon[v] = v
	}
	// The vertices met only in checkpoints, by where they were first seen.
	extra := indices(nV - b.nJob)
	slices.SortFunc(extra, func(x, y int) int { return b.firstSeen[x].compare(b.firstSeen[y]) })
	for i, x := range extra {
		canon[b.nJob+x] = b.nJob + i
	}
	return canon
}

// crit is checkpoint k's critical path phases; canon is needed only when
// ties holds k.
func (b *HeatmapBuilder) crit(k int, canon []int) phaseVec {
	cands, ok := b.ties[k]
	if !ok {
		return b.recs[k].crit
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if canon[c.v] < canon[best.v] {
			best = c
		}
	}
	return best.vec
}

// inRange is the checkpoints triggered in [fromMs, toMs], in analysis order
// (as sortedOrder).
func (b *HeatmapBuilder) inRange(fromMs, toMs int64) []int {
	var in []int
	for _, k := range analysisOrder(len(b.recs), func(i int) orderKey { return b.recs[i].orderKey }) {
		if t := b.recs[k].triggerMs; t >= fromMs && t <= toMs {
			in = append(in, k)
		}
	}
	return in
}

// span resolves a requested range; 0, 0 means the checkpoints' triggers
// (and a 0 end, the last trigger).
func (b *HeatmapBuilder) span(fromMs, toMs int64) (int64, int64) {
	n := len(b.recs)
	if fromMs != 0 || toMs != 0 {
		if toMs == 0 {
			toMs = fromMs
			if n > 0 {
				toMs = max(toMs, b.maxTrig)
			}
		}
		return fromMs, toMs
	}
	if n == 0 {
		return 0, 0
	}
	return b.minTrig, max(0, b.maxTrig)
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

// Phase buckets the completed checkpoints added that were triggered in
// [fromMs, toMs] (0, 0 = all) by trigger time. Rows are end_to_end and each
// phase present, with the per-checkpoint (critical path) value of
// docs/phases.md.
func (b *HeatmapBuilder) Phase(fromMs, toMs int64, targetBuckets int) PhaseHeatmap {
	fromMs, toMs = b.span(fromMs, toMs)
	hm := PhaseHeatmap{Buckets: NewBuckets(fromMs, toMs, targetBuckets), Rows: []PhaseRow{}}
	var canon []int
	if len(b.ties) > 0 {
		canon = b.canonical()
	}
	var es []phaseEntry
	const rows = 1 + numSubtaskPhases + 1 // end_to_end, the subtask phases, finalize
	for _, k := range b.inRange(fromMs, toMs) {
		c := &b.recs[k]
		bk := hm.Buckets.Of(c.triggerMs)
		if !c.completed || bk < 0 {
			continue
		}
		es = append(es, phaseEntry{0, bk, c.e2e, c.id, c.pipeline})
		if c.critOK {
			for p, v := range b.crit(k, canon) {
				es = append(es, phaseEntry{1 + p, bk, v, c.id, c.pipeline})
			}
		}
		if c.finalize >= 0 {
			es = append(es, phaseEntry{rows - 1, bk, c.finalize, c.id, c.pipeline})
		}
	}
	hm.Rows = phaseRows(es)
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

// Failure buckets the failed checkpoints added that were triggered in
// [fromMs, toMs] (0, 0 = all) by trigger time and signature; rows most
// frequent first. It reads no task stats, so checkpoints added without them
// give the same result.
func (b *HeatmapBuilder) Failure(fromMs, toMs int64, targetBuckets int) FailureHeatmap {
	fromMs, toMs = b.span(fromMs, toMs)
	hm := FailureHeatmap{Buckets: NewBuckets(fromMs, toMs, targetBuckets), Rows: []FailureRow{}}
	var fr failureRows
	sigs := make([]string, len(b.msgs)) // per message, its signature once computed
	for _, k := range b.inRange(fromMs, toMs) {
		c := &b.recs[k]
		bk := hm.Buckets.Of(c.triggerMs)
		if !c.failed || bk < 0 {
			continue
		}
		msg := b.msgs[c.msg]
		if sigs[c.msg] == "" {
			sigs[c.msg] = Signature(msg)
		}
		fr.add(sigs[c.msg], msg, c.triggerMs, bk, c.id)
	}
	hm.Rows = fr.ordered()
	return hm
}

// failureRows accumulates failed checkpoints, in analysis order, into one
// row per signature with a cell per bucket.
type failureRows struct {
	rows    []FailureRow
	rowOf   map[string]int
	firstAt []int64
}

func (f *failureRows) add(sig, example string, triggerMs int64, bucket int, id int64) {
	r, ok := f.rowOf[sig]
	if !ok {
		if f.rowOf == nil {
			f.rowOf = map[string]int{}
		}
		r = len(f.rows)
		f.rowOf[sig] = r
		f.rows = append(f.rows, FailureRow{Signature: sig, Example: example, Cells: []FailureCell{}})
		f.firstAt = append(f.firstAt, triggerMs)
	}
	row := &f.rows[r]
	row.Total++
	if n := len(row.Cells); n > 0 && row.Cells[n-1].Bucket == bucket {
		row.Cells[n-1].Count++
		row.Cells[n-1].CheckpointIDs = append(row.Cells[n-1].CheckpointIDs, id)
	} else {
		row.Cells = append(row.Cells, FailureCell{Bucket: bucket, Count: 1, CheckpointIDs: []int64{id}})
	}
}

// ordered is the rows most frequent first, then first seen first.
func (f *failureRows) ordered() []FailureRow {
	idx := indices(len(f.rows))
	sort.SliceStable(idx, func(x, y int) bool {
		a, b := &f.rows[idx[x]], &f.rows[idx[y]]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return f.firstAt[idx[x]] < f.firstAt[idx[y]]
	})
	rows := make([]FailureRow, len(idx))
	for i, j := range idx {
		rows[i] = f.rows[j]
	}
	return rows
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

// CheckVertexPhase returns the error the vertex heatmap gives for phase, if
// any, so a caller can refuse a request before reading its checkpoints.
func CheckVertexPhase(phase Phase) error {
	_, err := vertexPhase(phase)
	return err
}

// vertexPhase is where phase's per-vertex value sits in a vertex's
// heatPerVertex values (numSubtaskPhases for end_to_end).
func vertexPhase(phase Phase) (int, error) {
	if phase == EndToEnd {
		return numSubtaskPhases, nil
	}
	if p := phase.index(); p >= 0 && p < numSubtaskPhases {
		return p, nil
	}
	return 0, fmt.Errorf("analyze: vertex heatmap: %q has no per-vertex value; choose one of start_delay, alignment, sync, async, ack, end_to_end", phase)
}

// Vertex lays out, for the checkpoints added that were triggered in
// [fromMs, toMs] (0, 0 = all), the phase's value per vertex: the maximum over
// the vertex's acknowledged subtasks. phase may be a per-subtask phase or
// end_to_end (the vertex's slowest subtask ack after trigger); finalize has
// no per-vertex value. Vertices come upstream first.
func (b *HeatmapBuilder) Vertex(phase Phase, fromMs, toMs int64, maxColumns int) (VertexHeatmap, error) {
	p, err := vertexPhase(phase)
	if err != nil {
		return VertexHeatmap{}, err
	}
	if maxColumns < 1 {
		maxColumns = DefaultVertexColumns
	}
	fromMs, toMs = b.span(fromMs, toMs)
	in := b.inRange(fromMs, toMs)
	nV := len(b.g.vertices)
	per := max(1, (len(in)+maxColumns-1)/maxColumns)
	nCols := (len(in) + per - 1) / per
	hm := VertexHeatmap{Phase: phase, Columns: make([]VertexColumn, 0, nCols), Rows: make([]VertexRow, nV)}
	grid := newVertexGrid(nV, nCols)
	for col := range nCols {
		group := in[col*per : min((col+1)*per, len(in))]
		first := &b.recs[group[0]]
		vc := VertexColumn{FirstID: first.id, LastID: first.id, Pipeline: first.pipeline, TriggerMs: first.triggerMs, Count: len(group)}
		for _, k := range group {
			c := &b.recs[k]
			vc.FirstID, vc.LastID = min(vc.FirstID, c.id), max(vc.LastID, c.id)
			row := b.vals[c.off : c.off+c.nV*heatPerVertex]
			for v := range c.nV { // vertices met after c were not in it
				x := row[c.nV*numSubtaskPhases+v]
				if p < numSubtaskPhases {
					x = row[v*numSubtaskPhases+p]
				}
				grid.keepMax(v, col, x)
			}
		}
		hm.Columns = append(hm.Columns, vc)
	}
	// Upstream first, then in the order the analysis meets them.
	canon := b.canonical()
	vs := indices(nV)
	slices.SortFunc(vs, func(x, y int) int {
		return cmp.Or(cmp.Compare(b.g.rank[x], b.g.rank[y]), cmp.Compare(canon[x], canon[y]))
	})
	for r, v := range vs {
		hm.Rows[r] = VertexRow{VertexID: b.g.vertices[v].id, VertexName: b.g.vertices[v].name, Cells: grid.cells(v)}
	}
	return hm, nil
}

// vertexGrid is a vertex heatmap's cells while they fill: per vertex and
// column, the largest value seen.
type vertexGrid struct {
	nCols int
	vals  []int64
	has   []bool
}

func newVertexGrid(nV, nCols int) vertexGrid {
	return vertexGrid{nCols: nCols, vals: make([]int64, nV*nCols), has: make([]bool, nV*nCols)}
}

// keepMax takes x for vertex v's cell in column col if it is the largest yet;
// a negative x is no value.
func (g vertexGrid) keepMax(v, col int, x int64) {
	if x < 0 {
		return
	}
	if i := v*g.nCols + col; !g.has[i] || x > g.vals[i] {
		g.vals[i], g.has[i] = x, true
	}
}

// cells are vertex v's cells, nil where no value was seen.
func (g vertexGrid) cells(v int) []*int64 {
	cells := make([]*int64, g.nCols)
	for col := range cells {
		if k := v*g.nCols + col; g.has[k] {
			cells[col] = &g.vals[k]
		}
	}
	return cells
}

// vertexEndToEnds fills out[v] with vertexEndToEnd of each vertex the
// checkpoint mentions, in one pass over its tasks; others keep their value.
func vertexEndToEnds(g *graph, c *model.Checkpoint, out []int64) {
	for t := range c.Tasks {
		ts := &c.Tasks[t]
		if v, ok := g.index[ts.VertexID]; ok {
			out[v] = max(out[v], taskEndToEnd(ts, c.TriggerMs))
		}
	}
}

// vertexEndToEnd is the vertex's slowest acknowledged subtask (trigger →
// ack), or its own figure when it has no subtask stats; -1 if unknown.
func vertexEndToEnd(c *model.Checkpoint, id string) int64 {
	best := int64(-1)
	for t := range c.Tasks {
		if ts := &c.Tasks[t]; ts.VertexID == id {
			best = max(best, taskEndToEnd(ts, c.TriggerMs))
		}
	}
	return best
}

// taskEndToEnd is one task entry's slowest acknowledged subtask (trigger →
// ack), or its own figure when it has no subtask stats; -1 if none acknowledged.
func taskEndToEnd(ts *model.TaskStats, triggerMs int64) int64 {
	if len(ts.Subtasks) == 0 {
		if ts.NumAcknowledged > 0 {
			return ts.EndToEndMs
		}
		return -1
	}
	best := int64(-1)
	for s := range ts.Subtasks {
		if st := &ts.Subtasks[s]; st.Acknowledged() {
			best = max(best, subtaskEndToEnd(st, triggerMs))
		}
	}
	return best
}

// phaseEntry is one checkpoint's value for one phase heatmap row.
type phaseEntry struct {
	row, bucket int
	v, id       int64
	pipeline    int
}

// phaseRows groups entries into rows (end_to_end, the phases, finalize) of
// cells per bucket, each with count, max (and its checkpoint) and p90.
func phaseRows(es []phaseEntry) []PhaseRow {
	sort.SliceStable(es, func(x, y int) bool {
		if es[x].row != es[y].row {
			return es[x].row < es[y].row
		}
		return es[x].bucket < es[y].bucket
	})
	names := append([]Phase{EndToEnd}, allPhases[:]...)
	out := []PhaseRow{}
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
		out = append(out, pr)
	}
	return out
}
