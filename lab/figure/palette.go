package figure

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
)

// Palette is the sequence of colours given to series in order, by both
// renderers: the Okabe–Ito colours, which stay distinguishable for
// colour-blind readers.
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

// The colours of the decorations, shared by the renderers.
var (
	// AnnotationGray is the colour of reference lines and their labels.
	AnnotationGray = color.NRGBA{0x44, 0x44, 0x44, 0xFF}
	// SpanFill is the default fill of a Span.
	SpanFill = color.NRGBA{0x80, 0x80, 0x80, 0x30}
)

// Hex formats c as "#rrggbb", without its transparency.
func Hex(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
}

// RGBA formats c as "rgba(r,g,b,a)", keeping its transparency.
func RGBA(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("rgba(%d,%d,%d,%s)", n.R, n.G, n.B, strconv.FormatFloat(math.Round(float64(n.A)/255*1000)/1000, 'f', -1, 64))
}
