package overload

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

func run(t *testing.T, c Config) Result {
	t.Helper()
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	checkBooks(t, c, r)
	return r
}

// checkBooks checks that every request and every attempt is accounted for.
func checkBooks(t *testing.T, c Config, r Result) {
	t.Helper()
	if r.Requests != r.Succeeded+r.Failed+r.InFlight {
		t.Errorf("requests %d != succeeded %d + failed %d + in flight %d", r.Requests, r.Succeeded, r.Failed, r.InFlight)
	}
	if r.Attempts != r.Succeeded+r.Wasted+r.Paced+r.FinalQueue {
		t.Errorf("attempts %d != succeeded %d + wasted %d + paced %d + queued %d", r.Attempts, r.Succeeded, r.Wasted, r.Paced, r.FinalQueue)
	}
	if r.Attempts > c.MaxAttempts*r.Requests {
		t.Errorf("%d attempts for %d requests of at most %d attempts", r.Attempts, r.Requests, c.MaxAttempts)
	}
	if want := (r.Ticks*int(c.Tick) + int(c.Sample) - 1) / int(c.Sample); len(r.Timeline) != want {
		t.Errorf("%d timeline points, want %d", len(r.Timeline), want)
	}
}

// mean averages f over the timeline points that start in [from, to).
func mean(r Result, from, to time.Duration, f func(Point) float64) float64 {
	sum, n := 0.0, 0
	for _, p := range r.Timeline {
		if p.Start >= from && p.Start < to {
			sum += f(p)
			n++
		}
	}
	return sum / float64(n)
}

func queueAt(r Result, at time.Duration) int {
	for _, p := range r.Timeline {
		if p.Start+100*time.Millisecond > at {
			return p.Queue
		}
	}
	return r.FinalQueue
}

var seeds = []int64{1513241, 1, 2, 3}

// Without a budget the 3 s dip tips the server into a state it never leaves:
// every request sends all three attempts, load is amplified about 2.6× over
// the run and 3× after the dip, the queue grows by about 1,400 entries a
// second, and nothing the server serves after the dip has a client waiting.
func TestMetastableWithoutBudget(t *testing.T) {
	for _, seed := range seeds {
		c := Lesson()
		c.Seed = seed
		r := run(t, c)
		if r.Amplification < 2.55 || r.Amplification > 2.68 {
			t.Errorf("seed %d: amplification %.3f, want ≈2.6 (2.55–2.68)", seed, r.Amplification)
		}
		if r.AmplificationAfterDip < 2.95 || r.AmplificationAfterDip > 3.02 {
			t.Errorf("seed %d: amplification after the dip %.3f, want ≈3 (2.95–3.02)", seed, r.AmplificationAfterDip)
		}
		if r.Recovered || r.Drained {
			t.Errorf("seed %d: recovered %v (after %v), drained %v: want neither", seed, r.Recovered, r.RecoveredAfter, r.Drained)
		}
		q20, q40, q60 := queueAt(r, 20*time.Second), queueAt(r, 40*time.Second), r.FinalQueue
		if q40-q20 < 20000 || q60-q40 < 20000 {
			t.Errorf("seed %d: queue %d, %d, %d at 20, 40, 60 s: want it growing by > 1000/s", seed, q20, q40, q60)
		}
		good := mean(r, 14*time.Second, c.Duration, func(p Point) float64 { return p.Goodput })
		if good > 8 { // 1 % of the 800/s that arrive
			t.Errorf("seed %d: goodput after the dip %.1f/s, want near zero", seed, good)
		}
		if before := mean(r, 0, c.DipStart, func(p Point) float64 { return p.Goodput }); before < 750 {
			t.Errorf("seed %d: goodput before the dip %.0f/s, want ≈800", seed, before)
		}
	}
}

// A 10 % retry budget over ten one-second buckets holds the load to about
// 1.03× and the queue drains about 20 s after the dip.
func TestBudgetDrains(t *testing.T) {
	for _, seed := range seeds {
		c := Lesson().WithBudget()
		c.Seed = seed
		r := run(t, c)
		if r.Amplification < 1.02 || r.Amplification > 1.05 {
			t.Errorf("seed %d: amplification %.3f, want ≈1.03 (1.02–1.05)", seed, r.Amplification)
		}
		if !r.Drained || r.DrainedAfter < 17*time.Second || r.DrainedAfter > 23*time.Second {
			t.Errorf("seed %d: drained %v after %v, want ≈20 s (17–23 s)", seed, r.Drained, r.DrainedAfter)
		}
		if !r.Recovered || r.RecoveredAfter > r.DrainedAfter {
			t.Errorf("seed %d: recovered %v after %v, want true and before the queue drained (%v)", seed, r.Recovered, r.RecoveredAfter, r.DrainedAfter)
		}
		if r.FinalQueue > 50 {
			t.Errorf("seed %d: final queue %d, want it drained", seed, r.FinalQueue)
		}
	}
}

// A breaker in front of the clients refuses requests while it is open, so
// the queue of abandoned entries drains as soon as capacity returns and
// goodput is back within a few seconds; the price is the refused requests.
func TestBreakerRecovers(t *testing.T) {
	plain := run(t, Lesson().WithBudget())
	for _, seed := range seeds {
		c := Lesson().WithBreaker()
		c.Seed = seed
		r := run(t, c)
		if !r.Recovered || r.RecoveredAfter > 4*time.Second {
			t.Errorf("seed %d: recovered %v after %v, want within 4 s of the dip", seed, r.Recovered, r.RecoveredAfter)
		}
		if !r.Drained || r.DrainedAfter > 2*time.Second {
			t.Errorf("seed %d: drained %v after %v, want within 2 s", seed, r.Drained, r.DrainedAfter)
		}
		if r.Refused < 1000 || r.Refused > 8000 {
			t.Errorf("seed %d: %d refused, want a few thousand", seed, r.Refused)
		}
		if r.Amplification >= 1 {
			t.Errorf("seed %d: amplification %.3f, want < 1 (refused first attempts never reach the server)", seed, r.Amplification)
		}
		if r.Wasted*10 > plain.Wasted {
			t.Errorf("seed %d: %d entries wasted, want under a tenth of the budget's %d", seed, r.Wasted, plain.Wasted)
		}
	}
}

// Server-side pacing keeps the queue at its threshold, so nothing queued
// after pacing begins is ever abandoned: goodput is back within a second of
// the dip, and far fewer requests fail than with the budget alone.
func TestPacingRecovers(t *testing.T) {
	for _, seed := range seeds {
		c := Lesson().WithPacing()
		c.Seed = seed
		r := run(t, c)
		if !r.Recovered || r.RecoveredAfter > time.Second {
			t.Errorf("seed %d: recovered %v after %v, want within 1 s of the dip", seed, r.Recovered, r.RecoveredAfter)
		}
		limit := int(c.Pacing.Above.Seconds()*c.Capacity) + 1
		if r.Wasted > limit {
			t.Errorf("seed %d: %d wasted, want at most the %d queued before pacing began", seed, r.Wasted, limit)
		}
		for _, p := range r.Timeline {
			if p.Queue > limit+30 {
				t.Fatalf("seed %d: queue %d at %v, want it held near %d", seed, p.Queue, p.Start, limit)
			}
		}
		if r.Paced == 0 || float64(r.Failed) > 0.05*float64(r.Requests) {
			t.Errorf("seed %d: %d paced, %d of %d failed: want pacing used and under 5 %% failed", seed, r.Paced, r.Failed, r.Requests)
		}
	}
}

// The alternative setting: 850/s, a 2 s timeout and a dip to 25 % gives
// about 2.5× without a budget and about 1.02× with one.
func TestMilderSetting(t *testing.T) {
	c := Lesson()
	c.Rate, c.Timeout, c.DipCapacity = 850, 2*time.Second, 0.25
	r := run(t, c)
	if r.Amplification < 2.4 || r.Amplification > 2.55 || r.Recovered {
		t.Errorf("no budget: amplification %.3f, recovered %v: want ≈2.47, false", r.Amplification, r.Recovered)
	}
	r = run(t, c.WithBudget())
	if r.Amplification < 1.0 || r.Amplification > 1.05 || !r.Recovered {
		t.Errorf("budget: amplification %.3f, recovered %v: want ≈1.03, true", r.Amplification, r.Recovered)
	}
}

// The claims do not depend on the tick: at 1 ms they come out the same.
func TestTickIndependence(t *testing.T) {
	c := Lesson()
	c.Tick = time.Millisecond
	a, b := run(t, c), run(t, Lesson())
	if d := a.Amplification - b.Amplification; d > 0.02 || d < -0.02 || a.Recovered {
		t.Errorf("1 ms ticks: amplification %.3f vs %.3f at 10 ms, recovered %v", a.Amplification, b.Amplification, a.Recovered)
	}
	a, b = run(t, c.WithBudget()), run(t, Lesson().WithBudget())
	if d := a.DrainedAfter - b.DrainedAfter; d > time.Second || d < -time.Second {
		t.Errorf("1 ms ticks: drained after %v vs %v at 10 ms", a.DrainedAfter, b.DrainedAfter)
	}
}

func TestSameSeedSameNumbers(t *testing.T) {
	for _, c := range []Config{Lesson(), Lesson().WithBudget(), Lesson().WithBreaker(), Lesson().WithPacing(), Lesson().WithBudget().WithBreaker().WithPacing()} {
		a, b := run(t, c), run(t, c)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("two runs of one config differ")
		}
		c.Seed++
		if d := run(t, c); d.Attempts == a.Attempts && d.Requests == a.Requests {
			t.Errorf("seeds %d and %d give the same counts", c.Seed-1, c.Seed)
		}
	}
}

// Without a dip and below capacity, nothing times out.
func TestNoDip(t *testing.T) {
	c := Lesson()
	c.DipStart, c.DipEnd = 0, 0
	r := run(t, c)
	if r.Attempts != r.Requests || r.Failed != 0 || r.Wasted != 0 || !r.Recovered || r.RecoveredAfter != 0 {
		t.Errorf("%+v", r)
	}
}

func TestValidate(t *testing.T) {
	if err := Lesson().WithBudget().WithBreaker().WithPacing().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Tick = 0 }, "Tick 0s out of range"},
		{func(c *Config) { c.Duration = 2 * MaxDuration }, "Duration"},
		{func(c *Config) { c.Tick, c.Duration = MinTick, time.Hour }, "at most 1000000 ticks"},
		{func(c *Config) { c.Rate = -1 }, "Rate -1"},
		{func(c *Config) { c.Rate = MaxRate }, "Rate × Duration"},
		{func(c *Config) { c.Capacity = 0 }, "Capacity 0 out of range"},
		{func(c *Config) { c.Timeout = time.Millisecond }, "Timeout"},
		{func(c *Config) { c.DipStart = -time.Second }, "DipStart"},
		{func(c *Config) { c.DipEnd = c.DipStart - 1 }, "DipEnd"},
		{func(c *Config) { c.DipCapacity = 1.5 }, "DipCapacity"},
		{func(c *Config) { c.MaxAttempts = 0 }, "MaxAttempts 0"},
		{func(c *Config) { c.Sample = 15 * time.Millisecond }, "Sample"},
		{func(c *Config) { c.Seed = 1 << 31 }, "Seed"},
		{func(c *Config) { c.Budget = &budget.Config{Ratio: 2} }, "Budget: budget: ratio 2"},
		{func(c *Config) { c.Breaker = &breaker.Config{Failures: -1} }, "Breaker: breaker: failures -1"},
		{func(c *Config) { c.Pacing = &Pacing{Above: -1} }, "Pacing.Above"},
		{func(c *Config) { c.Pacing = &Pacing{Jitter: 2 * MaxPacing} }, "Pacing.Jitter"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			c := Lesson()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tc.want)
			}
			if _, rerr := Run(c); rerr == nil {
				t.Errorf("Run accepted a config Validate rejects (%q)", tc.want)
			}
		})
	}
}

// Any Config either fails Validate or runs with its books balanced.
func FuzzConfig(f *testing.F) {
	f.Add(int64(10e6), int64(5e9), 800.0, 1000.0, int64(1e9), int64(1e9), int64(2e9), 0.0, 3, uint8(7), int64(100e6), int64(1))
	f.Add(int64(1e6), int64(1e9), 0.0, 1.0, int64(1e6), int64(0), int64(0), 1.0, 1, uint8(0), int64(1e6), int64(0))
	f.Add(int64(-1), int64(-1), -1.0, -1.0, int64(-1), int64(-1), int64(-2), -1.0, -1, uint8(255), int64(0), int64(-1))
	f.Fuzz(func(t *testing.T, tick, dur int64, rate, capacity float64, timeout, dipStart, dipEnd int64, dipCap float64, attempts int, extras uint8, sample, seed int64) {
		c := Config{Tick: time.Duration(tick), Duration: time.Duration(dur), Rate: rate, Capacity: capacity,
			Timeout: time.Duration(timeout), DipStart: time.Duration(dipStart), DipEnd: time.Duration(dipEnd),
			DipCapacity: dipCap, MaxAttempts: attempts, Sample: time.Duration(sample), Seed: seed}
		if extras&1 != 0 {
			c.Budget = &budget.Config{Ratio: float64(extras>>3) / 31}
		}
		if extras&2 != 0 {
			c.Breaker = &breaker.Config{Failures: int(extras >> 4), OpenTimeout: c.Timeout}
		}
		if extras&4 != 0 {
			c.Pacing = &Pacing{Above: c.Timeout / 2, Jitter: c.Timeout}
		}
		if c.Validate() != nil || ticks(c.Duration, c.Tick) > 20000 || c.Rate*c.Duration.Seconds() > 20000 {
			return
		}
		r, err := Run(c)
		if err != nil {
			t.Fatalf("Validate passed but Run failed: %v", err)
		}
		checkBooks(t, c, r)
	})
}

// The With methods change one field each and leave the receiver alone.
func TestWith(t *testing.T) {
	c := Lesson()
	for _, tc := range []struct {
		name string
		got  Config
		want func(*Config)
	}{
		{"attempts", c.WithAttempts(1), func(c *Config) { c.MaxAttempts = 1 }},
		{"dip length", c.WithDipLength(time.Second), func(c *Config) { c.DipEnd = 11 * time.Second }},
		{"no dip", c.WithDipLength(0), func(c *Config) { c.DipEnd = c.DipStart }},
		{"dip capacity", c.WithDipCapacity(0.25), func(c *Config) { c.DipCapacity = 0.25 }},
		{"rate", c.WithRate(850), func(c *Config) { c.Rate = 850 }},
		{"timeout", c.WithTimeout(2 * time.Second), func(c *Config) { c.Timeout = 2 * time.Second }},
		{"duration", c.WithDuration(time.Minute), func(c *Config) { c.Duration = time.Minute }},
		{"sample", c.WithSample(time.Second), func(c *Config) { c.Sample = time.Second }},
		{"seed", c.WithSeed(3), func(c *Config) { c.Seed = 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := Lesson()
			tc.want(&want)
			if tc.got != want {
				t.Errorf("got %+v, want %+v", tc.got, want)
			}
			if err := tc.got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
	if c != Lesson() {
		t.Errorf("the With methods changed their receiver: %+v", c)
	}
}

// Lesson 10's corrected sentences. A dip of d seconds leaves about 800·d
// entries, not at least: Poisson arrivals bring 396 in half a second and 790
// in a second with the lesson's seed. And the budget run's offered load stays
// near the arrivals except for two bumps of about twice the arrivals, the
// second when the first burst slides out of the ten-second window.
func TestCorrectedClaims(t *testing.T) {
	for _, tc := range []struct {
		dip   time.Duration
		queue int
	}{{500 * time.Millisecond, 396}, {time.Second, 790}} {
		c := Lesson().WithDipLength(tc.dip)
		if q := run(t, c).QueueAt(c.DipEnd); q != tc.queue {
			t.Errorf("a %v dip leaves %d entries, want %d", tc.dip, q, tc.queue)
		}
	}
	r := run(t, Lesson().WithBudget().WithSample(time.Second))
	bumps := map[time.Duration]float64{11 * time.Second: 1597, 21 * time.Second: 1546}
	for _, p := range r.Timeline[10:] {
		if want, ok := bumps[p.Start]; ok {
			if math.Round(p.Offered) != want {
				t.Errorf("offered load in the second at %v: %.0f/s, want %.0f/s", p.Start, p.Offered, want)
			}
		} else if p.Offered > 900 {
			t.Errorf("offered load in the second at %v: %.0f/s, want near the 800/s arrivals (at most 900/s)", p.Start, p.Offered)
		}
	}
}
