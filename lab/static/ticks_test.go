package static

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func labels(r RoundTicks, min, max float64) []string {
	var out []string
	for _, t := range r.Ticks(min, max) {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestRoundTicksLabelRoundStepsShortly(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		{0, 250, "0 50 100 150 200 250"},
		{0, 100, "0 20 40 60 80 100"},
		{0, 25.62, "0 5 10 15 20 25"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 75000, "0 10000 20000 30000 40000 50000 60000 70000"},
		{-3, 3, "-3 -2 -1 0 1 2 3"},
		{0, 0.004, "0 0.001 0.002 0.003 0.004"},
	} {
		t.Run(fmt.Sprintf("%v_to_%v", c.min, c.max), func(t *testing.T) {
			got := strings.Join(labels(RoundTicks{}, c.min, c.max), " ")
			if got != c.want {
				t.Errorf("ticks over [%v, %v] labelled %q, want %q", c.min, c.max, got, c.want)
			}
		})
	}
}

// A time ruler in seconds (lab/cohort's panels ask for five labels).
func TestRoundTicksAsATimeRuler(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		{0, 25.62, "0 5 10 15 20 25"},
		{0, 60, "0 10 20 30 40 50 60"},
		{0, 7.22, "0 1 2 3 4 5 6 7"},
		{0, 1.52, "0 0.2 0.4 0.6 0.8 1 1.2 1.4"},
		{0, 3, "0 0.5 1 1.5 2 2.5 3"},
	} {
		t.Run(fmt.Sprintf("%v_to_%v", c.min, c.max), func(t *testing.T) {
			ticks := RoundTicks{Labels: 5}.Ticks(c.min, c.max)
			got := strings.Join(labels(RoundTicks{Labels: 5}, c.min, c.max), " ")
			if got != c.want {
				t.Errorf("[%v, %v]: labels %q, want %q", c.min, c.max, got, c.want)
			}
			n := len(strings.Fields(got))
			if len(ticks) < 2*n-1 {
				t.Errorf("[%v, %v]: %d ticks for %d labels, want a tick between labels", c.min, c.max, len(ticks), n)
			}
			for _, tk := range ticks {
				if tk.Value < c.min || tk.Value > c.max*(1+1e-9) {
					t.Errorf("[%v, %v]: tick at %v outside the range", c.min, c.max, tk.Value)
				}
			}
		})
	}
}

func TestRoundTicksGiveAtLeastTheLabelsAsked(t *testing.T) {
	for _, n := range []int{2, 4, 5, 8} {
		for _, max := range []float64{1, 3, 7, 9.99, 12, 25.62, 99, 140, 1e6} {
			if got := len(labels(RoundTicks{Labels: n}, 0, max)); got < n {
				t.Errorf("RoundTicks{%d} over [0, %v]: %d labels", n, max, got)
			}
		}
	}
}

func TestRoundTicksSurviveDegenerateRanges(t *testing.T) {
	for _, r := range [][2]float64{{1, 1}, {2, 1}, {math.NaN(), 1}, {0, math.Inf(1)}, {-math.MaxFloat64, math.MaxFloat64}} {
		_ = RoundTicks{}.Ticks(r[0], r[1]) // must not panic or hang
	}
}

func TestLogTicksLabelNarrowAxesAtOneTwoFive(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     string
	}{
		{21, 1000, "30 50 100 200 500 1000"}, // lesson 08's peaks at the cap
		{0.4, 9.5, "0.5 1 2 5"},
		{60, 1000, "100 200 500 1000"},            // decimals without rounding noise
		{3, 9, "3 4 5 6 7 8 9"},                   // one decade: every whole multiple
		{120, 180, "120 130 140 150 160 170 180"}, // between two multiples: round steps
		{0.4, 100, "1 10 100"},                    // two decades or more: the powers of ten
		{1, 1000, "1 10 100 1000"},
	} {
		t.Run(fmt.Sprintf("%v_to_%v", c.min, c.max), func(t *testing.T) {
			var got []string
			for _, tk := range (LogTicks{}).Ticks(c.min, c.max) {
				if tk.Value < c.min || tk.Value > c.max {
					t.Errorf("tick %v outside [%v, %v]", tk.Value, c.min, c.max)
				}
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if s := strings.Join(got, " "); s != c.want {
				t.Errorf("log ticks over [%v, %v] labelled %q, want %q", c.min, c.max, s, c.want)
			}
		})
	}
}
