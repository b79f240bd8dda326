package cohort

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/static"
)

func TestBoard(t *testing.T) {
	b, err := NewBoard(Lesson(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	// The ruler spans the slowest finish (exponential's 25.62 s) and the
	// calls scale the tallest burst of any policy.
	if b.End.Milliseconds() != 25620 {
		t.Errorf("ruler ends at %v, want 25.62s", b.End)
	}
	tallest := 0
	for _, r := range b.Results {
		tallest = max(tallest, r.PeakPer100ms)
	}
	if b.Tallest != tallest {
		t.Errorf("Tallest = %d, want %d", b.Tallest, tallest)
	}
	var yMax float64
	for i, name := range b.Names {
		calls, err := b.Calls(name)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			yMax = calls.YMax
		}
		if calls.YMax != yMax || len(calls.Layers[0].Counts) != 257 || len(calls.VLines) != 5 {
			t.Errorf("%s: y max %v (want %v), %d buckets (want 257 to 25.7 s), %d finish marks", name, calls.YMax, yMax, len(calls.Layers[0].Counts), len(calls.VLines))
		}
		if calls.HLines[0].Y != 8 || len(calls.Notes) != 1 || calls.Notes[0].Y != float64(b.Results[i].PeakPer100ms) {
			t.Errorf("%s: capacity line %v, worst-bucket note %+v", name, calls.HLines, calls.Notes)
		}
		inFlight, err := b.InFlight(name)
		if err != nil {
			t.Fatal(err)
		}
		s := inFlight.Series[0]
		if s.X[len(s.X)-1] != b.End.Seconds() {
			t.Errorf("%s: in flight ends at %v, want the ruler's end", name, s.X[len(s.X)-1])
		}
		var shaded float64
		for _, sp := range inFlight.Spans {
			if sp.Color == IdleColor {
				shaded += sp.To - sp.From
			}
		}
		if inFlight.Spans[0].Color != nil || inFlight.Spans[0].To != 3 {
			t.Errorf("%s: first span %+v, want the outage in the default grey", name, inFlight.Spans[0])
		}
		if d := shaded - b.Results[i].Idle.Seconds(); d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: shaded %v s, idle %v", name, shaded, b.Results[i].Idle)
		}
		lanes, err := b.Lanes(name)
		if err != nil {
			t.Fatal(err)
		}
		marks := 0
		for _, s := range lanes.Series {
			marks += len(s.X)
		}
		if marks != b.Results[i].Calls {
			t.Errorf("%s: %d marks, want one per call (%d)", name, marks, b.Results[i].Calls)
		}
	}
	if _, err := b.Calls("nope"); err == nil || !strings.Contains(err.Error(), `no policy "nope"`) {
		t.Errorf("unknown policy: %v", err)
	}
	if _, err := NewBoard(Lesson(), nil); err == nil {
		t.Error("NewBoard accepted no policies")
	}
}

func TestBoardRenders(t *testing.T) {
	b, err := NewBoard(Lesson(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"exponential", "full"} {
		st, err := b.Panels(name)
		if err != nil {
			t.Fatal(err)
		}
		png, err := static.PNG(st)
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Fatalf("%s: PNG %d bytes, %v", name, len(png), err)
		}
		if dir := os.Getenv("COHORT_FIGURES"); dir != "" {
			os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		}
	}
	html, err := interactive.HTML(b.CompareCalls())
	if err != nil || !strings.Contains(html, "decorrelated") {
		t.Errorf("CompareCalls HTML: %v", err)
	}
}

func TestPanelsNameEachMarkerOnce(t *testing.T) {
	b, err := NewBoard(Lesson().WithOverload(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.stacked("exponential")
	if err != nil {
		t.Fatal(err)
	}
	if want := "exponential (no jitter), seed 1513241: 168 clients unfinished at 60 s after 4908 calls"; st.title != want {
		t.Errorf("title %q, want %q", st.title, want)
	}
	named := func(v []figure.VLine, s []figure.Span) (finishes, spans int) {
		for _, x := range v {
			if x.Label != "" {
				finishes++
			}
		}
		for _, x := range s {
			if x.Label != "" {
				spans++
			}
		}
		return finishes, spans
	}
	f, sp := named(st.calls.VLines, st.calls.Spans)
	if f != 5 || sp != 0 || len(st.calls.Spans) != 1 {
		t.Errorf("calls panel: %d finish labels, %d span labels, %d spans; want 5, 0 and the outage", f, sp, len(st.calls.Spans))
	}
	f, sp = named(st.inFlight.VLines, st.inFlight.Spans)
	if f != 0 || sp != 1 || st.inFlight.Spans[0].Label != "outage" || len(st.inFlight.VLines) != 5 {
		t.Errorf("in-flight panel: %d finish labels of %d, %d span labels; want 0 of 5 and the outage's", f, len(st.inFlight.VLines), sp)
	}
	f, sp = named(st.lanes.VLines, st.lanes.Spans)
	if f != 0 || sp != 0 || len(st.lanes.VLines) != 5 || len(st.lanes.Spans) != 1 {
		t.Errorf("lanes panel: %d finish labels, %d span labels; want none", f, sp)
	}
	// The standalone panels keep their labels.
	calls, _ := b.Calls("exponential")
	if f, sp := named(calls.VLines, calls.Spans); f != 5 || sp != 1 {
		t.Errorf("Calls: %d finish labels, %d span labels; want 5 and 1", f, sp)
	}
	p, err := b.Panels("exponential")
	if err != nil {
		t.Fatal(err)
	}
	for i, pn := range p.Panels {
		pl, err := static.Plot(pn)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := pl.X.Tick.Marker.(static.RoundTicks); !ok {
			t.Errorf("panel %d: x ticks %T, want the board's ruler", i, pl.X.Tick.Marker)
		}
	}
}

func TestCallsStack(t *testing.T) {
	b, err := NewBoard(Lesson().WithoutOutage(), Lineup())
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.CallsStack("exponential", "full")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Panels) != 2 || st.Title != "calls per 100 ms, seed 1513241, no outage" {
		t.Fatalf("%d panels titled %q", len(st.Panels), st.Title)
	}
	for i, pn := range st.Panels {
		p, err := static.Plot(pn)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.X.Tick.Marker.(static.RoundTicks); !ok {
			t.Errorf("panel %d: x ticks %T, want the board's ruler", i, p.X.Tick.Marker)
		}
		if p.Y.Max != float64(b.Tallest)*headroom {
			t.Errorf("panel %d: y up to %v, want the board's scale %v", i, p.Y.Max, float64(b.Tallest)*headroom)
		}
	}
	if png, err := static.PNG(st); err != nil || len(png) == 0 {
		t.Errorf("PNG: %d bytes, %v", len(png), err)
	}
	if _, err := b.CallsStack(); err == nil {
		t.Error("CallsStack() accepted no policies")
	}
	if _, err := b.CallsStack("full", "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown policy: %v", err)
	}
}
