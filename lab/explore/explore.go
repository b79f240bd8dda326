// Package explore builds the lessons' explorables: for each "what if" a
// lesson asks, the family of runs its control spans, computed once by the
// lab's models and drawn as a [chart.Explorable], whose controls switch
// between the precomputed figures in the page. No kernel is involved once
// the cell has run, so a control works in a saved notebook and in the
// static HTML edition, and no cell ever waits for a person.
//
// Every frame is the lab's own figure for its setting (waves.Result.Figure,
// CapacityFigure, synchrony's retry histograms), so the numbers a control
// shows are the numbers the lab and the backofflab command print for the
// same parameters.
package explore

import (
	"fmt"
	"strconv"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/waves"
)

// JitterPercents returns the widths the jitter control spans: 0 to 100 %
// in steps of 5.
func JitterPercents() []int {
	out := make([]int, 0, 21)
	for p := 0; p <= 100; p += 5 {
		out = append(out, p)
	}
	return out
}

// JitterWidth returns the jitter-width explorable of the Waves lessons:
// the lesson's 600 clients (waves.Lesson) at every width of
// [JitterPercents], each frame the run's histogram on the 600-attempt scale
// above the peak-against-width curve with the current width marked.
func JitterWidth() (chart.Explorable, error) {
	percents := JitterPercents()
	c := waves.Lesson()
	cs := make([]waves.Config, len(percents))
	values := make([]string, len(percents))
	for i, p := range percents {
		cs[i] = c
		cs[i].Jitter = float64(p) / 100
		values[i] = strconv.Itoa(p) + "%"
	}
	rs, err := waves.RunEach(cs)
	if err != nil {
		return chart.Explorable{}, err
	}
	curve := waves.JitterFigure(rs)
	curve.Size = chart.Size{Height: 2.5 * vg.Inch} // shorter than the histogram
	e := chart.Explorable{Controls: []chart.Control{{Label: "jitter width", Values: values, Start: 10}}}
	for i, r := range rs {
		h := r.Figure()
		h.YMax = float64(c.Clients)
		marked := curve
		marked.Series = append(marked.Series[:1:1], chart.Series{Name: "width " + values[i],
			X: []float64{curve.Series[0].X[i]}, Y: []float64{curve.Series[0].Y[i]}})
		e.Frames = append(e.Frames, chart.Frame{
			Panels:  []chart.Drawable{h, marked},
			Readout: fmt.Sprintf("jitter width %s: %d attempts, peak %s/s (%d in one %v slot)", values[i], r.Total, rate(r.Peak().PerSecond()), r.Peak().Count, c.Slot),
		})
	}
	return e, nil
}

// rate formats a rate per second without needless decimals.
func rate(perSecond float64) string { return strconv.FormatFloat(perSecond, 'f', -1, 64) }

// durations formats each duration as the page prints it ("1ms", "1.5s").
func durations(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}
