package analyze

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"checkpoint-explorer/backend/model"
)

// MetricAlignmentTimeMs is Flink's checkpointAlignmentTime gauge (the last
// barrier alignment's duration, or the current one's so far) in
// milliseconds, as the capture package records it. It is evidence for
// checkpoints without subtask stats, never a phase.
const MetricAlignmentTimeMs = "checkpointAlignmentTime"

// Sampling tolerance: a sample at time T describes the time before T (rate
// gauges are trailing averages; "last" gauges report a checkpoint after it
// ended), so a checkpoint's window is [trigger, end + lag], lag being one
// sampling interval (the median spacing of the series) clamped to these bounds.
const (
	MinSampleLagMs = 1_000
	MaxSampleLagMs = 60_000
)

// The verdict's thresholds (docs/phases.md, "Backpressure correlation").
const (
	MinCorrelationN   = 8
	MaxCorrelationP   = 0.05
	MinCorrelationRho = 0.4
	// StorageAsyncShare is the share of the slowest quarter of checkpoints
	// whose bottleneck must be async for the storage verdict.
	StorageAsyncShare = 0.5
	// SustainedBackpressure is the upstream backpressure ratio (0..1) above
	// which slow checkpoints whose bottleneck is start_delay or alignment are
	// put down to backpressure even when it is too constant to correlate; the
	// same share of the slowest quarter as for storage is required.
	SustainedBackpressure = 0.5
	// BarrierAlignmentShare is the share of a slow checkpoint's end-to-end
	// time the sampled alignment gauge must reach, with no subtask stats, for
	// its time to count as spent waiting for barriers.
	BarrierAlignmentShare = 0.25
	// QuietBackpressure is the upstream backpressure ratio below which a
	// measured window contradicts putting a barrier wait down to backpressure.
	QuietBackpressure = 0.1
)

// Basis says what a verdict rests on.
type Basis string

const (
	// BasisCorrelation: a significant rank correlation.
	BasisCorrelation Basis = "correlation"
	// BasisSustained: backpressure too constant to correlate, under the slowest quarter's barrier waits.
	BasisSustained Basis = "sustained_backpressure"
	// BasisBottleneck: the slowest quarter's bottleneck phase (async for storage).
	BasisBottleneck Basis = "bottleneck"
	// BasisSlowCheckpoints: no correlation decides, but the checkpoints
	// judged slow do: they spent their time waiting for barriers.
	BasisSlowCheckpoints Basis = "slow_checkpoints"
	// BasisContrast: without phases, the slow checkpoints were clearly and
	// far more backpressured than the others (contrast.go).
	BasisContrast Basis = "contrast"
)

// Verdict is the analysis's answer to "why are checkpoints slow".
type Verdict string

const (
	VerdictBackpressure Verdict = "backpressure"
	VerdictStateSize    Verdict = "state_size"
	VerdictStorage      Verdict = "storage"
	// VerdictHealthy: the checkpoints are fast and regular (healthyOf):
	// there is no slowness to explain.
	VerdictHealthy      Verdict = "healthy"
	VerdictInconclusive Verdict = "inconclusive"
)

// Fast and regular (docs/phases.md, "Verdict"): at least HealthyMinCompleted
// checkpoints completed, none failed, none was judged slow against its
// baseline, and their end-to-end p90 is within HealthyFloorMs or, where the
// job's configuration says, HealthyShare of its checkpoint interval or
// timeout (the smaller of the two), whichever is larger. A checkpoint taking
// a tenth of the interval leaves the job nine tenths of its time between
// checkpoints, and one taking a tenth of the timeout is far from expiring;
// below a second nobody is waiting for a checkpoint.
const (
	HealthyMinCompleted = 3
	HealthyFloorMs      = 1000
	HealthyShare        = 0.1
)

// HealthyBoundMs is the end-to-end p90 up to which checkpoints are fast, for
// a job of configuration cfg (nil when unknown), with the reason clause that
// says where the bound comes from.
func HealthyBoundMs(cfg *model.JobConfig) (int64, ReasonPart) {
	bound, clause := int64(HealthyFloorMs), part("healthy_floor", "ms", fmt.Sprint(HealthyFloorMs), "share", pct(HealthyShare))
	var limit int64
	code := ""
	if cfg != nil && cfg.IntervalMs != nil && *cfg.IntervalMs > 0 {
		limit, code = *cfg.IntervalMs, "healthy_interval"
	}
	if cfg != nil && cfg.TimeoutMs != nil && *cfg.TimeoutMs > 0 && (limit == 0 || *cfg.TimeoutMs < limit) {
		limit, code = *cfg.TimeoutMs, "healthy_timeout"
	}
	if b := int64(HealthyShare * float64(limit)); b > bound {
		bound, clause = b, part(code, "share", pct(HealthyShare), "ms", fmt.Sprint(limit))
	}
	return bound, clause
}

// healthyOf says, when the checkpoints are fast and regular, why; nil when
// they are not.
func healthyOf(in []corrInput, cfg *model.JobConfig) []ReasonPart {
	var e2e []int64
	for _, c := range in {
		if c.failed || c.slow {
			return nil
		}
		if c.completed {
			e2e = append(e2e, c.e2e)
		}
	}
	if len(e2e) < HealthyMinCompleted {
		return nil
	}
	bound, clause := HealthyBoundMs(cfg)
	p90 := Quantile(e2e, 0.9)
	if p90 > bound {
		return nil
	}
	return []ReasonPart{part("healthy", "n", fmt.Sprint(len(e2e)), "p50", fmt.Sprint(Quantile(e2e, 0.5)),
		"p90", fmt.Sprint(p90), "bound", fmt.Sprint(bound)), clause}
}

// Pressure is what the sampled metrics say about one checkpoint's window.
type Pressure struct {
	// Max is the highest backpressure ratio (0..1) of any vertex in the window.
	Max *float64 `json:"max,omitempty"`
	// Upstream is the highest backpressure ratio of the vertices upstream of
	// the bottleneck vertex (UpstreamOf); of all vertices when the edges or
	// the bottleneck are unknown (UpstreamOf absent).
	Upstream   *float64 `json:"upstream,omitempty"`
	UpstreamOf string   `json:"upstream_of,omitempty"`
	// Samples counts the backpressure samples used.
	Samples int `json:"samples"`
	// Basis says which samples were used: "window" (from the trigger to one
	// sampling interval after the end: a rate sampled then is averaged over
	// the checkpoint's time) or "nearest" (none did; the last one within an
	// interval before the trigger). Nearest is the same, as a flag.
	Basis   string `json:"basis,omitempty"`
	Nearest bool   `json:"nearest,omitempty"`
	// Busy is the highest busy ratio (0..1) in the window.
	Busy *float64 `json:"busy,omitempty"`
	// SampledAlignmentMs is the highest checkpointAlignmentTime gauge value in
	// the window: evidence of where the time went when there are no subtask stats.
	SampledAlignmentMs *float64 `json:"sampled_alignment_ms,omitempty"`
}

// Correlation relates checkpoint durations to backpressure and size.
type Correlation struct {
	// Backpressure is end-to-end duration against upstream backpressure.
	Backpressure Spearman `json:"backpressure"`
	// AlignmentBackpressure is start_delay + alignment on the critical path against upstream backpressure.
	AlignmentBackpressure Spearman `json:"alignment_backpressure"`
	// CheckpointedSize is end-to-end duration against checkpointed bytes.
	CheckpointedSize Spearman `json:"checkpointed_size"`
	// AsyncShare is, among the slowest quarter of completed checkpoints with
	// a bottleneck, the share whose bottleneck is async; absent without phases.
	AsyncShare *float64 `json:"async_share,omitempty"`
	Verdict    Verdict  `json:"verdict"`
	// Basis is what the verdict rests on; absent when healthy or inconclusive.
	Basis Basis `json:"basis,omitempty"`
	// Reason is why, in English words; ReasonParts are its clauses, for the
	// UI to say in the user's language.
	Reason      string       `json:"reason"`
	ReasonParts []ReasonPart `json:"reason_parts"`
}

// series is one metric for one vertex, in time order.
type series struct {
	t   []int64
	v   []float64
	lag int64
}

type metricKind int

const (
	kindBackpressure metricKind = iota
	kindBusy
	kindAlignment
	// kindQueueFill is SeaTunnel's queueFillRatio, attributed like bpRatio
	// to the vertex writing into the queue: evidence for the verdict's
	// contrast only, not a backpressure ratio (a fill level is not a share
	// of time blocked), so the per-checkpoint backpressure and the
	// timeline's lane leave it out.
	kindQueueFill
	numKinds
)

// metricIndex holds the samples of the kinds the analysis uses, per vertex
// ("" is a job-level aggregate over all vertices).
type metricIndex struct {
	by      [numKinds]map[string]*series
	keys    [numKinds][]string // sorted, so iteration is deterministic
	upCache map[int][]bool
}

// AnalysedMetric reports whether the analysis reads samples of the metric
// name (classify's and the sink commits'): a caller reading a day of samples
// for it can leave the others (idle time, lanes) in the cache.
func AnalysedMetric(name string) bool {
	switch name {
	case model.MetricBackPressuredMsPerSec, model.MetricBPRatio, model.MetricBusyMsPerSec, model.MetricBusyRatio,
		model.MetricQueueFillRatio, MetricAlignmentTimeMs, model.MetricCommitDurationMs, model.MetricCommittedFiles, model.MetricCommittedRecords,
		model.MetricCommittedCommittables:
		return true
	}
	return false
}

func classify(s *model.MetricSample) (metricKind, float64, bool) {
	if r, ok := BackpressureRatio(*s); ok {
		return kindBackpressure, r, true
	}
	if !finite(s.Value) || s.Value < 0 {
		return 0, 0, false
	}
	switch s.Metric {
	case model.MetricBusyMsPerSec:
		return kindBusy, math.Min(1, s.Value/1000), true
	case model.MetricBusyRatio:
		return kindBusy, math.Min(1, s.Value), true
	case MetricAlignmentTimeMs:
		return kindAlignment, s.Value, true
	case model.MetricQueueFillRatio:
		return kindQueueFill, math.Min(1, s.Value), true
	}
	return 0, 0, false
}

func newMetricIndex(jobID string, samples []model.MetricSample) *metricIndex {
	mi := &metricIndex{}
	for k := range mi.by {
		mi.by[k] = map[string]*series{}
	}
	for i := range samples {
		s := &samples[i]
		if jobID != "" && s.JobID != "" && s.JobID != jobID {
			continue
		}
		kind, v, ok := classify(s)
		if !ok {
			continue
		}
		se := mi.by[kind][s.VertexID]
		if se == nil {
			se = &series{}
			mi.by[kind][s.VertexID] = se
			mi.keys[kind] = append(mi.keys[kind], s.VertexID)
		}
		se.t = append(se.t, s.TimeMs)
		se.v = append(se.v, v)
	}
	for k := range mi.by {
		sort.Strings(mi.keys[k])
		for _, se := range mi.by[k] {
			se.sortAndLag()
		}
	}
	return mi
}

func (se *series) Len() int           { return len(se.t) }
func (se *series) Less(i, j int) bool { return se.t[i] < se.t[j] }
func (se *series) Swap(i, j int) {
	se.t[i], se.t[j] = se.t[j], se.t[i]
	se.v[i], se.v[j] = se.v[j], se.v[i]
}

func (se *series) sortAndLag() {
	sort.Stable(se)
	var diffs []int64
	for i := 1; i < len(se.t); i++ {
		if d := se.t[i] - se.t[i-1]; d > 0 {
			diffs = append(diffs, d)
		}
	}
	se.lag = MaxSampleLagMs
	if len(diffs) > 0 {
		se.lag = min(max(Quantile(diffs, 0.5), MinSampleLagMs), MaxSampleLagMs)
	}
}

// window is the highest value sampled in [from, to+lag] — a rate or gauge
// sampled up to one interval after the end still describes the window (it
// is averaged over, or reports on, the time before it) — failing that, the
// last sample in [from-lag, from): the nearest before.
func (se *series) window(from, to int64) (v float64, n int, nearest, ok bool) {
	lo := sort.Search(len(se.t), func(i int) bool { return se.t[i] >= from })
	hi := sort.Search(len(se.t), func(i int) bool { return se.t[i] > to+se.lag })
	if lo < hi {
		v = se.v[lo]
		for i := lo + 1; i < hi; i++ {
			v = math.Max(v, se.v[i])
		}
		return v, hi - lo, false, true
	}
	if lo > 0 && se.t[lo-1] >= from-se.lag {
		return se.v[lo-1], 1, true, true
	}
	return 0, 0, false, false
}

// windowOf is the time a checkpoint's metrics are read over: the span its
// bar on the timeline covers.
func windowOf(c *model.Checkpoint) (from, to int64) {
	s := c.Span()
	return c.TriggerMs, displayEnd(&s)
}

// upstreamKeys marks, per backpressure series (in key order), whether its
// vertex is upstream of focus; nil when focus has no known upstream. It is
// cached per focus vertex.
func (mi *metricIndex) upstreamKeys(g *graph, focus int) []bool {
	if focus < 0 || !g.hasEdges || len(g.ancestors[focus]) == 0 {
		return nil
	}
	if mi.upCache == nil {
		mi.upCache = map[int][]bool{}
	}
	if up, ok := mi.upCache[focus]; ok {
		return up
	}
	anc := make(map[string]bool, len(g.ancestors[focus]))
	for _, u := range g.ancestors[focus] {
		anc[g.vertices[u].id] = true
	}
	up := make([]bool, len(mi.keys[kindBackpressure]))
	for i, key := range mi.keys[kindBackpressure] {
		up[i] = anc[key]
	}
	mi.upCache[focus] = up
	return up
}

// pressure reads the samples in a checkpoint's window. focus is the
// bottleneck vertex (-1 if unknown) whose upstream is "upstream".
func (mi *metricIndex) pressure(g *graph, c *model.Checkpoint, focus int, out *Pressure, vals *[4]float64) bool {
	from, to := windowOf(c)
	var all, upstream windowMax
	up := mi.upstreamKeys(g, focus)
	for i, key := range mi.keys[kindBackpressure] {
		v, n, nearest, ok := mi.by[kindBackpressure][key].window(from, to)
		if !ok {
			continue
		}
		all.add(v, n, nearest)
		if up != nil && up[i] {
			upstream.add(v, n, nearest)
		}
	}
	anyFound := all.found
	if all.found {
		out.Samples += all.n
		out.Nearest = out.Nearest || all.nearest
		out.Basis = "window"
		if out.Nearest {
			out.Basis = "nearest"
		}
		vals[0] = all.best
		out.Max = &vals[0]
		if upstream.found {
			vals[1] = upstream.best
			out.UpstreamOf = g.vertices[focus].id
		} else {
			vals[1] = all.best
		}
		out.Upstream = &vals[1]
	}
	if v, _, _, ok := mi.maxIn(kindBusy, from, to); ok {
		vals[2] = v
		out.Busy = &vals[2]
		anyFound = true
	}
	if v, _, _, ok := mi.maxIn(kindAlignment, from, to); ok {
		vals[3] = v
		out.SampledAlignmentMs = &vals[3]
		anyFound = true
	}
	return anyFound
}

// maxIn is the highest value of kind in a window over every vertex, with
// the samples read and whether one vertex's was the nearest before it.
func (mi *metricIndex) maxIn(kind metricKind, from, to int64) (best float64, n int, nearest, found bool) {
	var m windowMax
	for _, key := range mi.keys[kind] {
		if v, k, near, ok := mi.by[kind][key].window(from, to); ok {
			m.add(v, k, near)
		}
	}
	return m.best, m.n, m.nearest, m.found
}

// windowMax gathers vertices' values in a window: the highest, the samples
// read, and whether one vertex's was the nearest before the window.
type windowMax struct {
	best           float64
	n              int
	nearest, found bool
}

func (m *windowMax) add(v float64, n int, nearest bool) {
	if !m.found || v > m.best {
		m.best = v
	}
	m.n, m.nearest, m.found = m.n+n, m.nearest || nearest, true
}

// corrInput is what the verdict needs of one checkpoint.
type corrInput struct {
	id          int64
	completed   bool
	failed      bool // a checkpoint (not a savepoint) that failed, not aborted by the job (JobLevel)
	e2e         int64
	size        int64
	upstream    *float64
	alignDelay  int64 // start_delay + alignment on the critical path
	hasPhases   bool
	bottleneck  Phase  // "" if none
	bnVertex    string // the bottleneck's vertex name (or id); "" for finalize
	bnMs        int64  // the bottleneck phase's time
	sampledAlig *float64
	maxBP       *float64
	busy        *float64
	samples     int
	// fill is the highest queue fill in the window (fillN samples); nearest
	// says the evidence came from the last samples before the window.
	fill      float64
	fillN     int
	nearest   bool
	medianE2E float64 // baseline median when it was judged, 0 if not
	slow      bool    // end-to-end judged slow against its baseline
	unaligned bool
	// queueAt and queueUp name where barriers queued longest when that is
	// the checkpoint's first cause (start delay or alignment behind an
	// upstream), with queueShare its share; second is the next cause.
	queueAt, queueUp string
	queueShare       float64
	second           *Cause
}

// MinSizeEffect is how much checkpointed size must vary (p90 − p10 over the
// median) before a correlation with it can explain anything, and
// SizeEffectPerSlowdown how much of the duration's variation it must be at
// least: a size that wanders by 3 % cannot explain a 100× slowdown.
const (
	MinSizeEffect         = 0.05
	SizeEffectPerSlowdown = 0.1
)

// relSpread is (p90 − p10) / median of xs; 0 when the median is 0.
func relSpread(xs []float64) float64 {
	vs := make([]int64, len(xs))
	for i, x := range xs {
		vs[i] = int64(x)
	}
	med := Quantile(vs, 0.5)
	if med == 0 {
		return 0
	}
	return float64(Quantile(vs, 0.9)-Quantile(vs, 0.1)) / float64(med)
}

// sizeEffectFits reports whether size varies enough to explain how much the
// durations vary.
func sizeEffectFits(size, e2e []float64) bool {
	s := relSpread(size)
	return s >= MinSizeEffect && s >= SizeEffectPerSlowdown*relSpread(e2e)
}

// queueDominant is, over the slowest quarter of completed checkpoints with
// causes, whether most of them (StorageAsyncShare) spent their largest part
// with barriers queued behind an upstream measured backpressured; with the
// vertex where that happened most often, its upstream, the mean share, and
// the most common second cause.
type queueFinding struct {
	ok             bool
	share, level   float64
	vertex, up     string
	causeShare     float64
	second         *Cause
	secondCount, n int
}

func queueDominant(in []corrInput) queueFinding {
	var e2e []int64
	for _, c := range in {
		if c.completed && c.hasPhases {
			e2e = append(e2e, c.e2e)
		}
	}
	if len(e2e) < MinCorrelationN {
		return queueFinding{}
	}
	cut := Quantile(e2e, 0.75)
	type key struct{ v, up string }
	count := map[key]int{}
	share := map[key]float64{}
	seconds := map[string]int{}
	secondOf := map[string]*Cause{}
	var f queueFinding
	for _, c := range in {
		if !c.completed || !c.hasPhases || c.e2e < cut {
			continue
		}
		f.n++
		if c.queueAt == "" || c.upstream == nil || *c.upstream < SustainedBackpressure {
			continue
		}
		k := key{c.queueAt, c.queueUp}
		count[k]++
		share[k] += c.queueShare
		f.level = math.Max(f.level, *c.upstream)
		if c.second != nil {
			sk := string(c.second.Phase) + "\x00" + cmp.Or(c.second.VertexName, c.second.VertexID)
			seconds[sk]++
			if secondOf[sk] == nil {
				secondOf[sk] = c.second
			}
		}
	}
	var best key
	total := 0
	for k, n := range count {
		total += n
		if n > count[best] || n == count[best] && (k.v < best.v || k.v == best.v && k.up < best.up) {
			best = k
		}
	}
	if f.n == 0 || float64(total) < StorageAsyncShare*float64(f.n) {
		return queueFinding{}
	}
	f.ok, f.share = true, float64(total)/float64(f.n)
	f.vertex, f.up, f.causeShare = best.v, best.up, share[best]/float64(count[best])
	var bestSecond string
	for k, n := range seconds {
		if n > seconds[bestSecond] || n == seconds[bestSecond] && k < bestSecond {
			bestSecond = k
		}
	}
	if bestSecond != "" {
		f.second, f.secondCount = secondOf[bestSecond], seconds[bestSecond]
	}
	return f
}

// queueParts says where barriers queued and what came second.
func (f queueFinding) parts() []ReasonPart {
	out := []ReasonPart{part("queue_dominant", "share", pct(f.share), "vertex", f.vertex, "upstream", f.up,
		"cause_share", pct(f.causeShare), "level", pct(f.level))}
	if f.second != nil {
		out = append(out, part("queue_second", "phase", string(f.second.Phase),
			"vertex", cmp.Or(f.second.VertexName, f.second.VertexID, "—"), "n", fmt.Sprint(f.secondCount)))
	}
	return out
}

func strong(s Spearman) bool {
	return s.N >= MinCorrelationN && s.Rho != nil && s.P != nil && *s.P <= MaxCorrelationP && *s.Rho >= MinCorrelationRho
}

// correlate computes the correlations and the verdict with its reason; cfg
// is the job's configuration (nil when unknown), for what counts as fast.
func correlate(in []corrInput, cfg *model.JobConfig) Correlation {
	var bx, by, ax, ay, sx, sy []float64
	var bnE2E []int64
	type bn struct {
		e2e      int64
		phase    Phase
		upstream *float64
	}
	var withBN []bn
	for _, c := range in {
		if !c.completed {
			continue
		}
		// The backpressure evidence: upstream backpressure, or a fuller queue
		// into the vertex (SeaTunnel, where barriers wait in that queue behind
		// the records; Flink has no queue fill, so for Flink this is upstream).
		if v, ok := c.evidence(); ok {
			bx, by = append(bx, v), append(by, float64(c.e2e))
		}
		if c.upstream != nil {
			if c.hasPhases {
				ax, ay = append(ax, *c.upstream), append(ay, float64(c.alignDelay))
			}
		}
		sx, sy = append(sx, float64(c.size)), append(sy, float64(c.e2e))
		if c.bottleneck != "" {
			withBN = append(withBN, bn{c.e2e, c.bottleneck, c.upstream})
			bnE2E = append(bnE2E, c.e2e)
		}
	}
	cor := Correlation{
		Backpressure:          SpearmanRank(bx, by),
		AlignmentBackpressure: SpearmanRank(ax, ay),
		CheckpointedSize:      SpearmanRank(sx, sy),
	}
	asyncOK, barrierOK := false, false
	var barrierShare float64
	var cut int64 // the slowest quarter's bound, over completed checkpoints with a bottleneck
	if len(withBN) > 0 {
		cut = Quantile(bnE2E, 0.75)
		slow, async, barrier := 0, 0, 0
		for _, b := range withBN {
			if b.e2e >= cut {
				slow++
				if b.phase == PhaseAsync {
					async++
				}
				// Barriers queued behind backpressured data: the time before the snapshot.
				if (b.phase == PhaseStartDelay || b.phase == PhaseAlignment) && b.upstream != nil && *b.upstream >= SustainedBackpressure {
					barrier++
				}
			}
		}
		share := float64(async) / float64(slow)
		cor.AsyncShare = &share
		asyncOK = len(withBN) >= MinCorrelationN && share >= StorageAsyncShare
		barrierShare = float64(barrier) / float64(slow)
		barrierOK = len(withBN) >= MinCorrelationN && barrierShare >= StorageAsyncShare
	}

	bp, bpCode := cor.Backpressure, "bp_rises_e2e"
	if strong(cor.AlignmentBackpressure) && (!strong(bp) || *cor.AlignmentBackpressure.Rho > *bp.Rho) {
		bp, bpCode = cor.AlignmentBackpressure, "bp_rises_align"
	}
	bpStrong, sizeStrong := strong(bp), strong(cor.CheckpointedSize)
	sizeTooSmall := sizeStrong && !sizeEffectFits(sx, sy)
	if sizeTooSmall {
		sizeStrong = false
	}
	queue := queueDominant(in)
	var reason []ReasonPart
	waits := barrierWait(in)
	ct := contrastOf(in)
	healthy := healthyOf(in, cfg)
	switch {
	case bpStrong && (!sizeStrong || *bp.Rho >= *cor.CheckpointedSize.Rho):
		cor.Verdict, cor.Basis = VerdictBackpressure, BasisCorrelation
		reason = append(reason, part(bpCode, "stat", describe(bp)))
		if queue.ok {
			reason = append(reason, queue.parts()...)
		}
		if sizeStrong {
			reason = append(reason, part("size_also", "stat", describe(cor.CheckpointedSize)))
		}
	case queue.ok:
		// Barriers queue at one operator's input behind backpressured data in
		// most slow checkpoints: that operator is what to fix, whatever made
		// the last acknowledgement (a slow sync downstream is listed second).
		cor.Verdict, cor.Basis = VerdictBackpressure, BasisSustained
		reason = append(reason, queue.parts()...)
		if sizeTooSmall {
			reason = append(reason, part("size_too_small", "stat", describe(cor.CheckpointedSize), "spread", pct(relSpread(sx))))
		}
	case sizeStrong:
		cor.Verdict, cor.Basis = VerdictStateSize, BasisCorrelation
		reason = append(reason, part("size_rises", "stat", describe(cor.CheckpointedSize)))
		if bpStrong {
			reason = append(reason, part("bp_also", "stat", describe(bp)))
		}
	case barrierOK:
		// Backpressure that never lets up leaves nothing to correlate with, yet
		// every slow checkpoint waits for its barriers behind it.
		cor.Verdict, cor.Basis = VerdictBackpressure, BasisSustained
		reason = append(reason, part("sustained", "share", pct(barrierShare), "level", pct(SustainedBackpressure), "stat", describe(cor.Backpressure)))
	case asyncOK:
		cor.Verdict, cor.Basis = VerdictStorage, BasisBottleneck
		reason = append(reason, part("storage", "share", pct(*cor.AsyncShare), "stat", describe(cor.CheckpointedSize)))
		if sizeTooSmall {
			reason = append(reason, part("size_too_small", "stat", describe(cor.CheckpointedSize), "spread", pct(relSpread(sx))))
		}
	case waits != nil:
		// Too few checkpoints to correlate, yet the slow ones say where their
		// time went: barriers queued behind buffered data.
		cor.Verdict, cor.Basis = VerdictBackpressure, BasisSlowCheckpoints
		reason = append(reason, waits...)
		if ct.decided() {
			reason = append(reason, ct.parts()...) // it does confirm it
		} else {
			reason = append(reason, part("cannot_confirm"))
		}
		reason = append(reason, weakness(varBackpressure, cor.Backpressure, bx)...)
	case ct.decided():
		// No phases say where the time went, and sparse samples starve a
		// rank correlation, but the slow checkpoints were clearly and far
		// more backpressured than the others.
		cor.Verdict, cor.Basis = VerdictBackpressure, BasisContrast
		reason = append(reason, ct.parts()...)
		reason = append(reason, weakness(varBackpressure, cor.Backpressure, bx)...)
	case healthy != nil:
		// No rule explains the durations, and nothing is slow or failing:
		// there is no problem to explain, which is an answer.
		cor.Verdict = VerdictHealthy
		reason = healthy
	case len(sy) == 0:
		cor.Verdict = VerdictInconclusive
		reason = append(reason, part("none_completed", "n", fmt.Sprint(len(in))))
	default:
		cor.Verdict = VerdictInconclusive
		if d, ok := dominantBottleneck(in, len(withBN), cut); ok {
			reason = append(reason, d)
		}
		reason = append(reason, ct.parts()...) // what the contrast lacks, without phases
		reason = append(reason, weakness(varBackpressure, cor.Backpressure, bx)...)
		if sizeTooSmall {
			reason = append(reason, part("size_too_small", "stat", describe(cor.CheckpointedSize), "spread", pct(relSpread(sx))))
		} else {
			reason = append(reason, weakness(varSize, cor.CheckpointedSize, sx)...)
		}
		switch {
		case cor.AsyncShare == nil:
			reason = append(reason, part("async_unknown"))
		case len(withBN) < MinCorrelationN:
			reason = append(reason, part("async_few", "n", fmt.Sprint(len(withBN)), "need", fmt.Sprint(MinCorrelationN)))
		default:
			reason = append(reason, part("async_low", "share", pct(*cor.AsyncShare), "need", pct(StorageAsyncShare)))
		}
	}
	if healthy == nil {
		reason = append(reason, slowestEvidence(in)...)
	}
	cor.ReasonParts = reason
	cor.Reason = renderReason(reason)
	return cor
}

// pct is a share (0..1) as a whole percentage.
func pct(share float64) string { return fmt.Sprintf("%.0f", 100*share) }

// barrierWait explains, when at least half of the checkpoints judged slow
// spent their time waiting for barriers — start_delay or alignment as the
// bottleneck, or without subtask stats a sampled alignment gauge reaching
// BarrierAlignmentShare of the duration and above every other checkpoint's —
// and no measured backpressure in their windows says otherwise, why that is
// backpressure. It is "" when the rule does not apply. In an aligned
// checkpoint barriers travel with the data: they wait where buffers are full.
func barrierWait(in []corrInput) []ReasonPart {
	slow, waited := 0, 0
	var ids []string
	var gauge []ReasonPart
	measured, unmeasured := 0.0, 0
	for i, c := range in {
		if !c.completed || !c.slow {
			continue
		}
		slow++
		if c.unaligned {
			continue
		}
		barrier := c.bottleneck == PhaseStartDelay || c.bottleneck == PhaseAlignment
		if !barrier && c.bottleneck == "" && !c.hasPhases && c.sampledAlig != nil && *c.sampledAlig >= BarrierAlignmentShare*float64(c.e2e) {
			barrier = true
			for j, o := range in {
				if j != i && !o.slow && o.sampledAlig != nil && *o.sampledAlig >= *c.sampledAlig {
					barrier = false
				}
			}
			if barrier {
				gauge = append(gauge, part("barrier_gauge", "ms", fmt.Sprintf("%.0f", *c.sampledAlig), "id", fmt.Sprint(c.id), "e2e", fmt.Sprint(c.e2e)))
			}
		}
		if !barrier {
			continue
		}
		if c.upstream != nil && c.samples > 0 {
			if *c.upstream < QuietBackpressure {
				return nil // measured, and quiet: the barriers waited for something else
			}
			measured = math.Max(measured, *c.upstream)
		} else {
			unmeasured++
		}
		waited++
		ids = append(ids, fmt.Sprint(c.id))
	}
	if slow == 0 || waited == 0 || 2*waited < slow {
		return nil
	}
	var out []ReasonPart
	if slow == 1 {
		out = append(out, part("barrier_one", "id", ids[0]))
	} else {
		out = append(out, part("barrier_many", "waited", fmt.Sprint(waited), "slow", fmt.Sprint(slow), "ids", strings.Join(ids, ", ")))
	}
	out = append(out, gauge...)
	out = append(out, part("barrier_mark"))
	switch {
	case unmeasured == waited:
		out = append(out, part("barrier_no_gauge"))
	case measured > 0:
		out = append(out, part("barrier_measured", "level", trimFloat(measured)))
	}
	return out
}

// dominantBottleneck names the bottleneck (phase and vertex) shared by at
// least half of the slowest quarter of completed checkpoints, when no verdict
// explains it: the answer to "where", when "why" is none of the verdicts
// (a slow synchronous snapshot, a slow acknowledgement, finalisation).
// withBN counts the completed checkpoints with a bottleneck and cut is the
// bound of their slowest quarter, as correlate computed them.
func dominantBottleneck(in []corrInput, withBN int, cut int64) (ReasonPart, bool) {
	if withBN < MinCorrelationN {
		return ReasonPart{}, false
	}
	type where struct {
		phase  Phase
		vertex string
	}
	count := map[where]int{}
	slow := 0
	var best where
	for _, c := range in {
		if !c.completed || c.bottleneck == "" || c.e2e < cut {
			continue
		}
		slow++
		w := where{c.bottleneck, c.bnVertex}
		count[w]++
		if n := count[w]; n > count[best] || n == count[best] && (w.phase < best.phase || w.phase == best.phase && w.vertex < best.vertex) {
			best = w
		}
	}
	if slow == 0 || 2*count[best] < slow {
		return ReasonPart{}, false
	}
	share := pct(float64(count[best]) / float64(slow))
	if best.vertex != "" {
		return part("dominant_vertex", "share", share, "phase", string(best.phase), "vertex", best.vertex), true
	}
	return part("dominant", "share", share, "phase", string(best.phase)), true
}

func describe(s Spearman) string {
	out := "ρ=" + fmtFloat(s.Rho, 2) + ", n=" + fmt.Sprint(s.N)
	if s.P != nil {
		if *s.P < 0.001 {
			out += ", p<0.001"
		} else {
			out += ", p=" + fmtFloat(s.P, 3)
		}
	}
	return out
}

func fmtFloat(v *float64, prec int) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, *v)
}

// variable is a correlation's explanatory variable: the prefix of its reason codes.
type variable string

const (
	varBackpressure variable = "bp"
	varSize         variable = "size"
)

// weakness says why one correlation does not support a verdict.
func weakness(v variable, s Spearman, xs []float64) []ReasonPart {
	code := func(c string) string { return string(v) + "_" + c }
	need := fmt.Sprint(MinCorrelationN)
	switch {
	case s.N == 0:
		return []ReasonPart{part(code("none"), "need", need)}
	case s.N < MinCorrelationN:
		return append([]ReasonPart{part(code("few"), "n", fmt.Sprint(s.N), "need", need)}, constantNote(v, xs)...)
	case s.Rho == nil:
		return append([]ReasonPart{part(code("constant"), "n", fmt.Sprint(s.N))}, constantNote(v, xs)...)
	case *s.Rho < 0 && s.P != nil && *s.P <= MaxCorrelationP:
		return []ReasonPart{part(code("negative"), "stat", describe(s))}
	default:
		return []ReasonPart{part(code("weak"), "stat", describe(s), "rho", fmt.Sprintf("%.1f", MinCorrelationRho), "p", fmt.Sprintf("%.2f", MaxCorrelationP))}
	}
}

// constantNote adds what a constant variable read, which is often the real story.
func constantNote(v variable, xs []float64) []ReasonPart {
	if len(xs) < 2 {
		return nil
	}
	for _, x := range xs[1:] {
		if x != xs[0] {
			return nil
		}
	}
	return []ReasonPart{part(string(v)+"_constant_value", "value", trimFloat(xs[0]))}
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// slowestEvidence describes the slowest completed checkpoint that was judged
// slow, with what the samples in its window say, so a reader can link it to
// a cause even when the statistics cannot.
func slowestEvidence(in []corrInput) []ReasonPart {
	best := -1
	for i, c := range in {
		if c.completed && c.medianE2E > 0 && float64(c.e2e) > c.medianE2E && (best < 0 || c.e2e > in[best].e2e) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	c := in[best]
	parts := []ReasonPart{part("slowest", "id", fmt.Sprint(c.id), "ms", fmt.Sprint(c.e2e),
		"x", fmt.Sprintf("%.0f", float64(c.e2e)/c.medianE2E), "median", trimFloat(c.medianE2E))}
	if c.bottleneck != "" {
		parts = append(parts, part("slowest_bottleneck", "phase", string(c.bottleneck)))
		if c.queueAt != "" {
			// Where the time went first: the origin, before the phase of the last ack.
			parts = append(parts, part("slowest_origin", "vertex", c.queueAt, "upstream", c.queueUp, "share", pct(c.queueShare)))
		}
	} else {
		parts = append(parts, part("slowest_no_phases"))
	}
	switch {
	case c.maxBP != nil:
		parts = append(parts, part("slowest_bp", "level", trimFloat(*c.maxBP), "n", fmt.Sprint(c.samples)))
	case c.fillN == 0:
		parts = append(parts, part("slowest_no_bp"))
	}
	if c.fillN > 0 {
		// SeaTunnel: the queue its barrier waited in, behind the records.
		parts = append(parts, part("slowest_queue", "level", trimFloat(c.fill), "n", fmt.Sprint(c.fillN)))
	}
	if c.busy != nil {
		parts = append(parts, part("slowest_busy", "level", trimFloat(*c.busy)))
	}
	if c.sampledAlig != nil {
		others := 0.0
		for i, o := range in {
			if i != best && o.sampledAlig != nil {
				others = math.Max(others, *o.sampledAlig)
			}
		}
		parts = append(parts, part("slowest_gauge", "ms", fmt.Sprintf("%.0f", *c.sampledAlig), "others", fmt.Sprintf("%.0f", others)))
		if *c.sampledAlig >= 0.25*float64(c.e2e) && *c.sampledAlig > others {
			parts = append(parts, part("slowest_gauge_mark"))
		}
	}
	return parts
}
