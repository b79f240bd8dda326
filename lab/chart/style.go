package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is the sequence of colours given to series in order: the
// Okabe–Ito colours, which stay distinguishable for colour-blind readers.
// The interactive figures use the same colours.
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x99, 0x88, 0x22, 0xFF}, // olive (darker than Okabe–Ito yellow, readable on white)
	{0x33, 0x33, 0x33, 0xFF}, // near black
}

// Color returns the i-th colour of [Palette], wrapping around; a negative i
// is treated as 0.
func Color(i int) color.NRGBA {
	if i < 0 {
		i = 0
	}
	return Palette[i%len(Palette)]
}

// hexColor formats c as "#rrggbb" for echarts.
func hexColor(c color.NRGBA) string {
	const digits = "0123456789abcdef"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range []uint8{c.R, c.G, c.B} {
		b[1+2*i] = digits[v>>4]
		b[2+2*i] = digits[v&0xF]
	}
	return string(b)
}

// rgbaColor formats c as "rgba(r,g,b,a)" for echarts, keeping its
// transparency.
func rgbaColor(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("rgba(%d,%d,%d,%s)", n.R, n.G, n.B, strconv.FormatFloat(math.Round(float64(n.A)/255*1000)/1000, 'f', -1, 64))
}

var (
	// textFont is the face of axis labels, tick labels and legends.
	textFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	// titleFont is the face of plot titles.
	titleFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: stdfont.WeightBold}

	annotationGray = color.NRGBA{0x44, 0x44, 0x44, 0xFF}
	spanFill       = color.NRGBA{0x80, 0x80, 0x80, 0x30}
	labelBacking   = color.NRGBA{0xFF, 0xFF, 0xFF, 0xD0}
	gridGray       = color.NRGBA{0xE0, 0xE0, 0xE0, 0xFF}
	dashes         = []vg.Length{vg.Points(5), vg.Points(3)}
)

// NewPlot returns an empty *plot.Plot in the house style of the lessons:
// sans-serif text, a bold title, a light horizontal grid behind the data.
// It is the starting point for custom panels (see [PlotFunc]).
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
