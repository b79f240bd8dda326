package waves

import (
	"testing"
	"time"
)

// The claims the Waves lessons' prose makes about their outputs, beyond the
// peaks and totals TestLessonNumbersExactly pins.
func TestLessonClaims(t *testing.T) {
	t.Run("01: 48 of 600 clients exhaust their attempts at full width, 114 are cut off", func(t *testing.T) {
		r, err := Run(Lesson().WithJitter(1))
		if err != nil {
			t.Fatal(err)
		}
		if r.Exhausted != 48 || r.CutOff != 114 || 100*r.Exhausted/r.Config.Clients != 8 {
			t.Errorf("exhausted %d, cut off %d; want 48 (8 %%), 114", r.Exhausted, r.CutOff)
		}
	})
	for _, tc := range []struct {
		name          string
		w             float64
		first, second int
		at            time.Duration
	}{
		{"03: at half width the fullest slot is first attempts only", 0.5, 248, 0, 800 * time.Millisecond},
		{"03: at full width the second wave adds to the first in the fullest slot", 1, 122, 63, 1200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Lesson().WithJitter(tc.w))
			if err != nil {
				t.Fatal(err)
			}
			p, by := m.PeakByAttempt()
			first, second := by[0], by[1]
			if p.At() != tc.at || first != tc.first || second != tc.second || first+second != p.Count {
				t.Errorf("fullest slot %v holds attempts %v by number, want %d first and %d second at %v", p, by, tc.first, tc.second, tc.at)
			}
			// The first wave alone, spread evenly over its band of w seconds,
			// averages 600/w a second: the second wave's overlap raises the
			// peak above that, it does not lower it.
			if perSecond := float64(first+second) / 0.2; perSecond <= 600/tc.w {
				t.Errorf("peak %v/s, want above the first wave's average %v/s", perSecond, 600/tc.w)
			}
		})
	}
}

// The claims of 01's "What the service meets when it comes back" and 03's
// convolution section.
func TestReturningServiceAndConvolutionClaims(t *testing.T) {
	const outage = 20 * time.Second
	for _, tc := range []struct {
		name        string
		w           float64
		peak, from  int
		at, fromAt  time.Duration
		firstSecond int
	}{
		{"01: without jitter the service back at 20s meets nothing until 600 at 32s", 0, 600, 600, time.Second, 32 * time.Second, 0},
		{"01: at full width it meets 54 in its first second and at most 15 in a slot (75/s)", 1, 185, 15, 1200 * time.Millisecond, 23200 * time.Millisecond, 54},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Run(Lesson().WithJitter(tc.w))
			if err != nil {
				t.Fatal(err)
			}
			p, from := r.Peak(), r.Histogram.PeakFrom(outage)
			seconds, err := r.Histogram.Rebin(time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if p.Count != tc.peak || p.At() != tc.at || from.Count != tc.from || from.At() != tc.fromAt || seconds.Counts[20] != tc.firstSecond {
				t.Errorf("peak %v, from %v on %v, %d in [20s, 21s); want %d at %v, %d at %v, %d",
					p, outage, from, seconds.Counts[20], tc.peak, tc.at, tc.from, tc.fromAt, tc.firstSecond)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		w     float64
		count int // wave 1's fullest 200 ms slot
	}{
		{"03: a shifted delta keeps all 600 in one slot", 0, 600},
		{"03: at 25% the 250ms box straddles the slot boundary at 1s: 308, not 480", 0.25, 308},
		{"03: at 50% wave 1 reads 1240/s against 600/w = 1200/s", 0.5, 248},
		{"03: at 75% 870/s against 800/s", 0.75, 174},
		{"03: at 100% 625/s against 600/s", 1, 125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Lesson().WithJitter(tc.w))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Wave(1).Peak().Count; got != tc.count {
				t.Errorf("wave 1's fullest slot holds %d, want %d", got, tc.count)
			}
			if tc.w >= 0.5 {
				if got, want := m.Wave(1).Peak().PerSecond(), 600/tc.w; got < want || got > 1.1*want {
					t.Errorf("wave 1 peaks at %v/s, want within a tenth above 600/w = %v/s", got, want)
				}
			}
		})
	}
}
