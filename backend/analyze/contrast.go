package analyze

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The contrast (docs/phases.md, "Verdict"): where checkpoints have no
// per-subtask phases, the slow ones are set against the others on the
// backpressure evidence each checkpoint has. A rank correlation over the
// whole history needs many well-sampled checkpoints; a difference between
// two groups is visible with a handful of each, and its interval says how
// sure it is.
const (
	// MinContrastN is how many slow checkpoints, and how many others, need
	// backpressure evidence for the contrast.
	MinContrastN = 3
	// ContrastCoverage is the share of the slow checkpoints that needs
	// evidence: the slow checkpoints without a sample must not be the
	// ones that decide.
	ContrastCoverage = 0.5
	// MinContrastShift is the smallest difference (0..1, Hodges–Lehmann,
	// slow minus others) that puts slow checkpoints down to backpressure;
	// the slow group's median must also reach SustainedBackpressure.
	MinContrastShift = 0.3
	// ContrastConfidence is the two-sided confidence of the difference's
	// interval, which must exclude 0.
	ContrastConfidence = 0.95
	// exactMannWhitney bounds m·n for the exact null distribution of
	// Mann–Whitney's U; beyond it the normal approximation is close.
	exactMannWhitney = 10_000
	// maxListedIDs bounds the checkpoint ids a reason lists.
	maxListedIDs = 20
)

// evidence is what a checkpoint's window says of backpressure: the upstream
// backpressure ratio or, higher, the fill of a queue (SeaTunnel's
// queueFillRatio: a full queue blocks the writer, and in Zeta the barrier
// waits in that queue behind the records).
func (c *corrInput) evidence() (float64, bool) {
	v, ok := 0.0, false
	if c.upstream != nil {
		v, ok = *c.upstream, true
	}
	if c.fillN > 0 {
		v, ok = math.Max(v, c.fill), true
	}
	return v, ok
}

// contrast is the slow checkpoints set against the others.
type contrast struct {
	// run: the slow checkpoints have no phases, so the contrast applies.
	run bool
	// quarter: none was judged slow, and the slowest quarter (end-to-end
	// time ≥ cut) stands for the slow ones.
	quarter bool
	cut     int64
	// slow and unsampled are the slow checkpoints with evidence and those without.
	slow, unsampled []int64
	// others and othersTotal count the other completed checkpoints with
	// evidence and in all.
	others, othersTotal int
	// samples and otherSamples count the samples behind the evidence;
	// nearest the slow checkpoints read from the last sample before them.
	samples, otherSamples, nearest int
	// slowOK: enough slow checkpoints have evidence (MinContrastN and
	// ContrastCoverage); enough: the others too, and the statistics below are set.
	slowOK, enough bool
	// slowMed and otherMed are the groups' medians; shift is the
	// Hodges–Lehmann difference, lo and hi its interval (per mille).
	slowMed, otherMed, shift float64
	lo, hi                   int32
	interval                 bool // m and n allow an interval at ContrastConfidence
}

// contrastOf sets the completed checkpoints judged slow (the slowest
// quarter when none was) against the other completed ones, when none of
// the slow ones has phases: where they have, the phases say where the
// time went, which a backpressure level cannot.
func contrastOf(in []corrInput) contrast {
	var ct contrast
	var e2e []int64
	judged := 0
	for i := range in {
		if c := &in[i]; c.completed {
			e2e = append(e2e, c.e2e)
			if c.slow {
				judged++
			}
		}
	}
	if len(e2e) == 0 {
		return ct
	}
	ct.quarter = judged == 0
	if ct.quarter {
		ct.cut = Quantile(e2e, 0.75)
	}
	isSlow := func(c *corrInput) bool { return c.slow || ct.quarter && c.e2e >= ct.cut }
	for i := range in {
		if c := &in[i]; c.completed && isSlow(c) && c.hasPhases {
			return contrast{}
		}
	}
	ct.run = true
	var s, o []int32
	for i := range in {
		c := &in[i]
		if !c.completed {
			continue
		}
		v, ok := c.evidence()
		switch {
		case isSlow(c) && ok:
			s = append(s, perMille(v))
			ct.slow = append(ct.slow, c.id)
			ct.samples += c.samples + c.fillN
			if c.nearest {
				ct.nearest++
			}
		case isSlow(c):
			ct.unsampled = append(ct.unsampled, c.id)
		default:
			ct.othersTotal++
			if ok {
				o = append(o, perMille(v))
				ct.otherSamples += c.samples + c.fillN
			}
		}
	}
	ct.others = len(o)
	ct.slowOK = len(s) >= MinContrastN && float64(len(s)) >= ContrastCoverage*float64(len(s)+len(ct.unsampled))
	if !ct.slowOK || len(o) < MinContrastN {
		return ct
	}
	ct.enough = true
	slices.Sort(s)
	slices.Sort(o)
	ct.slowMed, ct.otherMed = medianSorted(s), medianSorted(o)
	d := pairDiffs{s, o}
	ct.shift = d.median()
	if k := mannWhitneyK(len(s), len(o), 1-ContrastConfidence); k > 0 {
		ct.interval = true
		ct.lo, ct.hi = d.kth(k), d.kth(d.n()+1-k)
	}
	return ct
}

// decided reports whether the slow checkpoints' backpressure is clearly
// and largely higher than the others': the interval excludes 0, the
// difference reaches MinContrastShift and the slow median SustainedBackpressure.
func (ct *contrast) decided() bool {
	return ct.enough && ct.interval && ct.lo > 0 &&
		ct.shift >= 1000*MinContrastShift && ct.slowMed >= 1000*SustainedBackpressure
}

// parts says what the contrast found: the evidence for the verdict when
// decided, else what is missing or why the groups do not differ enough.
func (ct *contrast) parts() []ReasonPart {
	if !ct.run {
		return nil
	}
	var out []ReasonPart
	slowTotal := len(ct.slow) + len(ct.unsampled)
	if ct.quarter {
		out = append(out, part("contrast_quarter", "n", fmt.Sprint(slowTotal), "ms", fmt.Sprint(ct.cut)))
	}
	need := fmt.Sprint(MinContrastN)
	switch {
	case slowTotal < MinContrastN:
		return append(out, part("contrast_slow_few", "slow", fmt.Sprint(slowTotal), "need", need))
	case !ct.slowOK:
		return append(out, part("contrast_slow_unsampled", "n", fmt.Sprint(len(ct.unsampled)), "slow", fmt.Sprint(slowTotal),
			"ids", listIDs(ct.unsampled), "need", need, "share", pct(ContrastCoverage)))
	case !ct.enough:
		return append(out, part("contrast_others_few", "n", fmt.Sprint(ct.others), "total", fmt.Sprint(ct.othersTotal), "need", need))
	case !ct.interval:
		return append(out, part("contrast_no_interval", "n", fmt.Sprint(len(ct.slow)), "m", fmt.Sprint(ct.others),
			"conf", pct(ContrastConfidence)))
	}
	stat := []string{"slow", ratio(ct.slowMed), "others", ratio(ct.otherMed), "diff", ratio(ct.shift),
		"lo", ratio(float64(ct.lo)), "hi", ratio(float64(ct.hi)), "conf", pct(ContrastConfidence),
		"n", fmt.Sprint(len(ct.slow)), "m", fmt.Sprint(ct.others)}
	switch {
	case ct.decided():
		out = append(out, part("contrast_bp", append(stat, "ids", listIDs(ct.slow),
			"samples", fmt.Sprint(ct.samples), "other_samples", fmt.Sprint(ct.otherSamples))...))
		if len(ct.unsampled) > 0 {
			out = append(out, part("contrast_unsampled", "n", fmt.Sprint(len(ct.unsampled)), "slow", fmt.Sprint(slowTotal),
				"ids", listIDs(ct.unsampled)))
		}
		if ct.nearest > 0 {
			out = append(out, part("contrast_nearest", "n", fmt.Sprint(ct.nearest)))
		}
	case ct.hi < 0:
		out = append(out, part("contrast_lower", stat...))
	case ct.lo <= 0:
		out = append(out, part("contrast_overlap", stat...))
	default:
		out = append(out, part("contrast_small", append(stat, "need_diff", ratio(1000*MinContrastShift),
			"need_level", ratio(1000*SustainedBackpressure))...))
	}
	return out
}

// perMille is a 0..1 ratio in thousandths: the evidence's resolution
// (Flink's gauge is in ms per second), so differences are exact.
func perMille(v float64) int32 { return int32(math.Round(1000 * math.Max(0, math.Min(1, v)))) }

// ratio says a per-mille value as a 0..1 ratio.
func ratio(milli float64) string { return strconv.FormatFloat(milli/1000, 'f', 2, 64) }

// listIDs lists checkpoint ids, the first maxListedIDs of them.
func listIDs(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i == maxListedIDs {
			fmt.Fprintf(&b, ", … (%d in all)", len(ids))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// pairDiffs are the m·n differences s_i − o_j of two sorted samples,
// ordered without being written out (a long history has millions).
type pairDiffs struct{ s, o []int32 }

func (p pairDiffs) n() int64 { return int64(len(p.s)) * int64(len(p.o)) }

// countLE counts the differences ≤ d: for each s, the o ≥ s − d, walked
// once since s − d only grows.
func (p pairDiffs) countLE(d int32) int64 {
	var count int64
	j := 0
	for _, s := range p.s {
		for j < len(p.o) && p.o[j] < s-d {
			j++
		}
		count += int64(len(p.o) - j)
	}
	return count
}

// kth is the k-th smallest difference (1-based): the smallest d with at
// least k differences ≤ d, found by bisection over the integers.
func (p pairDiffs) kth(k int64) int32 {
	lo, hi := p.s[0]-p.o[len(p.o)-1], p.s[len(p.s)-1]-p.o[0] // countLE(hi) = m·n ≥ k
	for lo < hi {
		mid := lo + (hi-lo)/2
		if p.countLE(mid) >= k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// median is the Hodges–Lehmann estimate of the shift: the median of the differences.
func (p pairDiffs) median() float64 {
	n := p.n()
	if n%2 == 1 {
		return float64(p.kth((n + 1) / 2))
	}
	return (float64(p.kth(n/2)) + float64(p.kth(n/2+1))) / 2
}

// mannWhitneyK is the rank of the differences that bounds the shift's
// two-sided interval at confidence 1 − alpha, [D(k), D(m·n+1−k)]
// (Hollander & Wolfe, §4.3): the largest k with P(U ≤ k−1) ≤ alpha/2 when
// there is no shift, exact while m·n ≤ exactMannWhitney. 0 when even the
// extremes do not reach the confidence. Ties (many checkpoints read 0)
// make the interval approximate.
func mannWhitneyK(m, n int, alpha float64) int64 {
	switch {
	case m == 0 || n == 0:
		return 0
	case int64(m)*int64(n) > exactMannWhitney:
		return mannWhitneyKNormal(m, n, alpha)
	}
	total := 1.0 // C(m+n, m) orderings in all
	for i := 1; i <= m; i++ {
		total = total * float64(n+i) / float64(i)
	}
	limit := alpha / 2 * total * (1 + 1e-12)
	cum, k := 0.0, int64(0)
	for u, c := range mannWhitneyCounts(m, n, m*n/2) {
		cum += c
		if cum > limit {
			break
		}
		k = int64(u) + 1
	}
	return k
}

// mannWhitneyKNormal is mannWhitneyK by the normal approximation of U:
// P(U ≤ k−1) ≈ Φ((k − 1 + ½ − mn/2)/σ), with continuity correction.
func mannWhitneyKNormal(m, n int, alpha float64) int64 {
	mn := float64(m) * float64(n)
	z := math.Sqrt2 * math.Erfinv(1-alpha)
	sd := math.Sqrt(mn * float64(m+n+1) / 12)
	return max(0, int64(math.Floor(mn/2-z*sd+0.5)))
}

// mannWhitneyCounts counts, for u = 0..umax, the orderings of m and n
// values in which U (the pairs where the first sample's value is the
// larger) equals u: the coefficients of the Gaussian binomial
// [m+n choose m]_q, built as ∏ (1 − q^{n+i}) / (1 − q^i) for i = 1..m.
// After each step the polynomial is [n+i choose i]_q, whose coefficients
// are positive, so nothing large cancels.
func mannWhitneyCounts(m, n, umax int) []float64 {
	if m > n {
		m, n = n, m // symmetric
	}
	a := make([]float64, umax+1)
	a[0] = 1
	for i := 1; i <= m; i++ {
		for d := umax; d >= n+i; d-- {
			a[d] -= a[d-n-i]
		}
		for d := i; d <= umax; d++ {
			a[d] += a[d-i]
		}
	}
	return a
}
