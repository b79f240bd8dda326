package interactive

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
)

// twoFrames is an explorable of one slider over two histograms that differ
// in their counts and title only.
func twoFrames() figure.Explorable {
	a := figure.Histogram{Title: "a", Slot: time.Second, Counts: []float64{1, 2, 3}}
	b := a
	b.Title, b.Counts = "b", []float64{3, 2, 1}
	return figure.Explorable{
		Controls: []figure.Control{{Label: "setting", Values: []string{"a", "b"}, Start: 1}},
		Frames:   []figure.Frame{{Panels: []figure.Figure{a}, Readout: "at a"}, {Panels: []figure.Figure{b}, Readout: "at b"}},
	}
}

// specOf decodes the spec object of an explorable's fragment.
func specOf(t *testing.T, html string) map[string]any { return jsVar(t, html, "spec") }

func TestExplorableSendsOnlyWhatChanges(t *testing.T) {
	html, err := HTML(twoFrames())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="backofflab-chart backofflab-explorable"`, "function backofflabLoadECharts(done, fail)", `type = "range"`, "aria-valuetext", "<output", "setOption"} {
		if !strings.Contains(html, want) && !strings.Contains(html, strings.Trim(want, "<")) {
			t.Errorf("fragment lacks %q", want)
		}
	}
	spec := specOf(t, html)
	frames := spec["frames"].([]any)
	if len(frames) != 2 {
		t.Fatalf("%d frames, want 2", len(frames))
	}
	if first := frames[0].([]any)[0].(map[string]any); len(first) != 0 {
		t.Errorf("frame 0 repeats the base: %v", first)
	}
	second := frames[1].([]any)[0].(map[string]any)
	if len(second) != 2 || second["title"] == nil || second["series"] == nil {
		t.Errorf("frame 1 holds %v, want only title and series", second)
	}
	data := second["series"].([]any)[0].(map[string]any)["data"].([]any)
	if len(data) != 3 || data[0] != 3.0 || data[2] != 1.0 {
		t.Errorf("frame 1's data %v, want plain values 3, 2, 1", data)
	}
	if r := spec["readouts"].([]any); r[0] != "at a" || r[1] != "at b" {
		t.Errorf("readouts %v", r)
	}
	if c := spec["controls"].([]any)[0].(map[string]any); c["start"] != 1.0 || c["label"] != "setting" {
		t.Errorf("control %v", c)
	}
	if m := spec["maxLayers"]; m != float64(MaxLayers) {
		t.Errorf("maxLayers %v, want MaxLayers (%d), which the page reads", m, MaxLayers)
	}
}

func TestExplorableRejectsBadShapes(t *testing.T) {
	h := figure.Histogram{Slot: time.Second, Counts: []float64{1}}
	one := []figure.Frame{{Panels: []figure.Figure{h}}}
	for name, e := range map[string]figure.Explorable{
		"no controls":  {Frames: one},
		"no values":    {Controls: []figure.Control{{Label: "x"}}, Frames: one},
		"bad start":    {Controls: []figure.Control{{Label: "x", Values: []string{"a"}, Start: 1}}, Frames: one},
		"few frames":   {Controls: []figure.Control{{Label: "x", Values: []string{"a", "b"}}}, Frames: one},
		"no panels":    {Controls: []figure.Control{{Label: "x", Values: []string{"a"}}}, Frames: []figure.Frame{{}}},
		"nil panel":    {Controls: []figure.Control{{Label: "x", Values: []string{"a"}}}, Frames: []figure.Frame{{Panels: []figure.Figure{nil}}}},
		"bad figure":   {Controls: []figure.Control{{Label: "x", Values: []string{"a"}}}, Frames: []figure.Frame{{Panels: []figure.Figure{figure.Histogram{}}}}},
		"panels apart": {Controls: []figure.Control{{Label: "x", Values: []string{"a", "b"}}}, Frames: []figure.Frame{{Panels: []figure.Figure{h}}, {Panels: []figure.Figure{h, h}}}},
		"too many": {Controls: []figure.Control{{Label: "x", Values: make([]string, 40)}, {Label: "y", Values: make([]string, 40)}},
			Frames: one},
	} {
		if _, err := HTML(e); err == nil || !strings.HasPrefix(err.Error(), "figure: ") {
			t.Errorf("%s: error %v, want one starting figure:", name, err)
		}
	}
}

func TestExplorableRowMajorFrames(t *testing.T) {
	h := figure.Histogram{Slot: time.Second, Counts: []float64{1}}
	e := figure.Explorable{Controls: []figure.Control{{Label: "x", Values: []string{"1", "2"}}, {Label: "y", Values: []string{"a", "b", "c"}, Buttons: true}}}
	for i := 0; i < 6; i++ {
		e.Frames = append(e.Frames, figure.Frame{Panels: []figure.Figure{h}})
	}
	html, err := HTML(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "f = f * c.values.length + pos[k]") {
		t.Error("the page does not index frames row-major")
	}
	if c := specOf(t, html)["controls"].([]any)[1].(map[string]any); c["buttons"] != true {
		t.Errorf("second control %v, want buttons", c)
	}
}

// A frame shaped unlike the first (here: without the outage span, so its
// series has no markArea) is listed for replacement, so the page does not
// merge it over a frame that had the span.
func TestExplorableReplacesWhatChangesShape(t *testing.T) {
	e := twoFrames()
	withSpan := e.Frames[0].Panels[0].(figure.Histogram)
	withSpan.Spans = []figure.Span{{From: 0, To: 1, Label: "outage"}}
	e.Frames[0].Panels[0] = withSpan
	html, err := HTML(e)
	if err != nil {
		t.Fatal(err)
	}
	replace := specOf(t, html)["replace"].(map[string]any)
	got, ok := replace["1"].([]any)
	if len(replace) != 1 || !ok || len(got) != 1 || len(got[0].([]any)) != 1 || got[0].([]any)[0] != "series" {
		t.Errorf("replace = %v, want {\"1\": [[\"series\"]]}", replace)
	}
	if strings.Count(html, "replaceMerge: replace") != 1 {
		t.Error("the page does not pass the keys to replace to echarts")
	}
}

// withPlayhead is twoFrames with buttons, notes and a playhead of three
// positions whose one tally is printed on the buttons.
func withPlayhead() figure.Explorable {
	e := twoFrames()
	e.Controls[0].Buttons = true
	e.Controls[0].Notes = []string{"note a", "note b"}
	e.Playhead = &figure.Playhead{Label: "time", Unit: "s", Start: 0, End: 1.9, Step: 1,
		Tallies: []figure.Tally{{Name: "calls", Counts: [][]int{{1, 2, 3}, {4, 5, 6}}}}}
	return e
}

func TestExplorablePlayheadSpec(t *testing.T) {
	e := withPlayhead()
	if n := e.Playhead.Positions(); n != 3 {
		t.Errorf("0 to 1.9 in steps of 1: %d positions, want 3 (0, 1, 2)", n)
	}
	html, err := HTML(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"backofflab-playhead", "backofflab-cursor", "requestAnimationFrame", "data-time", "backofflab-tally", "backofflab-note"} {
		if !strings.Contains(html, want) {
			t.Errorf("fragment lacks %q", want)
		}
	}
	spec := specOf(t, html)
	ph := spec["playhead"].(map[string]any)
	if ph["positions"] != 3.0 || ph["rate"] != 0.19 || ph["label"] != "time" {
		t.Errorf("playhead %v, want 3 positions and the span in 10 s (0.19 a second)", ph)
	}
	if counts := ph["tallies"].([]any)[0].(map[string]any)["counts"].([]any); len(counts) != 2 {
		t.Errorf("tally counts %v", counts)
	}
	if notes := spec["controls"].([]any)[0].(map[string]any)["notes"].([]any); notes[1] != "note b" {
		t.Errorf("notes %v", notes)
	}
	plain, err := HTML(twoFrames())
	if err != nil {
		t.Fatal(err)
	}
	if p := specOf(t, plain)["playhead"]; p != nil {
		t.Errorf("an explorable without a playhead sends %v", p)
	}
}

func TestExplorableRejectsBadPlayheads(t *testing.T) {
	for name, change := range map[string]func(e *figure.Explorable){
		"no step":       func(e *figure.Explorable) { e.Playhead.Step = 0 },
		"end <= start":  func(e *figure.Explorable) { e.Playhead.End = 0 },
		"infinite step": func(e *figure.Explorable) { e.Playhead.Step = math.Inf(1) },
		"too many":      func(e *figure.Explorable) { e.Playhead.Step = 1e-9 },
		"negative rate": func(e *figure.Explorable) { e.Playhead.Rate = -1 },
		"no buttons":    func(e *figure.Explorable) { e.Controls[0].Buttons = false; e.Controls[0].Notes = nil },
		"bad control":   func(e *figure.Explorable) { e.Playhead.Control = 1 },
		"few values":    func(e *figure.Explorable) { e.Playhead.Tallies[0].Counts = e.Playhead.Tallies[0].Counts[:1] },
		"few positions": func(e *figure.Explorable) { e.Playhead.Tallies[0].Counts[1] = []int{1} },
		"few notes":     func(e *figure.Explorable) { e.Controls[0].Notes = []string{"a"} },
	} {
		e := withPlayhead()
		change(&e)
		if _, err := HTML(e); err == nil || !strings.HasPrefix(err.Error(), "figure: ") {
			t.Errorf("%s: error %v, want one starting figure:", name, err)
		}
	}
}

// Moving a control never rescales the y axis a reader compares heights on:
// a panel without YMax gets a round top above its tallest frame, one with a
// YMax keeps it.
func TestExplorableFramesShareTheYScale(t *testing.T) {
	e := twoFrames()
	tall := e.Frames[1].Panels[0].(figure.Histogram)
	tall.Counts = []float64{3, 2, 185}
	e.Frames[1].Panels[0] = tall
	yMaxOf := func(e figure.Explorable) any {
		html, err := HTML(e)
		if err != nil {
			t.Fatal(err)
		}
		spec := specOf(t, html)
		base := spec["base"].([]any)[0].(map[string]any)
		if f1 := spec["frames"].([]any)[1].([]any)[0].(map[string]any); f1["yAxis"] != nil {
			t.Errorf("frame 1 changes the y axis: %v", f1["yAxis"])
		}
		return base["yAxis"].([]any)[0].(map[string]any)["max"]
	}
	if got := yMaxOf(e); got != 200.0 {
		t.Errorf("shared y max = %v, want 200 (a round number above 185)", got)
	}
	fixed := e.Frames[0].Panels[0].(figure.Histogram)
	fixed.YMax = 600
	e.Frames[0].Panels[0] = fixed
	if got := yMaxOf(e); got != 600.0 {
		t.Errorf("y max with a panel's YMax 600 = %v, want 600", got)
	}
}

func TestNiceMax(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{185, 200}, {600, 600}, {601, 700}, {4.246, 4.5}, {0.012, 0.012}, {0.0121, 0.014}, {1, 1}, {0, 0}, {-3, 0}, {37, 40},
	} {
		if got := niceMax(c.in); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceMax(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// The panels of an explorable with a playhead share its ruler and do not
// zoom.
func TestPlayheadPanelsShareTheRuler(t *testing.T) {
	e := withPlayhead()
	lines := figure.Lines{Series: []figure.Series{{X: []float64{0, 1}, Y: []float64{1, 2}}}}
	for i := range e.Frames {
		e.Frames[i].Panels = append(e.Frames[i].Panels, lines)
	}
	html, err := HTML(e)
	if err != nil {
		t.Fatal(err)
	}
	base := specOf(t, html)["base"].([]any)
	for j, p := range base {
		o := p.(map[string]any)
		if o["dataZoom"] != nil {
			t.Errorf("panel %d zooms: %v", j, o["dataZoom"])
		}
	}
	x := base[1].(map[string]any)["xAxis"].([]any)[0].(map[string]any)
	if x["min"] != 0.0 || x["max"] != 1.9 || x["minInterval"] != 0.5 || x["maxInterval"] != 0.5 {
		t.Errorf("the lines' x axis %v, want the ruler 0 to 1.9 every 0.5", x)
	}
	// One label a slot of 1 s: the step is 0.5 s, less than a slot.
	if !strings.Contains(html, `"interval":function (i) { return i % 1 === 0; }`) {
		t.Error("the histogram's axis is not labelled at every slot")
	}
}
