package static

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

// LogTicks is the house tick marker of logarithmic axes. An axis that spans two decades or more
// is labelled at the powers of ten, as gonum/plot's [plot.LogTicks] does; a narrower one would
// then carry one or two labels, so it is labelled at 1, 2 and 5 times each power of ten instead
// (20, 50, 100, 200, 500, 1000; and the lowest whole multiple too, 30 say, when the data start
// well below the first of those), at every whole multiple if even those give fewer than two, and
// at round linear steps ([RoundTicks]) if the axis holds fewer than two whole multiples.
// The other multiples get unlabelled ticks. [Lines] puts it on the axes it makes logarithmic.
//
// The zero value is ready to use.
type LogTicks struct{}

// Ticks returns the ticks for [min, max]; both must be positive.
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	wide := plot.LogTicks{Prec: -1}
	if !(min > 0) || !(max > min) || math.IsInf(max, 0) || math.Log10(max/min) >= 2 {
		return wide.Ticks(min, max)
	}
	var ticks []plot.Tick
	labelled := 0
	for k := int(math.Floor(math.Log10(min))); k <= int(math.Ceil(math.Log10(max))); k++ {
		for m := 1; m <= 9; m++ {
			// Parsed from its decimal form, so 0.3 is 0.3 and not 3 × 0.1.
			v, err := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(k), 64)
			if err != nil || v < min*(1-1e-12) || v > max*(1+1e-12) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
				labelled++
			}
			ticks = append(ticks, t)
		}
	}
	if len(ticks) < 2 {
		// Inside one decade, between two whole multiples: round linear steps.
		return RoundTicks{}.Ticks(min, max)
	}
	if labelled < 2 {
		for i := range ticks {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
		return ticks
	}
	// Data that starts well below the first label (21 under 50) gets a label at its lowest whole
	// multiple (30), if that is clear of the next one.
	for _, first := range ticks {
		if first.Label != "" {
			if first.Value > 2*min && first.Value >= 1.5*ticks[0].Value {
				ticks[0].Label = strconv.FormatFloat(ticks[0].Value, 'f', -1, 64)
			}
			break
		}
	}
	return ticks
}
