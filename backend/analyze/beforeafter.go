package analyze

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"checkpoint-explorer/backend/model"
)

// The before/after comparison (docs/phases.md, "Changes and their effect").
const (
	// EffectMinPerSide is how many completed checkpoints a side needs for
	// its percentiles, unless the options say otherwise.
	EffectMinPerSide = 5
	// EffectResamples is how many bootstrap resamples give an interval.
	EffectResamples = 2000
	// EffectConfidence is the intervals' coverage.
	EffectConfidence = 0.95
	// EffectShareShift is how far a phase's share of the critical path must
	// move for the finding to name it.
	EffectShareShift = 0.10
)

// effectSeed seeds the bootstrap: the same checkpoints give the same
// intervals every time.
var effectSeed = [2]uint64{0x636865636b706f69, 0x6e74206566666563}

// BeforeAfterOptions bound the sides of BeforeAfter.
type BeforeAfterOptions struct {
	// WindowMs bounds each side to WindowMs of trigger times from the
	// moment; 0 bounds them only by the neighbouring changes.
	WindowMs int64
	// Changes are the job's changes (DetectChanges). The nearest one before
	// the moment and the nearest after it bound the sides; those at the
	// moment are what the finding says happened.
	Changes []model.Change
	// MinPerSide is how many completed checkpoints each side needs (0:
	// EffectMinPerSide).
	MinPerSide int
}

// Effect is the checkpoints before a moment against those after it.
type Effect struct {
	AtMs   int64      `json:"at_ms"`
	Before EffectSide `json:"before"`
	After  EffectSide `json:"after"`
	// EndToEndP50 and EndToEndP90 are the end-to-end percentiles' shift.
	EndToEndP50 Shift `json:"end_to_end_p50_ms"`
	EndToEndP90 Shift `json:"end_to_end_p90_ms"`
	// Finding is the sentence in English; FindingParts its clauses, for the
	// UI to say in the user's language (as Correlation.ReasonParts).
	Finding      string       `json:"finding"`
	FindingParts []ReasonPart `json:"finding_parts"`
}

// Shift is one end-to-end percentile before and after (ms), its relative
// change after/before − 1 and the 95 % bootstrap interval of that change
// (fractions). A side with too few completed checkpoints has no percentile,
// and then there is no change; each absent value is null.
type Shift struct {
	Before *int64   `json:"before"`
	After  *int64   `json:"after"`
	Change *float64 `json:"change"`
	Low    *float64 `json:"low"`
	High   *float64 `json:"high"`
}

// measured reports whether the shift's interval excludes zero.
func (s Shift) measured() bool {
	return s.Low != nil && s.High != nil && (*s.Low > 0 || *s.High < 0)
}

// Side bounds (EffectSide.Bound).
const (
	BoundChange = "change" // a neighbouring change
	BoundWindow = "window" // the chosen window
)

// EffectSide is one side's checkpoints (savepoints aside), triggered in
// [FromMs, ToMs); 0 leaves that end open.
type EffectSide struct {
	FromMs int64 `json:"from_ms"`
	ToMs   int64 `json:"to_ms"`
	// Bound is what cut the side away from the moment: BoundChange,
	// BoundWindow, or "" (the data's end).
	Bound     string `json:"bound,omitempty"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	// FailureRate is Failed over Completed + Failed; null with neither.
	FailureRate *float64 `json:"failure_rate"`
	// Failures group the failed ones by signature, most frequent first.
	Failures []FailureCount `json:"failures"`
	// PhaseShares are each phase's mean share of the critical path (and
	// finalize) over the completed checkpoints that have phases (WithPhases).
	PhaseShares []PhaseShare `json:"phase_shares"`
	WithPhases  int          `json:"with_phases"`
	// QueuedAt is where barriers queued most often (the bottleneck's origin).
	QueuedAt *QueuedAt `json:"queued_at,omitempty"`
	// CheckpointedSizeP50 and UpstreamBackpressureP50 are medians over the
	// completed checkpoints (backpressure: those with samples); null without.
	CheckpointedSizeP50     *int64   `json:"checkpointed_size_p50_bytes"`
	UpstreamBackpressureP50 *float64 `json:"upstream_backpressure_p50"`
}

// FailureCount is how many of a side's failures share a signature.
type FailureCount struct {
	Signature string `json:"signature"`
	Example   string `json:"example"`
	Count     int    `json:"count"`
}

// PhaseShare is a phase's mean share (0..1) of a checkpoint's critical path.
type PhaseShare struct {
	Phase Phase   `json:"phase"`
	Share float64 `json:"share"`
}

// QueuedAt is where barriers queued, and in how many checkpoints.
type QueuedAt struct {
	Origin
	Checkpoints int `json:"checkpoints"`
}

// effectSide gathers one side's values.
type effectSide struct {
	EffectSide
	e2e, sizes []int64
	bp         []float64
	shares     [len(allPhases)]float64
	queued     map[string]*QueuedAt
}

// BeforeAfter compares the checkpoints triggered before the moment at with
// those triggered from it on. cas are the job's analysed checkpoints
// (JobAnalysis.Checkpoints, or those a streaming analysis emitted) in any
// order; running ones and savepoints are left out. Each side stops at the
// nearest change of opts.Changes and at opts.WindowMs. The percentiles are
// nearest-rank; their intervals are percentile bootstraps of
// EffectResamples resamples drawn from a fixed seed.
func BeforeAfter(cas []CheckpointAnalysis, at int64, opts BeforeAfterOptions) Effect {
	minN := cmp.Or(opts.MinPerSide, EffectMinPerSide)
	var before, after effectSide
	before.ToMs, after.FromMs = at, at
	if opts.WindowMs > 0 {
		before.FromMs, before.Bound = at-opts.WindowMs, BoundWindow
		after.ToMs, after.Bound = at+opts.WindowMs, BoundWindow
	}
	for _, c := range opts.Changes {
		if c.TimeMs < at && c.TimeMs >= before.FromMs {
			before.FromMs, before.Bound = c.TimeMs, BoundChange
		}
		if c.TimeMs > at && (after.ToMs == 0 || c.TimeMs <= after.ToMs) {
			after.ToMs, after.Bound = c.TimeMs, BoundChange
		}
	}
	for i := range cas {
		c := &cas[i]
		if !c.finalSeen() {
			continue
		}
		for _, s := range []*effectSide{&before, &after} {
			if c.TriggerMs >= s.FromMs && (s.ToMs == 0 || c.TriggerMs < s.ToMs) {
				s.add(c)
			}
		}
	}
	e := Effect{AtMs: at, Before: before.finish(), After: after.finish()}
	rng := rand.New(rand.NewPCG(effectSeed[0], effectSeed[1]))
	e.EndToEndP50 = shiftOf(before.e2e, after.e2e, 0.5, minN, rng)
	e.EndToEndP90 = shiftOf(before.e2e, after.e2e, 0.9, minN, rng)
	e.FindingParts = finding(&e, changeAt(opts.Changes, at), minN)
	e.Finding = renderReason(e.FindingParts)
	return e
}

func (s *effectSide) add(c *CheckpointAnalysis) {
	if c.Status == model.StatusFailed {
		s.Failed++
		if f := c.Failure; f != nil {
			i := slices.IndexFunc(s.Failures, func(x FailureCount) bool { return x.Signature == f.Signature })
			if i < 0 {
				s.Failures = append(s.Failures, FailureCount{Signature: f.Signature, Example: f.Message})
				i = len(s.Failures) - 1
			}
			s.Failures[i].Count++
		}
		return
	}
	s.Completed++
	s.e2e = append(s.e2e, c.DurationMs)
	s.sizes = append(s.sizes, c.CheckpointedSize)
	if p := c.Backpressure; p != nil && p.Upstream != nil {
		s.bp = append(s.bp, *p.Upstream)
	}
	var total int64
	for _, ph := range allPhases {
		if v, ok := c.Phases.Get(ph); ok {
			total += v
		}
	}
	if total > 0 {
		s.WithPhases++
		for i, ph := range allPhases {
			if v, ok := c.Phases.Get(ph); ok {
				s.shares[i] += float64(v) / float64(total)
			}
		}
	}
	if b := c.Bottleneck; b != nil && b.Origin != nil {
		if s.queued == nil {
			s.queued = map[string]*QueuedAt{}
		}
		q := s.queued[b.Origin.VertexID]
		if q == nil {
			q = &QueuedAt{Origin: *b.Origin}
			s.queued[b.Origin.VertexID] = q
		}
		q.Checkpoints++
	}
}

// finish computes the side's summary figures.
func (s *effectSide) finish() EffectSide {
	out := s.EffectSide
	if n := out.Completed + out.Failed; n > 0 {
		out.FailureRate = f64p(fraction3(float64(out.Failed) / float64(n)))
	}
	if out.Failures == nil {
		out.Failures = []FailureCount{}
	}
	slices.SortStableFunc(out.Failures, func(a, b FailureCount) int { return cmp.Compare(b.Count, a.Count) })
	out.PhaseShares = []PhaseShare{}
	for i, ph := range allPhases {
		if s.WithPhases > 0 && s.shares[i] > 0 {
			out.PhaseShares = append(out.PhaseShares, PhaseShare{Phase: ph, Share: fraction3(s.shares[i] / float64(s.WithPhases))})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.queued)) {
		if q := s.queued[id]; out.QueuedAt == nil || q.Checkpoints > out.QueuedAt.Checkpoints {
			out.QueuedAt = q
		}
	}
	slices.Sort(s.e2e)
	if len(s.sizes) > 0 {
		slices.Sort(s.sizes)
		out.CheckpointedSizeP50 = i64(quantileSorted(s.sizes, 0.5))
	}
	if len(s.bp) > 0 {
		slices.Sort(s.bp)
		out.UpstreamBackpressureP50 = f64p(fraction3(s.bp[nearestRank(len(s.bp), 0.5)]))
	}
	return out
}

// share is the side's mean share of phase ph (0 where it has none).
func (s *EffectSide) share(ph Phase) float64 {
	for _, p := range s.PhaseShares {
		if p.Phase == ph {
			return p.Share
		}
	}
	return 0
}

func f64p(v float64) *float64 { return &v }

// fraction3 rounds a fraction to 3 decimals, half away from zero (round3
// suits only non-negative values).
func fraction3(x float64) float64 { return math.Round(x*1000) / 1000 }

// shiftOf measures quantile q of two sorted samples and the relative
// change's percentile bootstrap interval, when each has at least minN.
func shiftOf(before, after []int64, q float64, minN int, rng *rand.Rand) Shift {
	var s Shift
	if len(before) < minN || len(after) < minN {
		return s
	}
	b, a := quantileSorted(before, q), quantileSorted(after, q)
	s.Before, s.After = &b, &a
	if b <= 0 {
		return s // no relative change from nothing
	}
	s.Change = f64p(fraction3(float64(a)/float64(b) - 1))
	changes := make([]float64, EffectResamples)
	for i := range changes {
		rb := resampledQuantile(before, q, rng)
		ra := resampledQuantile(after, q, rng)
		changes[i] = math.Inf(1)
		if rb > 0 {
			changes[i] = float64(ra)/float64(rb) - 1
		}
	}
	slices.Sort(changes)
	tail := (1 - EffectConfidence) / 2
	low, high := changes[nearestRank(len(changes), tail)], changes[nearestRank(len(changes), 1-tail)]
	if !math.IsInf(low, 0) && !math.IsInf(high, 0) {
		s.Low, s.High = f64p(fraction3(low)), f64p(fraction3(high))
	}
	return s
}

// resampledQuantile is quantile q of one bootstrap resample of the sorted
// values s (n draws with replacement). The resample's k-th smallest value is
// s[⌊n·U₍ₖ₎⌋], U₍ₖ₎ the k-th smallest of n uniforms on [0, 1), which is
// Beta(k, n+1−k): drawn directly, a resample costs O(1) instead of O(n).
func resampledQuantile(s []int64, q float64, rng *rand.Rand) int64 {
	n := len(s)
	k := nearestRank(n, q) + 1
	x, y := gammaDraw(rng, float64(k)), gammaDraw(rng, float64(n+1-k))
	return s[min(n-1, int(float64(n)*x/(x+y)))]
}

// gammaDraw draws from Gamma(a, 1) for a ≥ 1 (Marsaglia and Tsang, 2000).
func gammaDraw(rng *rand.Rand, a float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// changeAt is the change at the moment the finding names: a config change
// before a rescale, a resubmission, a restart or a note; nil for none.
func changeAt(changes []model.Change, at int64) *model.Change {
	var best *model.Change
	rank := map[model.ChangeKind]int{model.ChangeConfig: 0, model.ChangeRescale: 1, model.ChangeResubmit: 2, model.ChangeRestart: 3, model.ChangeNote: 4}
	for i := range changes {
		if c := &changes[i]; c.TimeMs == at && (best == nil || rank[c.Kind] < rank[best.Kind]) {
			best = c
		}
	}
	return best
}

// effectTemplates are the English of a before/after's finding (with
// reasonTemplates, checked against the UI's languages).
var effectTemplates = map[string]string{
	"effect_after_config":   "after {{key}} went {{old}} → {{new}}",
	"effect_after_configs":  "after {{key}} went {{old}} → {{new}} and {{n}} other setting(s) changed",
	"effect_after_rescale":  "after {{vertex}} was rescaled from {{from}} to {{to}} parallel subtasks",
	"effect_after_restart":  "after the job restarted",
	"effect_after_resubmit": "after the job was resubmitted as a new run",
	"effect_after_note":     "after the note “{{text}}”",
	"effect_fell":           "end-to-end {{stat}} fell from {{before}} to {{after}} ({{change}}%, {{conf}}% interval {{low}}…{{high}}%)",
	"effect_rose":           "end-to-end {{stat}} rose from {{before}} to {{after}} ({{change}}%, {{conf}}% interval {{low}}…{{high}}%)",
	"effect_none":           "no measurable change: end-to-end p50 went from {{p50_before}} to {{p50_after}} and p90 from {{p90_before}} to {{p90_after}}, and neither {{conf}}% interval excludes zero",
	"effect_few":            "too few checkpoints to compare: {{before}} completed before and {{after}} after (need {{need}} on each side)",
	"effect_share_fell":     "{{phase}}'s share of the critical path fell from {{before}}% to {{after}}%",
	"effect_share_rose":     "{{phase}}'s share of the critical path rose from {{before}}% to {{after}}%",
}

func init() { maps.Copy(reasonTemplates, effectTemplates) }

// finding says the effect in clauses: what changed, what the end-to-end
// percentiles did (p90 if its interval excludes zero, else p50, else no
// measurable change, or too few checkpoints), and the phase whose share of
// the critical path moved most, when it moved by EffectShareShift or more.
func finding(e *Effect, c *model.Change, minN int) []ReasonPart {
	var parts []ReasonPart
	if c != nil {
		parts = append(parts, changeClause(c))
	}
	conf := pct(EffectConfidence)
	switch {
	case e.Before.Completed < minN || e.After.Completed < minN:
		return append(parts, part("effect_few", "before", strconv.Itoa(e.Before.Completed),
			"after", strconv.Itoa(e.After.Completed), "need", strconv.Itoa(minN)))
	case e.EndToEndP90.measured() || e.EndToEndP50.measured():
		stat, s := "p90", e.EndToEndP90
		if !s.measured() {
			stat, s = "p50", e.EndToEndP50
		}
		code := "effect_rose"
		if *s.High < 0 {
			code = "effect_fell"
		}
		parts = append(parts, part(code, "stat", stat, "before", fmtLatency(*s.Before), "after", fmtLatency(*s.After),
			"change", signedPct(*s.Change), "conf", conf, "low", signedPct(*s.Low), "high", signedPct(*s.High)))
	default:
		p50, p90 := e.EndToEndP50, e.EndToEndP90
		parts = append(parts, part("effect_none", "p50_before", fmtLatency(*p50.Before), "p50_after", fmtLatency(*p50.After),
			"p90_before", fmtLatency(*p90.Before), "p90_after", fmtLatency(*p90.After), "conf", conf))
	}
	if p, ok := shareClause(&e.Before, &e.After, minN); ok {
		parts = append(parts, p)
	}
	return parts
}

// changeClause says what changed at the moment.
func changeClause(c *model.Change) ReasonPart {
	d := c.Detail
	switch c.Kind {
	case model.ChangeConfig:
		k := d.Keys[0]
		if len(d.Keys) > 1 {
			return part("effect_after_configs", "key", k.Key, "old", unsetAsDash(k.Old), "new", unsetAsDash(k.New),
				"n", strconv.Itoa(len(d.Keys)-1))
		}
		return part("effect_after_config", "key", k.Key, "old", unsetAsDash(k.Old), "new", unsetAsDash(k.New))
	case model.ChangeRescale:
		return part("effect_after_rescale", "vertex", cmp.Or(d.VertexName, d.VertexID), "from", strconv.Itoa(d.From),
			"to", strconv.Itoa(d.To))
	case model.ChangeRestart:
		return part("effect_after_restart")
	case model.ChangeResubmit:
		return part("effect_after_resubmit")
	}
	return part("effect_after_note", "text", d.Text)
}

func unsetAsDash(v string) string { return cmp.Or(v, "—") }

// shareClause names the phase whose share moved most, if it moved enough
// and both sides have phases for minN checkpoints.
func shareClause(before, after *EffectSide, minN int) (ReasonPart, bool) {
	if before.WithPhases < minN || after.WithPhases < minN {
		return ReasonPart{}, false
	}
	var best Phase
	var b0, a0 float64
	for _, ph := range allPhases {
		b, a := before.share(ph), after.share(ph)
		if math.Abs(a-b) > math.Abs(a0-b0) {
			best, b0, a0 = ph, b, a
		}
	}
	if best == "" || math.Abs(a0-b0) < EffectShareShift {
		return ReasonPart{}, false
	}
	code := "effect_share_rose"
	if a0 < b0 {
		code = "effect_share_fell"
	}
	return part(code, "phase", string(best), "before", pct(b0), "after", pct(a0)), true
}

// fmtLatency says a duration as the finding does: "740 ms", "1.9 s", "2.5 min".
func fmtLatency(ms int64) string {
	one := func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return one(float64(ms)/1000) + " s"
	}
	return one(float64(ms)/60_000) + " min"
}

// signedPct says a fraction as a signed whole percentage: "−63", "+12", "0".
func signedPct(f float64) string {
	p := math.Round(100 * f)
	switch {
	case p < 0:
		return "−" + strconv.FormatFloat(-p, 'f', 0, 64)
	case p > 0:
		return "+" + strconv.FormatFloat(p, 'f', 0, 64)
	}
	return "0"
}
