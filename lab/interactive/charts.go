package interactive

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/backofflab/backofflab/lab/figure"
)

// EChart is what this package needs of a go-echarts chart: every chart type
// of github.com/go-echarts/go-echarts/v2/charts (*charts.Bar, *charts.Line,
// *charts.Scatter, …) has these methods.
type EChart interface {
	// Validate completes the chart's options before rendering.
	Validate()
	// JSON returns the chart's echarts option object.
	JSON() map[string]interface{}
}

// built is a figure's go-echarts chart and the height it is drawn at.
type built struct {
	chart  EChart
	height int
}

// The room, in pixels, that the interactive figures keep around the plot
// area: for the title and legend above, the x axis's labels, name and zoom
// slider below.
const (
	gridTop, gridRight, gridBottom = 64, 40, 84
	// zoomRoom is the height the zoom slider adds to a figure's static
	// height; a figure without zoom (on a ruler) does without noZoomRoom
	// of it.
	zoomRoom, noZoomRoom = 64, 36
)

// valueFormatter prints a tooltip's numbers as a reader would write them:
// integers whole, other numbers to six significant digits without trailing
// zeros (never "10.0000000000"); [x, y] pairs as "x, y".
const valueFormatter = `function (v) {
  var f = function (x) { return typeof x !== "number" ? x : Number.isInteger(x) ? String(x) : String(+x.toPrecision(6)); };
  return Array.isArray(v) ? v.map(f).join(", ") : f(v);
}`

// axisValueFormatter prints the value of a numeric x axis under the
// pointer and in the tooltip's header as valueFormatter prints numbers
// (echarts writes a log axis's value to ten decimals).
const axisValueFormatter = `function (p) { var x = p.value; return Number.isInteger(x) ? String(x) : String(+x.toPrecision(6)); }`

// globals returns the options every interactive figure shares: no
// animation, the palette, a centred title, a tooltip that formats numbers,
// a scrolling legend (shown with legend), room around the plot, and the
// zoom slider on the x axis, which is the only zoom: the mouse wheel over a
// chart scrolls the page, as it does everywhere else.
func globals(title string, legend bool, trigger string, yName string) []charts.GlobalOpts {
	colors := make(opts.Colors, len(figure.Palette))
	for i, c := range figure.Palette {
		colors[i] = figure.Hex(c)
	}
	left := max(64, int(math.Ceil(labelWidth(yName)/2))+8) // the y axis's name is centred on the axis: room for its left half
	return []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithColorsOpts(colors),
		charts.WithTitleOpts(opts.Title{Title: title, Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger, ValueFormatter: opts.FuncOpts(valueFormatter)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(legend), Top: "28", Type: "scroll"}),
		charts.WithGridOpts(opts.Grid{Left: strconv.Itoa(left), Right: strconv.Itoa(gridRight), Top: strconv.Itoa(gridTop), Bottom: strconv.Itoa(gridBottom)}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: 0}),
	}
}

// xAxis returns the options of an x axis named name.
func xAxis(kind, name string) opts.XAxis {
	x := opts.XAxis{Type: kind, Name: name, NameLocation: "middle", NameGap: 28, AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true)}}
	if kind != "category" {
		// go-echarts types this formatter as a template string; marked as a
		// function (opts.FuncOpts) it reaches the page as one.
		x.AxisPointer = &opts.AxisPointer{Label: &opts.Label{Formatter: string(opts.FuncOpts(axisValueFormatter))}}
	}
	return x
}

// yAxis returns the options of a y axis named name from min (nil: echarts
// chooses) to yMax (0: echarts chooses).
func yAxis(kind, name string, min any, yMax float64) opts.YAxis {
	y := opts.YAxis{Type: kind, Name: name, Min: min}
	if yMax > 0 {
		y.Max = yMax
	}
	return y
}

// axisType returns the echarts type of a numeric axis.
func axisType(log bool) string {
	if log {
		return "log"
	}
	return "value"
}

// heightOf is the height of a figure's interactive form: the static height
// plus room for the zoom slider.
func heightOf(f figure.Figure) int { return f.FigureSize().Height + zoomRoom }

// trimFloat formats x compactly for axis category labels.
func trimFloat(x float64) string {
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
}

// largeBars is the most bars a histogram's interactive form draws one by
// one; more go to echarts' large mode, one path for the whole series, which
// a page redraws several times faster (lesson 02's 1 ms frame has 2000).
const largeBars = 400

// histogramChart returns the go-echarts bar chart of a validated histogram,
// its y axis up to yMax if the histogram sets none: bars per slot (stacked
// layers), a tooltip per slot, a legend for named layers, the annotations.
func histogramChart(h figure.Histogram, yMax float64) built {
	layers := h.Stacked()
	n := len(layers[0].Counts)
	start, slot := h.Start.Seconds(), h.Slot.Seconds()
	labels := make([]string, n)
	for i := range labels {
		labels[i] = trimFloat(start + float64(i)*slot)
	}
	named := false
	for _, l := range layers {
		named = named || l.Name != ""
	}
	if h.YMax > 0 {
		yMax = h.YMax
	}
	x := xAxis("category", h.XAxisLabel())
	// Labels at round times, as far apart as ten labels across the axis
	// need: echarts' own choice for hundreds of slots prints them into each
	// other ("0 0.81.62.43.2 4").
	x.AxisLabel.Interval = everyNth(categoryInterval(float64(n)*slot, slot, 10))
	// A tick at every slot, not drawn: echarts puts the ends of a bar
	// series' mark areas (the outage) on the axis's ticks, so ticks only at
	// the labels would move the end of an outage to the next label.
	x.AxisTick = &opts.AxisTick{Show: opts.Bool(false), Interval: everyNth(0)}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(globals(h.Title, named, "axis", h.YAxisLabel()),
		charts.WithXAxisOpts(x),
		charts.WithYAxisOpts(yAxis("value", h.YAxisLabel(), 0, yMax)))...)
	bar.SetXAxis(labels)
	for _, l := range layers {
		bar.AddSeries(l.Name, nil, charts.WithBarChartOpts(opts.BarChart{Stack: "slots", BarCategoryGap: "5%"}))
		s := &bar.MultiSeries[len(bar.MultiSeries)-1]
		s.Data = l.Counts // plain numbers: a notebook keeps every frame's bars
		if n > largeBars && len(layers) == 1 {
			s.Large = opts.Bool(true) // echarts' large mode: many bars, quickly (unstacked only)
		}
	}
	annotate(&bar.MultiSeries[0], h.Annotations(), func(x float64) float64 {
		i := math.Floor((x - start) / slot)
		return math.Max(0, math.Min(float64(n-1), i))
	}, [2]float64{-0.5, float64(n) - 0.5})
	return built{bar, heightOf(h)}
}

// everyNth returns an echarts label interval that shows every (skip+1)-th
// category from the first. go-echarts types the interval as a string, which
// echarts does not read as a number; a function (opts.FuncOpts) it reads.
func everyNth(skip int) string {
	return string(opts.FuncOpts(fmt.Sprintf("function (i) { return i %% %d === 0; }", skip+1)))
}

// categoryInterval returns the echarts label interval (the categories
// skipped between two labels) of a category axis of slots slot wide over
// span: a label every labelStep(span, most), in whole slots.
func categoryInterval(span, slot float64, most int) int {
	if !(slot > 0) {
		return 0
	}
	return max(0, int(math.Ceil(labelStep(span, most)/slot-1e-9))-1)
}

// labelStep returns the round step, 1, 2 or 5 times a power of ten, that
// labels an axis of span units at most most times.
func labelStep(span float64, most int) float64 {
	if !(span > 0) || math.IsInf(span, 0) || most < 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(span/float64(most))))
	for {
		for _, m := range []float64{1, 2, 5} {
			if span/(m*p) <= float64(most) {
				return m * p
			}
		}
		p *= 10
	}
}

// xyData returns the points of s as echarts [x, y] pairs.
func xyData(s figure.Series) [][2]float64 {
	d := make([][2]float64, len(s.X))
	for i := range d {
		d[i] = [2]float64{s.X[i], s.Y[i]}
	}
	return d
}

func identity(x float64) float64 { return x }

// xSpan returns the range of the x values of series and of a, the span
// annotate lays labels out over; none on a log axis.
func xSpan(series []figure.Series, a figure.Annotations, log bool) [2]float64 {
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

// linesChart returns the go-echarts line chart of validated lines, the y
// axis up to yMax if the figure sets none: one line per series with a legend
// to hide and show them, a tooltip, the annotations.
func linesChart(l figure.Lines, yMax float64) built {
	if l.YMax > 0 {
		yMax = l.YMax
	}
	line := charts.NewLine()
	line.SetGlobalOptions(append(globals(l.Title, true, "axis", l.YLabel),
		charts.WithXAxisOpts(xAxis(axisType(l.LogX), l.XLabel)),
		charts.WithYAxisOpts(yAxis(axisType(l.LogY), l.YLabel, nil, yMax)))...)
	for _, s := range l.Series {
		lc := opts.LineChart{ShowSymbol: opts.Bool(l.Points), Symbol: "circle"}
		if l.Step {
			lc.Step = "end"
		}
		line.AddSeries(s.Name, nil, charts.WithLineChartOpts(lc))
		line.MultiSeries[len(line.MultiSeries)-1].Data = xyData(s)
	}
	annotate(&line.MultiSeries[0], l.Annotations(), identity, xSpan(l.Series, l.Annotations(), l.LogX))
	return built{line, heightOf(l)}
}

// scatterChart returns the go-echarts scatter chart of a validated scatter,
// the y axis up to yMax if the figure sets none: one colour per series with
// a legend to hide and show them, a tooltip per mark, the annotations.
func scatterChart(s figure.Scatter, yMax float64) built {
	if s.YMax > 0 {
		yMax = s.YMax
	}
	sc := charts.NewScatter()
	sc.SetGlobalOptions(append(globals(s.Title, true, "item", s.YLabel),
		charts.WithXAxisOpts(xAxis("value", s.XLabel)),
		charts.WithYAxisOpts(yAxis("value", s.YLabel, nil, yMax)))...)
	size := int(math.Max(2, math.Round(s.Radius()*2*96/72))) // diameter in pixels
	for _, ser := range s.Series {
		sc.AddSeries(ser.Name, nil)
		last := &sc.MultiSeries[len(sc.MultiSeries)-1]
		last.Data, last.SymbolSize = xyData(ser), size
	}
	annotate(&sc.MultiSeries[0], s.Annotations(), identity, xSpan(s.Series, s.Annotations(), false))
	return built{sc, heightOf(s)}
}

// yExtent returns the y-axis top a figure fixes (0 if none) and the top of
// its data and lines (0 on a log axis, which a shared scale leaves alone).
func yExtent(f figure.Figure) (fixed, data float64) {
	top := func(hs []figure.HLine) float64 {
		m := 0.0
		for _, h := range hs {
			m = max(m, h.Y)
		}
		return m
	}
	switch f := f.(type) {
	case figure.Histogram:
		base := make([]float64, f.Slots())
		for _, l := range f.Stacked() {
			for i, c := range l.Counts {
				base[i] += c
			}
		}
		for _, b := range base {
			data = max(data, b)
		}
		return f.YMax, max(data, top(f.HLines))
	case figure.Lines:
		if f.LogY {
			return f.YMax, 0
		}
		for _, s := range f.Series {
			for _, y := range s.Y {
				data = max(data, y)
			}
		}
		return f.YMax, max(data, top(f.HLines))
	case figure.Scatter:
		for _, s := range f.Series {
			for _, y := range s.Y {
				data = max(data, y)
			}
		}
		return f.YMax, max(data, top(f.HLines))
	}
	return 0, 0
}

// niceMax returns the least round number (a whole multiple of 1, 2 or 5
// times a power of ten, about a tenth of x) at or above x, so that an axis
// up to it ends on a round value; 0 for x ≤ 0.
func niceMax(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 0
	}
	raw := x / 10
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw*(1-1e-12) {
			step = m * p
			break
		}
	}
	return math.Ceil(x/step*(1-1e-12)) * step
}

// markItem is one mark line (XAxis or YAxis), one end of a mark area
// (XAxis) or one mark point (Coord, Value): go-echarts leaves the items of
// its mark components open (their Data are []interface{}), and these carry
// the label of each item.
type markItem struct {
	Name      string          `json:"name,omitempty"`
	XAxis     *float64        `json:"xAxis,omitempty"`
	YAxis     *float64        `json:"yAxis,omitempty"`
	Coord     []float64       `json:"coord,omitempty"`
	Value     string          `json:"value,omitempty"`
	Label     *opts.Label     `json:"label,omitempty"`
	ItemStyle *opts.ItemStyle `json:"itemStyle,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// annotate adds a to series s: the lines as dashed mark lines, the spans as
// mark areas, the notes as mark points. toX converts an annotation's x value
// to the x axis (an index on category axes); span is the x axis's range in
// those units, from which the labels are laid out (see [layoutWidth]) so
// that none covers another or an axis label.
func annotate(s *charts.SingleSeries, a figure.Annotations, toX func(float64) float64, span [2]float64) {
	px := func(x float64) float64 { return 0 }
	if span[1] > span[0] {
		px = func(x float64) float64 { return (x - span[0]) / (span[1] - span[0]) * layoutWidth }
	}
	gray := figure.Hex(figure.AnnotationGray)
	var lines []interface{}
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
		s.MarkLines = &opts.MarkLines{Data: lines, MarkLineStyle: opts.MarkLineStyle{Symbol: []string{"none", "none"},
			LineStyle: &opts.LineStyle{Type: "dashed", Color: gray, Width: 1}}}
	}
	var areas []interface{}
	for _, sp := range a.Spans {
		from := markItem{XAxis: ptr(toX(sp.From)), Name: sp.Label}
		if sp.Color != nil {
			from.ItemStyle = &opts.ItemStyle{Color: figure.RGBA(sp.Color)}
		}
		areas = append(areas, [2]markItem{from, {XAxis: ptr(toX(sp.To))}})
	}
	if len(areas) > 0 {
		s.MarkAreas = &opts.MarkAreas{Data: areas, MarkAreaStyle: opts.MarkAreaStyle{
			ItemStyle: &opts.ItemStyle{Color: figure.RGBA(figure.SpanFill)},
			Label:     &opts.Label{Position: "insideTopLeft", Color: gray}}}
	}
	var points []interface{}
	for _, n := range a.Notes {
		p := markItem{Coord: []float64{toX(n.X), n.Y}, Value: n.Text}
		// As the static figure's notes: centred on the point unless that
		// puts the text outside the plot, over the y axis's labels.
		w, x := labelWidth(n.Text), px(toX(n.X))
		if span[1] > span[0] && x-w/2 < 0 {
			p.Label = &opts.Label{Align: "left"}
		} else if span[1] > span[0] && x+w/2 > layoutWidth {
			p.Label = &opts.Label{Align: "right"}
		}
		points = append(points, p)
	}
	if len(points) > 0 {
		s.MarkPoints = &opts.MarkPoints{Data: points, MarkPointStyle: opts.MarkPointStyle{SymbolSize: 1,
			Label: &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{c}", Color: gray}}}
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
func vLabelPositions(xs []float64, lines []figure.VLine) []string {
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
func markLabel(text string) *opts.Label {
	if text == "" {
		return &opts.Label{Show: opts.Bool(false)}
	}
	return &opts.Label{Formatter: text, Position: "insideEndTop"}
}

// encodeChart completes c and returns its option object as JSON.
func encodeChart(c EChart) (json.RawMessage, error) {
	c.Validate()
	raw, err := json.Marshal(c.JSON())
	if err != nil {
		return nil, fmt.Errorf("interactive: encoding echarts options: %w", err)
	}
	return raw, nil
}
