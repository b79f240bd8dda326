package overload

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/static"
)

func TestRemedies(t *testing.T) {
	c := Lesson()
	rs := Remedies(c)
	want := []string{"no limit", "budget", "breaker", "pacing"}
	if len(rs) != len(want) {
		t.Fatalf("%d remedies, want %d", len(rs), len(want))
	}
	for i, r := range rs {
		if r.Name != want[i] {
			t.Errorf("remedy %d is %q, want %q", i, r.Name, want[i])
		}
		on := [3]bool{r.Config.Budget != nil, r.Config.Breaker != nil, r.Config.Pacing != nil}
		var expect [3]bool
		if i > 0 {
			expect[i-1] = true
		}
		if on != expect {
			t.Errorf("%s: budget, breaker, pacing = %v, want %v", r.Name, on, expect)
		}
	}
}

// short is the lesson's setting cut to 20 s at 1 s resolution.
func short() Config {
	c := Lesson()
	c.Duration, c.Sample = 20*time.Second, time.Second
	return c
}

func TestBoardFigures(t *testing.T) {
	b, err := NewBoard(Remedies(short()))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Quantity{Offered, Goodput, Queue, Wasted} {
		l := b.Lines(q)
		want := 4 // one per run, and for offered load and goodput their reference after them
		if q == Goodput || q == Offered {
			want = 5
		}
		if len(l.Series) != want || l.Series[1].Name != "budget" {
			t.Fatalf("%v: series %v, want one per run", q, l.Series)
		}
		if len(l.Spans) != 1 || l.Spans[0].From != 10 || l.Spans[0].To != 13 {
			t.Errorf("%v: spans %v, want the dip 10–13 s shaded", q, l.Spans)
		}
		for i, r := range b.Results {
			s := l.Series[i]
			if len(s.X) != len(r.Timeline) {
				t.Fatalf("%v %s: %d points, want %d", q, s.Name, len(s.X), len(r.Timeline))
			}
			for k, p := range r.Timeline {
				if s.X[k] != p.Start.Seconds() || s.Y[k] != q.value(p) {
					t.Fatalf("%v %s point %d = (%v, %v), want (%v, %v)", q, s.Name, k, s.X[k], s.Y[k], p.Start.Seconds(), q.value(p))
				}
			}
		}
		if _, err := static.PNG(l); err != nil {
			t.Errorf("%v: %v", q, err)
		}
		if _, err := interactive.HTML(l); err != nil {
			t.Errorf("%v: %v", q, err)
		}
	}
	if got := b.Lines(Queue).HLines[0].Y; got != 1000 {
		t.Errorf("queue reference at %v, want capacity × timeout = 1000 entries", got)
	}
	// Goodput's reference is a series named in the legend: a dashed line's
	// label, at the right end, would sit on the goodput lines.
	if g := b.Lines(Goodput); len(g.HLines) != 0 || g.Series[4].Name != "new requests (800/s)" ||
		!slices.Equal(g.Series[4].Y, []float64{800, 800}) || !slices.Equal(g.Series[4].X, []float64{0, 20}) {
		t.Errorf("goodput reference: lines %v, last series %v; want no labelled line and the series new requests (800/s) at 800 from 0 to 20 s", g.HLines, g.Series[4])
	}
	if o := b.Lines(Offered); len(o.HLines) != 0 || o.Series[4].Name != "capacity (1000/s)" || !slices.Equal(o.Series[4].Y, []float64{1000, 1000}) {
		t.Errorf("offered-load reference: lines %v, last series %v; want no labelled line and the series capacity (1000/s) at 1000", o.HLines, o.Series[4])
	}
	if w, err := b.Work("budget"); err != nil || w.YMax != 1250 {
		t.Errorf("Work(budget).YMax = %v (%v), want 1250: room above the capacity line for its label", w.YMax, err)
	}
	st := b.Timeline()
	if len(st.Panels) != 3 {
		t.Fatalf("timeline has %d panels, want 3", len(st.Panels))
	}
	if _, err := static.PNG(st); err != nil {
		t.Error(err)
	}
	w, err := b.Work("no limit")
	if err != nil {
		t.Fatal(err)
	}
	// After the dip the unlimited run serves at full capacity, all of it
	// for clients that have gone.
	good, waste := w.Layers[0].Counts, w.Layers[1].Counts
	for k := 14; k < 20; k++ {
		if good[k] != 0 || waste[k] != 1000 {
			t.Errorf("no limit at %d s: goodput %v, wasted %v; want 0 and 1000", k, good[k], waste[k])
		}
	}
	if _, err := static.PNG(w); err != nil {
		t.Error(err)
	}
	if _, err := b.Work("nobody"); err == nil || !strings.Contains(err.Error(), "no limit") {
		t.Errorf("Work of an unknown run: error %v, want one listing the runs", err)
	}
	if r := b.Of("breaker"); r.Refused == 0 || r.Ticks == 0 {
		t.Errorf("Of(breaker) = refused %d in %d ticks; want the breaker's run", r.Refused, r.Ticks)
	}
	if c := b.ConfigOf("pacing"); c.Pacing == nil {
		t.Errorf("ConfigOf(pacing) = %+v, want the pacing run's setting", c)
	}
	if r, c := b.Of("nobody"), b.ConfigOf("nobody"); r.Ticks != 0 || r.Timeline != nil || c != (Config{}) {
		t.Errorf("Of and ConfigOf of an unknown run: %+v, %+v; want the zero values", r, c)
	}
}

func TestNewBoardRefuses(t *testing.T) {
	c := short()
	other := c
	other.DipEnd = 12 * time.Second
	bad := c
	bad.Rate = -1
	for _, tc := range []struct {
		name string
		runs []Named
		want string
	}{
		{"empty", nil, "at least one run"},
		{"same name", []Named{{"a", c}, {"a", c}}, `two runs are named "a"`},
		{"other ruler", []Named{{"a", c}, {"b", other}}, "same time ruler"},
		{"bad config", []Named{{"a", bad}}, "Rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewBoard(tc.runs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestQuantityString(t *testing.T) {
	if got := Quantity(9).String(); got != "Quantity(9)" {
		t.Errorf("Quantity(9).String() = %q", got)
	}
}

func TestRemedyBoard(t *testing.T) {
	b, err := RemedyBoard(short(), "pacing", "no limit")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Names) != 2 || b.Names[0] != "pacing" || b.Names[1] != "no limit" || b.Configs[0].Pacing == nil {
		t.Errorf("RemedyBoard(pacing, no limit) ran %q, want those two in that order", b.Names)
	}
	if b, err := RemedyBoard(short()); err != nil || len(b.Names) != 4 {
		t.Errorf("RemedyBoard with no names: %v, %v; want all four remedies", b, err)
	}
	if _, err := RemedyBoard(short(), "budget", "retry harder"); err == nil || !strings.Contains(err.Error(), `"retry harder"`) || !strings.Contains(err.Error(), "breaker") {
		t.Errorf("unknown remedy: error %v, want one naming it and the remedies allowed", err)
	}
}
