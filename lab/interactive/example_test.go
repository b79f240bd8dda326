package interactive_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
)

// The interactive form of a figure is an HTML fragment: a div and the
// script that loads echarts from the server that serves the page and
// draws in it.
func ExampleHTML() {
	h := figure.Histogram{Slot: time.Second, Counts: []float64{3, 1, 4, 1, 5}}
	html, err := interactive.HTML(h)
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

// A go-echarts chart of your own, drawn like the lab's figures: in a
// notebook cell, interactive.Show(interactive.ECharts{Chart: bar}).
func ExampleECharts() {
	bar := charts.NewBar()
	bar.SetGlobalOptions(charts.WithTitleOpts(opts.Title{Title: "Waits before the third retry"}))
	bar.SetXAxis([]string{"0–100 ms", "100–200 ms", "200–300 ms", "300–400 ms"})
	bar.AddSeries("clients", []opts.BarData{{Value: 152}, {Value: 147}, {Value: 160}, {Value: 141}})
	html, err := interactive.HTML(interactive.ECharts{Chart: bar, Height: 300})
	fmt.Println(err, strings.Contains(html, "height:300px"), strings.Contains(html, "Waits before the third retry"))
	// Output: <nil> true true
}

// Where the set-up must put the echarts script, relative to the Jupyter
// base URL, in the order the fragment tries them.
func ExampleAssetPaths() {
	for _, p := range interactive.AssetPaths() {
		fmt.Println(p)
	}
	// Output:
	// files/notebooks/assets/echarts.min.js
	// files/assets/echarts.min.js
}
