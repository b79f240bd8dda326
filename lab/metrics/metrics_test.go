package metrics

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

const ms = time.Millisecond

func TestCountSlotsFromZero(t *testing.T) {
	h, err := Count([]time.Duration{0, 199 * ms, 200 * ms, 1000 * ms, 1000 * ms, 1199*ms + 999999}, 200*ms)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2, 1, 0, 0, 0, 3}
	if !slices.Equal(h.Counts, want) {
		t.Fatalf("Counts = %v, want %v (slot k holds [k·200ms, (k+1)·200ms))", h.Counts, want)
	}
	if h.Total() != 6 {
		t.Fatalf("Total = %d, want 6", h.Total())
	}
}

func TestCountRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times []time.Duration
		slot  time.Duration
	}{
		{"zero slot", []time.Duration{1}, 0},
		{"negative slot", []time.Duration{1}, -ms},
		{"negative time", []time.Duration{ms, -1}, ms},
		{"too many slots", []time.Duration{time.Hour}, time.Nanosecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Count(tc.times, tc.slot); err == nil {
				t.Errorf("Count(%v, %v) gave no error", tc.times, tc.slot)
			}
		})
	}
}

func TestNewHistogramSizes(t *testing.T) {
	h, err := NewHistogram(200*ms, 40*time.Second)
	if err != nil || len(h.Counts) != 200 {
		t.Fatalf("NewHistogram(200ms, 40s) = %d slots, %v; want 200, nil", len(h.Counts), err)
	}
	h, err = NewHistogram(300*ms, time.Second)
	if err != nil || len(h.Counts) != 4 {
		t.Fatalf("NewHistogram(300ms, 1s) = %d slots, %v; want 4 (rounded up), nil", len(h.Counts), err)
	}
	for _, tc := range []struct {
		name       string
		slot, span time.Duration
	}{
		{"zero slot", 0, time.Second},
		{"negative span", ms, -1},
		{"too many slots", 1, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewHistogram(tc.slot, tc.span); err == nil {
				t.Errorf("NewHistogram(%v, %v) gave no error", tc.slot, tc.span)
			}
		})
	}
}

func TestAddIgnoresWhatItCannotCount(t *testing.T) {
	var zero Histogram
	if zero.Add(ms) {
		t.Error("zero Histogram counted an event without a slot width")
	}
	h := Histogram{Slot: ms}
	if h.Add(-1) {
		t.Error("Add counted a negative time")
	}
	if h.Add(MaxSlots * ms) {
		t.Error("Add counted an event beyond MaxSlots")
	}
	if !h.Add(5*ms) || len(h.Counts) != 6 || h.Counts[5] != 1 {
		t.Errorf("Add(5ms) on an empty 1ms histogram: Counts = %v, want six slots with slot 5 = 1", h.Counts)
	}
}

func TestPeakRateCarriesWidth(t *testing.T) {
	h := Histogram{Slot: 200 * ms, Counts: []int{0, 0, 0, 0, 0, 600, 0, 600}}
	p := h.Peak()
	if p.Count != 600 || p.Slot != 5 || p.Width != 200*ms {
		t.Fatalf("Peak = %+v, want 600 in slot 5 (the earliest of a tie) at 200ms", p)
	}
	if got := p.PerSecond(); got != 3000 {
		t.Fatalf("PerSecond = %v, want exactly 3000", got)
	}
	if got, want := p.String(), "3000/s (600 in 200ms at 1s)"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if got := (Peak{Count: 185, Width: 200 * ms}).PerSecond(); got != 925 {
		t.Fatalf("185 in 200ms = %v/s, want exactly 925", got)
	}
	if got := (Peak{Count: 5}).PerSecond(); got != 0 {
		t.Fatalf("a peak without a width has rate %v, want 0", got)
	}
	if got := (Peak{Count: 1, Width: 3 * ms}).String(); got != "333.3/s (1 in 3ms at 0s)" {
		t.Fatalf("String of a fractional rate = %q", got)
	}
}

func TestRebinMatchesCountingDirectly(t *testing.T) {
	g := lcg.MustNew(7)
	times := make([]time.Duration, 5000)
	for i := range times {
		times[i] = time.Duration(g.Float64() * float64(3*time.Second))
	}
	fine, err := Count(times, ms)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []time.Duration{ms, 7 * ms, 10 * ms, 200 * ms, time.Second} {
		direct, _ := Count(times, w)
		re, err := fine.Rebin(w)
		if err != nil {
			t.Fatal(err)
		}
		// Direct counting stops at the last event's slot; rebinning covers
		// the fine histogram's span. Compare up to the shorter.
		n := min(len(direct.Counts), len(re.Counts))
		if !slices.Equal(direct.Counts[:n], re.Counts[:n]) || re.Total() != direct.Total() {
			t.Errorf("rebinned to %v differs from counting at %v", w, w)
		}
	}
	if _, err := fine.Rebin(1500 * time.Microsecond); err == nil {
		t.Error("Rebin to 1.5ms from 1ms gave no error")
	}
	if _, err := fine.Rebin(0); err == nil {
		t.Error("Rebin to 0 gave no error")
	}
	if _, err := (Histogram{}).Rebin(ms); err == nil {
		t.Error("Rebin of a histogram without a slot gave no error")
	}
}

func TestPeakSweepSpikeIsUnderstatedByWideSlots(t *testing.T) {
	// 600 events in the same instant at 1 s, 600 more at 2 s.
	times := make([]time.Duration, 0, 1200)
	for range 600 {
		times = append(times, time.Second, 2*time.Second)
	}
	h, _ := Count(times, ms)
	peaks, err := PeakSweep(h, []time.Duration{ms, 10 * ms, 200 * ms, time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{600000, 60000, 3000, 600}
	for i, p := range peaks {
		if p.Count != 600 || p.PerSecond() != want[i] {
			t.Errorf("at %v: %v, want 600 events = %v/s", p.Width, p, want[i])
		}
	}
	if _, err := PeakSweep(h, []time.Duration{ms, 1500 * time.Microsecond}); err == nil {
		t.Error("PeakSweep with a width that is not a multiple of the slot gave no error")
	}
}

func TestInterArrivalCV(t *testing.T) {
	even := make([]time.Duration, 100)
	for i := range even {
		even[i] = time.Duration(99-i) * ms // unsorted on purpose
	}
	if cv, err := InterArrivalCV(even); err != nil || cv != 0 {
		t.Errorf("evenly spaced: CV = %v, %v; want 0", cv, err)
	}

	// Poisson arrivals: exponential gaps, CV 1.
	g := lcg.MustNew(11)
	poisson := make([]time.Duration, 20000)
	var now float64
	for i := range poisson {
		now += -math.Log(1-g.Float64()) * float64(ms)
		poisson[i] = time.Duration(now)
	}
	if cv, err := InterArrivalCV(poisson); err != nil || math.Abs(cv-1) > 0.03 {
		t.Errorf("Poisson: CV = %v, %v; want 1 ± 0.03", cv, err)
	}

	// In phase: bursts of 600 at one instant, far apart.
	var burst []time.Duration
	for _, at := range []time.Duration{1, 2, 4, 8, 16, 32} {
		for range 600 {
			burst = append(burst, at*time.Second)
		}
	}
	cv, err := InterArrivalCV(burst)
	if err != nil || cv < 30 {
		t.Errorf("bursts in phase: CV = %v, %v; want far above 1 (> 30)", cv, err)
	}

	if _, err := InterArrivalCV([]time.Duration{ms}); !errors.Is(err, ErrTooFewEvents) {
		t.Errorf("one event: err = %v, want ErrTooFewEvents", err)
	}
	if _, err := InterArrivalCV([]time.Duration{ms, ms, ms}); !errors.Is(err, ErrSimultaneous) {
		t.Errorf("simultaneous events: err = %v, want ErrSimultaneous", err)
	}
}

func TestHistogramCVEstimate(t *testing.T) {
	// Evenly spaced events one per slot: exact.
	h := Histogram{Slot: ms, Counts: []int{1, 1, 1, 1, 1}}
	if cv, err := h.InterArrivalCV(); err != nil || cv != 0 {
		t.Errorf("one event per slot: CV = %v, %v; want 0", cv, err)
	}
	// Poisson at 1 per 10 ms, counted at 1 ms: close to the exact CV.
	g := lcg.MustNew(3)
	times := make([]time.Duration, 20000)
	var now float64
	for i := range times {
		now += -math.Log(1-g.Float64()) * float64(10*ms)
		times[i] = time.Duration(now)
	}
	exact, _ := InterArrivalCV(times)
	fine, _ := Count(times, ms)
	est, err := fine.InterArrivalCV()
	if err != nil || math.Abs(est-exact) > 0.02 {
		t.Errorf("Poisson at 1 ms slots: estimate %v (%v), exact %v; want within 0.02", est, err, exact)
	}
	// Bursts: far above 1 in both.
	var burst []time.Duration
	for _, at := range []time.Duration{1, 2, 4, 8, 16, 32} {
		for range 600 {
			burst = append(burst, at*time.Second)
		}
	}
	bh, _ := Count(burst, ms)
	if cv, err := bh.InterArrivalCV(); err != nil || cv < 30 {
		t.Errorf("bursts: estimate %v, %v; want > 30", cv, err)
	}
	if _, err := (Histogram{Slot: ms, Counts: []int{0, 1}}).InterArrivalCV(); !errors.Is(err, ErrTooFewEvents) {
		t.Errorf("one event: err = %v, want ErrTooFewEvents", err)
	}
	if _, err := (Histogram{}).InterArrivalCV(); err == nil {
		t.Error("no slot width: no error")
	}
}

func FuzzNewHistogram(f *testing.F) {
	f.Add(int64(ms), int64(40*time.Second), int64(200*ms))
	f.Add(int64(0), int64(0), int64(0))
	f.Add(int64(-1), int64(-1), int64(1))
	f.Add(int64(1), int64(math.MaxInt64), int64(3))
	f.Add(int64(1), int64(5), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, slot, span, wide int64) {
		h, err := NewHistogram(time.Duration(slot), time.Duration(span))
		if err != nil {
			return
		}
		if slot <= 0 || span < 0 || len(h.Counts) > MaxSlots {
			t.Fatalf("NewHistogram(%d, %d) accepted bad input: %d slots", slot, span, len(h.Counts))
		}
		if time.Duration(len(h.Counts))*h.Slot < time.Duration(span) {
			t.Fatalf("NewHistogram(%d, %d): %d slots do not cover the span", slot, span, len(h.Counts))
		}
		h.Add(time.Duration(span / 2))
		r, err := h.Rebin(time.Duration(wide))
		if err == nil && r.Total() != h.Total() {
			t.Fatalf("Rebin(%d) lost events: %d, want %d", wide, r.Total(), h.Total())
		}
	})
}

func TestPeakFromLooksOnlyAtLaterSlots(t *testing.T) {
	h := Histogram{Slot: 200 * time.Millisecond, Counts: []int{0, 9, 0, 3, 5, 5, 0}}
	for _, c := range []struct {
		name    string
		from    time.Duration
		slot, n int
	}{
		{"from 0 is the whole run's peak", 0, 1, 9},
		{"negative counts as 0", -time.Second, 1, 9},
		{"a slot that starts at t counts", 600 * time.Millisecond, 4, 5},
		{"a slot that started before t does not", 500 * time.Millisecond, 4, 5},
		{"the earliest of a tie", 800 * time.Millisecond, 4, 5},
		{"only empty slots: zero at the first", 1200 * time.Millisecond, 6, 0},
		{"past the end: zero at the first slot after t", 3 * time.Second, 15, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := h.PeakFrom(c.from)
			if p.Slot != c.slot || p.Count != c.n || p.Width != h.Slot {
				t.Errorf("PeakFrom(%v) = %+v, want slot %d, count %d, width %v", c.from, p, c.slot, c.n, h.Slot)
			}
		})
	}
	if p := (Histogram{}).PeakFrom(time.Second); p != (Peak{}) {
		t.Errorf("PeakFrom on a histogram without a slot = %+v, want the zero Peak", p)
	}
}

func TestHistogramFigure(t *testing.T) {
	h, err := Count([]time.Duration{0, 5 * time.Millisecond, 25 * time.Millisecond}, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	f := h.Figure()
	if f.Slot != 20*time.Millisecond || len(f.Counts) != 2 || f.Counts[0] != 2 || f.Counts[1] != 1 || f.Validate() != nil {
		t.Errorf("Figure() = %+v, want two slots of 20ms holding 2 and 1", f)
	}
}

func TestStreamsAndCVTable(t *testing.T) {
	even := Even(600, time.Second)
	if len(even) != 600 || even[1] != time.Second/600 || Even(0, time.Second) != nil {
		t.Fatalf("Even: %d times, second at %v", len(even), even[1])
	}
	poisson, err := Poisson(600, 600, lcg.MustNew(lcg.DefaultSeed))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		n    int
		rate float64
		r    interface{ Float64() float64 }
	}{{0, 1, lcg.MustNew(1)}, {1, 0, lcg.MustNew(1)}, {1, math.Inf(1), lcg.MustNew(1)}, {1, 1, nil}} {
		if _, err := Poisson(bad.n, bad.rate, bad.r); err == nil {
			t.Errorf("Poisson(%d, %v, %v): no error", bad.n, bad.rate, bad.r)
		}
	}
	got := CVTable(Stream{"even", Times(even)}, Stream{"poisson", Times(poisson)}, Stream{"one instant", Times{5, 5, 5}}).String()
	for _, want := range []string{"even         0.00", "poisson      1.03", "one instant  metrics: all events at one instant"} {
		if !strings.Contains(got, want) {
			t.Errorf("CVTable lacks %q:\n%s", want, got)
		}
	}
}
