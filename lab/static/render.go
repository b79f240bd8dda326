package static

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/backofflab/backofflab/lab/figure"
)

// DPI is the resolution of PNG output: a figure.Size is in pixels at 96 dots
// per inch, so the default 768 × 336 figure is 8 in × 3.5 in.
const DPI = 96

// length converts pixels at DPI to a gonum/plot length.
func length(px int) vg.Length { return vg.Length(px) * vg.Inch / DPI }

// PlotFunc is a custom figure: a function that builds a *plot.Plot (start it
// with [NewPlot] or [Plot] to keep the house style). It is a figure.Figure of
// the default size, and a panel of a figure.Stack.
type PlotFunc func() (*plot.Plot, error)

// Validate builds the plot and reports why it cannot be drawn.
func (f PlotFunc) Validate() error {
	if f == nil {
		return errors.New("static: PlotFunc is nil")
	}
	p, err := f()
	if err == nil && p == nil {
		err = errors.New("static: PlotFunc built a nil plot")
	}
	return err
}

// FigureSize returns figure.DefaultSize.
func (f PlotFunc) FigureSize() figure.Size { return figure.DefaultSize }

// Plot returns the plot of a figure.Histogram, Lines or Scatter (or a
// PlotFunc) in the house style, ready to be decorated further.
func Plot(f figure.Figure) (*plot.Plot, error) {
	if f == nil {
		return nil, errors.New("static: Plot(nil)")
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var (
		p   *plot.Plot
		err error
	)
	switch f := f.(type) {
	case figure.Histogram:
		p, err = histogramPlot(f)
	case figure.Lines:
		p, err = linesPlot(f)
	case figure.Scatter:
		p, err = scatterPlot(f)
	case PlotFunc:
		p, err = f()
	default:
		return nil, fmt.Errorf("static: cannot draw a %T as one plot: want a figure.Histogram, Lines or Scatter, or a PlotFunc", f)
	}
	if err != nil {
		return nil, err
	}
	return p, checkRanges(p)
}

// PNG renders f as PNG bytes at its size and [DPI]. The same figure always
// gives the same bytes.
func PNG(f figure.Figure) ([]byte, error) {
	size, err := sizeOf(f)
	if err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(length(size.Width), length(size.Height)), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
	if err := drawFigure(draw.New(c), f); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("static: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders f as SVG bytes at its size. The same figure always gives the
// same bytes. Text refers to the Liberation Sans font by name; browsers
// substitute a sans-serif face when it is not installed.
func SVG(f figure.Figure) ([]byte, error) {
	size, err := sizeOf(f)
	if err != nil {
		return nil, err
	}
	c := vgsvg.New(length(size.Width), length(size.Height))
	if err := drawFigure(draw.New(c), f); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("static: encoding SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// sizeOf validates f and returns its size.
func sizeOf(f figure.Figure) (figure.Size, error) {
	if f == nil {
		return figure.Size{}, errors.New("static: no figure (nil)")
	}
	if _, ok := f.(figure.Explorable); ok {
		return figure.Size{}, errors.New("static: a figure.Explorable switches figures in the page: draw it with lab/interactive, or draw one of its frames' panels here")
	}
	if err := f.Validate(); err != nil {
		return figure.Size{}, err
	}
	return f.FigureSize().Or(figure.DefaultSize), nil
}

// drawFigure draws f, a validated figure, on c.
func drawFigure(c draw.Canvas, f figure.Figure) error {
	if s, ok := f.(figure.Stack); ok {
		return drawPanels(c, s.Title, s.SharedY(), s.Panels...)
	}
	return drawPanels(c, "", []int{0}, f)
}

// drawPanels builds the panels' plots and draws them stacked on c, with a
// shared x range, the y ranges of the panels in each group of shared
// (sharedY[i] is the first panel of panel i's group) made one, an optional
// overall title and each plot's legend moved into a column right of the
// plotting area, so that it never hides data.
func drawPanels(c draw.Canvas, title string, sharedY []int, panels ...figure.Figure) error {
	plots := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		p, err := Plot(pn)
		if err != nil {
			if len(panels) > 1 {
				err = fmt.Errorf("%w (panel %d)", err, i)
			}
			return err
		}
		plots[i] = p
	}
	if len(plots) > 1 {
		shareRange(plots, func(p *plot.Plot) *plot.Axis { return &p.X })
		groups := map[int][]*plot.Plot{}
		for i, g := range sharedY {
			groups[g] = append(groups[g], plots[i])
		}
		for _, g := range groups {
			if len(g) > 1 {
				shareRange(g, func(p *plot.Plot) *plot.Axis { return &p.Y })
			}
		}
	}
	for i, p := range plots {
		if err := checkRanges(p); err != nil {
			return fmt.Errorf("%w (panel %d)", err, i)
		}
	}

	if title != "" {
		sty := text.Style{Color: color.Black, Font: font.From(titleFont, 13), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(4)}, title)
		c.Max.Y -= sty.Height(title) + vg.Points(8)
	}

	// Take the legends out of the plots; they go into a right-hand column.
	legends := make([]plot.Legend, len(plots))
	var legendWidth vg.Length
	for i, p := range plots {
		legends[i] = p.Legend
		fresh := plot.NewLegend()
		fresh.TextStyle = p.Legend.TextStyle
		p.Legend = fresh
		r := legends[i].Rectangle(c)
		if w := r.Max.X - r.Min.X; w > 0 {
			legendWidth = max(legendWidth, w+vg.Points(10))
		}
	}
	defer func() {
		for i, p := range plots {
			p.Legend = legends[i]
		}
	}()
	plotArea := c
	plotArea.Max.X -= legendWidth

	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(6), PadRight: vg.Points(6), PadTop: vg.Points(2)}
	if len(plots) > 1 {
		for _, p := range plots[:len(plots)-1] {
			p.X.Label.Text = ""
			p.X.Tick.Marker = unlabelled{p.X.Tick.Marker}
		}
	}
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	canvases, err := alignSafely(grid, tiles, plotArea)
	if err != nil {
		return err
	}
	for i, p := range plots {
		p.Draw(canvases[i][0])
		if legendWidth > 0 {
			lc := canvases[i][0]
			lc.Min.X = plotArea.Max.X + vg.Points(6)
			lc.Max.X = c.Max.X
			legends[i].Top, legends[i].Left = true, true
			legends[i].Draw(lc)
		}
	}
	return nil
}

// alignSafely is plot.Align, which panics when it cannot lay out the
// plots (a canvas too small for the axes, say); it returns an error instead.
func alignSafely(grid [][]*plot.Plot, t draw.Tiles, c draw.Canvas) (out [][]draw.Canvas, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("static: cannot lay out the figure: %v", r)
		}
	}()
	return plot.Align(grid, t, c), nil
}

// checkRanges refuses axis ranges gonum/plot cannot draw (an infinite or
// overflowing span would never finish placing ticks) and widens a one-value
// range on a logarithmic axis, which gonum/plot cannot scale.
func checkRanges(p *plot.Plot) error {
	for _, ax := range []struct {
		name string
		a    *plot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		a := ax.a
		if math.IsInf(a.Min, 1) && math.IsInf(a.Max, -1) {
			continue // nothing on this axis: gonum/plot picks a range
		}
		if !finite(a.Min) || !finite(a.Max) || !finite(a.Max-a.Min) {
			return fmt.Errorf("static: the %s range [%g, %g] is too wide to draw", ax.name, a.Min, a.Max)
		}
		if a.Min == a.Max {
			if _, log := a.Scale.(plot.LogScale); log && a.Min > 0 {
				a.Min, a.Max = a.Min/math.Sqrt(10), a.Max*math.Sqrt(10)
			} else {
				// gonum/plot widens by ±1, which is nothing next to 1e117.
				d := math.Max(1, math.Abs(a.Min)/10)
				a.Min, a.Max = a.Min-d, a.Max+d
			}
		}
	}
	return nil
}

// shareRange sets the axis picked by pick to the union of its ranges.
func shareRange(plots []*plot.Plot, pick func(*plot.Plot) *plot.Axis) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range plots {
		a := pick(p)
		lo, hi = math.Min(lo, a.Min), math.Max(hi, a.Max)
	}
	for _, p := range plots {
		a := pick(p)
		a.Min, a.Max = lo, hi
	}
}

// unlabelled keeps the tick positions of a Ticker and drops the labels.
type unlabelled struct{ plot.Ticker }

// Ticks returns the wrapped ticks without labels.
func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ts := u.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
