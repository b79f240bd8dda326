package interactive

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/show"
)

// HTML returns the interactive form of f: a figure.Histogram, Lines or
// Scatter, a figure.Stack (one chart per panel, the panels of one quantity
// on one y scale), a figure.Explorable, or a go-echarts chart of your own
// ([ECharts]). The fragment is one or more <div class="backofflab-chart">
// each followed by its <script>; no <html>, no external URL.
//
// A chart's div id is "backofflab-chart-" + 12 hex digits of a hash of its
// options + "-" + the number of fragments with that hash made so far by the
// process, so a notebook run twice gives the same text. Until the script
// runs, the div holds a short note (shown where scripts are not trusted).
// The script loads echarts with the function of [LoaderJS], then draws in
// the first div with its id that has no data-backofflab attribute and sets
// that attribute to "drawn"; if echarts cannot be loaded, it sets "failed"
// and writes in the div that [StartCommand] installs the script.
//
// Every chart zooms through the slider under its x axis; the mouse wheel
// over a chart scrolls the page.
func HTML(f figure.Figure) (string, error) {
	if f == nil {
		return "", errors.New("interactive: no figure (nil)")
	}
	if err := f.Validate(); err != nil {
		return "", err
	}
	switch f := f.(type) {
	case figure.Explorable:
		return explorableHTML(f)
	case figure.Stack:
		return stackHTML(f)
	}
	b, err := panelChart(f, 0, nil)
	if err != nil {
		return "", err
	}
	return chartHTML(b)
}

// Show displays the interactive form of f (see [HTML]) inline in a GoNB
// notebook and waits until the notebook has received it. Outside a notebook
// it does nothing and returns nil.
func Show(f figure.Figure) error {
	if !show.InNotebook() {
		return nil
	}
	html, err := HTML(f)
	if err != nil {
		return err
	}
	return show.HTML(html)
}

// ECharts is a go-echarts chart of your own as a figure.Figure: the escape
// hatch for charts the kinds of lab/figure do not cover, drawn and shown
// like the others ([HTML], [Show]). The chart's own asset settings are
// ignored: echarts comes from the server, as for every figure. JavaScript
// functions in its options (go-echarts' opts.FuncOpts) stay functions.
type ECharts struct {
	// Chart is the go-echarts chart to draw: *charts.Bar, *charts.Line, …
	Chart EChart
	// Height is the height of the chart in pixels; zero means 400.
	Height int
}

// Validate reports a missing chart or a negative height.
func (e ECharts) Validate() error {
	if e.Chart == nil {
		return errors.New("interactive: ECharts.Chart is nil")
	}
	if e.Height < 0 || e.Height > figure.MaxPixels {
		return fmt.Errorf("interactive: ECharts.Height %d out of range: want 0 <= height <= %d (0: 400)", e.Height, figure.MaxPixels)
	}
	return nil
}

// FigureSize returns the default width and the chart's height.
func (e ECharts) FigureSize() figure.Size {
	h := e.Height
	if h == 0 {
		h = 400
	}
	return figure.Size{Width: figure.DefaultSize.Width, Height: h}
}

// panelChart returns the chart of a validated Histogram, Lines, Scatter or
// ECharts, its y axis up to yMax where the figure fixes none (0: fit the
// data) and, with a ruler, drawn on it.
func panelChart(f figure.Figure, yMax float64, r *ruler) (built, error) {
	var b built
	switch f := f.(type) {
	case figure.Histogram:
		b = histogramChart(f, yMax)
	case figure.Lines:
		b = linesChart(f, yMax)
	case figure.Scatter:
		b = scatterChart(f, yMax)
	case ECharts:
		return built{f.Chart, f.FigureSize().Height}, nil
	default:
		return built{}, fmt.Errorf("interactive: cannot draw a %T: want a figure.Histogram, Lines, Scatter, Stack or Explorable, or an ECharts", f)
	}
	if r != nil {
		r.apply(&b, f)
	}
	return b, nil
}

// chartHTML renders the fragment of one built chart.
func chartHTML(b built) (string, error) {
	raw, err := encodeChart(b.chart)
	if err != nil {
		return "", err
	}
	option, err := withFunctions(raw)
	if err != nil {
		return "", err
	}
	return chartFragment(option, raw, b.height)
}

// stackHTML renders a validated stack as one chart per panel, top to bottom,
// the stack's title above them, every panel on the union of the panels' x
// ranges where they are value axes, and the panels of one quantity on one y
// scale (see figure.Stack).
func stackHTML(s figure.Stack) (string, error) {
	groups := s.SharedY()
	top := map[int]float64{}
	for i, p := range s.Panels {
		fixed, data := yExtent(p)
		top[groups[i]] = max(top[groups[i]], fixed, data)
	}
	var b strings.Builder
	if s.Title != "" {
		b.WriteString(`<p class="backofflab-stack-title" style="font:bold 14px sans-serif;text-align:center;margin:4px 0">` + htmlEscape(s.Title) + `</p>`)
	}
	for i, p := range s.Panels {
		yMax := top[groups[i]]
		if fixed, _ := yExtent(p); fixed == 0 {
			yMax = niceMax(yMax)
		}
		c, err := panelChart(p, yMax, nil)
		if err != nil {
			return "", fmt.Errorf("%w (panel %d)", err, i)
		}
		h, err := chartHTML(c)
		if err != nil {
			return "", err
		}
		b.WriteString(h)
	}
	return b.String(), nil
}

// htmlEscape escapes text for HTML.
func htmlEscape(text string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")
	return r.Replace(text)
}

// ruler is the time axis the panels of an explorable with a playhead share,
// from 0 to end (see figure.Playhead), labelled at a round step (see
// [labelStep], at most six labels) on every panel: a value axis from 0 to end without a label
// at end itself, off those steps; a histogram's category axis at the slots
// that start on a step.
//
// Such an explorable redraws all its panels at every click, so each is made
// cheap to draw: its bars and marks in echarts' large mode (all marks of a
// series as one path), and no zoom: zooming one panel would take it off the
// ruler the others share.
type ruler struct{ end float64 }

// apply puts the built chart of f on the ruler.
func (r ruler) apply(b *built, f figure.Figure) {
	bc := baseOf(b.chart)
	if bc == nil {
		return
	}
	step := labelStep(r.end, 6)
	x := &bc.XAxisList[0]
	if h, ok := f.(figure.Histogram); ok {
		x.AxisLabel.Interval = everyNth(categoryInterval(r.end, h.Slot.Seconds(), 6))
	} else {
		x.Min, x.Max = 0, r.end
		x.MinInterval, x.MaxInterval = step, step
		x.AxisLabel = &opts.AxisLabel{ShowMaxLabel: opts.Bool(false)}
	}
	for i := range bc.MultiSeries {
		s := &bc.MultiSeries[i]
		if s.Type == "bar" || s.Type == "scatter" {
			s.Large, s.LargeThreshold = opts.Bool(true), 100
		}
	}
	bc.DataZoomList = nil
	bc.Legend.Type = "" // a plain legend: a few names need no scrolling
	for i := range bc.GridList {
		g := &bc.GridList[i]
		if bottom, err := strconv.Atoi(g.Bottom); err == nil {
			g.Bottom = strconv.Itoa(bottom - noZoomRoom)
		}
	}
	b.height -= noZoomRoom
}

// baseOf returns the options of the go-echarts charts this package builds.
func baseOf(c EChart) *charts.BaseConfiguration {
	switch c := c.(type) {
	case *charts.Bar:
		return &c.BaseConfiguration
	case *charts.Line:
		return &c.BaseConfiguration
	case *charts.Scatter:
		return &c.BaseConfiguration
	}
	return nil
}

// rawOption returns f's option object as JSON, for tests.
func rawOption(f figure.Figure) (map[string]json.RawMessage, error) {
	b, err := panelChart(f, 0, nil)
	if err != nil {
		return nil, err
	}
	raw, err := encodeChart(b.chart)
	if err != nil {
		return nil, err
	}
	var o map[string]json.RawMessage
	return o, json.Unmarshal(raw, &o)
}
