package chart_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/chart"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// A histogram of attempts per 200 ms slot, with the capacity per slot as a
// dashed line and the outage shaded.
func ExampleHistogram() {
	counts := []float64{0, 0, 0, 0, 0, 600, 0, 0, 0, 0, 600, 0} // a synchronised wave
	h := chart.Histogram{
		Title:  "Attempts per slot, no jitter",
		Slot:   200 * time.Millisecond,
		Counts: counts,
		HLines: []chart.HLine{{Y: 1200 * 0.2, Label: "capacity (1200/s)"}},
		Spans:  []chart.Span{{From: 0, To: 2, Label: "outage"}},
	}
	png, err := h.PNG()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("PNG: %q\n", png[:8])
	// In a notebook cell: chart.Show(h) draws it inline; elsewhere it does nothing.
	fmt.Println(chart.Show(h))
	// Output:
	// PNG: "\x89PNG\r\n\x1a\n"
	// <nil>
}

// Bars split by category are stacked layers.
func ExampleHistogram_layers() {
	h := chart.Histogram{
		Title: "Calls per 100 ms",
		Slot:  100 * time.Millisecond,
		Layers: []chart.Layer{
			{Name: "admitted", Counts: []float64{8, 8, 3, 0}},
			{Name: "refused", Counts: []float64{52, 0, 0, 1}},
		},
		YMax: 130, // the same scale for every policy
	}
	_, err := h.SVG()
	fmt.Println(err)
	// Output: <nil>
}

// Invalid input is an error that names the field.
func ExampleHistogram_invalid() {
	_, err := chart.Histogram{Counts: []float64{1, 2}}.PNG()
	fmt.Println(err)
	// Output: chart: Histogram.Slot must be > 0, got 0s
}

// The interactive version of a figure is an HTML fragment: a div and the
// script that loads echarts from the Jupyter server and draws in it.
func ExampleHistogram_HTML() {
	h := chart.Histogram{Slot: time.Second, Counts: []float64{3, 1, 4, 1, 5}}
	html, err := h.HTML()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(html, `<div id="backofflab-chart-`))
	fmt.Println(strings.Contains(html, "function backofflabLoadECharts"))
	fmt.Println(strings.Contains(html, "https://"))
	// Output:
	// true
	// true
	// false
}

// Reported peak against slot width, on a logarithmic x axis.
func ExampleLines() {
	widths := []float64{0.001, 0.01, 0.1, 1}
	l := chart.Lines{
		Title:  "Reported peak vs slot width",
		XLabel: "slot width (s)",
		YLabel: "peak (attempts/s)",
		LogX:   true,
		Points: true,
		Series: []chart.Series{
			{Name: "no jitter", X: widths, Y: []float64{600000, 60000, 6000, 600}},
			{Name: "full jitter", X: widths, Y: []float64{3000, 1500, 925, 600}},
		},
	}
	svg, err := l.SVG()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", svg[:21])
	// Output: <?xml version="1.0"?>
}

// One lane per client, one mark per attempt, a colour per outcome.
func ExampleScatter() {
	s := chart.Scatter{
		Title:  "Attempts per client",
		XLabel: "time (s)",
		YLabel: "client",
		Series: []chart.Series{
			{Name: "refused", X: []float64{0, 0.1, 0.3, 0}, Y: []float64{0, 0, 0, 1}},
			{Name: "admitted", X: []float64{3.2, 3.1}, Y: []float64{0, 1}},
		},
		Spans: []chart.Span{{From: 0, To: 3, Label: "outage"}},
	}
	png, err := s.PNG()
	fmt.Println(err, bytes.HasPrefix(png, []byte("\x89PNG")))
	// Output: <nil> true
}

// Panels stacked on one time ruler: the x range is shared and only the
// bottom panel labels it.
func ExampleStack() {
	calls := chart.Histogram{Title: "Calls", Slot: 100 * time.Millisecond, Counts: []float64{60, 0, 0, 8, 8}}
	inFlight := chart.Lines{
		Title: "In flight", YLabel: "calls", XLabel: "time (s)", Step: true,
		Series: []chart.Series{{Name: "in flight", X: []float64{0, 0.3, 0.5}, Y: []float64{0, 8, 0}}},
		HLines: []chart.HLine{{Y: 8, Label: "limit"}},
	}
	st := chart.Stack{Panels: []chart.Panel{calls, inFlight}}
	w, h := st.FigureSize().Pixels()
	_, err := st.PNG()
	fmt.Println(w, h, err)
	// Output: 768 461 <nil>
}

// A custom gonum/plot panel keeps the house style and the same rendering.
func ExamplePlotFunc() {
	f := chart.PlotFunc(func() (*plot.Plot, error) {
		p := chart.NewPlot("Custom", "x", "y")
		line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}})
		if err != nil {
			return nil, err
		}
		line.Color = chart.Color(0)
		p.Add(line)
		return p, chart.Annotations{VLines: []chart.VLine{{X: 0.5, Label: "half"}}}.AddTo(p)
	})
	_, err := f.PNG()
	fmt.Println(err)
	// Output: <nil>
}

// Save writes the PNG and the SVG of a figure, for the figures command.
func ExampleSave() {
	dir, _ := os.MkdirTemp("", "figures")
	defer os.RemoveAll(dir)
	h := chart.Histogram{Slot: time.Second, Counts: []float64{1, 2, 3}}
	pngPath, svgPath, err := chart.Save(h, dir, "waves-histogram")
	fmt.Println(filepath.Base(pngPath), filepath.Base(svgPath), err)
	// Output: waves-histogram.png waves-histogram.svg <nil>
}

// Where the set-up must put the echarts script, relative to the Jupyter
// base URL, in the order the fragment tries them.
func ExampleAssetPaths() {
	for _, p := range chart.AssetPaths() {
		fmt.Println(p)
	}
	// Output:
	// files/notebooks/assets/echarts.min.js
	// files/assets/echarts.min.js
}

// The echarts option object of a figure is JSON, built from typed Go
// structs: what the fragment draws and an Explorable switches between.
func ExampleHistogram_Option() {
	h := chart.Histogram{Title: `"Quoted" </script>`, Slot: time.Second, Counts: []float64{3, 1, 4}}
	raw, err := h.Option()
	if err != nil {
		fmt.Println(err)
		return
	}
	var o struct {
		Title  struct{ Text string }
		Series []struct {
			Type string
			Data []float64
		}
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o.Title.Text)
	fmt.Println(o.Series[0].Type, o.Series[0].Data)
	// Output:
	// "Quoted" </script>
	// bar [3 1 4]
}
