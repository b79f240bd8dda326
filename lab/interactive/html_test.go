package interactive

import (
	"encoding/json"
	"maps"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/figure/figuretest"
	"github.com/backofflab/backofflab/lab/show"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

func allInteractive() map[string]figure.Figure {
	line := charts.NewLine()
	line.SetXAxis([]string{"a", "b"}).AddSeries("s", []opts.LineData{{Value: 1}, {Value: 2}})
	return map[string]figure.Figure{
		"histogram": figuretest.Histogram(),
		"lines":     figuretest.Lines(),
		"scatter":   figuretest.Scatter(),
		"echarts":   ECharts{Chart: line},
		"stack":     figuretest.Stack(),
	}
}

var idPattern = regexp.MustCompile(`<div id="(backofflab-chart-([0-9a-f]{12})-(\d+))"`)

// optionOf extracts and decodes the echarts option object of a fragment.
func optionOf(t *testing.T, html string) map[string]any { return jsVar(t, html, "option") }

// jsVar extracts and decodes the JSON value of "var name = …;" in a
// fragment's script.
func jsVar(t *testing.T, html, name string) map[string]any {
	t.Helper()
	_, rest, ok := strings.Cut(html, "var "+name+" = ")
	if !ok {
		t.Fatalf("fragment has no %s:\n%s", name, html)
	}
	js, _, ok := strings.Cut(rest, ";\n")
	if !ok {
		t.Fatalf("%s is not terminated", name)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(withoutFunctions(strings.ReplaceAll(js, `<\/`, `</`))), &o); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", name, err, js)
	}
	return o
}

// withoutFunctions replaces every JavaScript function literal in js (a
// script value that is otherwise JSON) with the string "function".
func withoutFunctions(js string) string {
	var b strings.Builder
	for {
		i := strings.Index(js, "function (")
		if i < 0 {
			return b.String() + js
		}
		b.WriteString(js[:i])
		depth, j := 0, strings.Index(js[i:], "{")+i
		for ; j < len(js); j++ {
			if js[j] == '{' {
				depth++
			} else if js[j] == '}' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		b.WriteString(`"function"`)
		js = js[j+1:]
	}
}

func TestFragmentLoadsEChartsOnlyFromJupyter(t *testing.T) {
	for name, f := range allInteractive() {
		html, err := HTML(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lower := strings.ToLower(html)
		for _, bad := range []string{"http://", "https://", "cdn", "jsdelivr", "unpkg", "assets.go-echarts", "<html", "<head", "<body", "<script src"} {
			if strings.Contains(lower, bad) {
				t.Errorf("%s: fragment contains %q", name, bad)
			}
		}
		for _, want := range append(AssetPaths(), "function backofflabLoadECharts(done, fail)", "jupyter-config-data", "echarts.init", StartCommand) {
			if !strings.Contains(html, want) {
				t.Errorf("%s: fragment lacks %q", name, want)
			}
		}
		charts := strings.Count(html, `class="backofflab-chart"`)
		if charts == 0 || strings.Count(html, "<script") != charts || strings.Count(html, "</script>") != charts {
			t.Errorf("%s: fragment should hold one script element per chart", name)
		}
		m := idPattern.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("%s: no div with a backofflab-chart id:\n%.300s", name, html)
		}
		if !strings.Contains(html, `var id = "`+m[1]+`"`) {
			t.Errorf("%s: the script does not draw into its div %s", name, m[1])
		}
		optionOf(t, html)
	}
}

func TestFragmentIDsAreStable(t *testing.T) {
	h := figuretest.Histogram()
	h.Title = "stable id test"
	a, err := HTML(h)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := HTML(h)
	ma, mb := idPattern.FindStringSubmatch(a), idPattern.FindStringSubmatch(b)
	if ma[2] != mb[2] {
		t.Errorf("same figure, different hashes: %s, %s", ma[1], mb[1])
	}
	if ma[1] == mb[1] {
		t.Errorf("two fragments in one process share the id %s", ma[1])
	}
	if strings.ReplaceAll(b, mb[1], ma[1]) != a {
		t.Error("two fragments of the same figure differ in more than the id counter")
	}
	h.Title = "another title"
	c, _ := HTML(h)
	if mc := idPattern.FindStringSubmatch(c); mc[2] == ma[2] {
		t.Errorf("different figures share the hash %s", mc[2])
	}
}

func TestFragmentOptions(t *testing.T) {
	h := figuretest.Histogram()
	h.Counts = nil
	h.Layers = []figure.Layer{{Name: "admitted", Counts: []float64{1, 2, 3}}, {Name: "refused", Counts: []float64{4, 5, 6}}}
	html, err := HTML(h)
	if err != nil {
		t.Fatal(err)
	}
	o := optionOf(t, html)
	series := o["series"].([]any)
	if len(series) != 2 {
		t.Fatalf("histogram has %d series, want 2", len(series))
	}
	for _, s := range series {
		s := s.(map[string]any)
		if s["type"] != "bar" || s["stack"] != "slots" {
			t.Errorf("layer %v is not a stacked bar", s["name"])
		}
	}
	first := series[0].(map[string]any)
	if _, ok := first["markArea"]; !ok {
		t.Error("the outage span is not a markArea")
	}
	if _, ok := first["markLine"]; !ok {
		t.Error("the capacity line is not a markLine")
	}
	if got := o["xAxis"].([]any)[0].(map[string]any)["data"].([]any); len(got) != 3 || got[1] != "0.2" {
		t.Errorf("x categories = %v, want slot starts 0, 0.2, 0.4", got)
	}
	// One zoom, the slider: an "inside" zoom would take the mouse wheel
	// from the page.
	if z := o["dataZoom"].([]any); len(z) != 1 || z[0].(map[string]any)["type"] != "slider" {
		t.Errorf("dataZoom = %v, want the slider alone", z)
	}

	l := figuretest.Lines()
	l.Step = true
	html, err = HTML(l)
	if err != nil {
		t.Fatal(err)
	}
	o = optionOf(t, html)
	if typ := o["xAxis"].([]any)[0].(map[string]any)["type"]; typ != "log" {
		t.Errorf("LogX gives x axis type %v, want log", typ)
	}
	s0 := o["series"].([]any)[0].(map[string]any)
	if s0["step"] != "end" || s0["type"] != "line" {
		t.Errorf("step series = %v", s0)
	}
	if pt := s0["data"].([]any)[0].([]any); pt[0] != 0.001 || pt[1] != 600000.0 {
		t.Errorf("first point = %v, want [0.001 600000]", pt)
	}
}

func TestFragmentEscapesScriptEnd(t *testing.T) {
	h := figure.Histogram{Title: "a</script><b>", Slot: time.Second, Counts: []float64{1}}
	html, err := HTML(h)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(html, "</script>") != 1 {
		t.Error("a title with </script> ends the script early")
	}
	if o := optionOf(t, html); o["title"].(map[string]any)["text"] != "a</script><b>" {
		t.Errorf("title = %v", o["title"])
	}
}

func TestInvalidInteractiveFiguresAreErrors(t *testing.T) {
	cases := map[string]figure.Figure{
		"zero slot":       figure.Histogram{Counts: []float64{1}},
		"NaN count":       figure.Histogram{Slot: time.Second, Counts: []float64{math.NaN()}},
		"no series":       figure.Lines{},
		"mismatched":      figure.Lines{Series: []figure.Series{{X: []float64{1, 2}, Y: []float64{1}}}},
		"scatter empty":   figure.Scatter{Series: []figure.Series{{Name: "x"}}},
		"nil chart":       ECharts{},
		"negative height": ECharts{Chart: charts.NewLine(), Height: -1},
		"nil":             nil,
		"custom static":   figure.Stack{},
	}
	for name, f := range cases {
		if html, err := HTML(f); err == nil {
			t.Errorf("%s: no error, got %d bytes", name, len(html))
		}
	}
}

func TestShowOutsideANotebookDoesNothing(t *testing.T) {
	if show.InNotebook() {
		t.Skip("running inside GoNB")
	}
	if err := Show(ECharts{}); err != nil {
		t.Errorf("Show outside a notebook = %v, want nil", err)
	}
}

func BenchmarkHistogramHTML200Slots(b *testing.B) {
	h := figuretest.Histogram()
	for b.Loop() {
		if _, err := HTML(h); err != nil {
			b.Fatal(err)
		}
	}
}

// The interactive figures' labels keep clear of each other and of the axes:
// markers closer than a label's height put their labels on alternate sides
// (then at the middle of the line), an unlabelled marker prints nothing (not
// its value), and a note on the first bar starts at it instead of
// straddling the y axis's labels.
func TestInteractiveLabelsKeepClear(t *testing.T) {
	h := figure.Histogram{Slot: 100 * time.Millisecond, Layers: []figure.Layer{{Counts: make([]float64, 257)}},
		VLines: []figure.VLine{{X: 25.6, Label: "exponential 25.6 s"}, {X: 5.7, Label: "equal 5.7 s"}, {X: 6.1, Label: "decorrelated 6.1 s"},
			{X: 6.15, Label: "third"}, {X: 6.45, Label: "fourth"}, {X: 15}, {X: 4.5, Label: "constant 4.5 s"}},
		Notes: []figure.Note{{X: 0.05, Y: 60, Text: "60 calls"}, {X: 12, Y: 5, Text: "middle"}, {X: 25.65, Y: 5, Text: "last"}}}
	h.Layers[0].Counts[0] = 60
	b, err := panelChart(h, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := encodeChart(b.chart)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Series []struct {
			MarkLine struct {
				Data []struct {
					Name  string
					Label struct {
						Show     *bool
						Position string
					}
				}
			}
			MarkPoint struct {
				Data []struct {
					Value string
					Label struct{ Align string }
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range o.Series[0].MarkLine.Data {
		if d.Name == "" {
			if d.Label.Show == nil || *d.Label.Show {
				t.Errorf("an unlabelled marker's label shows (%v): echarts prints its value", d.Label.Show)
			}
			continue
		}
		got[d.Name] = d.Label.Position
	}
	want := map[string]string{"constant 4.5 s": "insideEndTop", "equal 5.7 s": "insideEndTop", "decorrelated 6.1 s": "insideEndBottom",
		"third": "insideMiddleTop", "fourth": "insideMiddleBottom", "exponential 25.6 s": "insideEndTop"}
	if !maps.Equal(got, want) {
		t.Errorf("marker labels at %v, want %v", got, want)
	}
	aligns := map[string]string{}
	for _, d := range o.Series[0].MarkPoint.Data {
		aligns[d.Value] = d.Label.Align
	}
	if want := map[string]string{"60 calls": "left", "middle": "", "last": "right"}; !maps.Equal(aligns, want) {
		t.Errorf("notes aligned %v, want %v", aligns, want)
	}
}
