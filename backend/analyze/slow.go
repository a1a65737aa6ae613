package analyze

import "slices"

// The slow-phase baseline (docs/phases.md, "Repeated slow phases"): a value
// is slow when it exceeds
//
//	median + max(SlowMADFactor·1.4826·MAD, SlowFloorMs, SlowRatio·median)
//
// of the same series' last BaselineWindow values that were not slow, once at
// least BaselineMinHistory of them exist.
const (
	BaselineWindow     = 20
	BaselineMinHistory = 3
	SlowMADFactor      = 3.0
	SlowFloorMs        = 1000
	SlowRatio          = 0.5
	// madToSigma scales a MAD to a standard deviation for normal data.
	madToSigma = 1.4826
)

// SlowFlag marks one value of a checkpoint that exceeded its baseline.
type SlowFlag struct {
	// Phase is the slow phase, or end_to_end for the whole checkpoint.
	Phase Phase `json:"phase"`
	// VertexID is the vertex for per-subtask phases (whose value is the
	// maximum over the vertex's subtasks); absent for end_to_end and finalize.
	VertexID    string  `json:"vertex_id,omitempty"`
	ValueMs     int64   `json:"value_ms"`
	MedianMs    float64 `json:"median_ms"`
	ThresholdMs float64 `json:"threshold_ms"`
}

// SlowRun is a run of consecutive checkpoints slow in the same phase and vertex.
type SlowRun struct {
	Phase         Phase   `json:"phase"`
	VertexID      string  `json:"vertex_id,omitempty"`
	VertexName    string  `json:"vertex_name,omitempty"`
	Pipeline      int     `json:"pipeline,omitempty"`
	CheckpointIDs []int64 `json:"checkpoint_ids"`
	// FirstMs and LastMs are the trigger times of the run's first and last checkpoint.
	FirstMs int64 `json:"first_ms"`
	LastMs  int64 `json:"last_ms"`
	MaxMs   int64 `json:"max_ms"`
	// BaselineMedianMs and ThresholdMs are the baseline when the run started.
	BaselineMedianMs float64 `json:"baseline_median_ms"`
	ThresholdMs      float64 `json:"threshold_ms"`
	// Open is set when the run lasts to the last checkpoint analysed: it is still slow.
	Open bool `json:"open,omitempty"`
	// NewNormal is set when the run ended because it lasted BaselineWindow
	// checkpoints and the baseline accepted the new level.
	NewNormal bool `json:"new_normal,omitempty"`
}

// detector keeps one series' baseline: its last BaselineWindow values that
// were not slow (in arrival order and sorted, so the median and MAD need no
// sorting), and the values of the current slow streak.
type detector struct {
	ring   []int64
	next   int
	sorted []int64
	streak []int64
	run    int // index of the open run, -1 if none
}

// baseline is the median and slow threshold of a sorted window.
func baseline(sorted []int64) (median, threshold float64) {
	median = medianSorted(sorted)
	mad := madSorted(sorted, median)
	margin := max(SlowMADFactor*madToSigma*mad, SlowFloorMs, SlowRatio*median)
	return median, median + margin
}

// medianSorted is the median of a sorted slice; 0 for none.
func medianSorted[T int32 | int64](s []T) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return (float64(s[n/2-1]) + float64(s[n/2])) / 2
}

// madSorted is the median absolute deviation from med of a sorted slice:
// the deviations are walked outwards from the median in increasing order,
// so no sort is needed.
func madSorted(s []int64, med float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	j := 0
	for j < n && float64(s[j]) < med {
		j++
	}
	i := j - 1
	var d0, d1 float64
	for k := 0; k <= n/2; k++ {
		var d float64
		if i >= 0 && (j >= n || med-float64(s[i]) <= float64(s[j])-med) {
			d = med - float64(s[i])
			i--
		} else {
			d = float64(s[j]) - med
			j++
		}
		if k == (n-1)/2 {
			d0 = d
		}
		if k == n/2 {
			d1 = d
		}
	}
	return (d0 + d1) / 2
}

// observe judges v against the baseline and then updates it. judged is
// false while there is not enough history.
func (d *detector) observe(v int64) (judged, slow, reseeded bool, median, threshold float64) {
	if len(d.sorted) >= BaselineMinHistory {
		judged = true
		median, threshold = baseline(d.sorted)
		slow = float64(v) > threshold
	}
	if !slow {
		d.streak = d.streak[:0]
		d.push(v)
		return
	}
	d.streak = append(d.streak, v)
	if len(d.streak) >= BaselineWindow {
		// A level that lasted a whole window is the new normal.
		d.ring, d.sorted, d.next = d.ring[:0], d.sorted[:0], 0
		for _, x := range d.streak[len(d.streak)-BaselineWindow:] {
			d.push(x)
		}
		d.streak = d.streak[:0]
		reseeded = true
	}
	return
}

func (d *detector) push(v int64) {
	if len(d.ring) < BaselineWindow {
		d.ring = append(d.ring, v)
	} else {
		old := d.ring[d.next]
		d.ring[d.next] = v
		d.next = (d.next + 1) % BaselineWindow
		i, _ := slices.BinarySearch(d.sorted, old)
		d.sorted = slices.Delete(d.sorted, i, i+1)
	}
	i, _ := slices.BinarySearch(d.sorted, v)
	d.sorted = slices.Insert(d.sorted, i, v)
}

// slowTracker runs the detectors of every series and collects runs.
type slowTracker struct {
	g *graph
	// dets holds, per pipeline slot, end_to_end, finalize, then vertex ×
	// subtask phase; a slot grows when the graph meets a vertex later (a
	// streamed analysis judges checkpoints before it has seen them all).
	dets  [][]detector
	pipes map[int]int
	runs  []SlowRun
	isE2E []bool // per run: end_to_end (slow_checkpoints) or a phase (slow_phases)
}

type seriesKey struct {
	pipeline int
	phase    Phase
	vertex   int // -1 for checkpoint-level series
}

func newSlowTracker(g *graph) *slowTracker {
	return &slowTracker{g: g, pipes: map[int]int{}}
}

func (t *slowTracker) detector(key seriesKey) *detector {
	slot, ok := t.pipes[key.pipeline]
	if !ok {
		slot = len(t.pipes)
		t.pipes[key.pipeline] = slot
		t.dets = append(t.dets, nil)
	}
	off := 0
	switch {
	case key.phase == EndToEnd:
	case key.phase == PhaseFinalize:
		off = 1
	default:
		off = 2 + key.vertex*numSubtaskPhases + key.phase.index()
	}
	for len(t.dets[slot]) <= off {
		t.dets[slot] = append(t.dets[slot], detector{run: -1})
	}
	return &t.dets[slot][off]
}

// observe feeds one value of one series for checkpoint (id, triggerMs). It
// returns a flag when the value is slow, and the baseline median when the
// value could be judged.
func (t *slowTracker) observe(key seriesKey, id, triggerMs, v int64) (flag *SlowFlag, median float64, judged bool) {
	d := t.detector(key)
	judged, slow, reseeded, median, threshold := d.observe(v)
	if !judged || !slow {
		d.run = -1
		return nil, median, judged
	}
	if d.run < 0 {
		r := SlowRun{Phase: key.phase, Pipeline: key.pipeline, FirstMs: triggerMs, BaselineMedianMs: median, ThresholdMs: threshold}
		if key.vertex >= 0 {
			r.VertexID, r.VertexName = t.g.vertices[key.vertex].id, t.g.vertices[key.vertex].name
		}
		t.runs = append(t.runs, r)
		t.isE2E = append(t.isE2E, key.phase == EndToEnd)
		d.run = len(t.runs) - 1
	}
	r := &t.runs[d.run]
	r.CheckpointIDs = append(r.CheckpointIDs, id)
	r.LastMs = triggerMs
	r.MaxMs = max(r.MaxMs, v)
	if reseeded {
		r.NewNormal = true
		d.run = -1
	}
	flag = &SlowFlag{Phase: key.phase, ValueMs: v, MedianMs: median, ThresholdMs: threshold}
	if key.vertex >= 0 {
		flag.VertexID = t.g.vertices[key.vertex].id
	}
	return flag, median, true
}

// finish marks runs still open and splits them into phase runs and end-to-end runs.
func (t *slowTracker) finish() (phases, checkpoints []SlowRun) {
	for _, slot := range t.dets {
		for i := range slot {
			if slot[i].run >= 0 {
				t.runs[slot[i].run].Open = true
			}
		}
	}
	phases, checkpoints = []SlowRun{}, []SlowRun{}
	for i, r := range t.runs {
		if t.isE2E[i] {
			checkpoints = append(checkpoints, r)
		} else {
			phases = append(phases, r)
		}
	}
	return phases, checkpoints
}
