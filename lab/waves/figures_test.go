package waves

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/static"
)

func lessonRuns(t *testing.T, widths ...float64) []Result {
	t.Helper()
	rs, err := RunEach(Lesson().EachJitter(widths...))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// render fails the test if the figure does not draw.
func render(t *testing.T, name string, f figure.Figure) {
	t.Helper()
	if b, err := static.PNG(f); err != nil || len(b) == 0 {
		t.Errorf("%s does not render: %v", name, err)
	}
}

func TestFigureShowsTheRunsHistogramAndOutage(t *testing.T) {
	r := lessonRuns(t, 1)[0]
	f := r.Figure()
	if f.Title != "jitter 100%: 3323 attempts, peak 925/s" {
		t.Errorf("title %q", f.Title)
	}
	if f.Slot != 200*time.Millisecond || len(f.Counts) != 200 || f.Counts[6] != 185 {
		t.Errorf("slot %v, %d counts, slot 6 = %v; want 200 slots of 200ms with 185 at 1.2s", f.Slot, len(f.Counts), f.Counts[6])
	}
	if len(f.Spans) != 1 || f.Spans[0].From != 0 || f.Spans[0].To != 20 {
		t.Errorf("spans %v, want the outage [0, 20] s", f.Spans)
	}
	if !strings.Contains(f.YLabel, "200ms") {
		t.Errorf("y label %q does not name the slot", f.YLabel)
	}
	render(t, "Figure", f)

	c := Lesson()
	c.Outage = 0
	r0, _ := Run(c)
	if s := r0.Figure().Spans; len(s) != 0 {
		t.Errorf("no outage, but spans %v", s)
	}
	c.Outage = time.Minute
	r1, _ := Run(c)
	if s := r1.Figure().Spans; len(s) != 1 || s[0].To != 40 {
		t.Errorf("outage past the window: spans %v, want it cut at the 40 s window", s)
	}
}

func TestCompareFigureSharesOneScale(t *testing.T) {
	s := CompareFigure(lessonRuns(t, 0, 1)...)
	if slices.Max(s.SharedY()) != 0 || len(s.Panels) != 2 {
		t.Fatalf("y groups %v, %d panels; want a shared scale over 2 panels", s.SharedY(), len(s.Panels))
	}
	if h := s.Panels[0].(figure.Histogram); !strings.HasPrefix(h.Title, "no jitter") {
		t.Errorf("first panel %q, want the runs in order", h.Title)
	}
	render(t, "CompareFigure", s)
}

func TestCapacityFigureSplitsEachSlotAtTheCapacity(t *testing.T) {
	r, err := Run(Exercise())
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.CapacityFigure(ExerciseCapacity)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Layers) != 2 || f.Counts != nil {
		t.Fatalf("%d layers, counts %v; want two layers and no plain counts", len(f.Layers), f.Counts != nil)
	}
	for k, c := range r.Histogram.Counts {
		in, over := f.Layers[0].Counts[k], f.Layers[1].Counts[k]
		if in+over != float64(c) || in > 240 || (over > 0 && in != 240) {
			t.Fatalf("slot %d: %v within + %v over, want %d split at 240", k, in, over, c)
		}
	}
	if f.Layers[1].Counts[6] != 615-240 {
		t.Errorf("over capacity at 1.2 s: %v, want 375", f.Layers[1].Counts[6])
	}
	if len(f.HLines) != 1 || f.HLines[0].Y != 240 || !strings.Contains(f.HLines[0].Label, "1200/s") {
		t.Errorf("capacity line %v, want 240 per slot labelled 1200/s", f.HLines)
	}
	render(t, "CapacityFigure", f)
	for _, bad := range []float64{0, -1, math.NaN()} {
		if _, err := r.CapacityFigure(bad); err == nil || !strings.Contains(err.Error(), "capacity") {
			t.Errorf("CapacityFigure(%v): error %v, want one naming the capacity", bad, err)
		}
	}
}

func TestSweepFigures(t *testing.T) {
	c := Lesson()
	a, _ := SweepSlots(c, SlotWidths())
	c.Jitter = 1
	b, _ := SweepSlots(c, SlotWidths())
	sf := SlotFigure(a, b)
	if !sf.LogX || len(sf.Series) != 2 || sf.Series[1].Name != "jitter 100%" {
		t.Fatalf("SlotFigure: log x %v, series %d", sf.LogX, len(sf.Series))
	}
	if x, y := sf.Series[0].X, sf.Series[0].Y; x[0] != 1 || x[9] != 1000 || y[0] != 600000 || y[9] != 600 {
		t.Errorf("no-jitter series %v %v, want x in ms from 1 to 1000 and y from 600000 to 600", x, y)
	}
	render(t, "SlotFigure", sf)

	js := lessonRuns(t, JitterWidths()...)
	jf := JitterFigure(js)
	if s := jf.Series[0]; s.X[2] != 50 || s.Y[2] != 1240 || s.Y[0] != 3000 {
		t.Errorf("JitterFigure series %v %v, want x in %% and the lesson's peaks", s.X, s.Y)
	}
	render(t, "JitterFigure", jf)

	bs, err := RunEach(Exercise().EachBase(time.Second, 2700*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	bf := BaseFigure(bs, ExerciseCapacity)
	if s := bf.Series[0]; s.X[1] != 2.7 || s.Y[0] != 3075 || len(bf.HLines) != 1 || bf.HLines[0].Y != 1200 {
		t.Errorf("BaseFigure %v %v %v", s.X, s.Y, bf.HLines)
	}
	if len(BaseFigure(bs, 0).HLines) != 0 {
		t.Error("BaseFigure without a capacity draws a capacity line")
	}
	render(t, "BaseFigure", bf)

	of := OverlayFigure("overlay", js...)
	if len(of.Series) != 5 || !of.Step || of.Series[4].Y[6] != 185 || of.Series[4].X[6] != 1.2 {
		t.Errorf("OverlayFigure: %d series, step %v", len(of.Series), of.Step)
	}
	if html, err := interactive.HTML(of); err != nil || !strings.Contains(html, "jitter 50%") {
		t.Errorf("OverlayFigure HTML: %v", err)
	}
}
