package static

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/backofflab/backofflab/lab/figure"
)

// histogramPlot builds the plot of a validated histogram.
func histogramPlot(h figure.Histogram) (*plot.Plot, error) {
	layers := h.Stacked()
	p := NewPlot(h.Title, h.XAxisLabel(), h.YAxisLabel())
	a := h.Annotations()
	addSpans(p, a)
	base := make([]float64, len(layers[0].Counts))
	var all []*bars
	for i, l := range layers {
		top := make([]float64, len(base))
		for j := range top {
			top[j] = base[j] + l.Counts[j]
		}
		b := &bars{start: h.Start.Seconds(), width: h.Slot.Seconds(), base: base, top: top, color: figure.Color(i)}
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
	addLines(p, a)
	fitY(p, h.YMax)
	xTicks(p, h.XTicks)
	return p, nil
}

// xTicks asks for at least n labelled ticks on p's x axis (n > 0).
func xTicks(p *plot.Plot, n int) {
	if n > 0 {
		if _, log := p.X.Tick.Marker.(LogTicks); !log {
			p.X.Tick.Marker = RoundTicks{Labels: n}
		}
	}
}

// bars draws one layer of a histogram: slot j spans [base[j], top[j]].
// total is the top of the whole stack (the last layer's top), which decides
// the slot a merged pixel column shows.
type bars struct {
	start, width float64
	base, top    []float64
	total        []float64
	color        color.Color
}

// Plot fills the bars of the layer.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	// Slots narrower than a pixel are merged into one bar per pixel column,
	// showing the slot whose whole stack is tallest in that column: a
	// one-slot spike stays visible, every layer of a stacked histogram
	// shows the same slot (so layers never cover each other), and a
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

// xys returns the points of s for gonum/plot.
func xys(s figure.Series) plotter.XYs {
	pts := make(plotter.XYs, len(s.X))
	for j := range pts {
		pts[j].X, pts[j].Y = s.X[j], s.Y[j]
	}
	return pts
}

// useLogScales switches p's axes to logarithmic scales as asked.
func useLogScales(p *plot.Plot, logX, logY bool) {
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = LogTicks{}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = LogTicks{}
	}
}

// linesPlot builds the plot of validated lines.
func linesPlot(l figure.Lines) (*plot.Plot, error) {
	p := NewPlot(l.Title, l.XLabel, l.YLabel)
	a := l.Annotations()
	addSpans(p, a)
	for i, s := range l.Series {
		line, err := plotter.NewLine(xys(s))
		if err != nil {
			return nil, fmt.Errorf("static: Lines.Series[%d] (%q): %w", i, s.Name, err)
		}
		line.LineStyle = lineStyle(figure.Color(i), 1.5)
		if l.Step {
			line.StepStyle = plotter.PostStep
		}
		p.Add(line)
		thumbs := []plot.Thumbnailer{line}
		if l.Points {
			sc, err := plotter.NewScatter(xys(s))
			if err != nil {
				return nil, fmt.Errorf("static: Lines.Series[%d] (%q): %w", i, s.Name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: figure.Color(i), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, thumbs...)
		}
	}
	addLines(p, a)
	useLogScales(p, l.LogX, l.LogY)
	if !l.LogY {
		fitY(p, l.YMax)
	} else if l.YMax > 0 {
		p.Y.Max = l.YMax
	}
	xTicks(p, l.XTicks)
	return p, nil
}

// scatterPlot builds the plot of a validated scatter.
func scatterPlot(s figure.Scatter) (*plot.Plot, error) {
	p := NewPlot(s.Title, s.XLabel, s.YLabel)
	a := s.Annotations()
	addSpans(p, a)
	for i, ser := range s.Series {
		sc, err := plotter.NewScatter(xys(ser))
		if err != nil {
			return nil, fmt.Errorf("static: Scatter.Series[%d] (%q): %w", i, ser.Name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: figure.Color(i), Radius: vg.Points(s.Radius()), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		if ser.Name != "" {
			p.Legend.Add(ser.Name, sc)
		}
	}
	addLines(p, a)
	fitY(p, s.YMax)
	xTicks(p, s.XTicks)
	return p, nil
}
