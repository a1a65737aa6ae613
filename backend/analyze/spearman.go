package analyze

import (
	"cmp"
	"math"
	"slices"
)

// Spearman is a rank correlation with its sample size and two-sided p-value.
// Rho and P are null when undefined: fewer than 3 pairs for P, or no
// variation in either variable (every value tied) for both.
type Spearman struct {
	Rho *float64 `json:"rho"`
	N   int      `json:"n"`
	P   *float64 `json:"p"`
}

// SpearmanRank computes Spearman's ρ of paired samples, ties taking the
// average of the ranks they span, as the Pearson correlation of the ranks.
// Pairs where either value is NaN or infinite are left out. The p-value
// uses the t approximation t = ρ·√((n−2)/(1−ρ²)) with n−2 degrees of
// freedom, two-sided, through the regularized incomplete beta function.
func SpearmanRank(x, y []float64) Spearman {
	n := min(len(x), len(y))
	xs := make([]float64, 0, n)
	ys := make([]float64, 0, n)
	for i := range n {
		if finite(x[i]) && finite(y[i]) {
			xs = append(xs, x[i])
			ys = append(ys, y[i])
		}
	}
	s := Spearman{N: len(xs)}
	if s.N < 2 {
		return s
	}
	rx, ry := ranks(xs), ranks(ys)
	rho, ok := pearson(rx, ry)
	if !ok {
		return s
	}
	s.Rho = &rho
	if s.N >= 3 {
		p := spearmanP(rho, s.N)
		s.P = &p
	}
	return s
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ranks gives 1-based ranks, ties getting the mean of the ranks they span.
func ranks(v []float64) []float64 {
	idx := indices(len(v))
	// Ties get the mean of their ranks whatever their order: no stable sort needed.
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

func pearson(x, y []float64) (float64, bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	r := sxy / math.Sqrt(sxx*syy)
	return math.Max(-1, math.Min(1, r)), true
}

// spearmanP is the two-sided p-value of ρ for n pairs (t approximation).
func spearmanP(rho float64, n int) float64 {
	df := float64(n - 2)
	if df <= 0 {
		return math.NaN()
	}
	if math.Abs(rho) >= 1 {
		return 0
	}
	t2 := rho * rho * df / (1 - rho*rho)
	// P(|T| > t) for Student's t with df degrees of freedom.
	return regIncBeta(df/2, 0.5, df/(df+t2))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b),
// evaluated by its continued fraction (modified Lentz's method), using the
// symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaContinuedFraction(a, b, x) / a
	}
	return 1 - front*betaContinuedFraction(b, a, 1-x)/b
}

func betaContinuedFraction(a, b, x float64) float64 {
	const (
		maxIter = 300
		eps     = 1e-15
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c := 1.0
	d := 1 - qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step takes one term aa of the fraction into c and d and returns the factor h changes by.
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))            // even step
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))) // odd step
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
