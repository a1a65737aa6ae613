package analyze

import (
	"math"
	"testing"
)

func TestSpearmanRank(t *testing.T) {
	// Reference values: scipy.stats.spearmanr (which also uses the t
	// approximation for p), and the IQ vs TV-hours example on Wikipedia's
	// "Spearman's rank correlation coefficient" page (ρ = −29/165).
	for _, tc := range []struct {
		name    string
		x, y    []float64
		rho, p  float64 // NaN = null
		n       int
		relTolP float64
	}{
		{"perfect monotone", []float64{1, 2, 3, 4, 5, 6}, []float64{10, 20, 35, 100, 101, 1e6}, 1, 0, 6, 0},
		{"perfectly reversed", []float64{1, 2, 3, 4, 5}, []float64{9, 7, 4, 2, 1}, -1, 0, 5, 0},
		{"IQ vs hours of TV",
			[]float64{106, 100, 86, 101, 99, 103, 97, 113, 112, 110},
			[]float64{7, 27, 2, 50, 28, 29, 20, 12, 6, 17},
			-29.0 / 165, 0.6271883447764846, 10, 1e-9},
		{"ties in both",
			[]float64{1, 2, 2, 3, 4, 4, 4, 5, 6, 7},
			[]float64{2, 1, 3, 3, 5, 4, 6, 8, 7, 7},
			0.9195443073222924, 0.00016620575102374162, 10, 1e-6},
		{"ties, n = 8",
			[]float64{10, 20, 20, 30, 40, 50, 50, 60},
			[]float64{3, 3, 1, 4, 6, 5, 8, 7},
			0.8666825838483473, 0.005347287256224279, 8, 1e-6},
		{"constant x: undefined", []float64{0, 0, 0, 0}, []float64{1, 2, 3, 4}, math.NaN(), math.NaN(), 4, 0},
		{"two pairs: no p", []float64{1, 2}, []float64{3, 4}, 1, math.NaN(), 2, 0},
		{"NaN and Inf pairs are left out",
			[]float64{1, math.NaN(), 2, 3, math.Inf(1), 4},
			[]float64{1, 5, 2, 3, 0, 4}, 1, 0, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SpearmanRank(tc.x, tc.y)
			if s.N != tc.n {
				t.Errorf("n = %d, want %d", s.N, tc.n)
			}
			checkNullable(t, "rho", s.Rho, tc.rho, 1e-12)
			if math.IsNaN(tc.p) || tc.p == 0 {
				checkNullable(t, "p", s.P, tc.p, 1e-12)
			} else if s.P == nil || math.Abs(*s.P-tc.p) > tc.relTolP*tc.p {
				t.Errorf("p = %v, want %v", fmtFloat(s.P, 12), tc.p)
			}
		})
	}
}

func checkNullable(t *testing.T, name string, got *float64, want, tol float64) {
	t.Helper()
	switch {
	case math.IsNaN(want) && got != nil:
		t.Errorf("%s = %v, want null", name, *got)
	case !math.IsNaN(want) && (got == nil || math.Abs(*got-want) > tol):
		t.Errorf("%s = %s, want %v", name, fmtFloat(got, 12), want)
	}
}

func TestRegIncBeta(t *testing.T) {
	// Reference values: scipy.special.betainc, and Student's t: P(|T| > 2.228) with 10 df ≈ 0.05.
	for _, tc := range []struct{ a, b, x, want float64 }{
		{2.5, 0.5, 0.3, 0.018927124071945658},
		{5, 0.5, 0.9, 0.3166429150200122},
		{0.5, 0.5, 0.5, 0.5},
		{5, 0.5, 10 / (10 + 2.228*2.228), 0.05001177181711132},
		{3, 4, 0, 0},
		{3, 4, 1, 1},
	} {
		if got := regIncBeta(tc.a, tc.b, tc.x); math.Abs(got-tc.want) > 1e-10 {
			t.Errorf("I_%v(%v, %v) = %v, want %v", tc.x, tc.a, tc.b, got, tc.want)
		}
	}
}
