package figure_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
)

// A histogram of attempts per 200 ms slot, with the capacity per slot as a
// dashed line and the outage shaded: plain data, which lab/static and
// lab/interactive draw.
func ExampleHistogram() {
	h := figure.Histogram{
		Title:  "Attempts per slot, no jitter",
		Slot:   200 * time.Millisecond,
		Counts: []float64{0, 0, 0, 0, 0, 600, 0, 0, 0, 0, 600, 0}, // a synchronised wave
		HLines: []figure.HLine{{Y: 1200 * 0.2, Label: "capacity (1200/s)"}},
		Spans:  []figure.Span{{From: 0, To: 2, Label: "outage"}},
	}
	fmt.Println(h.Validate(), h.Slots(), h.YAxisLabel(), h.FigureSize())
	// Output: <nil> 12 count per 200ms slot {768 336}
}

// Invalid input is an error that names the field.
func ExampleHistogram_invalid() {
	fmt.Println(figure.Histogram{Counts: []float64{1, 2}}.Validate())
	// Output: figure: Histogram.Slot must be > 0, got 0s
}

// Panels stacked on one time ruler: the two calls panels measure one
// quantity and share a y scale; the in-flight panel keeps its own.
func ExampleStack() {
	calls := figure.Histogram{Title: "exponential", YLabel: "calls", Slot: 100 * time.Millisecond, Counts: []float64{60, 0, 0, 8, 8}}
	jittered := figure.Histogram{Title: "full jitter", YLabel: "calls", Slot: 100 * time.Millisecond, Counts: []float64{6, 9, 7, 8, 8}}
	inFlight := figure.Lines{
		Title: "In flight", YLabel: "in flight", XLabel: "time (s)", Step: true,
		Series: []figure.Series{{Name: "in flight", X: []float64{0, 0.3, 0.5}, Y: []float64{0, 8, 0}}},
	}
	st := figure.Stack{Panels: []figure.Figure{calls, jittered, inFlight}}
	fmt.Println(st.Validate(), st.FigureSize(), st.SharedY())
	// Output: <nil> {768 690} [0 0 2]
}
