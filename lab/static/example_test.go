package static_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/figure/figuretest"
	"github.com/backofflab/backofflab/lab/static"
)

// A figure as PNG bytes: the same figure always gives the same bytes.
func ExamplePNG() {
	png, err := static.PNG(figuretest.Histogram())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("PNG: %q\n", png[:8])
	// In a notebook cell, static.Show(h) draws it inline; elsewhere it does nothing.
	fmt.Println(static.Show(figuretest.Histogram()))
	// Output:
	// PNG: "\x89PNG\r\n\x1a\n"
	// <nil>
}

// Invalid input is an error that names the field.
func ExamplePNG_invalid() {
	_, err := static.PNG(figure.Histogram{Counts: []float64{1, 2}})
	fmt.Println(err)
	// Output: figure: Histogram.Slot must be > 0, got 0s
}

// Lines on a logarithmic x axis, as SVG.
func ExampleSVG() {
	svg, err := static.SVG(figuretest.Lines())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", svg[:21])
	// Output: <?xml version="1.0"?>
}

// A custom gonum/plot figure keeps the house style and the same rendering,
// alone or as a panel of a stack.
func ExamplePlotFunc() {
	f := static.PlotFunc(func() (*plot.Plot, error) {
		p := static.NewPlot("Custom", "x", "y")
		line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}})
		if err != nil {
			return nil, err
		}
		line.Color = figure.Color(0)
		p.Add(line)
		return p, static.AddAnnotations(p, figure.Annotations{VLines: []figure.VLine{{X: 0.5, Label: "half"}}})
	})
	png, err := static.PNG(figure.Stack{Panels: []figure.Figure{f, figuretest.Scatter()}})
	fmt.Println(err, bytes.HasPrefix(png, []byte("\x89PNG")))
	// Output: <nil> true
}

// Save writes the PNG and the SVG of a figure, for the figures command.
func ExampleSave() {
	dir, _ := os.MkdirTemp("", "figures")
	defer os.RemoveAll(dir)
	h := figure.Histogram{Slot: time.Second, Counts: []float64{1, 2, 3}}
	pngPath, svgPath, err := static.Save(h, dir, "waves-histogram")
	fmt.Println(filepath.Base(pngPath), filepath.Base(svgPath), err)
	// Output: waves-histogram.png waves-histogram.svg <nil>
}
