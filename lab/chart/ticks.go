package chart

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// RoundTicks is the house tick marker of linear axes: it labels the axis at a round step (1, 2 or
// 5 times a power of ten) chosen so that at least Labels ticks carry a label, with an unlabelled
// tick halfway between each pair. Labels are written as short as they can be ("25", "0.5", "75000"),
// where gonum/plot's default can label only the two ends of an axis and print "25.00".
//
// The zero value labels at least 4 ticks. [NewPlot] puts it on both axes; logarithmic axes use
// gonum's log ticks instead.
type RoundTicks struct {
	// Labels is the least number of labelled ticks; zero means 4.
	Labels int
}

// Ticks returns the ticks for [min, max].
func (r RoundTicks) Ticks(min, max float64) []plot.Tick {
	switch {
	case math.IsNaN(min) || math.IsNaN(max) || math.IsInf(min, 0) || math.IsInf(max, 0) || math.IsInf(max-min, 0):
		return nil // the figures refuse such ranges before asking for ticks
	case max <= min:
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 6, 64)}}
	}
	want := r.Labels
	if want <= 0 {
		want = 4
	}
	if want > 50 {
		want = 50
	}
	// Start at the power of ten below the range and step down 10 → 5 → 2 → 1 → 0.5 … until the
	// range holds enough labels.
	step := math.Pow(10, math.Floor(math.Log10(max-min)))
	factors := [3]float64{0.5, 0.4, 0.5}
	for i := 0; (max-min)/step < float64(want-1) && i < 60; i++ {
		step *= factors[i%3]
	}
	if math.Abs(min/step) > 1<<50 || math.Abs(max/step) > 1<<50 {
		// A range far narrower than its values (huge numbers one ulp apart): no round step can
		// be counted in float64, so label the two ends.
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 6, 64)}, {Value: max, Label: strconv.FormatFloat(max, 'g', 6, 64)}}
	}
	decimals := int(math.Max(0, 1-math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for k := math.Ceil(min / step * 2); k/2*step <= max*(1+1e-12); k++ {
		x := k / 2 * step
		label := ""
		if math.Mod(k, 2) == 0 {
			// Enough decimals for the half step, then trailing zeros dropped: 0.6, not
			// 0.6000000000000001 or 0.60.
			label = strconv.FormatFloat(x, 'f', decimals, 64)
			if strings.Contains(label, ".") {
				label = strings.TrimRight(strings.TrimRight(label, "0"), ".")
			}
			if label == "-0" {
				label = "0"
			}
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: label})
	}
	return ticks
}
