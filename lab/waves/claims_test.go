package waves

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
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

// The numbers the third edition of lessons 01, 03 and 04 corrects or adds
// (issue 27): each sentence that was off its output, pinned to the output.
func TestCorrectedClaims(t *testing.T) {
	t.Run("01: the waves model places attempt i at base·2^(i−1); the wait before attempt 6 is 16 s", func(t *testing.T) {
		m, err := New(Lesson().WithAttempts(10))
		if err != nil {
			t.Fatal(err)
		}
		if at6, at5, at10 := m.Nominal(6), m.Nominal(5), m.Nominal(10); at6 != 32*time.Second || at6-at5 != 16*time.Second || at10 != 512*time.Second {
			t.Errorf("attempt 6 at %v after attempt 5 at %v, attempt 10 at %v; want 32s, 16s later, and 8m32s", at6, at5, at10)
		}
	})
	t.Run("01: counted as waits, retry n waits base·2^n: 32 s before retry 5, 20 s under a 20 s cap; the attempts land at 1, 3, 7, 15, 31 s", func(t *testing.T) {
		free := schedule.Exponential{Base: time.Second, Cap: time.Hour}
		capped := schedule.Exponential{Base: time.Second, Cap: 20 * time.Second}
		if w, c := free.Delay(5, 0, nil), capped.Delay(5, 0, nil); w != 32*time.Second || c != 20*time.Second {
			t.Errorf("wait before retry 5: %v, capped %v; want 32s and 20s", w, c)
		}
		var at time.Duration
		var times []time.Duration
		for n := range 5 {
			at += free.Delay(n, 0, nil)
			times = append(times, at)
		}
		if want := []time.Duration{time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second, 31 * time.Second}; !slices.Equal(times, want) {
			t.Errorf("retries at %v, want %v", times, want)
		}
		// A 100 ms base with a 20 s cap grows for eight waits, to 12.8 s,
		// and the ninth is capped.
		pair := schedule.Exponential{Base: 100 * time.Millisecond, Cap: 20 * time.Second}
		if w7, w8 := pair.Delay(7, 0, nil), pair.Delay(8, 0, nil); w7 != 12800*time.Millisecond || w8 != 20*time.Second {
			t.Errorf("100 ms base: waits before retries 7 and 8 are %v and %v, want 12.8s and 20s", w7, w8)
		}
	})
	t.Run("03: the peak rises at 75-80% where waves 1 and 2 start to overlap, then falls to 925/s", func(t *testing.T) {
		for _, tc := range []struct {
			w             float64
			first, second int
		}{
			{0.70, 185, 0},  // 925/s: wave 1 alone, its band [0.65 s, 1.35 s)
			{0.75, 151, 52}, // 1015/s: the bands overlap in [1.25 s, 1.375 s)
			{0.80, 161, 67}, // 1140/s: the overlap [1.2 s, 1.4 s) is the whole slot at 1.2 s
			{0.85, 154, 65}, // 1095/s
			{1, 122, 63},    // 925/s
		} {
			m, err := New(Lesson().WithJitter(tc.w))
			if err != nil {
				t.Fatal(err)
			}
			p, by := m.PeakByAttempt()
			if by[0] != tc.first || by[1] != tc.second || p.Count != tc.first+tc.second {
				t.Errorf("w = %v: fullest slot %v holds %d first and %d second attempts, want %d and %d", tc.w, p, by[0], by[1], tc.first, tc.second)
			}
		}
	})
	t.Run("04: 39 %, 48 % and 54 % of 5000 seeds give a lower peak than the default seed; the peaks spread by 5.1 %, 3.4 % and 2.9 %", func(t *testing.T) {
		for _, tc := range []struct {
			c      Config
			lower  int
			spread float64 // SD / mean of the peak, in per cent, to one decimal
		}{
			{Lesson().WithJitter(1), 1946, 5.1},
			{Lesson().WithJitter(0.5), 2406, 3.4},
			{Exercise(), 2685, 2.9},
		} {
			s, err := OverSeeds(tc.c, Seeds(5000))
			if err != nil {
				t.Fatal(err)
			}
			spread := math.Round(1000*s.Peak.SD/s.Peak.Mean) / 10
			own := s.Own.Peak().PerSecond()
			if s.Lower != tc.lower || spread != tc.spread || math.Abs(own-s.Peak.Mean) > s.Peak.SD {
				t.Errorf("%s: %d of 5000 seeds lower, peaks spread %.1f %%, own peak %v against %.0f ± %.0f; want %d, %.1f %%, within one SD",
					tc.c.Label(), s.Lower, spread, own, s.Peak.Mean, s.Peak.SD, tc.lower, tc.spread)
			}
		}
	})
}
