package chart

import (
	"math"
	"strings"
	"testing"
	"time"
)

// twoFrames is an explorable of one slider over two histograms that differ
// in their counts and title only.
func twoFrames() Explorable {
	a := Histogram{Title: "a", Slot: time.Second, Counts: []float64{1, 2, 3}}
	b := a
	b.Title, b.Counts = "b", []float64{3, 2, 1}
	return Explorable{
		Controls: []Control{{Label: "setting", Values: []string{"a", "b"}, Start: 1}},
		Frames:   []Frame{{Panels: []Drawable{a}, Readout: "at a"}, {Panels: []Drawable{b}, Readout: "at b"}},
	}
}

// specOf decodes the spec object of an explorable's fragment.
func specOf(t *testing.T, html string) map[string]any { return jsVar(t, html, "spec") }

func TestExplorableSendsOnlyWhatChanges(t *testing.T) {
	html, err := twoFrames().HTML()
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
	h := Histogram{Slot: time.Second, Counts: []float64{1}}
	one := []Frame{{Panels: []Drawable{h}}}
	for name, e := range map[string]Explorable{
		"no controls":  {Frames: one},
		"no values":    {Controls: []Control{{Label: "x"}}, Frames: one},
		"bad start":    {Controls: []Control{{Label: "x", Values: []string{"a"}, Start: 1}}, Frames: one},
		"few frames":   {Controls: []Control{{Label: "x", Values: []string{"a", "b"}}}, Frames: one},
		"no panels":    {Controls: []Control{{Label: "x", Values: []string{"a"}}}, Frames: []Frame{{}}},
		"nil panel":    {Controls: []Control{{Label: "x", Values: []string{"a"}}}, Frames: []Frame{{Panels: []Drawable{nil}}}},
		"bad figure":   {Controls: []Control{{Label: "x", Values: []string{"a"}}}, Frames: []Frame{{Panels: []Drawable{Histogram{}}}}},
		"panels apart": {Controls: []Control{{Label: "x", Values: []string{"a", "b"}}}, Frames: []Frame{{Panels: []Drawable{h}}, {Panels: []Drawable{h, h}}}},
		"too many": {Controls: []Control{{Label: "x", Values: make([]string, 40)}, {Label: "y", Values: make([]string, 40)}},
			Frames: one},
	} {
		if _, err := e.HTML(); err == nil || !strings.HasPrefix(err.Error(), "chart: ") {
			t.Errorf("%s: error %v, want one starting chart:", name, err)
		}
	}
}

func TestExplorableRowMajorFrames(t *testing.T) {
	h := Histogram{Slot: time.Second, Counts: []float64{1}}
	e := Explorable{Controls: []Control{{Label: "x", Values: []string{"1", "2"}}, {Label: "y", Values: []string{"a", "b", "c"}, Buttons: true}}}
	for i := 0; i < 6; i++ {
		e.Frames = append(e.Frames, Frame{Panels: []Drawable{h}})
	}
	html, err := e.HTML()
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
	withSpan := e.Frames[0].Panels[0].(Histogram)
	withSpan.Spans = []Span{{From: 0, To: 1, Label: "outage"}}
	e.Frames[0].Panels[0] = withSpan
	html, err := e.HTML()
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
func withPlayhead() Explorable {
	e := twoFrames()
	e.Controls[0].Buttons = true
	e.Controls[0].Notes = []string{"note a", "note b"}
	e.Playhead = &Playhead{Label: "time", Unit: "s", Start: 0, End: 1.9, Step: 1,
		Tallies: []Tally{{Name: "calls", Counts: [][]int{{1, 2, 3}, {4, 5, 6}}}}}
	return e
}

func TestExplorablePlayheadSpec(t *testing.T) {
	e := withPlayhead()
	if n := e.Playhead.Positions(); n != 3 {
		t.Errorf("0 to 1.9 in steps of 1: %d positions, want 3 (0, 1, 2)", n)
	}
	html, err := e.HTML()
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
	plain, err := twoFrames().HTML()
	if err != nil {
		t.Fatal(err)
	}
	if p := specOf(t, plain)["playhead"]; p != nil {
		t.Errorf("an explorable without a playhead sends %v", p)
	}
}

func TestExplorableRejectsBadPlayheads(t *testing.T) {
	for name, change := range map[string]func(e *Explorable){
		"no step":       func(e *Explorable) { e.Playhead.Step = 0 },
		"end <= start":  func(e *Explorable) { e.Playhead.End = 0 },
		"infinite step": func(e *Explorable) { e.Playhead.Step = math.Inf(1) },
		"too many":      func(e *Explorable) { e.Playhead.Step = 1e-9 },
		"negative rate": func(e *Explorable) { e.Playhead.Rate = -1 },
		"no buttons":    func(e *Explorable) { e.Controls[0].Buttons = false; e.Controls[0].Notes = nil },
		"bad control":   func(e *Explorable) { e.Playhead.Control = 1 },
		"few values":    func(e *Explorable) { e.Playhead.Tallies[0].Counts = e.Playhead.Tallies[0].Counts[:1] },
		"few positions": func(e *Explorable) { e.Playhead.Tallies[0].Counts[1] = []int{1} },
		"few notes":     func(e *Explorable) { e.Controls[0].Notes = []string{"a"} },
	} {
		e := withPlayhead()
		change(&e)
		if _, err := e.HTML(); err == nil || !strings.HasPrefix(err.Error(), "chart: ") {
			t.Errorf("%s: error %v, want one starting chart:", name, err)
		}
	}
}
