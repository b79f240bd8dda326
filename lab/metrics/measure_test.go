package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// The three regimes of the CV, on streams whose answer is known.
func TestCVRegimes(t *testing.T) {
	// Evenly spaced: every gap equal, CV exactly 0.
	even := make(Times, 1000)
	for i := range even {
		even[i] = time.Duration(i) * 7 * time.Millisecond
	}
	// Independent arrivals: exponential gaps, CV about 1.
	g := lcg.MustNew(lcg.DefaultSeed)
	poisson := make(Times, 20000)
	var t0 time.Duration
	for i := range poisson {
		t0 += time.Duration(-math.Log(1-g.Float64()) * float64(time.Millisecond))
		poisson[i] = t0
	}
	// Bursts: 10 bursts of 100 simultaneous events, a second apart.
	var bursts Times
	for b := range 10 {
		for range 100 {
			bursts = append(bursts, time.Duration(b)*time.Second)
		}
	}
	// 999 gaps: 9 of 1 s between the bursts, 990 of 0 inside them.
	// Mean m = 9/999 s, mean square 9/999 s², so
	// CV² = (9/999) / m² − 1 = 999/9 − 1 = 110.
	burstCV := math.Sqrt(110)
	for _, tc := range []struct {
		name      string
		s         Times
		want, tol float64
	}{
		{"even", even, 0, 1e-9},
		{"poisson", poisson, 1, 0.03},
		{"bursts", bursts, burstCV, 1e-9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Measure(tc.s, 10*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.CV-tc.want) > tc.tol || r.Events != len(tc.s) {
				t.Errorf("%v, want CV %.3f ± %g", r, tc.want, tc.tol)
			}
		})
	}
	r, _ := Measure(bursts, 10*time.Millisecond)
	if r.Peak.Count != 100 || r.Peak.Width != 10*time.Millisecond {
		t.Errorf("bursts: peak %v, want 100 in 10ms", r.Peak)
	}
}

func TestMeasureUndefinedCV(t *testing.T) {
	for _, s := range []Times{{5 * time.Second}, {time.Second, time.Second, time.Second}, {}} {
		r, err := Measure(s, time.Second)
		if err != nil || !math.IsNaN(r.CV) {
			t.Errorf("Measure(%v) = %v, %v; want an undefined CV and no error", s, r, err)
		}
	}
	r, _ := Measure(Times{time.Second, time.Second}, time.Second)
	if got := r.String(); got != "2 events, peak 2 in 1s at 1s, CV undefined" {
		t.Errorf("String() = %q", got)
	}
	r, _ = Measure(Times{0, time.Second, 3 * time.Second}, time.Second)
	if got := r.String(); got != "3 events, peak 1 in 1s at 0s, CV 0.33" {
		t.Errorf("String() = %q", got)
	}
}

func TestMeasureErrors(t *testing.T) {
	for _, tc := range []struct {
		s    Source
		slot time.Duration
		want string
	}{
		{Times{time.Second}, 0, "slot"},
		{Times{-time.Second}, time.Second, "out of range"},
		{Times{24 * time.Hour}, time.Nanosecond, "slot"},
		{failing{}, time.Second, "no events here"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if _, err := Measure(tc.s, tc.slot); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Measure(%v, %v): error %v, want one containing %q", tc.s, tc.slot, err, tc.want)
			}
		})
	}
}

func TestWindowPeaks(t *testing.T) {
	h := Histogram{Slot: time.Second, Counts: []int{1, 5, 2, 0, 0, 0, 7, 7, 3}}
	got, err := WindowPeaks(h, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []Peak{{Slot: 1, Count: 5, Width: time.Second}, {Slot: 3, Count: 0, Width: time.Second}, {Slot: 6, Count: 7, Width: time.Second}}
	if len(got) != len(want) {
		t.Fatalf("WindowPeaks = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("window %d: %v, want %v", i, got[i], want[i])
		}
	}
	// A shorter last window.
	if got, _ := WindowPeaks(h, 4*time.Second); len(got) != 3 || got[2] != (Peak{Slot: 8, Count: 3, Width: time.Second}) {
		t.Errorf("4 s windows: %v", got)
	}
	for _, w := range []time.Duration{0, -time.Second, 1500 * time.Millisecond} {
		if _, err := WindowPeaks(h, w); err == nil || !strings.Contains(err.Error(), "window") {
			t.Errorf("WindowPeaks(h, %v): error %v, want one naming the window", w, err)
		}
	}
	if _, err := WindowPeaks(Histogram{}, time.Second); err == nil || !strings.Contains(err.Error(), "slot") {
		t.Errorf("zero histogram: error %v, want one naming the slot", err)
	}
}

// failing is a Source that cannot generate its events.
type failing struct{}

func (failing) Events() ([]time.Duration, error) { return nil, errors.New("no events here") }
