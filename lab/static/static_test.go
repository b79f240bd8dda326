package static

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/figure/figuretest"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func customPanel() PlotFunc {
	return func() (*plot.Plot, error) {
		p := NewPlot("in flight", "time (s)", "calls")
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 3, Y: 8}, {X: 5, Y: 2}})
		if err != nil {
			return nil, err
		}
		p.Add(l)
		p.Legend.Add("in flight", l)
		return p, AddAnnotations(p, figure.Annotations{HLines: []figure.HLine{{Y: 8, Label: "limit"}}})
	}
}

func allFigures() map[string]figure.Figure {
	st := figuretest.Stack()
	st.Panels = append(st.Panels, customPanel())
	return map[string]figure.Figure{
		"histogram": figuretest.Histogram(),
		"layers":    figuretest.Layered(),
		"lines":     figuretest.Lines(),
		"scatter":   figuretest.Scatter(),
		"custom":    customPanel(),
		"stack":     st,
	}
}

func TestPNGDecodesAtExpectedSize(t *testing.T) {
	for name, f := range allFigures() {
		b, err := PNG(f)
		if err != nil {
			t.Fatalf("%s: PNG: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: decoding PNG: %v", name, err)
		}
		size := f.FigureSize()
		if got := img.Bounds().Size(); got.X != size.Width || got.Y != size.Height {
			t.Errorf("%s: PNG is %v, want %dx%d", name, got, size.Width, size.Height)
		}
	}
}

func TestSVGIsXML(t *testing.T) {
	for name, f := range allFigures() {
		b, err := SVG(f)
		if err != nil {
			t.Fatalf("%s: SVG: %v", name, err)
		}
		d := xml.NewDecoder(bytes.NewReader(b))
		root := ""
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not well-formed XML: %v", name, err)
			}
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		if root != "svg" {
			t.Errorf("%s: SVG root element is %q, want svg", name, root)
		}
	}
}

func TestRenderingIsDeterministic(t *testing.T) {
	for name, f := range allFigures() {
		p1, err1 := PNG(f)
		p2, err2 := PNG(f)
		s1, err3 := SVG(f)
		s2, err4 := SVG(f)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			t.Fatalf("%s: %v %v %v %v", name, err1, err2, err3, err4)
		}
		if !bytes.Equal(p1, p2) {
			t.Errorf("%s: two PNG renderings differ", name)
		}
		if !bytes.Equal(s1, s2) {
			t.Errorf("%s: two SVG renderings differ", name)
		}
	}
}

func TestInvalidFiguresAreErrors(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		f    figure.Figure
		want string
	}{
		{"zero slot", figure.Histogram{Counts: []float64{1}}, "Slot must be > 0"},
		{"negative slot", figure.Histogram{Slot: -time.Second, Counts: []float64{1}}, "Slot must be > 0"},
		{"no counts", figure.Histogram{Slot: time.Second}, "no data"},
		{"NaN count", figure.Histogram{Slot: time.Second, Counts: []float64{1, nan}}, "finite"},
		{"negative count", figure.Histogram{Slot: time.Second, Counts: []float64{-1}}, "≥ 0"},
		{"both counts and layers", figure.Histogram{Slot: time.Second, Counts: []float64{1}, Layers: []figure.Layer{{Counts: []float64{1}}}}, "both"},
		{"ragged layers", figure.Histogram{Slot: time.Second, Layers: []figure.Layer{{Counts: []float64{1, 2}}, {Name: "b", Counts: []float64{1}}}}, "one count per slot"},
		{"NaN span", figure.Histogram{Slot: time.Second, Counts: []float64{1}, Spans: []figure.Span{{From: nan, To: 1}}}, "Spans[0]"},
		{"reversed span", figure.Histogram{Slot: time.Second, Counts: []float64{1}, Spans: []figure.Span{{From: 2, To: 1}}}, "From ≤ To"},
		{"Inf hline", figure.Histogram{Slot: time.Second, Counts: []float64{1}, HLines: []figure.HLine{{Y: math.Inf(1)}}}, "HLines[0]"},
		{"negative YMax", figure.Histogram{Slot: time.Second, Counts: []float64{1}, YMax: -1}, "YMax"},
		{"no series", figure.Lines{}, "no Series"},
		{"empty series", figure.Lines{Series: []figure.Series{{Name: "a"}}}, "empty"},
		{"mismatched", figure.Lines{Series: []figure.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}}, "2 X values and 1 Y values"},
		{"NaN point", figure.Lines{Series: []figure.Series{{X: []float64{1}, Y: []float64{nan}}}}, "finite"},
		{"log x zero", figure.Lines{LogX: true, Series: []figure.Series{{X: []float64{0}, Y: []float64{1}}}}, "log x axis"},
		{"log y negative", figure.Lines{LogY: true, Series: []figure.Series{{X: []float64{1}, Y: []float64{-1}}}}, "log y axis"},
		{"log x span at 0", figure.Lines{LogX: true, Series: []figure.Series{{X: []float64{1}, Y: []float64{1}}}, Spans: []figure.Span{{From: 0, To: 1}}}, "From > 0"},
		{"scatter mismatched", figure.Scatter{Series: []figure.Series{{X: []float64{1}, Y: []float64{1, 2}}}}, "must match"},
		{"scatter mark size", figure.Scatter{MarkSize: nan, Series: []figure.Series{{X: []float64{1}, Y: []float64{1}}}}, "MarkSize"},
		{"empty stack", figure.Stack{}, "at least one panel"},
		{"nil panel", figure.Stack{Panels: []figure.Figure{nil}}, "Panels[0] is nil"},
		{"bad panel", figure.Stack{Panels: []figure.Figure{figure.Histogram{}}}, "Slot must be > 0"},
		{"explorable", figuretest.Explorable(), "lab/interactive"},
		{"nil func", PlotFunc(nil), "PlotFunc is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for format, render := range map[string]func(figure.Figure) ([]byte, error){"PNG": PNG, "SVG": SVG} {
				b, err := render(c.f)
				if err == nil {
					t.Errorf("%s: %s returned %d bytes and no error", c.name, format, len(b))
					continue
				}
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %s error %q does not mention %q", c.name, format, err, c.want)
				}
			}
		})
	}
	if _, err := PNG(nil); err == nil {
		t.Error("PNG(nil) returned no error")
	}
}

func TestStackSharesTheXRuler(t *testing.T) {
	short := figure.Histogram{Slot: time.Second, Counts: []float64{1, 2}}                    // x in [0, 2]
	long := figure.Lines{Series: []figure.Series{{X: []float64{1, 30}, Y: []float64{1, 5}}}} // x in [1, 30]
	var plots []*plot.Plot
	for _, pn := range []figure.Figure{short, long} {
		p, err := Plot(pn)
		if err != nil {
			t.Fatal(err)
		}
		plots = append(plots, p)
	}
	shareRange(plots, func(p *plot.Plot) *plot.Axis { return &p.X })
	for i, p := range plots {
		if p.X.Min != 0 || p.X.Max != 30 {
			t.Errorf("panel %d x range = [%v, %v], want [0, 30]", i, p.X.Min, p.X.Max)
		}
	}
}

func TestYMaxFixesTheScale(t *testing.T) {
	h := figure.Histogram{Slot: time.Second, Counts: []float64{1, 2}, YMax: 50}
	p, err := Plot(h)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max != 50 {
		t.Errorf("y range = [%v, %v], want [0, 50]", p.Y.Min, p.Y.Max)
	}
	h.YMax = 0
	if p, _ = Plot(h); p.Y.Max <= 2 {
		t.Errorf("auto y range top = %v, want headroom above 2", p.Y.Max)
	}
}

func BenchmarkHistogramPNG200Slots(b *testing.B) {
	h := figuretest.Histogram()
	for b.Loop() {
		if _, err := PNG(h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistogramSVG200Slots(b *testing.B) {
	h := figuretest.Histogram()
	for b.Loop() {
		if _, err := SVG(h); err != nil {
			b.Fatal(err)
		}
	}
}

// Ranges gonum/plot cannot draw used to hang it while placing ticks; they
// must be errors, and the odd but drawable ones must draw.
func TestExtremeValuesDrawOrFail(t *testing.T) {
	cases := []struct {
		name    string
		f       figure.Figure
		wantErr string // "" for success
	}{
		{"huge counts", figure.Histogram{Slot: time.Second, Counts: []float64{1e308, 1e308}}, ""},
		{"overflowing stack", figure.Histogram{Slot: time.Second, Layers: []figure.Layer{{Counts: []float64{1e308}}, {Counts: []float64{1e308}}}}, "y range"},
		{"overflowing span", figure.Lines{Series: []figure.Series{{X: []float64{-1e308, 1e308}, Y: []float64{0, 1}}}}, "x range"},
		{"1 ns slots", figure.Histogram{Slot: 1, Counts: []float64{1, 2}}, ""},
		{"huge slots", figure.Histogram{Slot: time.Duration(1 << 62), Counts: []float64{1, 2, 3, 4}}, ""},
		{"all zero", figure.Histogram{Slot: time.Second, Counts: []float64{0, 0}}, ""},
		{"one point", figure.Lines{Series: []figure.Series{{X: []float64{1}, Y: []float64{1}}}}, ""},
		{"one point, log axes", figure.Lines{LogX: true, LogY: true, Series: []figure.Series{{X: []float64{1}, Y: []float64{1}}}}, ""},
		{"one huge x", figure.Lines{Series: []figure.Series{{X: []float64{1e117}, Y: []float64{1}}}}, ""},
		{"huge x one ulp apart", figure.Lines{Series: []figure.Series{{X: []float64{1e117, math.Nextafter(1e117, 2e117)}, Y: []float64{1, 2}}}}, ""},
		{"subnormal", figure.Scatter{Series: []figure.Series{{X: []float64{0, 5e-324}, Y: []float64{0, 5e-324}}}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := PNG(c.f); done <- err }()
			select {
			case err := <-done:
				switch {
				case c.wantErr == "" && err != nil:
					t.Errorf("%s: %v", c.name, err)
				case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
					t.Errorf("%s: error %v, want one about %q", c.name, err, c.wantErr)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: rendering did not finish in 10 s", c.name)
			}
		})
	}
}

// A one-slot spike among 40 000 one-millisecond slots is narrower than a
// pixel; it must still be drawn at full height.
func TestNarrowSpikeStaysVisible(t *testing.T) {
	counts := make([]float64, 40000)
	counts[12345] = 600
	b, err := PNG(figure.Histogram{Slot: time.Millisecond, Counts: counts})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	blue := figure.Color(0)
	r := img.Bounds()
	found := 0
	for _, y := range []int{r.Dy() / 3, r.Dy() / 2} { // rows well inside the spike's height
		for x := range r.Dx() {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if uint8(cr>>8) == blue.R && uint8(cg>>8) == blue.G && uint8(cb>>8) == blue.B {
				found++
				break
			}
		}
	}
	if found != 2 {
		t.Errorf("the spike is missing from %d of 2 sampled rows", 2-found)
	}
}

// When slots are narrower than a pixel, every layer of a stacked histogram shows the same slot
// per pixel column, so an upper layer never paints over a lower one from zero.
func TestMergedColumnsKeepLayersStacked(t *testing.T) {
	const n = 40000
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		if i%2 == 0 {
			a[i] = 10 // tall lower layer in even slots
		} else {
			b[i] = 3 // short upper layer alone in odd slots
		}
	}
	h := figure.Histogram{Slot: time.Millisecond, Layers: []figure.Layer{{Name: "a", Counts: a}, {Name: "b", Counts: b}}}
	png, err := PNG(h)
	if err != nil {
		t.Fatal(err)
	}
	img, err := decodePNG(png)
	if err != nil {
		t.Fatal(err)
	}
	want, hidden := figure.Color(0), figure.Color(1)
	var nWant, nHidden int
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			switch c := img.At(x, y); {
			case sameRGB(c, want):
				nWant++
			case sameRGB(c, hidden):
				nHidden++
			}
		}
	}
	// The legend swatch of b is the only place its colour may appear.
	if nWant < 10000 || nHidden > 400 {
		t.Errorf("lower layer drew %d pixels, upper layer %d: the upper layer covers the lower one", nWant, nHidden)
	}
}

func sameRGB(a, b color.Color) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	return ar>>8 == br>>8 && ag>>8 == bg>>8 && ab>>8 == bb>>8
}

func decodePNG(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }

// Panels of one quantity (the same y label) share one y range; others keep
// their own.
func TestStackSharesYByQuantity(t *testing.T) {
	small := figure.Histogram{Slot: time.Second, YLabel: "calls", Counts: []float64{1, 2}}
	tall := figure.Histogram{Slot: time.Second, YLabel: "calls", Counts: []float64{1, 200}}
	other := figure.Histogram{Slot: time.Second, YLabel: "clients", Counts: []float64{1, 2}}
	s := figure.Stack{Panels: []figure.Figure{small, tall, other}}
	if got := s.SharedY(); got[0] != 0 || got[1] != 0 || got[2] != 2 {
		t.Fatalf("SharedY() = %v, want [0 0 2]", got)
	}
	b1, err := PNG(s)
	if err != nil {
		t.Fatal(err)
	}
	small.Counts = []float64{1, 200} // now as tall as its neighbour: the shared scale is the same
	b2, _ := PNG(figure.Stack{Panels: []figure.Figure{small, tall, other}})
	if bytes.Equal(b1, b2) {
		t.Error("changing a panel's data did not change the picture")
	}
}
