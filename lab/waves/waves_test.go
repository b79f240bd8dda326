package waves

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

// lessonCase is one of the lesson's pinned runs.
type lessonCase struct {
	name    string
	clients int
	outage  time.Duration
	jitter  float64
	peak    float64 // per second at 200 ms
	total   int     // -1: not pinned by the lesson
}

var lessonCases = []lessonCase{
	{"600 clients, no jitter", 600, 20 * time.Second, 0, 3000, 3600},
	{"600 clients, full width", 600, 20 * time.Second, 1, 925, 3323},
	{"600 clients, half width", 600, 20 * time.Second, 0.5, 1240, 3600},
	{"2000 clients, 30 s outage, no jitter", 2000, 30 * time.Second, 0, 10000, -1},
	{"2000 clients, 30 s outage, full width", 2000, 30 * time.Second, 1, 3075, -1},
}

func (lc lessonCase) config() Config {
	c := Lesson()
	c.Clients, c.Outage, c.Jitter = lc.clients, lc.outage, lc.jitter
	return c
}

func TestLessonNumbersExactly(t *testing.T) {
	for _, lc := range lessonCases {
		t.Run(lc.name, func(t *testing.T) {
			r, err := Run(lc.config())
			if err != nil {
				t.Fatal(err)
			}
			p := r.Peak()
			if p.Width != 200*time.Millisecond || p.PerSecond() != lc.peak {
				t.Errorf("%s: peak %v, want exactly %v/s at 200ms", lc.name, p, lc.peak)
			}
			if lc.total >= 0 && r.Total != lc.total {
				t.Errorf("%s: total %d attempts, want exactly %d", lc.name, r.Total, lc.total)
			}
			if r.Histogram.Total() != r.Total {
				t.Errorf("%s: histogram holds %d, Total says %d", lc.name, r.Histogram.Total(), r.Total)
			}
			t.Logf("%s: %v total %d skipped after success %d past window %d; recovered %d cut off %d exhausted %d",
				lc.name, p, r.Total, r.SkippedAfterSuccess, r.SkippedPastWindow, r.Recovered, r.CutOff, r.Exhausted)
		})
	}
}

// TestTotalFallsForTwoReasons pins the decomposition behind the full-width
// total: of the 3600 planned attempts, 163 are never made because jitter
// let their client succeed earlier (3600 → 3437) and 114 sixth attempts
// land past the 40 s window (3437 → 3323). At half width neither happens.
func TestTotalFallsForTwoReasons(t *testing.T) {
	c := Lesson()
	c.Jitter = 1
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Planned() != 3600 {
		t.Fatalf("Planned = %d, want 3600", r.Planned())
	}
	if got := r.Planned() - r.SkippedAfterSuccess; got != 3437 {
		t.Errorf("planned − skipped after success = %d, want 3437", got)
	}
	if got := r.Planned() - r.SkippedAfterSuccess - r.SkippedPastWindow; got != 3323 || got != r.Total {
		t.Errorf("… − skipped past window = %d (Total %d), want 3323", got, r.Total)
	}
	c.Jitter = 0.5
	r, _ = Run(c)
	if r.SkippedAfterSuccess != 0 || r.SkippedPastWindow != 0 || r.Total != 3600 {
		t.Errorf("half width: skipped %d after success, %d past window, total %d; want 0, 0, 3600",
			r.SkippedAfterSuccess, r.SkippedPastWindow, r.Total)
	}
}

// TestSpikeIsOneMillisecond: without jitter each wave is the whole
// population in the same millisecond, so a 1 ms slot reports 600 and every
// wider slot reports the same 600 spread over more time.
func TestSpikeIsOneMillisecond(t *testing.T) {
	m, err := New(Lesson())
	if err != nil {
		t.Fatal(err)
	}
	h, err := m.Histogram(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	p := h.Peak()
	if p.Count != 600 || p.At() != time.Second || p.PerSecond() != 600000 {
		t.Fatalf("1 ms peak = %v, want 600 in 1ms at 1s (600000/s)", p)
	}
	for _, at := range []time.Duration{1, 2, 4, 8, 16, 32} {
		if got := h.Counts[at*time.Second/time.Millisecond]; got != 600 {
			t.Errorf("slot at %v s holds %d, want the whole population, 600", at, got)
		}
	}
	if h.Total() != 3600 {
		t.Errorf("1 ms histogram total = %d, want 3600", h.Total())
	}
}

// TestRebinnedFineHistogramEqualsDirectRun: counting once at 1 ms and
// rebinning gives exactly what a run at the wider slot gives.
func TestRebinnedFineHistogramEqualsDirectRun(t *testing.T) {
	for _, w := range []float64{0, 0.3, 1} {
		c := Lesson()
		c.Jitter = w
		m, _ := New(c)
		fine, err := m.Histogram(time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, slot := range []time.Duration{2 * time.Millisecond, 10 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, time.Second} {
			re, err := fine.Rebin(slot)
			if err != nil {
				t.Fatal(err)
			}
			direct, err := m.Histogram(slot)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(re.Counts, direct.Counts) {
				t.Errorf("w=%g: 1 ms rebinned to %v differs from a run at %v", w, slot, slot)
			}
		}
	}
}

// TestInPhaseArrivalsAreBursty checks the coefficient of variation of the
// gaps between attempts: far above 1 in phase, about 1 within a jittered
// wave, and the streaming estimate close to the exact value.
func TestInPhaseArrivalsAreBursty(t *testing.T) {
	for _, tc := range []struct {
		jitter   float64
		min, max float64
	}{{0, 30, 40}, {1, 1.5, 3}} {
		t.Run(fmt.Sprintf("jitter %g", tc.jitter), func(t *testing.T) {
			m, _ := New(Lesson().WithJitter(tc.jitter))
			exact, err := metrics.InterArrivalCV(m.Times())
			if err != nil {
				t.Fatal(err)
			}
			if exact < tc.min || exact > tc.max {
				t.Errorf("CV %.3f, want in [%g, %g]", exact, tc.min, tc.max)
			}
			est, err := m.InterArrivalCV()
			if err != nil || math.Abs(est-exact) > 0.01 {
				t.Errorf("estimate %.4f (%v), exact %.4f: want within 0.01", est, err, exact)
			}
		})
	}
	// Within the first jittered wave the arrivals look independent: CV ≈ 1.
	c := Lesson()
	c.Jitter = 1
	m, _ := New(c)
	var first []time.Duration
	for a := range m.Attempts() {
		if a.N == 1 {
			first = append(first, a.At)
		}
	}
	if cv, err := metrics.InterArrivalCV(first); err != nil || math.Abs(cv-1) > 0.1 {
		t.Errorf("first full-width wave: CV %.3f (%v), want 1 ± 0.1", cv, err)
	}
}

// viaPolicy runs the model another way: one client at a time,
// its B draws taken up front, its attempt times from schedule.UniformJitter.
func viaPolicy(c Config) (Result, []Attempt) {
	g := lcg.MustNew(c.Seed)
	p := schedule.UniformJitter{Base: c.Base, Width: c.Jitter}
	h, _ := metrics.NewHistogram(c.Slot, c.Window)
	r := Result{Config: c, Histogram: h}
	var all []Attempt
	for client := 0; client < c.Clients; client++ {
		at := make([]time.Duration, c.Attempts)
		for i := range at {
			at[i] = p.Delay(i, 0, g)
		}
		made := 0
		r.Exhausted++ // until shown otherwise
		for i, t := range at {
			made = i + 1
			if t >= c.Window {
				all = append(all, Attempt{client, i + 1, t, PastWindow})
				r.Exhausted--
				r.CutOff++
				r.SkippedPastWindow += c.Attempts - i
				break
			}
			h.Counts[t/c.Slot]++
			r.Total++
			if t >= c.Outage {
				all = append(all, Attempt{client, i + 1, t, Succeeded})
				r.Exhausted--
				r.Recovered++
				r.SkippedAfterSuccess += c.Attempts - made
				break
			}
			all = append(all, Attempt{client, i + 1, t, Failed})
		}
	}
	return r, all
}

func TestMatchesThePolicysDelays(t *testing.T) {
	configs := []Config{Lesson()}
	for _, lc := range lessonCases {
		configs = append(configs, lc.config())
	}
	g := lcg.MustNew(99)
	for range 40 {
		c := Config{
			Clients:  1 + int(g.Next()%300),
			Attempts: 1 + int(g.Next()%12),
			Base:     time.Duration(1+g.Next()%2000) * time.Millisecond,
			Outage:   time.Duration(g.Float64() * float64(60*time.Second)),
			Window:   time.Duration(1 + g.Float64()*float64(100*time.Second)),
			Jitter:   2 * g.Float64(),
			Seed:     int64(g.Next()),
		}
		c.Slot = time.Duration(1+g.Next()%1000) * max(1, c.Window/10_000)
		configs = append(configs, c)
	}
	for _, c := range configs {
		want, wantAttempts := viaPolicy(c)
		m, err := New(c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		got := m.Run()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v:\n got %+v\nwant %+v", c, summary(got), summary(want))
		}
		gotAttempts := slices.Collect(m.Attempts())
		if !slices.Equal(gotAttempts, wantAttempts) {
			t.Errorf("%+v: Attempts differ from those of the policy's delays", c)
		}
		if n := got.Total + got.SkippedAfterSuccess + got.SkippedPastWindow; n != got.Planned() {
			t.Errorf("%+v: counted + skipped = %d, want planned %d", c, n, got.Planned())
		}
		if n := got.Recovered + got.CutOff + got.Exhausted; n != c.Clients {
			t.Errorf("%+v: recovered + cut off + exhausted = %d, want %d clients", c, n, c.Clients)
		}
	}
}

func summary(r Result) string {
	return fmt.Sprintf("total %d skipped %d/%d clients %d/%d/%d peak %v",
		r.Total, r.SkippedAfterSuccess, r.SkippedPastWindow, r.Recovered, r.CutOff, r.Exhausted, r.Peak())
}

func TestAttemptsStopsWhenAsked(t *testing.T) {
	m, _ := New(Lesson())
	n := 0
	for range m.Attempts() {
		n++
		if n == 10 {
			break
		}
	}
	if n != 10 {
		t.Fatalf("stopped after %d attempts, want 10", n)
	}
}

func TestNoOutageEveryFirstAttemptSucceeds(t *testing.T) {
	c := Lesson()
	c.Outage, c.Jitter = 0, 1
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 600 || r.Recovered != 600 || r.SkippedAfterSuccess != 3000 {
		t.Fatalf("no outage: total %d, recovered %d, skipped %d; want 600, 600, 3000", r.Total, r.Recovered, r.SkippedAfterSuccess)
	}
}

func TestValidateNamesTheParameter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		field string
		edit  func(*Config)
	}{
		{"no clients", "clients", func(c *Config) { c.Clients = 0 }},
		{"negative clients", "clients", func(c *Config) { c.Clients = -5 }},
		{"too many clients", "clients", func(c *Config) { c.Clients = MaxClients + 1 }},
		{"no attempts", "attempts", func(c *Config) { c.Attempts = 0 }},
		{"too many attempts", "attempts", func(c *Config) { c.Attempts = MaxAttempts + 1 }},
		{"zero base", "base", func(c *Config) { c.Base = 0 }},
		{"negative outage", "outage", func(c *Config) { c.Outage = -time.Nanosecond }},
		{"zero window", "window", func(c *Config) { c.Window = 0 }},
		{"negative jitter", "jitter", func(c *Config) { c.Jitter = -0.1 }},
		{"jitter above 2", "jitter", func(c *Config) { c.Jitter = 2.01 }},
		{"NaN jitter", "jitter", func(c *Config) { c.Jitter = math.NaN() }},
		{"infinite jitter", "jitter", func(c *Config) { c.Jitter = math.Inf(1) }},
		{"zero slot", "slot", func(c *Config) { c.Slot = 0 }},
		{"too many slots", "slot", func(c *Config) { c.Slot = time.Nanosecond }},
		{"negative seed", "seed", func(c *Config) { c.Seed = -1 }},
		{"seed of 2^31", "seed", func(c *Config) { c.Seed = 1 << 31 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Lesson()
			tc.edit(&c)
			_, err := New(c)
			if err == nil {
				t.Fatalf("%+v: no error, want one naming %s", c, tc.field)
			}
			if !strings.Contains(err.Error(), tc.field+" ") || !strings.Contains(err.Error(), "want") {
				t.Errorf("error %q does not name %q and its range", err, tc.field)
			}
		})
	}
	for _, tc := range []struct {
		name string
		c    Config
	}{
		{"jitter 2", Lesson().WithJitter(2)},
		{"no outage", Lesson().WithOutage(0)},
		{"outage past the window", Lesson().WithOutage(time.Hour)},
		{"largest seed", Lesson().WithSeed(1<<31 - 1)},
		{"most attempts", Lesson().WithAttempts(MaxAttempts)},
		{"slot wider than the window", Lesson().WithSlot(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.c.Validate(); err != nil {
				t.Errorf("%+v: %v, want valid", tc.c, err)
			}
		})
	}
}

func TestModelAccessors(t *testing.T) {
	m, _ := New(Lesson())
	if m.Config() != Lesson() {
		t.Error("Config() differs from the config given to New")
	}
	for i, want := range []time.Duration{0, 1, 2, 4, 8, 16, 32, 0} {
		if got := m.Nominal(i); got != want*time.Second {
			t.Errorf("Nominal(%d) = %v, want %v", i, got, want*time.Second)
		}
	}
	if _, err := m.Histogram(0); err == nil {
		t.Error("Histogram(0) gave no error")
	}
	for o, want := range map[Outcome]string{Failed: "failed", Succeeded: "succeeded", PastWindow: "past window", 7: "Outcome(7)"} {
		if o.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(o), o, want)
		}
	}
	if PastWindow.Counted() || !Failed.Counted() || !Succeeded.Counted() {
		t.Error("Counted: want failed and succeeded counted, past window not")
	}
}

func FuzzNew(f *testing.F) {
	c := Lesson()
	f.Add(c.Clients, c.Attempts, int64(c.Base), int64(c.Outage), int64(c.Window), 1.0, int64(c.Slot), c.Seed)
	f.Add(0, 0, int64(0), int64(-1), int64(0), -1.0, int64(0), int64(-1))
	f.Add(3, 64, int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), 2.0, int64(math.MaxInt64/1000), int64(1<<31-1))
	f.Add(2, 5, int64(1), int64(0), int64(1), 2.0, int64(1), int64(0))
	f.Fuzz(func(t *testing.T, clients, attempts int, base, outage, window int64, jitter float64, slot, seed int64) {
		c := Config{clients, attempts, time.Duration(base), time.Duration(outage), time.Duration(window), jitter, time.Duration(slot), seed}
		m, err := New(c)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "waves: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		if c.Clients > 200 { // keep each run short
			return
		}
		r := m.Run()
		if n := r.Total + r.SkippedAfterSuccess + r.SkippedPastWindow; n != r.Planned() {
			t.Fatalf("%+v: counted + skipped = %d, want %d", c, n, r.Planned())
		}
		if r.Histogram.Total() != r.Total {
			t.Fatalf("%+v: histogram holds %d, Total %d", c, r.Histogram.Total(), r.Total)
		}
	})
}

// TestBoundariesBelongToTheLaterSide: an attempt exactly at the end of the
// outage succeeds, and one exactly at the end of the window is not counted.
func TestBoundariesBelongToTheLaterSide(t *testing.T) {
	c := Lesson()
	c.Outage = 16 * time.Second
	r, _ := Run(c)
	if r.Total != 3000 || r.Recovered != 600 || r.SkippedAfterSuccess != 600 {
		t.Errorf("outage ending at the 5th attempt (16 s): total %d, recovered %d, skipped %d; want 3000, 600, 600",
			r.Total, r.Recovered, r.SkippedAfterSuccess)
	}
	c = Lesson()
	c.Window = 32 * time.Second
	r, _ = Run(c)
	if r.Total != 3000 || r.CutOff != 600 || r.SkippedPastWindow != 600 {
		t.Errorf("window ending at the 6th attempt (32 s): total %d, cut off %d, skipped %d; want 3000, 600, 600",
			r.Total, r.CutOff, r.SkippedPastWindow)
	}
}

func TestWaveIsOneAttemptNumberOfTheRun(t *testing.T) {
	for _, w := range JitterWidths() {
		t.Run(Lesson().WithJitter(w).Label(), func(t *testing.T) {
			m, err := New(Lesson().WithJitter(w))
			if err != nil {
				t.Fatal(err)
			}
			r := m.Run()
			sum := make([]int, len(r.Histogram.Counts))
			for i := 1; i <= m.Config().Attempts; i++ {
				h := m.Wave(i)
				if h.Slot != r.Histogram.Slot || len(h.Counts) != len(sum) {
					t.Fatalf("wave %d: slot %v with %d slots, want the run's %v with %d", i, h.Slot, len(h.Counts), r.Histogram.Slot, len(sum))
				}
				for k, n := range h.Counts {
					sum[k] += n
				}
			}
			for k := range sum {
				if sum[k] != r.Histogram.Counts[k] {
					t.Fatalf("slot %v: the waves add up to %d, the run counts %d", r.Histogram.Start(k), sum[k], r.Histogram.Counts[k])
				}
			}
			for _, i := range []int{0, -1, m.Config().Attempts + 1} {
				if n := m.Wave(i).Total(); n != 0 {
					t.Errorf("Wave(%d) counts %d attempts, want an empty histogram", i, n)
				}
			}
		})
	}
}
