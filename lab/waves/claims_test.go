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
