package cohort

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBoard(t *testing.T) {
	b, err := NewBoard(Main(nil), DefaultLineup())
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
			shaded += sp.To - sp.From
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
	if _, err := NewBoard(Main(nil), nil); err == nil {
		t.Error("NewBoard accepted no policies")
	}
}

func TestBoardRenders(t *testing.T) {
	b, err := NewBoard(Main(nil), DefaultLineup())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"exponential", "full"} {
		st, err := b.Panels(name)
		if err != nil {
			t.Fatal(err)
		}
		png, err := st.PNG()
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Fatalf("%s: PNG %d bytes, %v", name, len(png), err)
		}
		if dir := os.Getenv("COHORT_FIGURES"); dir != "" {
			os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		}
	}
	html, err := b.CompareCalls().HTML()
	if err != nil || !strings.Contains(html, "decorrelated") {
		t.Errorf("CompareCalls HTML: %v", err)
	}
}
