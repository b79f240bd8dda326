package figure

import (
	"errors"
	"fmt"
	"time"
)

// Histogram is a figure of counts per time slot: one bar per slot, slot i
// covering [Start + i·Slot, Start + (i+1)·Slot). The x axis is in seconds,
// so annotations take x in seconds too (use d.Seconds()); y is in counts
// per slot.
//
// A single series goes in Counts. Bars split by category (admitted and
// refused calls, say) go in Layers, stacked bottom to top; set one or the
// other, not both.
type Histogram struct {
	// Title is written above the plot.
	Title string
	// XLabel labels the x axis; empty means "time (s)".
	XLabel string
	// YLabel labels the y axis; empty means "count per <Slot> slot".
	YLabel string
	// Slot is the width of each slot; it must be positive.
	Slot time.Duration
	// Start is the time of the left edge of slot 0.
	Start time.Duration
	// Counts holds one count per slot (for a single, unnamed series).
	Counts []float64
	// Layers holds named series stacked bottom to top, each with one count
	// per slot; all layers must have the same length.
	Layers []Layer
	// YMax, if positive, fixes the top of the y axis, so that several
	// histograms share a scale. Zero fits the data.
	YMax float64
	// XTicks is the least number of labelled ticks on the x axis; zero
	// lets the renderer choose.
	XTicks int

	// HLines are dashed horizontal reference lines (a capacity per slot).
	HLines []HLine
	// VLines are dashed vertical markers, x in seconds.
	VLines []VLine
	// Spans are shaded x intervals in seconds (an outage).
	Spans []Span
	// Notes are short texts at data points.
	Notes []Note

	// Size is the rendered size; zero fields mean [DefaultSize].
	Size Size
}

// Layer is one named series of a stacked [Histogram].
type Layer struct {
	Name   string
	Counts []float64
}

// Float64s converts a slice of integer or float counts to []float64, the
// element type the figures take.
func Float64s[T ~int | ~int32 | ~int64 | ~uint32 | ~uint64 | ~float32 | ~float64](xs []T) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// Stacked returns the histogram's series as layers, bottom to top: Counts
// as one unnamed layer, or Layers.
func (h Histogram) Stacked() []Layer {
	if len(h.Counts) > 0 {
		return []Layer{{Counts: h.Counts}}
	}
	return h.Layers
}

// Slots returns the number of slots.
func (h Histogram) Slots() int {
	if l := h.Stacked(); len(l) > 0 {
		return len(l[0].Counts)
	}
	return 0
}

// Validate reports the first field that cannot be drawn.
func (h Histogram) Validate() error {
	if h.Slot <= 0 {
		return fmt.Errorf("figure: Histogram.Slot must be > 0, got %v", h.Slot)
	}
	if !finite(h.YMax) || h.YMax < 0 {
		return fmt.Errorf("figure: Histogram.YMax must be finite and ≥ 0, got %v", h.YMax)
	}
	if h.XTicks < 0 || h.XTicks > MaxTicks {
		return fmt.Errorf("figure: Histogram.XTicks %d out of range: want 0 <= ticks <= %d", h.XTicks, MaxTicks)
	}
	switch {
	case len(h.Counts) > 0 && len(h.Layers) > 0:
		return errors.New("figure: Histogram has both Counts and Layers; set one of them")
	case len(h.Counts) == 0 && len(h.Layers) == 0:
		return errors.New("figure: Histogram has no data: Counts and Layers are empty")
	}
	layers := h.Stacked()
	n := len(layers[0].Counts)
	for i, l := range layers {
		if len(l.Counts) == 0 {
			return fmt.Errorf("figure: Histogram.Layers[%d] (%q) has no counts", i, l.Name)
		}
		if len(l.Counts) != n {
			return fmt.Errorf("figure: Histogram.Layers[%d] (%q) has %d counts, Layers[0] has %d; all layers need one count per slot", i, l.Name, len(l.Counts), n)
		}
		for j, c := range l.Counts {
			if !finite(c) || c < 0 {
				return fmt.Errorf("figure: Histogram count %d of layer %d is %v; counts must be finite and ≥ 0", j, i, c)
			}
		}
	}
	if err := h.Annotations().Validate(); err != nil {
		return err
	}
	return h.Size.check("Histogram")
}

// MaxTicks is the most labelled ticks a figure may ask for.
const MaxTicks = 50

// Annotations returns the histogram's decorations.
func (h Histogram) Annotations() Annotations {
	return Annotations{HLines: h.HLines, VLines: h.VLines, Spans: h.Spans, Notes: h.Notes}
}

// XAxisLabel returns XLabel, or "time (s)" if it is empty.
func (h Histogram) XAxisLabel() string {
	if h.XLabel != "" {
		return h.XLabel
	}
	return "time (s)"
}

// YAxisLabel returns YLabel, or "count per <Slot> slot" if it is empty.
func (h Histogram) YAxisLabel() string {
	if h.YLabel != "" {
		return h.YLabel
	}
	return "count per " + h.Slot.String() + " slot"
}

// FigureSize returns h.Size, defaults filled in.
func (h Histogram) FigureSize() Size { return h.Size.Or(DefaultSize) }
