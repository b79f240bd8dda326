package static

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"slices"
	"testing"

	"github.com/backofflab/backofflab/lab/figure"
	"gonum.org/v1/plot/vg"
)

func TestStaggerRows(t *testing.T) {
	pt := vg.Points
	for _, c := range []struct {
		name    string
		labels  []extent
		maxRows int
		want    []int
	}{
		{"apart", []extent{{pt(0), pt(40)}, {pt(50), pt(90)}, {pt(100), pt(140)}}, 0, []int{0, 0, 0}},
		{"crowded", []extent{{pt(0), pt(40)}, {pt(10), pt(50)}, {pt(20), pt(60)}}, 0, []int{0, 1, 2}},
		// Within the gap (4 pt) counts as a clash.
		{"touching", []extent{{pt(0), pt(40)}, {pt(42), pt(80)}}, 0, []int{0, 1}},
		// A later label goes back to the first row that has room.
		{"back to the top", []extent{{pt(0), pt(40)}, {pt(10), pt(50)}, {pt(60), pt(100)}}, 0, []int{0, 1, 0}},
		{"wraps", []extent{{pt(0), pt(40)}, {pt(10), pt(50)}, {pt(20), pt(60)}}, 2, []int{0, 1, 0}},
		{"none", nil, 3, []int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := staggerRows(c.labels, pt(4), c.maxRows); !slices.Equal(got, c.want) {
				t.Errorf("%s: rows %v, want %v", c.name, got, c.want)
			}
		})
	}
}

// Finish markers close together must not share a row of labels: the
// labels are drawn and the figure still renders with markers in any order.
func TestCloseMarkersRender(t *testing.T) {
	l := figure.Lines{
		Series: []figure.Series{{Name: "s", X: []float64{0, 30}, Y: []float64{0, 1}}},
		VLines: []figure.VLine{{X: 6.1, Label: "decorrelated 6.1 s"}, {X: 4.5, Label: "flat 4.5 s"}, {X: 5.7, Label: "equal 5.7 s"},
			{X: 7.2, Label: "full 7.2 s"}, {X: 25.6, Label: "exponential 25.6 s"}, {X: 10, Label: ""}},
	}
	if _, err := PNG(l); err != nil {
		t.Fatal(err)
	}
}

// reddish counts the pixels of a PNG that are clearly red rather than grey.
func reddish(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if int(c.R) > int(c.G)+60 && int(c.R) > int(c.B)+60 {
				n++
			}
		}
	}
	return n
}

func TestSpanColor(t *testing.T) {
	red := color.NRGBA{0xFF, 0, 0, 0x80}
	h := figure.Histogram{Slot: 1e9, Counts: []float64{1, 2, 3, 2, 1, 1, 1, 1, 1, 1}}
	h.Spans = []figure.Span{{From: 2, To: 8, Label: "grey"}}
	grey, err := PNG(h)
	if err != nil {
		t.Fatal(err)
	}
	h.Spans[0].Color = red
	coloured, err := PNG(h)
	if err != nil {
		t.Fatal(err)
	}
	// The band covers about 6/10 of a plotting area of several hundred
	// pixels on each side: tens of thousands of red pixels.
	if n := reddish(t, grey); n != 0 {
		t.Errorf("default span: %d red pixels, want none", n)
	}
	if n := reddish(t, coloured); n < 20000 {
		t.Errorf("red span: %d red pixels, want a band of them", n)
	}
}

func TestCentreInside(t *testing.T) {
	pt := vg.Points
	for _, c := range []struct{ x, w, want vg.Length }{
		{pt(50), pt(20), pt(50)},  // room on both sides: centred on x
		{pt(2), pt(20), pt(10)},   // at the left edge: moved right
		{pt(99), pt(20), pt(90)},  // at the right edge: moved left
		{pt(50), pt(200), pt(50)}, // wider than the plot: the plot's middle
		{pt(-30), pt(10), pt(5)},  // outside the plot
	} {
		t.Run(fmt.Sprintf("x=%v,w=%v", c.x, c.w), func(t *testing.T) {
			if got := centreInside(c.x, c.w, 0, pt(100)); got != c.want {
				t.Errorf("centreInside(%v, %v, 0, 100pt) = %v, want %v", c.x, c.w, got, c.want)
			}
		})
	}
}
