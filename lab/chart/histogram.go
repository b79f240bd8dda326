package chart

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Histogram is a figure of counts per time slot: one bar per slot, slot i
// covering [Start + i·Slot, Start + (i+1)·Slot). The x axis is in seconds,
// so annotations (HLines, VLines, Spans, Notes) take x in seconds too
// (use d.Seconds()); y is in counts per slot.
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
	// histograms can share a scale. Zero fits the data.
	YMax float64

	// HLines are dashed horizontal reference lines (e.g. capacity per slot).
	HLines []HLine
	// VLines are dashed vertical markers, x in seconds.
	VLines []VLine
	// Spans are shaded x intervals in seconds (e.g. an outage).
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

// layers returns the histogram's series as layers, after checking them.
func (h Histogram) layers() ([]Layer, error) {
	if h.Slot <= 0 {
		return nil, fmt.Errorf("chart: Histogram.Slot must be > 0, got %v", h.Slot)
	}
	if !finite(h.YMax) || h.YMax < 0 {
		return nil, fmt.Errorf("chart: Histogram.YMax must be finite and ≥ 0, got %v", h.YMax)
	}
	layers := h.Layers
	switch {
	case len(h.Counts) > 0 && len(h.Layers) > 0:
		return nil, fmt.Errorf("chart: Histogram has both Counts and Layers; set one of them")
	case len(h.Counts) > 0:
		layers = []Layer{{Counts: h.Counts}}
	case len(h.Layers) == 0:
		return nil, fmt.Errorf("chart: Histogram has no data: Counts and Layers are empty")
	}
	n := len(layers[0].Counts)
	for i, l := range layers {
		if len(l.Counts) == 0 {
			return nil, fmt.Errorf("chart: Histogram.Layers[%d] (%q) has no counts", i, l.Name)
		}
		if len(l.Counts) != n {
			return nil, fmt.Errorf("chart: Histogram.Layers[%d] (%q) has %d counts, Layers[0] has %d; all layers need one count per slot", i, l.Name, len(l.Counts), n)
		}
		for j, c := range l.Counts {
			if !finite(c) || c < 0 {
				return nil, fmt.Errorf("chart: Histogram count %d of layer %d is %v; counts must be finite and ≥ 0", j, i, c)
			}
		}
	}
	if err := h.annotations().Validate(); err != nil {
		return nil, err
	}
	return layers, nil
}

func (h Histogram) annotations() Annotations {
	return Annotations{HLines: h.HLines, VLines: h.VLines, Spans: h.Spans, Notes: h.Notes}
}

func (h Histogram) yLabel() string {
	if h.YLabel != "" {
		return h.YLabel
	}
	return "count per " + h.Slot.String() + " slot"
}

// Plot builds the histogram's plot.
func (h Histogram) Plot() (*plot.Plot, error) {
	layers, err := h.layers()
	if err != nil {
		return nil, err
	}
	xLabel := h.XLabel
	if xLabel == "" {
		xLabel = "time (s)"
	}
	p := NewPlot(h.Title, xLabel, h.yLabel())
	a := h.annotations()
	a.addSpans(p)
	base := make([]float64, len(layers[0].Counts))
	var all []*bars
	for i, l := range layers {
		top := make([]float64, len(base))
		for j := range top {
			top[j] = base[j] + l.Counts[j]
		}
		b := &bars{start: h.Start.Seconds(), width: h.Slot.Seconds(), base: base, top: top, color: Color(i)}
		all = append(all, b)
		p.Add(b)
		if l.Name != "" {
			p.Legend.Add(l.Name, b)
		}
		base = top
	}
	for _, b := range all {
		b.total = base // every layer picks the same slot per pixel column: the tallest stack
	}
	a.addLines(p)
	fitY(p, h.YMax)
	return p, checkRanges(p)
}

// Draw draws the histogram on c.
func (h Histogram) Draw(c draw.Canvas) error { return drawPanels(c, "", false, h) }

// FigureSize returns h.Size, defaults filled in.
func (h Histogram) FigureSize() Size { return h.Size.or(DefaultSize) }

// PNG renders the histogram as PNG bytes.
func (h Histogram) PNG() ([]byte, error) { return PNG(h) }

// SVG renders the histogram as SVG bytes.
func (h Histogram) SVG() ([]byte, error) { return SVG(h) }

// bars draws one layer of a histogram: slot j spans [base[j], top[j]]. total is the top of the
// whole stack (the last layer's top), which decides the slot a merged pixel column shows.
type bars struct {
	start, width float64
	base, top    []float64
	total        []float64
	color        color.Color
}

// Plot fills the bars of the layer.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	// Slots narrower than a pixel are merged into one bar per pixel column, showing the slot
	// whose whole stack is tallest in that column: a one-slot spike stays visible, every layer of
	// a stacked histogram shows the same slot (so layers never cover each other), and a
	// 40 000-slot histogram draws a few hundred rectangles.
	const pixel = vg.Length(72.0 / DPI)
	total := b.total
	if total == nil {
		total = b.top
	}
	fill := func(x0, x1 vg.Length, j int) {
		lo, hi := b.base[j], b.top[j]
		if hi <= lo {
			return
		}
		// Snap to whole pixels: crisp edges, no faint antialiased slivers.
		x0 = vg.Length(math.Floor(float64(x0/pixel))) * pixel
		x1 = max(vg.Length(math.Ceil(float64(x1/pixel)))*pixel, x0+pixel)
		y0, y1 := trY(lo), trY(hi)
		c.FillPolygon(b.color, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	var (
		open     bool
		gx0, gx1 vg.Length
		best     int
	)
	for j := range b.top {
		x0, x1 := trX(b.start+float64(j)*b.width), trX(b.start+float64(j+1)*b.width)
		if open && x0-gx0 < pixel {
			gx1 = max(gx1, x1)
			if total[j] > total[best] {
				best = j
			}
			continue
		}
		if open {
			fill(gx0, gx1, best)
		}
		open, gx0, gx1, best = true, x0, x1, j
	}
	if open {
		fill(gx0, gx1, best)
	}
}

// DataRange spans the slots and 0 to the tallest stacked top.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymax = 0
	for _, t := range b.top {
		ymax = math.Max(ymax, t)
	}
	return b.start, b.start + float64(len(b.top))*b.width, 0, ymax
}

// Thumbnail draws the legend swatch of the layer.
func (b *bars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(b.color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// fitY starts the y axis at 0 (when the data allow) and either fixes its top
// at yMax (when positive) or leaves 8 % headroom above the data, for notes
// and labels.
func fitY(p *plot.Plot, yMax float64) {
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	switch {
	case yMax > 0:
		p.Y.Max = yMax
	case p.Y.Max > 0:
		p.Y.Max += 0.08 * (p.Y.Max - p.Y.Min)
	}
}
