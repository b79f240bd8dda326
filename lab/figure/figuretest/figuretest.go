// Package figuretest provides sample figures for the tests of the
// renderers (lab/static, lab/interactive) and of their users: one of each
// kind, with every kind of decoration.
package figuretest

import (
	"time"

	"github.com/backofflab/backofflab/lab/figure"
)

// WaveCounts returns n slot counts with a few tall spikes, like a
// synchronised retry wave.
func WaveCounts(n int) []float64 {
	c := make([]float64, n)
	for i := range c {
		c[i] = float64((i * 37) % 23)
	}
	for _, i := range []int{5, 10, 20, 40, 80, 160} {
		if i < n {
			c[i] = 600
		}
	}
	return c
}

// Histogram returns 200 slots of 200 ms with spikes, a capacity line, an
// outage span, a marker and a note.
func Histogram() figure.Histogram {
	return figure.Histogram{
		Title:  "Attempts per slot",
		Slot:   200 * time.Millisecond,
		Counts: WaveCounts(200),
		HLines: []figure.HLine{{Y: 240, Label: "capacity"}},
		Spans:  []figure.Span{{From: 0, To: 20, Label: "outage"}},
		VLines: []figure.VLine{{X: 25.6, Label: "done"}},
		Notes:  []figure.Note{{X: 1.1, Y: 600, Text: "600"}},
	}
}

// Layered returns Histogram with its counts split into two stacked layers.
func Layered() figure.Histogram {
	h := Histogram()
	h.Counts = nil
	h.Layers = []figure.Layer{{Name: "admitted", Counts: WaveCounts(200)}, {Name: "refused", Counts: WaveCounts(200)}}
	return h
}

// Lines returns two series on a logarithmic x axis, with points.
func Lines() figure.Lines {
	return figure.Lines{
		Title: "Peak vs slot width", XLabel: "slot (s)", YLabel: "peak (/s)", LogX: true, Points: true,
		Series: []figure.Series{
			{Name: "no jitter", X: []float64{0.001, 0.01, 0.1, 1}, Y: []float64{600000, 60000, 6000, 600}},
			{Name: "full jitter", X: []float64{0.001, 0.01, 0.1, 1}, Y: []float64{3000, 1500, 925, 600}},
		},
	}
}

// Scatter returns two series of marks over an outage span.
func Scatter() figure.Scatter {
	return figure.Scatter{
		Title: "Lanes", XLabel: "time (s)", YLabel: "client",
		Series: []figure.Series{
			{Name: "refused", X: []float64{0, 0.1, 0.3}, Y: []float64{0, 1, 2}},
			{Name: "admitted", X: []float64{3.1, 3.2, 3.3}, Y: []float64{0, 1, 2}},
		},
		Spans: []figure.Span{{From: 0, To: 3, Label: "outage"}},
	}
}

// Stack returns the histogram above its layered twin (one quantity: one y
// scale) above the scatter (another).
func Stack() figure.Stack {
	return figure.Stack{Title: "Stacked", Panels: []figure.Figure{Histogram(), Layered(), Scatter()}}
}

// Explorable returns two frames of one histogram panel under a slider.
func Explorable() figure.Explorable {
	a, b := Histogram(), Histogram()
	b.Counts = WaveCounts(200)[:100]
	b.Title = "Fewer slots"
	return figure.Explorable{
		Controls: []figure.Control{{Label: "width", Values: []string{"a", "b"}}},
		Frames:   []figure.Frame{{Panels: []figure.Figure{a}, Readout: "frame a"}, {Panels: []figure.Figure{b}, Readout: "frame b"}},
	}
}
