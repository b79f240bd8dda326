package metrics

import (
	"fmt"
	"math"
)

// Spread summarises repeated measurements of one quantity, such as a peak
// rate measured over many seeds: how many there are, their mean, their
// sample standard deviation, and the smallest and largest.
type Spread struct {
	// N is the number of measurements.
	N int
	// Mean is their arithmetic mean.
	Mean float64
	// SD is their sample standard deviation (divided by N − 1); 0 for
	// fewer than two measurements.
	SD float64
	// Min and Max are the smallest and largest measurement.
	Min, Max float64
}

// SpreadOf returns the spread of xs, which should be finite numbers. An
// empty xs gives the zero Spread.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{N: len(xs), Min: xs[0], Max: xs[0]}
	var g gaps // Welford's running mean and variance
	for _, x := range xs {
		g.add(x, 1)
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean = g.mean
	if s.N > 1 {
		s.SD = math.Sqrt(g.m2 / float64(s.N-1))
	}
	return s
}

// String reports the mean ± the standard deviation, both to the precision
// of two significant digits of the standard deviation, then the count and
// the range, e.g. "937 ± 48 (n = 5000, 781 to 1115)". Without a positive
// standard deviation the numbers are printed in full.
func (s Spread) String() string {
	if !(s.SD > 0) || math.IsInf(s.SD, 0) {
		return fmt.Sprintf("%g ± %g (n = %d, %g to %g)", s.Mean, s.SD, s.N, s.Min, s.Max)
	}
	d := max(0, 1-int(math.Floor(math.Log10(s.SD))))
	return fmt.Sprintf("%.*f ± %.*f (n = %d, %.*f to %.*f)", d, s.Mean, d, s.SD, s.N, d, s.Min, d, s.Max)
}
