package static

import (
	"image/color"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	// textFont is the face of axis labels, tick labels and legends.
	textFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	// titleFont is the face of plot titles.
	titleFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: stdfont.WeightBold}

	labelBacking = color.NRGBA{0xFF, 0xFF, 0xFF, 0xD0}
	gridGray     = color.NRGBA{0xE0, 0xE0, 0xE0, 0xFF}
	dashes       = []vg.Length{vg.Points(5), vg.Points(3)}
)

// NewPlot returns an empty *plot.Plot in the house style of the lessons:
// sans-serif text, a bold title, a light horizontal grid behind the data.
// It is the starting point for custom figures (see [PlotFunc]).
func NewPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(titleFont, 12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(textFont, 11)
		a.Tick.Label.Font = font.From(textFont, 10)
		a.Padding = vg.Points(2)
		a.Tick.Marker = RoundTicks{}
	}
	p.Legend.TextStyle.Font = font.From(textFont, 10)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(16)
	p.Legend.Padding = vg.Points(3)
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = gridGray
	g.Horizontal.Width = vg.Points(0.5)
	p.Add(g)
	return p
}

// lineStyle returns a solid line style in colour c.
func lineStyle(c color.Color, width float64) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(width)}
}
