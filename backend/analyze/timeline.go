// Package analyze holds pure, deterministic functions over the model: level of
// detail for the timeline, phases, bottlenecks, failures, correlation.
package analyze

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"checkpoint-explorer/backend/model"
)

// Bar is one checkpoint, or several neighbours merged because they share a
// pixel column (worst status, longest duration, id range).
type Bar struct {
	StartMs       int64        `json:"start_ms"`
	EndMs         int64        `json:"end_ms"`
	Status        model.Status `json:"status"`
	MaxDurationMs int64        `json:"max_duration_ms"`
	Count         int          `json:"count"`
	FirstID       int64        `json:"first_id"`
	LastID        int64        `json:"last_id"`
	Pipeline      int          `json:"pipeline"`
	// EndedUnseen counts the bar's checkpoints stored in progress that have
	// ended unseen (CheckpointAnalysis.EndedUnseen; savepoints are not told
	// apart here: a span does not carry its kind).
	EndedUnseen int `json:"ended_unseen,omitempty"`
}

// GapSpan places a gap of missed checkpoints on the time axis.
type GapSpan struct {
	FromID   int64 `json:"from_id"`
	ToID     int64 `json:"to_id"`
	Pipeline int   `json:"pipeline"`
	AfterMs  int64 `json:"after_ms"`
	BeforeMs int64 `json:"before_ms"`
}

// Point is one value of a lane.
type Point struct {
	TMs   int64   `json:"t_ms"`
	Value float64 `json:"value"`
}

// Extent is the time span of all the data of a job.
type Extent struct {
	MinMs int64 `json:"min_ms"`
	MaxMs int64 `json:"max_ms"`
}

// Lanes are the series drawn beneath the checkpoints on the same axis.
type Lanes struct {
	// Backpressure is a 0..1 ratio, the maximum over vertices.
	Backpressure []Point `json:"backpressure"`
	// Size is the checkpointed bytes of each completed checkpoint.
	Size []Point `json:"size"`
	// Commit is the duration (ms) of the sink's last commit, as sampled from
	// its committer's metrics, or, where the engine gives no commit duration
	// (SeaTunnel 2.3.13), the records written and not yet committed
	// (CommitUnit says which); empty where the job has neither.
	Commit     []Point `json:"commit"`
	CommitUnit string  `json:"commit_unit,omitempty"`
	// Custom are the cluster's custom lanes that have samples in the range
	// (model.Lane), in the order given.
	Custom []CustomLane `json:"custom"`
}

// CustomLane is one custom lane's points (the largest per pixel column).
type CustomLane struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
}

// IsTimelineMetric reports whether a metric feeds a timeline lane:
// backpressure, the sink's commit duration, or a custom lane.
func IsTimelineMetric(name string) bool {
	return IsBackpressureMetric(name) || name == model.MetricCommitDurationMs || name == model.MetricCommitLagRecords ||
		strings.HasPrefix(name, model.MetricLanePrefix)
}

// Units of the commit lane (Lanes.CommitUnit).
const (
	CommitUnitMs      = "ms"
	CommitUnitRecords = "records"
)

// Timeline is what the timeline view draws for one range and width.
type Timeline struct {
	FromMs int64     `json:"from_ms"`
	ToMs   int64     `json:"to_ms"`
	Extent Extent    `json:"extent"`
	Bars   []Bar     `json:"bars"`
	Gaps   []GapSpan `json:"gaps"`
	Lanes  Lanes     `json:"lanes"`
	// Total is how many checkpoints fall in the range before merging.
	Total int `json:"total"`
}

// IsBackpressureMetric reports whether a metric feeds the backpressure lane.
func IsBackpressureMetric(name string) bool {
	return name == model.MetricBackPressuredMsPerSec || name == model.MetricBPRatio
}

// BackpressureRatio turns a backpressure metric value into a 0..1 ratio.
func BackpressureRatio(s model.MetricSample) (float64, bool) {
	var r float64
	switch s.Metric {
	case model.MetricBackPressuredMsPerSec:
		r = s.Value / 1000
	case model.MetricBPRatio:
		r = s.Value
	default:
		return 0, false
	}
	if !finite(r) {
		return 0, false
	}
	return math.Max(0, math.Min(1, r)), true
}

// displayEnd is where a checkpoint's bar ends: its end, or its latest ack while running.
func displayEnd(c *model.Span) int64 {
	end := c.EndMs()
	if end == 0 {
		end = max(c.LatestAckMs, c.TriggerMs+c.EndToEndMs)
	}
	return max(end, c.TriggerMs)
}

// BuildTimeline merges checkpoints' spans to at most one bar starting per pixel
// column of the range [fromMs, toMs] (0 = the data's extent). metrics are
// the samples of the lanes (IsTimelineMetric; others are ignored); lanes
// orders the custom lanes (those with samples but not named come after,
// by name). engine is the job's (EndsPendingOnCompletion). The input need
// not be sorted; it is not modified.
func BuildTimeline(cps []model.Span, gaps []model.Gap, metrics []model.MetricSample, lanes []string, fromMs, toMs int64, widthPx int, engine model.Engine) Timeline {
	t := Timeline{Bars: []Bar{}, Gaps: []GapSpan{}, Lanes: Lanes{Backpressure: []Point{}, Size: []Point{},
		Commit: []Point{}, Custom: []CustomLane{}}}
	// The cache hands them over in this order, mostly: sorting 100,000
	// checkpoints again took a tenth of a first paint.
	idx := analysisOrder(len(cps), func(i int) orderKey { return orderKey{cps[i].TriggerMs, cps[i].Pipeline, cps[i].ID} })
	for n, i := range idx {
		c := &cps[i]
		end := displayEnd(c)
		if n == 0 || c.TriggerMs < t.Extent.MinMs {
			t.Extent.MinMs = c.TriggerMs
		}
		t.Extent.MaxMs = max(t.Extent.MaxMs, end)
	}
	if fromMs == 0 && toMs == 0 {
		fromMs, toMs = t.Extent.MinMs, t.Extent.MaxMs
		// Pad so the first and last bars are not glued to the edges.
		pad := max((toMs-fromMs)/50, 500)
		fromMs, toMs = fromMs-pad, toMs+pad
	} else if toMs == 0 {
		toMs = max(t.Extent.MaxMs, fromMs+1)
	}
	if toMs <= fromMs {
		toMs = fromMs + 1
	}
	t.FromMs, t.ToMs = fromMs, toMs
	widthPx = max(widthPx, 1)
	msPerPx := float64(toMs-fromMs) / float64(widthPx)
	column := func(ms int64) int64 { return int64(math.Floor(float64(ms-fromMs) / msPerPx)) }

	// The gaps are placed by the checkpoints either side of them: only those
	// are looked up (a map of every checkpoint cost more than the bars).
	byID := map[[2]int64]*model.Span{}
	for _, g := range gaps {
		byID[[2]int64{int64(g.Pipeline), g.FromID - 1}] = nil
		byID[[2]int64{int64(g.Pipeline), g.ToID + 1}] = nil
	}
	var newest newestIDs
	if EndsPendingOnCompletion(engine) {
		newest = newestIDs{}
		for i := range cps {
			newest.see(cps[i].Pipeline, cps[i].ID, cps[i].Status)
		}
	}
	unseen := func(c *model.Span) int {
		if endedUnseen(engine, c.Status, "", c.Pipeline, c.ID, newest) {
			return 1
		}
		return 0
	}
	cur := -1
	curCol := int64(math.MinInt64)
	for _, i := range idx {
		c := &cps[i]
		if len(byID) > 0 {
			if k := [2]int64{int64(c.Pipeline), c.ID}; byID[k] == nil {
				if _, near := byID[k]; near {
					byID[k] = c
				}
			}
		}
		end := displayEnd(c)
		if end < fromMs || c.TriggerMs > toMs {
			continue
		}
		t.Total++
		col := column(c.TriggerMs)
		if cur >= 0 && col == curCol {
			b := &t.Bars[cur]
			b.Count++
			b.EndMs = max(b.EndMs, end)
			b.MaxDurationMs = max(b.MaxDurationMs, c.EndToEndMs)
			if c.Status.Rank() > b.Status.Rank() {
				b.Status = c.Status
			}
			b.FirstID = min(b.FirstID, c.ID)
			b.LastID = max(b.LastID, c.ID)
			b.EndedUnseen += unseen(c)
			continue
		}
		t.Bars = append(t.Bars, Bar{
			StartMs: c.TriggerMs, EndMs: end, Status: c.Status, MaxDurationMs: c.EndToEndMs,
			Count: 1, FirstID: c.ID, LastID: c.ID, Pipeline: c.Pipeline, EndedUnseen: unseen(c),
		})
		cur, curCol = len(t.Bars)-1, col
	}

	for _, g := range gaps {
		span := GapSpan{FromID: g.FromID, ToID: g.ToID, Pipeline: g.Pipeline}
		if prev := byID[[2]int64{int64(g.Pipeline), g.FromID - 1}]; prev != nil {
			span.AfterMs = displayEnd(prev)
		}
		if next := byID[[2]int64{int64(g.Pipeline), g.ToID + 1}]; next != nil {
			span.BeforeMs = next.TriggerMs
		}
		if span.AfterMs == 0 && span.BeforeMs == 0 {
			continue // nothing to anchor it to on the axis
		}
		if (span.BeforeMs != 0 && span.BeforeMs < fromMs) || (span.AfterMs != 0 && span.AfterMs > toMs) {
			continue
		}
		t.Gaps = append(t.Gaps, span)
	}

	t.Lanes.Backpressure = laneMax(metrics, fromMs, toMs, column)
	var commit, lag []Point
	custom := map[string][]Point{}
	for _, s := range metrics {
		if !finite(s.Value) {
			continue
		}
		switch {
		case s.Metric == model.MetricCommitDurationMs:
			commit = append(commit, Point{TMs: s.TimeMs, Value: s.Value})
		case s.Metric == model.MetricCommitLagRecords:
			lag = append(lag, Point{TMs: s.TimeMs, Value: s.Value})
		case strings.HasPrefix(s.Metric, model.MetricLanePrefix):
			n := strings.TrimPrefix(s.Metric, model.MetricLanePrefix)
			custom[n] = append(custom[n], Point{TMs: s.TimeMs, Value: s.Value})
		}
	}
	byTime := func(p []Point) []Point {
		slices.SortStableFunc(p, byPointTime)
		return downsampleMax(p, fromMs, toMs, column)
	}
	switch {
	case len(commit) > 0:
		t.Lanes.Commit, t.Lanes.CommitUnit = byTime(commit), CommitUnitMs
	case len(lag) > 0:
		// No commit durations: how far commits trail the writes shows the
		// sink's commits instead (they move at each completed checkpoint).
		t.Lanes.Commit, t.Lanes.CommitUnit = byTime(lag), CommitUnitRecords
	}
	order := slices.Clone(lanes)
	var rest []string
	for n := range custom {
		if !slices.Contains(order, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	for _, n := range append(order, rest...) {
		if pts, ok := custom[n]; ok {
			t.Lanes.Custom = append(t.Lanes.Custom, CustomLane{Name: n, Points: byTime(pts)})
		}
	}
	var sizes []Point
	for _, i := range idx {
		c := &cps[i]
		if c.Status != model.StatusCompleted {
			continue
		}
		sizes = append(sizes, Point{TMs: displayEnd(c), Value: float64(c.CheckpointedSize)})
	}
	t.Lanes.Size = downsampleMax(sizes, fromMs, toMs, column)
	return t
}

// laneMax keeps, per pixel column, the highest backpressure ratio over all vertices.
func laneMax(samples []model.MetricSample, fromMs, toMs int64, column func(int64) int64) []Point {
	pts := make([]Point, 0, len(samples))
	for _, s := range samples {
		if r, ok := BackpressureRatio(s); ok {
			pts = append(pts, Point{TMs: s.TimeMs, Value: r})
		}
	}
	slices.SortStableFunc(pts, byPointTime)
	return downsampleMax(pts, fromMs, toMs, column)
}

func byPointTime(a, b Point) int { return cmp.Compare(a.TMs, b.TMs) }

// downsampleMax keeps the largest point per pixel column; pts must be sorted by time.
func downsampleMax(pts []Point, fromMs, toMs int64, column func(int64) int64) []Point {
	out := []Point{}
	lastCol := int64(math.MinInt64)
	for _, p := range pts {
		if p.TMs < fromMs || p.TMs > toMs {
			continue
		}
		col := column(p.TMs)
		if len(out) > 0 && col == lastCol {
			if p.Value > out[len(out)-1].Value {
				out[len(out)-1] = p
			}
			continue
		}
		out = append(out, p)
		lastCol = col
	}
	return out
}
