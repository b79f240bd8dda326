package chart

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
)

// DPI is the resolution of PNG output: at 96 dots per inch the default
// 8 in × 3.5 in figure is 768 × 336 pixels.
const DPI = 96

// Size is the size of a rendered static figure, in gonum/plot lengths
// (vg.Inch, vg.Centimeter, vg.Points(…)). A zero Width or Height means the
// default: 8 in wide, 3.5 in high (for a [Stack], 2.4 in per panel).
type Size struct {
	Width, Height vg.Length
}

// DefaultSize is the size of a figure whose Size is left zero.
var DefaultSize = Size{Width: 8 * vg.Inch, Height: 3.5 * vg.Inch}

// or returns s with zero fields replaced by those of d.
func (s Size) or(d Size) Size {
	if s.Width <= 0 {
		s.Width = d.Width
	}
	if s.Height <= 0 {
		s.Height = d.Height
	}
	return s
}

// Pixels returns the width and height of s in PNG pixels at [DPI].
func (s Size) Pixels() (width, height int) {
	s = s.or(DefaultSize)
	return int(math.Round(s.Width.Dots(DPI))), int(math.Round(s.Height.Dots(DPI)))
}

// Figure is a static figure: anything that draws itself on a gonum/plot
// canvas at a preferred size. [Histogram], [Lines], [Scatter], [Stack],
// [PlotFunc] and the result of [PlotOf] are Figures.
type Figure interface {
	// Draw draws the figure on c, or returns why it cannot.
	Draw(c draw.Canvas) error
	// FigureSize returns the size the figure is rendered at.
	FigureSize() Size
}

// Panel is one plot of a figure: anything that builds a *plot.Plot.
// [Stack] draws several Panels on one shared x ruler.
type Panel interface {
	// Plot builds the panel's plot, or returns why it cannot.
	Plot() (*plot.Plot, error)
}

// PlotFunc adapts a function that builds a custom *plot.Plot to a [Panel]
// and a [Figure] of the default size. Start the plot with [NewPlot] to keep
// the house style.
type PlotFunc func() (*plot.Plot, error)

// Plot calls f.
func (f PlotFunc) Plot() (*plot.Plot, error) {
	if f == nil {
		return nil, errors.New("chart: PlotFunc is nil")
	}
	return f()
}

// Draw draws the plot built by f on c.
func (f PlotFunc) Draw(c draw.Canvas) error { return drawPanels(c, "", false, f) }

// FigureSize returns [DefaultSize].
func (f PlotFunc) FigureSize() Size { return DefaultSize }

// PNG renders the plot built by f as PNG bytes.
func (f PlotFunc) PNG() ([]byte, error) { return PNG(f) }

// SVG renders the plot built by f as SVG bytes.
func (f PlotFunc) SVG() ([]byte, error) { return SVG(f) }

// PlotOf returns a [PlotFunc] that yields the ready-made plot p. To draw it
// at another size than [DefaultSize], put it in a one-panel [Stack].
func PlotOf(p *plot.Plot) PlotFunc {
	return func() (*plot.Plot, error) {
		if p == nil {
			return nil, errors.New("chart: PlotOf(nil)")
		}
		return p, nil
	}
}

// Stack is a [Figure] of several panels drawn above each other on one
// shared x ruler: every panel gets the union of the panels' x ranges, the
// plotting areas are aligned, and only the bottom panel shows x tick labels
// and the x axis label.
type Stack struct {
	// Title, if not empty, is written above the first panel.
	Title string
	// Panels are drawn top to bottom. There must be at least one.
	Panels []Panel
	// ShareY gives every panel the same y range (the union of their ranges),
	// so that bars of different panels compare by height.
	ShareY bool
	// Size is the rendered size. A zero Width means 8 in; a zero Height
	// means 2.4 in per panel.
	Size Size
}

// Draw draws the stacked panels on c.
func (s Stack) Draw(c draw.Canvas) error {
	if len(s.Panels) == 0 {
		return errors.New("chart: Stack.Panels must hold at least one panel")
	}
	return drawPanels(c, s.Title, s.ShareY, s.Panels...)
}

// FigureSize returns s.Size, defaults filled in.
func (s Stack) FigureSize() Size {
	return s.Size.or(Size{Width: DefaultSize.Width, Height: vg.Length(max(1, len(s.Panels))) * 2.4 * vg.Inch})
}

// PNG renders the stack as PNG bytes.
func (s Stack) PNG() ([]byte, error) { return PNG(s) }

// SVG renders the stack as SVG bytes.
func (s Stack) SVG() ([]byte, error) { return SVG(s) }

// PNG renders f as PNG bytes at its [Figure.FigureSize] and [DPI].
// The same figure always gives the same bytes.
func PNG(f Figure) ([]byte, error) {
	if f == nil {
		return nil, errors.New("chart: PNG(nil)")
	}
	size := f.FigureSize().or(DefaultSize)
	c := vgimg.NewWith(vgimg.UseWH(size.Width, size.Height), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
	if err := f.Draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders f as SVG bytes at its [Figure.FigureSize]. The same figure
// always gives the same bytes. Text refers to the Liberation Sans font by
// name; browsers substitute a sans-serif face when it is not installed.
func SVG(f Figure) ([]byte, error) {
	if f == nil {
		return nil, errors.New("chart: SVG(nil)")
	}
	size := f.FigureSize().or(DefaultSize)
	c := vgsvg.New(size.Width, size.Height)
	if err := f.Draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: encoding SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// drawPanels builds the panels' plots and draws them stacked on c, with a
// shared x range, an optional shared y range, an optional overall title and
// each plot's legend moved into a column right of the plotting area, so
// that it never hides data.
func drawPanels(c draw.Canvas, title string, shareY bool, panels ...Panel) error {
	plots := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		if pn == nil {
			return fmt.Errorf("chart: panel %d is nil", i)
		}
		p, err := pn.Plot()
		if err != nil {
			return err
		}
		if p == nil {
			return fmt.Errorf("chart: panel %d built a nil plot", i)
		}
		plots[i] = p
	}
	if len(plots) > 1 {
		shareRange(plots, func(p *plot.Plot) *plot.Axis { return &p.X })
		if shareY {
			shareRange(plots, func(p *plot.Plot) *plot.Axis { return &p.Y })
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
			out, err = nil, fmt.Errorf("chart: cannot lay out the figure: %v", r)
		}
	}()
	return plot.Align(grid, t, c), nil
}

// checkRanges refuses axis ranges gonum/plot cannot draw (an infinite or
// overflowing span would never finish placing ticks) and widens a
// one-value range on a logarithmic axis, which gonum/plot cannot scale.
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
			return fmt.Errorf("chart: the %s range [%g, %g] is too wide to draw", ax.name, a.Min, a.Max)
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
