package analyze

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// The streamed heatmaps must equal what the heatmaps were when they took the
// whole slice. The ref* functions below are those builders as they were
// before HeatmapBuilder (only renamed), kept as the oracle.

// heatCase is one input to compare the streamed heatmaps on.
type heatCase struct {
	name string
	job  model.Job
	cps  []model.Checkpoint
}

// heatCases are inputs that stress what the streamed builder must get right:
// order, vertices the job does not name (indexed as met), vertices that
// appear only later, ties, pipelines and equal trigger times.
func heatCases() []heatCase {
	benchJob, bench, _ := benchInput(60)

	late := randomCheckpoints(11, 120)
	for i := 40; i < len(late); i++ {
		late[i].Tasks[3].VertexID = "ffffffffffffffffffffffffffffffff" // the sink renamed
	}
	for i := 80; i < len(late); i++ {
		// A new vertex listed first, with a copy of the source's stats.
		extra := late[i].Tasks[0]
		extra.VertexID = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
		extra.Subtasks = slices.Clone(extra.Subtasks)
		late[i].Tasks = append([]model.TaskStats{extra}, late[i].Tasks...)
	}

	pipes := randomCheckpoints(13, 150)
	for i := range pipes {
		if i%3 == 1 {
			pipes[i].TriggerMs = pipes[i-1].TriggerMs // same trigger, another pipeline
			pipes[i].Pipeline = 1
		}
		if i%5 == 0 {
			pipes[i].ID = int64(1000 - i) // ids not in trigger order
		}
	}

	// Many small subtask values: last acks often tie across vertices. The
	// tasks are listed in a different order in each checkpoint, so which
	// vertex a streamed builder meets first depends on the order fed.
	ties := randomCheckpoints(17, 200)
	for i := range ties {
		ties[i].Tasks = append(ties[i].Tasks[i%4:], ties[i].Tasks[:i%4]...)
		for t := range ties[i].Tasks {
			for s := range ties[i].Tasks[t].Subtasks {
				st := &ties[i].Tasks[t].Subtasks[s]
				if st.Acknowledged() {
					st.StartDelayMs, st.AlignmentMs, st.SyncMs, st.AsyncMs = st.StartDelayMs%3, st.AlignmentMs%3, st.SyncMs%2, st.AsyncMs%4
					st.EndToEndMs = st.StartDelayMs + st.AlignmentMs + st.SyncMs + st.AsyncMs + int64(s%2)
					st.AckMs = ties[i].TriggerMs + st.EndToEndMs
				}
			}
		}
	}

	return []heatCase{
		{"bench job", benchJob, bench},
		{"random", flinkJob(), randomCheckpoints(5, 200)},
		{"random, job names no vertex", model.Job{ID: "x"}, randomCheckpoints(7, 200)},
		{"vertices appear later", flinkJob(), late},
		{"vertices appear later, job names none", model.Job{}, late},
		{"pipelines and equal triggers", flinkJob(), pipes},
		{"tied last acks, job names none", model.Job{}, ties},
		{"tied last acks", flinkJob(), ties},
		{"empty", flinkJob(), nil},
	}
}

// orders are the orders a case's checkpoints are fed in.
func orders(cps []model.Checkpoint) map[string][]model.Checkpoint {
	rev := slices.Clone(cps)
	slices.Reverse(rev)
	out := map[string][]model.Checkpoint{"as given": cps, "reversed": rev}
	for seed := range uint64(3) {
		s := slices.Clone(cps)
		rand.New(rand.NewPCG(seed, 99)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		out[fmt.Sprintf("shuffled %d", seed)] = s
	}
	return out
}

// heatRanges are ranges to build over: everything, inside, a missing end,
// one that starts late, and one past the data.
func heatRanges(cps []model.Checkpoint) [][2]int64 {
	if len(cps) == 0 {
		return [][2]int64{{0, 0}, {1_700_000_000_000, 1_700_000_060_000}}
	}
	lo, hi := cps[0].TriggerMs, cps[0].TriggerMs
	for i := range cps {
		lo, hi = min(lo, cps[i].TriggerMs), max(hi, cps[i].TriggerMs)
	}
	mid := lo + (hi-lo)/3
	return [][2]int64{{0, 0}, {mid, hi - (hi-lo)/4}, {mid, 0}, {hi + 1, hi + 3_600_000}, {lo - 7_000, lo + 61_000}}
}

var vertexPhases = []Phase{PhaseStartDelay, PhaseAlignment, PhaseSync, PhaseAsync, PhaseAck, EndToEnd}

func TestHeatmapStreamEqualsSlice(t *testing.T) {
	for _, tc := range heatCases() {
		t.Run(tc.name, func(t *testing.T) {
			// The oracle, once per case: it does not depend on order.
			type key struct {
				kind  string
				r     [2]int64
				param int
				phase Phase
			}
			want := map[key]any{}
			for _, r := range heatRanges(tc.cps) {
				for _, buckets := range []int{0, 7, 200} {
					want[key{"phase", r, buckets, ""}] = refPhaseHeatmap(tc.job, tc.cps, r[0], r[1], buckets)
					want[key{"failure", r, buckets, ""}] = refFailureHeatmap(tc.cps, r[0], r[1], buckets)
				}
				for _, ph := range vertexPhases {
					for _, cols := range []int{0, 1, 7, 1000} {
						hm, err := refVertexHeatmap(tc.job, tc.cps, ph, r[0], r[1], cols)
						if err != nil {
							t.Fatal(err)
						}
						want[key{"vertex", r, cols, ph}] = hm
					}
				}
			}
			for oname, cps := range orders(tc.cps) {
				b := NewHeatmapBuilder(tc.job)
				for i := range cps {
					b.Add(&cps[i])
				}
				for k, w := range want {
					var got any
					var err error
					switch k.kind {
					case "phase":
						got = b.Phase(k.r[0], k.r[1], k.param)
					case "failure":
						got = b.Failure(k.r[0], k.r[1], k.param)
					case "vertex":
						got, err = b.Vertex(k.phase, k.r[0], k.r[1], k.param)
					}
					if err != nil || !reflect.DeepEqual(got, w) {
						t.Fatalf("%s: streamed %+v (%v)\n%s\nwant\n%s", oname, k, err, js(got), js(w))
					}
				}
			}
			// The slice builders are the streamed ones: check them once, shuffled.
			cps := orders(tc.cps)["shuffled 0"]
			for k, w := range want {
				if k.r != [2]int64{} {
					continue
				}
				var got any
				var err error
				switch k.kind {
				case "phase":
					got = BuildPhaseHeatmap(tc.job, cps, 0, 0, k.param)
				case "failure":
					got = BuildFailureHeatmap(cps, 0, 0, k.param)
				case "vertex":
					got, err = BuildVertexHeatmap(tc.job, cps, k.phase, 0, 0, k.param)
				}
				if err != nil || !reflect.DeepEqual(got, w) {
					t.Fatalf("Build* %+v differs from before (%v)\n%s\nwant\n%s", k, err, js(got), js(w))
				}
			}
		})
	}
}

// Two vertices the job does not name tie for the last acknowledgement; the
// one the analysis meets first (in trigger order) is the critical path,
// whatever order the checkpoints arrive in.
func TestHeatmapStreamTieFollowsAnalysisOrder(t *testing.T) {
	const t0 = 1_700_000_000_000
	const x, y = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
	first := buildCP(1, t0, []vtx{{x, all4(healthy)}, {y, all4(healthy)}}, 0, "")
	// Both end 100 ms after trigger: x in alignment, y in async.
	tied := buildCP(2, t0+1_000, []vtx{
		{y, with(2, ph{sd: 1, al: 1, sy: 1, as: 90, ack: 7})},
		{x, with(3, ph{sd: 1, al: 90, sy: 1, as: 1, ack: 7})},
	}, 0, "")
	cps := []model.Checkpoint{first, tied}
	want := refPhaseHeatmap(model.Job{}, cps, 0, 0, 1)
	rows := map[Phase]int64{}
	for _, r := range want.Rows {
		rows[r.Phase] = r.MaxMs
	}
	if rows[PhaseAlignment] != 90 || rows[PhaseAsync] != 20 {
		t.Fatalf("reference heatmap %s: want x (alignment 90 ms) on the critical path", js(want))
	}
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		b := NewHeatmapBuilder(model.Job{})
		for _, i := range order {
			b.Add(&cps[i])
		}
		if got := b.Phase(0, 0, 1); !reflect.DeepEqual(got, want) {
			t.Errorf("added in order %v: %s\nwant %s", order, js(got), js(want))
		}
		vh, err := b.Vertex(EndToEnd, 0, 0, 0)
		if err != nil || len(vh.Rows) != 2 || vh.Rows[0].VertexID != x || vh.Rows[1].VertexID != y {
			t.Errorf("added in order %v: vertex rows %s (%v), want x then y", order, js(vh.Rows), err)
		}
	}
}

// A builder keeps working after a heatmap is built: later Adds count.
func TestHeatmapBuilderReusable(t *testing.T) {
	job := flinkJob()
	cps := randomCheckpoints(23, 150)
	b := NewHeatmapBuilder(job)
	for i := range cps[:60] {
		b.Add(&cps[i])
	}
	if got, want := b.Phase(0, 0, 20), refPhaseHeatmap(job, cps[:60], 0, 0, 20); !reflect.DeepEqual(got, want) {
		t.Fatal("phase heatmap of the first 60 differs")
	}
	for i := range cps[60:] {
		b.Add(&cps[60+i])
	}
	for range 2 { // and building twice gives the same
		if got, want := b.Phase(0, 0, 20), refPhaseHeatmap(job, cps, 0, 0, 20); !reflect.DeepEqual(got, want) {
			t.Fatal("phase heatmap after more Adds differs")
		}
		got, err := b.Vertex(PhaseAsync, 0, 0, 30)
		want, _ := refVertexHeatmap(job, cps, PhaseAsync, 0, 0, 30)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("vertex heatmap after more Adds differs (%v)", err)
		}
	}
}

// The failure heatmap reads no task stats: the app scans without them.
func TestFailureHeatmapWithoutTasks(t *testing.T) {
	cps := randomCheckpoints(29, 300)
	b := NewHeatmapBuilder(flinkJob())
	for i := range cps {
		h := cps[i]
		h.Tasks = nil
		b.Add(&h)
	}
	want := refFailureHeatmap(cps, 0, 0, 30)
	if got := b.Failure(0, 0, 30); !reflect.DeepEqual(got, want) {
		t.Fatalf("failure heatmap from headers\n%s\nwant\n%s", js(got), js(want))
	}
	if len(want.Rows) == 0 {
		t.Fatal("the input has no failures: the test checks nothing")
	}
}

func TestVertexHeatmapRejectsPhases(t *testing.T) {
	b := NewHeatmapBuilder(flinkJob())
	cps := randomCheckpoints(31, 5)
	for i := range cps {
		b.Add(&cps[i])
	}
	for _, tc := range []struct {
		phase Phase
		want  string
	}{
		{PhaseFinalize, `"finalize" has no per-vertex value`},
		{"alignmnet", `"alignmnet" has no per-vertex value`},
		{"", `"" has no per-vertex value`},
	} {
		if _, err := b.Vertex(tc.phase, 0, 0, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Vertex(%q): %v, want an error containing %s", tc.phase, err, tc.want)
		}
		if _, err := BuildVertexHeatmap(flinkJob(), cps, tc.phase, 0, 0, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("BuildVertexHeatmap(%q): %v, want an error containing %s", tc.phase, err, tc.want)
		}
	}
}

// refHeatRange resolves a requested range; 0, 0 means the checkpoints' triggers.
func refHeatRange(cps []model.Checkpoint, fromMs, toMs int64) (int64, int64) {
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

func refPhaseHeatmap(job model.Job, cps []model.Checkpoint, fromMs, toMs int64, targetBuckets int) PhaseHeatmap {
	fromMs, toMs = refHeatRange(cps, fromMs, toMs)
	hm := PhaseHeatmap{Buckets: NewBuckets(fromMs, toMs, targetBuckets), Rows: []PhaseRow{}}
	order := sortedOrder(cps)
	g := newGraph(job, cps, order)
	sc := newScratch(len(g.vertices))
	var es []phaseEntry
	const rows = 1 + numSubtaskPhases + 1 // end_to_end, the subtask phases, finalize
	for _, i := range order {
		c := &cps[i]
		b := hm.Buckets.Of(c.TriggerMs)
		if c.Status != model.StatusCompleted || b < 0 || c.TriggerMs < fromMs || c.TriggerMs > toMs {
			continue
		}
		es = append(es, phaseEntry{0, b, c.EndToEndMs, c.ID, c.Pipeline})
		r := scanCheckpoint(g, c, sc, nil)
		if r.critOK {
			for p, v := range r.critVec {
				es = append(es, phaseEntry{1 + p, b, v, c.ID, c.Pipeline})
			}
		}
		if c.FinalizeMs != nil {
			es = append(es, phaseEntry{rows - 1, b, max(0, *c.FinalizeMs), c.ID, c.Pipeline})
		}
	}
	// The grouping into cells is shared (phaseRows): what changed is how each
	// checkpoint's values are found, which this reference still does the old way.
	hm.Rows = phaseRows(es)
	return hm
}

func refFailureHeatmap(cps []model.Checkpoint, fromMs, toMs int64, targetBuckets int) FailureHeatmap {
	fromMs, toMs = refHeatRange(cps, fromMs, toMs)
	hm := FailureHeatmap{Buckets: NewBuckets(fromMs, toMs, targetBuckets), Rows: []FailureRow{}}
	// Rows are accumulated as the builder does (failureRows): what the
	// reference checks is the order and selection of the checkpoints.
	var fr failureRows
	for _, i := range sortedOrder(cps) {
		c := &cps[i]
		b := hm.Buckets.Of(c.TriggerMs)
		if c.Status != model.StatusFailed || b < 0 || c.TriggerMs < fromMs || c.TriggerMs > toMs {
			continue
		}
		fr.add(Signature(c.FailureMessage), c.FailureMessage, c.TriggerMs, b, c.ID)
	}
	hm.Rows = fr.ordered()
	return hm
}

func refVertexHeatmap(job model.Job, cps []model.Checkpoint, phase Phase, fromMs, toMs int64, maxColumns int) (VertexHeatmap, error) {
	p := phase.index()
	if phase != EndToEnd && (p < 0 || p >= numSubtaskPhases) {
		return VertexHeatmap{}, fmt.Errorf("analyze: vertex heatmap: %q has no per-vertex value; choose one of start_delay, alignment, sync, async, ack, end_to_end", phase)
	}
	if maxColumns < 1 {
		maxColumns = DefaultVertexColumns
	}
	fromMs, toMs = refHeatRange(cps, fromMs, toMs)
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
	grid := newVertexGrid(nV, nCols)
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
				grid.keepMax(v, col, x)
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
		hm.Rows[r] = VertexRow{VertexID: g.vertices[v].id, VertexName: g.vertices[v].name, Cells: grid.cells(v)}
	}
	return hm, nil
}
