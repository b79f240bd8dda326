package chart

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

func allInteractive() map[string]Interactive {
	line := charts.NewLine()
	line.SetXAxis([]string{"a", "b"}).AddSeries("s", []opts.LineData{{Value: 1}, {Value: 2}})
	return map[string]Interactive{
		"histogram": sampleHistogram(),
		"lines":     sampleLines(),
		"scatter":   sampleScatter(),
		"echarts":   ECharts{Chart: line},
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
	if err := json.Unmarshal([]byte(strings.ReplaceAll(js, `<\/`, `</`)), &o); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", name, err, js)
	}
	return o
}

func TestFragmentLoadsEChartsOnlyFromJupyter(t *testing.T) {
	for name, f := range allInteractive() {
		html, err := f.HTML()
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
		if strings.Count(html, "<script") != 1 || strings.Count(html, "</script>") != 1 {
			t.Errorf("%s: fragment should hold exactly one script element", name)
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
	h := sampleHistogram()
	h.Title = "stable id test"
	a, err := h.HTML()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.HTML()
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
	c, _ := h.HTML()
	if mc := idPattern.FindStringSubmatch(c); mc[2] == ma[2] {
		t.Errorf("different figures share the hash %s", mc[2])
	}
}

func TestFragmentOptions(t *testing.T) {
	h := sampleHistogram()
	h.Counts = nil
	h.Layers = []Layer{{Name: "admitted", Counts: []float64{1, 2, 3}}, {Name: "refused", Counts: []float64{4, 5, 6}}}
	html, err := h.HTML()
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
	if len(o["dataZoom"].([]any)) != 2 {
		t.Error("histogram should zoom (inside and slider)")
	}

	l := sampleLines()
	l.Step = true
	html, err = l.HTML()
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
	h := Histogram{Title: "a</script><b>", Slot: time.Second, Counts: []float64{1}}
	html, err := h.HTML()
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
	cases := map[string]Interactive{
		"zero slot":       Histogram{Counts: []float64{1}},
		"NaN count":       Histogram{Slot: time.Second, Counts: []float64{math.NaN()}},
		"no series":       Lines{},
		"mismatched":      Lines{Series: []Series{{X: []float64{1, 2}, Y: []float64{1}}}},
		"scatter empty":   Scatter{Series: []Series{{Name: "x"}}},
		"nil chart":       ECharts{},
		"negative height": ECharts{Chart: charts.NewLine(), Height: -1},
	}
	for name, f := range cases {
		if html, err := f.HTML(); err == nil {
			t.Errorf("%s: no error, got %d bytes", name, len(html))
		}
	}
}

func TestShowOutsideANotebookDoesNothing(t *testing.T) {
	if InNotebook() {
		t.Skip("running inside GoNB")
	}
	if err := Show(Histogram{}); err != nil {
		t.Errorf("Show outside a notebook = %v, want nil", err)
	}
	if err := ShowSVG(nil); err != nil {
		t.Errorf("ShowSVG outside a notebook = %v, want nil", err)
	}
	if err := ShowInteractive(ECharts{}); err != nil {
		t.Errorf("ShowInteractive outside a notebook = %v, want nil", err)
	}
}

func TestSaveWritesPNGAndSVG(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	pngPath, svgPath, err := Save(sampleHistogram(), dir, "waves-01")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{pngPath, svgPath} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if filepath.Base(pngPath) != "waves-01.png" || filepath.Base(svgPath) != "waves-01.svg" {
		t.Errorf("paths = %s, %s", pngPath, svgPath)
	}
	for _, bad := range []string{"", "a/b", "..", "."} {
		if _, _, err := Save(sampleHistogram(), dir, bad); err == nil {
			t.Errorf("Save name %q: no error", bad)
		}
	}
	if _, _, err := Save(Histogram{}, dir, "bad"); err == nil {
		t.Error("Save of an invalid figure: no error")
	}
}

func BenchmarkHistogramHTML200Slots(b *testing.B) {
	h := sampleHistogram()
	for b.Loop() {
		if _, err := h.HTML(); err != nil {
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
	h := Histogram{Slot: 100 * time.Millisecond, Layers: []Layer{{Counts: make([]float64, 257)}},
		VLines: []VLine{{X: 25.6, Label: "exponential 25.6 s"}, {X: 5.7, Label: "equal 5.7 s"}, {X: 6.1, Label: "decorrelated 6.1 s"},
			{X: 6.15, Label: "third"}, {X: 6.45, Label: "fourth"}, {X: 15}, {X: 4.5, Label: "constant 4.5 s"}},
		Notes: []Note{{X: 0.05, Y: 60, Text: "60 calls"}, {X: 12, Y: 5, Text: "middle"}, {X: 25.65, Y: 5, Text: "last"}}}
	h.Layers[0].Counts[0] = 60
	raw, err := h.Option()
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
