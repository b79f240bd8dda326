package chart

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Where the Jupyter server serves the echarts script. The set-up copies
// node_modules/echarts/dist/echarts.min.js (echarts v5, the major version
// go-echarts v2 targets) to notebooks/assets/; see [AssetPaths] and [LoaderJS].
const (
	// EChartsAssetName is the file name of the echarts script.
	EChartsAssetName = "echarts.min.js"
	// NotebookAssetsDir is the folder, beside the lessons in notebooks/,
	// that holds the script (notebooks/assets/echarts.min.js), served by
	// JupyterLab and Notebook 7 under files/.
	NotebookAssetsDir = "assets"
	// StartCommand is what the fragment tells the reader to run when the
	// script cannot be loaded.
	StartCommand = "scripts/start"
)

// AssetPaths returns the URL paths, relative to the Jupyter base URL, at
// which the fragment looks for the echarts script, in the order it tries
// them: the file server of JupyterLab / Notebook 7 rooted at the repository
// (as scripts/start runs it), then the same server rooted at notebooks/.
func AssetPaths() []string {
	return []string{
		"files/notebooks/" + NotebookAssetsDir + "/" + EChartsAssetName,
		"files/" + NotebookAssetsDir + "/" + EChartsAssetName,
	}
}

// SiteAssetPath is the path, relative to the page, at which the fragment
// looks for the echarts script last: where the static HTML edition of the
// course (scripts/build-site) puts it beside its pages, so that a page
// opened from disk or from any static file server finds it.
const SiteAssetPath = NotebookAssetsDir + "/" + EChartsAssetName

// LoaderJS returns the JavaScript source of the function
//
//	backofflabLoadECharts(done, fail)
//
// that every fragment embeds: the file web/loader.js of this package. It
// reads the candidate URLs from the variable assets that the fragment
// declares around it, {"paths": [AssetPaths]..., "site": [SiteAssetPath]}.
// It finds the Jupyter base URL (the "baseUrl" of <script
// id="jupyter-config-data"> in JupyterLab and Notebook 7, "/" otherwise)
// and tries base + each of [AssetPaths], then [SiteAssetPath] relative to
// the page (that one first in a page without jupyter-config-data, such as
// the static site). It calls done(window.echarts) if echarts is already
// loaded; else it adds a <script> for the first candidate and, on error,
// for the next (hiding a stray AMD define meanwhile, so that echarts sets
// window.echarts), then calls done or fail(reason). Charts waiting at the
// same time share one load.
//
// done and fail are always called asynchronously.
func LoaderJS() string { return loaderJS }

// EChart is what [ECharts] needs of a go-echarts chart: every chart type of
// github.com/go-echarts/go-echarts/v2/charts (*charts.Bar, *charts.Line,
// *charts.Scatter, …) has these methods.
type EChart interface {
	// Validate completes the chart's options before rendering.
	Validate()
	// JSON returns the chart's echarts option object.
	JSON() map[string]interface{}
}

// ECharts is an interactive figure built directly with go-echarts: the
// escape hatch for charts the figures of this package do not cover. Its
// HTML loads echarts like the other figures do (see [LoaderJS]); the asset
// settings of the go-echarts chart are ignored.
type ECharts struct {
	// Chart is the go-echarts chart to draw.
	Chart EChart
	// Height is the height of the chart in pixels; zero means 400.
	Height int
}

// HTML returns the chart's HTML fragment: a <div> with a deterministic id
// and a <script> that loads echarts from the Jupyter server and draws.
// JavaScript functions in the options (go-echarts' opts.FuncOpts) stay
// functions; one that holds "</script" or "<!--" is an error.
func (e ECharts) HTML() (string, error) {
	if e.Chart == nil {
		return "", errors.New("chart: ECharts.Chart is nil")
	}
	if e.Height < 0 {
		return "", fmt.Errorf("chart: ECharts.Height must be ≥ 0, got %d", e.Height)
	}
	e.Chart.Validate()
	raw, err := json.Marshal(e.Chart.JSON())
	if err != nil {
		return "", fmt.Errorf("chart: encoding echarts options: %w", err)
	}
	option, err := withFunctions(raw)
	if err != nil {
		return "", err
	}
	return chartFragment(option, raw, e.Height)
}

// newOption returns the option of an interactive figure with what all of
// them share: title, tooltip, legend, zooming on the x axis, the palette,
// room for title and legend; and the axes x and y.
func newOption(title string, legend bool, trigger string, x, y axisOpt) echartsOption {
	colors := make([]string, len(Palette))
	for i, c := range Palette {
		colors[i] = hexColor(c)
	}
	x.NameLocation, x.NameGap = "middle", 28
	x.AxisLabel = &axisLabelOpt{HideOverlap: true}
	return echartsOption{
		Color:    colors,
		Title:    titleOpt{Text: title, Left: "center"},
		Tooltip:  tooltipOpt{Show: true, Trigger: trigger},
		Legend:   legendOpt{Show: legend, Top: 28, Type: "scroll"},
		Grid:     gridOpt{Left: max(64, int(math.Ceil(labelWidth(y.Name)/2))+8), Right: 40, Top: 64, Bottom: 84}, // the y axis's name is centred on the axis: room for its left half
		DataZoom: []dataZoomOpt{{Type: "inside"}, {Type: "slider", Height: 18, Bottom: 8}},
		XAxis:    []axisOpt{x},
		YAxis:    []axisOpt{y},
	}
}

// annotate adds a to the first series of o: the lines as dashed mark
// lines, the spans as mark areas, the notes as mark points. toX converts
// an annotation's x value to the x axis (an index on category axes); span
// is the x axis's range in those units, from which the labels are laid
// out (see [layoutWidth]) so that none covers another or an axis label.
func (o *echartsOption) annotate(a Annotations, toX func(float64) float64, span [2]float64) {
	if len(o.Series) == 0 {
		return
	}
	px := func(x float64) float64 { return 0 }
	if span[1] > span[0] {
		px = func(x float64) float64 { return (x - span[0]) / (span[1] - span[0]) * layoutWidth }
	}
	first := &o.Series[0]
	gray := hexColor(annotationGray)
	var lines []markItem
	for _, h := range a.HLines {
		lines = append(lines, markItem{YAxis: ptr(h.Y), Name: h.Label, Label: markLabel(h.Label)})
	}
	vx := make([]float64, len(a.VLines))
	for i, v := range a.VLines {
		vx[i] = px(toX(v.X))
	}
	sides := vLabelPositions(vx, a.VLines)
	for i, v := range a.VLines {
		label := markLabel(v.Label)
		if v.Label != "" {
			label.Position = sides[i]
		}
		lines = append(lines, markItem{XAxis: ptr(toX(v.X)), Name: v.Label, Label: label})
	}
	if len(lines) > 0 {
		first.MarkLine = &markLineOpt{Symbol: [2]string{"none", "none"}, Silent: true,
			LineStyle: styleOpt{Type: "dashed", Color: gray, Width: 1}, Data: lines}
	}
	var areas [][2]markItem
	for _, s := range a.Spans {
		from := markItem{XAxis: ptr(toX(s.From)), Name: s.Label}
		if s.Color != nil {
			from.ItemStyle = &styleOpt{Color: rgbaColor(s.Color)}
		}
		areas = append(areas, [2]markItem{from, {XAxis: ptr(toX(s.To))}})
	}
	if len(areas) > 0 {
		first.MarkArea = &markAreaOpt{Silent: true, ItemStyle: styleOpt{Color: "rgba(128,128,128,0.19)"},
			Label: labelOpt{Position: "insideTopLeft", Color: gray}, Data: areas}
	}
	var points []markItem
	for _, n := range a.Notes {
		p := markItem{Coord: []float64{toX(n.X), n.Y}, Value: n.Text}
		// As the static figure's notes: centred on the point unless that
		// puts the text outside the plot, over the y axis's labels.
		w, x := labelWidth(n.Text), px(toX(n.X))
		if span[1] > span[0] && x-w/2 < 0 {
			p.Label = &labelOpt{Align: "left"}
		} else if span[1] > span[0] && x+w/2 > layoutWidth {
			p.Label = &labelOpt{Align: "right"}
		}
		points = append(points, p)
	}
	if len(points) > 0 {
		first.MarkPoint = &markPointOpt{Symbol: "circle", SymbolSize: 1, Silent: true,
			Label: labelOpt{Show: ptr(true), Position: "top", Formatter: "{c}", Color: gray}, Data: points}
	}
}

// layoutWidth is the width in pixels of the plot area the interactive
// figures' labels are laid out for: that of a figure in a narrow notebook
// (a wider one only spreads them further apart).
const layoutWidth = 640

// labelFont is the size in pixels of echarts' label text, and labelWidth
// an upper bound of the width of a label in it.
const labelFont = 12

func labelWidth(text string) float64 { return 0.62 * labelFont * float64(len([]rune(text))) }

// vLabelPositions returns the echarts position of the label of each of
// lines, whose x pixels (for [layoutWidth]) are xs. A label is written
// along its line, turned upright, at the line's top end: on its left
// ("insideEndTop"); if that comes closer than a gap to a label already
// placed, on its right ("insideEndBottom"); then on either side of the
// line's middle ("insideMiddleTop", "insideMiddleBottom"). Labels are
// placed from left to right; where none of the four is clear, the first.
func vLabelPositions(xs []float64, lines []VLine) []string {
	const gap = 3.0
	type place struct {
		from, to float64
		middle   bool
	}
	candidates := []struct {
		name          string
		middle, right bool
	}{{"insideEndTop", false, false}, {"insideEndBottom", false, true}, {"insideMiddleTop", true, false}, {"insideMiddleBottom", true, true}}
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]] < xs[order[b]] })
	pos := make([]string, len(xs))
	var placed []place
	for _, i := range order {
		if lines[i].Label == "" {
			continue
		}
		pos[i] = candidates[0].name
		choice := place{xs[i] - labelFont - gap, xs[i], false}
		for _, c := range candidates {
			p := place{xs[i] - labelFont - gap, xs[i], c.middle}
			if c.right {
				p.from, p.to = xs[i], xs[i]+labelFont+gap
			}
			clear := true
			for _, q := range placed {
				if q.middle == p.middle && p.from < q.to+gap && q.from < p.to+gap {
					clear = false
					break
				}
			}
			if clear {
				pos[i], choice = c.name, p
				break
			}
		}
		placed = append(placed, choice)
	}
	return pos
}

// markLabel returns the label of a mark line: its text at the line's end,
// or none for an unlabelled line (echarts would print its value).
func markLabel(text string) *labelOpt {
	if text == "" {
		return &labelOpt{Show: ptr(false)}
	}
	return &labelOpt{Formatter: text, Position: "insideEndTop"}
}

func ptr[T any](v T) *T { return &v }

// encode returns o as JSON.
func (o echartsOption) encode() (json.RawMessage, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("chart: encoding echarts options: %w", err)
	}
	return raw, nil
}

// heightPixels is the height of an interactive figure: the static height
// plus room for the zoom slider.
func heightPixels(s Size) int {
	_, h := s.Pixels()
	return h + 64
}

// trimFloat formats x compactly for axis category labels.
func trimFloat(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
}

// largeBars is the most bars a histogram's interactive form draws one by
// one; more go to echarts' large mode, one path for the whole series, which
// a page redraws several times faster (lesson 02's 1 ms frame has 2000).
const largeBars = 400

// HTML returns the histogram as an interactive HTML fragment: bars per slot
// (stacked layers), a tooltip per slot, a legend for named layers, zooming
// on the time axis, the annotations as mark lines and areas.
func (h Histogram) HTML() (string, error) {
	o, err := h.Option()
	if err != nil {
		return "", err
	}
	return chartFragment(o, o, h.Height())
}

// Height returns the height in pixels of the figure's interactive form:
// the static height plus room for the zoom slider.
func (h Histogram) Height() int { return heightPixels(h.FigureSize()) }

// Option returns the echarts option object that [Histogram.HTML] draws, as
// JSON, for an [Explorable] to switch between.
func (h Histogram) Option() (json.RawMessage, error) {
	if _, err := h.Plot(); err != nil { // the same checks as the static figure
		return nil, err
	}
	layers, _ := h.layers()
	n := len(layers[0].Counts)
	start, slot := h.Start.Seconds(), h.Slot.Seconds()
	labels := make([]string, n)
	for i := range labels {
		labels[i] = trimFloat(start + float64(i)*slot)
	}
	xLabel := h.XLabel
	if xLabel == "" {
		xLabel = "slot start (s)"
	}
	named := false
	for _, l := range layers {
		named = named || l.Name != ""
	}
	y := axisOpt{Type: "value", Name: h.yLabel(), Min: ptr(0.0)}
	if h.YMax > 0 {
		y.Max = h.YMax
	}
	o := newOption(h.Title, named, "axis", axisOpt{Type: "category", Name: xLabel, Data: labels}, y)
	for _, l := range layers {
		o.Series = append(o.Series, seriesOpt{Type: "bar", Name: l.Name, Data: l.Counts, Stack: "slots", BarCategoryGap: "5%",
			Large: n > largeBars && len(layers) == 1}) // echarts' large mode: many bars, quickly (unstacked only)
	}
	o.annotate(h.annotations(), func(x float64) float64 {
		i := math.Floor((x - start) / slot)
		return math.Max(0, math.Min(float64(n-1), i))
	}, [2]float64{-0.5, float64(n) - 0.5})
	return o.encode()
}

// xyData returns the points of s as echarts [x, y] pairs.
func xyData(s Series) [][2]float64 {
	d := make([][2]float64, len(s.X))
	for i := range d {
		d[i] = [2]float64{s.X[i], s.Y[i]}
	}
	return d
}

// axisType returns the echarts type of a numeric axis.
func axisType(log bool) string {
	if log {
		return "log"
	}
	return "value"
}

func identity(x float64) float64 { return x }

// xSpan returns the range of the x values of series and of a, the span
// [echartsOption.annotate] lays labels out over; none on a log axis.
func xSpan(series []Series, a Annotations, log bool) [2]float64 {
	if log {
		return [2]float64{}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, x := range s.X {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	for _, v := range a.VLines {
		lo, hi = math.Min(lo, v.X), math.Max(hi, v.X)
	}
	for _, s := range a.Spans {
		lo, hi = math.Min(lo, s.From), math.Max(hi, s.To)
	}
	for _, n := range a.Notes {
		lo, hi = math.Min(lo, n.X), math.Max(hi, n.X)
	}
	if !(hi > lo) {
		return [2]float64{}
	}
	return [2]float64{lo, hi}
}

// HTML returns the lines as an interactive HTML fragment: one line per
// series with a legend to hide and show them, a tooltip, zooming on the x
// axis, the annotations as mark lines and areas.
func (l Lines) HTML() (string, error) {
	o, err := l.Option()
	if err != nil {
		return "", err
	}
	return chartFragment(o, o, l.Height())
}

// Height returns the height in pixels of the figure's interactive form:
// the static height plus room for the zoom slider.
func (l Lines) Height() int { return heightPixels(l.FigureSize()) }

// Option returns the echarts option object that [Lines.HTML] draws, as
// JSON, for an [Explorable] to switch between.
func (l Lines) Option() (json.RawMessage, error) {
	if _, err := l.Plot(); err != nil { // the same checks as the static figure
		return nil, err
	}
	y := axisOpt{Type: axisType(l.LogY), Name: l.YLabel}
	if l.YMax > 0 {
		y.Max = l.YMax
	}
	o := newOption(l.Title, true, "axis", axisOpt{Type: axisType(l.LogX), Name: l.XLabel}, y)
	for _, s := range l.Series {
		line := seriesOpt{Type: "line", Name: s.Name, Data: xyData(s), ShowSymbol: ptr(l.Points), Symbol: "circle"}
		if l.Step {
			line.Step = "end"
		}
		o.Series = append(o.Series, line)
	}
	o.annotate(l.annotations(), identity, xSpan(l.Series, l.annotations(), l.LogX))
	return o.encode()
}

// HTML returns the scatter plot as an interactive HTML fragment: one colour
// per series with a legend to hide and show them, a tooltip per mark,
// zooming on the x axis, the annotations as mark lines and areas.
func (s Scatter) HTML() (string, error) {
	o, err := s.Option()
	if err != nil {
		return "", err
	}
	return chartFragment(o, o, s.Height())
}

// Height returns the height in pixels of the figure's interactive form:
// the static height plus room for the zoom slider.
func (s Scatter) Height() int { return heightPixels(s.FigureSize()) }

// Option returns the echarts option object that [Scatter.HTML] draws, as
// JSON, for an [Explorable] to switch between.
func (s Scatter) Option() (json.RawMessage, error) {
	if _, err := s.Plot(); err != nil { // the same checks as the static figure
		return nil, err
	}
	y := axisOpt{Type: "value", Name: s.YLabel}
	if s.YMax > 0 {
		y.Max = s.YMax
	}
	o := newOption(s.Title, true, "item", axisOpt{Type: "value", Name: s.XLabel}, y)
	size := int(math.Max(2, math.Round(s.markSize()*2*96/72))) // diameter in pixels
	for _, ser := range s.Series {
		o.Series = append(o.Series, seriesOpt{Type: "scatter", Name: ser.Name, Data: xyData(ser), SymbolSize: size})
	}
	o.annotate(s.annotations(), identity, xSpan(s.Series, s.annotations(), false))
	return o.encode()
}
