package breaker

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// fail sends n requests at now that all fail.
func fail(t *testing.T, b *Breaker, now time.Time, n int) {
	t.Helper()
	for i := range n {
		p, err := b.Allow(now)
		if err != nil {
			t.Fatalf("request %d of %d refused: %v", i+1, n, err)
		}
		p.Failed(now)
	}
}

// constant is a Uniform that always draws u.
type constant float64

func (c constant) Float64() float64 { return float64(c) }

func TestZeroBreakerOpensAfterFiveConsecutiveFailures(t *testing.T) {
	var b Breaker
	fail(t, &b, t0, 4)
	p, _ := b.Allow(t0)
	p.Succeeded(t0) // resets the run
	fail(t, &b, t0, 4)
	if s := b.State(t0); s != Closed {
		t.Fatalf("after 4+success+4 failures state = %v, want closed", s)
	}
	fail(t, &b, t0, 1)
	if s := b.State(t0); s != Open {
		t.Fatalf("after 5 consecutive failures state = %v, want open", s)
	}
	if _, err := b.Allow(t0); !errors.Is(err, ErrOpen) {
		t.Fatalf("open breaker Allow error = %v, want ErrOpen", err)
	}
	until := b.OpenUntil()
	if d := until.Sub(t0); d < 5*time.Second || d > 7500*time.Millisecond {
		t.Fatalf("default open time %v, want in [5s, 7.5s]", d)
	}
}

func TestOpenTimeIsDrawnFromTheConfiguredRange(t *testing.T) {
	for _, u := range []float64{0, 0.25, 0.999} {
		b, err := New(Config{Failures: 1, OpenTimeout: time.Second, MaxOpenTimeout: 3 * time.Second, Rand: constant(u)})
		if err != nil {
			t.Fatal(err)
		}
		fail(t, b, t0, 1)
		want := time.Second + time.Duration(u*float64(2*time.Second))
		if got := b.OpenUntil().Sub(t0); got != want {
			t.Errorf("u = %v: open for %v, want %v", u, got, want)
		}
		if s := b.State(at(want - 1)); s != Open {
			t.Errorf("u = %v: state 1ns before the end = %v, want open", u, s)
		}
		if s := b.State(at(want)); s != HalfOpen {
			t.Errorf("u = %v: state at the end = %v, want half-open", u, s)
		}
	}
	// A misbehaving source is clamped, not trusted.
	for _, u := range []float64{-1, 1, math.NaN(), math.Inf(1)} {
		b, _ := New(Config{Failures: 1, OpenTimeout: time.Second, MaxOpenTimeout: 3 * time.Second, Rand: constant(u)})
		fail(t, b, t0, 1)
		if got := b.OpenUntil().Sub(t0); got < time.Second || got > 3*time.Second {
			t.Errorf("u = %v: open for %v, outside [1s, 3s]", u, got)
		}
	}
}

// A fleet of breakers that open on the same failure must not half-open
// together: with a seeded generator each draws its own time, and
// the times cover the jitter range.
func TestFleetHalfOpensSpreadOut(t *testing.T) {
	const fleet = 200
	var ends []time.Duration
	for i := range fleet {
		b, err := New(Config{Failures: 1, OpenTimeout: 2 * time.Second, Rand: rand.New(rand.NewPCG(uint64(1000+i), 0))})
		if err != nil {
			t.Fatal(err)
		}
		fail(t, b, t0, 1)
		ends = append(ends, b.OpenUntil().Sub(t0))
	}
	slices.Sort(ends)
	if ends[0] < 2*time.Second || ends[fleet-1] > 3*time.Second {
		t.Fatalf("open times span [%v, %v], want within [2s, 3s]", ends[0], ends[fleet-1])
	}
	// Peak per 10 ms slot: 200 over 100 slots is 2 on average; lock-step would be 200.
	slot := map[time.Duration]int{}
	peak := 0
	for _, e := range ends {
		slot[e/(10*time.Millisecond)]++
		peak = max(peak, slot[e/(10*time.Millisecond)])
	}
	if peak > 10 {
		t.Fatalf("%d of %d breakers half-open in one 10 ms slot, want at most 10", peak, fleet)
	}
	noJitter, _ := New(Config{Failures: 1, OpenTimeout: 2 * time.Second, MaxOpenTimeout: 2 * time.Second})
	fail(t, noJitter, t0, 1)
	if got := noJitter.OpenUntil().Sub(t0); got != 2*time.Second {
		t.Fatalf("MaxOpenTimeout = OpenTimeout: open for %v, want exactly 2s", got)
	}
}

func TestHalfOpenAdmitsProbesThenClosesOrReopens(t *testing.T) {
	cfg := Config{Failures: 1, OpenTimeout: time.Second, MaxOpenTimeout: time.Second, Probes: 2}
	b, _ := New(cfg)
	fail(t, b, t0, 1)
	now := at(time.Second)
	p1, err1 := b.Allow(now)
	p2, err2 := b.Allow(now)
	if err1 != nil || err2 != nil {
		t.Fatalf("half-open refused a probe: %v, %v", err1, err2)
	}
	if _, err := b.Allow(now); !errors.Is(err, ErrOpen) {
		t.Fatalf("third request while 2 probes are out: error %v, want ErrOpen", err)
	}
	p1.Succeeded(now)
	if s := b.State(now); s != HalfOpen {
		t.Fatalf("after 1 of 2 probe successes state = %v, want half-open", s)
	}
	p2.Succeeded(now)
	if s := b.State(now); s != Closed {
		t.Fatalf("after 2 of 2 probe successes state = %v, want closed", s)
	}

	// Once more, and this time a probe fails.
	fail(t, b, now, 1)
	now = now.Add(time.Second)
	p1, _ = b.Allow(now)
	p2, _ = b.Allow(now)
	p1.Succeeded(now)
	p2.Failed(now)
	if s := b.State(now); s != Open {
		t.Fatalf("after a failed probe state = %v, want open", s)
	}
	if got := b.OpenUntil(); !got.Equal(now.Add(time.Second)) {
		t.Fatalf("reopened until %v, want a fresh timeout to %v", got, now.Add(time.Second))
	}
}

func TestStalePermitsAreIgnored(t *testing.T) {
	b, _ := New(Config{Failures: 2, OpenTimeout: time.Second, MaxOpenTimeout: time.Second})
	slow, _ := b.Allow(t0) // a slow request from before the outage
	fail(t, b, t0, 2)
	now := at(time.Second)
	if s := b.State(now); s != HalfOpen {
		t.Fatalf("state = %v, want half-open", s)
	}
	slow.Succeeded(now)
	if s := b.State(now); s != HalfOpen {
		t.Fatalf("a stale success moved the breaker to %v, want it to stay half-open", s)
	}
	var zero Permit
	zero.Failed(now) // must not panic
}

func TestLostProbesReopenTheBreaker(t *testing.T) {
	b, _ := New(Config{Failures: 1, OpenTimeout: time.Second, MaxOpenTimeout: time.Second})
	fail(t, b, t0, 1)
	if _, err := b.Allow(at(time.Second)); err != nil { // the probe is lost: never reported
		t.Fatal(err)
	}
	if _, err := b.Allow(at(1999 * time.Millisecond)); !errors.Is(err, ErrOpen) {
		t.Fatalf("second request while the probe is out: %v, want ErrOpen", err)
	}
	if _, err := b.Allow(at(2 * time.Second)); !errors.Is(err, ErrOpen) {
		t.Fatalf("request after the lost probe timed out: %v, want ErrOpen", err)
	}
	if s := b.State(at(2 * time.Second)); s != Open {
		t.Fatalf("state after a lost probe timed out = %v, want open", s)
	}
	if _, err := b.Allow(at(3 * time.Second)); err != nil {
		t.Fatalf("a new probe after the fresh timeout was refused: %v", err)
	}
}

func TestAbandonedProbeFreesItsSlot(t *testing.T) {
	b, _ := New(Config{Failures: 1, OpenTimeout: time.Second, MaxOpenTimeout: time.Second})
	fail(t, b, t0, 1)
	now := at(time.Second)
	p, err := b.Allow(now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Allow(now); !errors.Is(err, ErrOpen) {
		t.Fatalf("second probe while one is out: %v, want ErrOpen", err)
	}
	p.Abandoned()
	p2, err := b.Allow(now)
	if err != nil {
		t.Fatalf("probe after the first was abandoned: %v, want a permit", err)
	}
	p2.Succeeded(now)
	if s := b.State(now); s != Closed {
		t.Fatalf("state = %v, want closed", s)
	}
	p.Abandoned() // stale: must change nothing
	if s := b.State(now); s != Closed {
		t.Fatalf("a stale Abandoned moved the breaker to %v", s)
	}
}

type change struct {
	from, to State
	at       time.Duration
}

func TestStateChangeHookSeesEveryTransitionInOrder(t *testing.T) {
	var got []change
	b, _ := New(Config{Failures: 1, OpenTimeout: time.Second, MaxOpenTimeout: time.Second,
		OnStateChange: func(from, to State, when time.Time) { got = append(got, change{from, to, when.Sub(t0)}) }})
	fail(t, b, t0, 1)
	p, _ := b.Allow(at(time.Second))
	p.Failed(at(1500 * time.Millisecond))
	p, _ = b.Allow(at(3 * time.Second))
	p.Succeeded(at(3 * time.Second))
	want := []change{
		{Closed, Open, 0},
		{Open, HalfOpen, time.Second},
		{HalfOpen, Open, 1500 * time.Millisecond},
		{Open, HalfOpen, 3 * time.Second},
		{HalfOpen, Closed, 3 * time.Second},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
}

// Many goroutines share one breaker against a dependency that fails 70 % of
// the time. Under -race this checks the locking; the hook checks that every
// reported change is a legal transition that starts where the last ended.
func TestConcurrentUseReportsLegalTransitions(t *testing.T) {
	var last State
	var bad []string
	var changes int
	legal := map[[2]State]bool{{Closed, Open}: true, {Open, HalfOpen}: true, {HalfOpen, Open}: true, {HalfOpen, Closed}: true}
	b, _ := New(Config{Failures: 3, OpenTimeout: time.Microsecond, MaxOpenTimeout: 5 * time.Microsecond, Probes: 2,
		OnStateChange: func(from, to State, _ time.Time) {
			changes++
			if from != last || !legal[[2]State{from, to}] {
				bad = append(bad, from.String()+"→"+to.String())
			}
			last = to
		}})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 0))
			for range 2000 {
				now := time.Now()
				p, err := b.Allow(now)
				if err != nil {
					continue
				}
				if r.Float64() < 0.7 {
					p.Failed(time.Now())
				} else {
					p.Succeeded(time.Now())
				}
			}
		}()
	}
	wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("illegal or out-of-order transitions: %v", bad)
	}
	if changes == 0 {
		t.Fatal("no state changes at a 70 % failure rate")
	}
}

func TestValidateNamesTheParameterAndRange(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Failures: -1}, "breaker: failures -1 out of range: want 1 <= failures <= 1000000"},
		{Config{Failures: 1_000_001}, "breaker: failures 1000001 out of range"},
		{Config{OpenTimeout: -time.Second}, "breaker: open timeout -1s out of range: want 1µs <= open timeout <= 24h0m0s"},
		{Config{OpenTimeout: 25 * time.Hour}, "breaker: open timeout 25h0m0s out of range"},
		{Config{MaxOpenTimeout: time.Second}, "breaker: max open timeout 1s out of range: want open timeout (5s) <= max open timeout <= 24h0m0s"},
		{Config{OpenTimeout: time.Hour, MaxOpenTimeout: 25 * time.Hour}, "breaker: max open timeout 25h0m0s out of range"},
		{Config{Probes: -2}, "breaker: probes -2 out of range: want 1 <= probes <= 1000"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("New(%+v) error = %v, want prefix %q", tc.cfg, err, tc.want)
			}
		})
	}
	b, err := New(Config{OpenTimeout: 20 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Config().MaxOpenTimeout; got != 24*time.Hour {
		t.Fatalf("default max open timeout for a 20h open timeout = %v, want it clipped to 24h", got)
	}
}

func FuzzNew(f *testing.F) {
	f.Add(5, int64(5*time.Second), int64(0), 1, 0.5)
	f.Add(-1, int64(-1), int64(-1), -1, -1.0)
	f.Add(1, int64(time.Microsecond), int64(time.Microsecond), 1000, 0.999)
	f.Add(1<<40, int64(math.MaxInt64), int64(math.MaxInt64), 1<<40, math.NaN())
	f.Fuzz(func(t *testing.T, failures int, open, maxOpen int64, probes int, u float64) {
		cfg := Config{Failures: failures, OpenTimeout: time.Duration(open), MaxOpenTimeout: time.Duration(maxOpen), Probes: probes, Rand: constant(u)}
		b, err := New(cfg)
		if err != nil {
			if b != nil || !strings.HasPrefix(err.Error(), "breaker: ") || !strings.Contains(err.Error(), "want") {
				t.Fatalf("New(%+v) = %v, %v: want nil and a 'breaker: ... want ...' error", cfg, b, err)
			}
			return
		}
		c := b.Config()
		if c.Failures < 1 || c.Probes < 1 || c.OpenTimeout < MinOpenTimeout || c.MaxOpenTimeout < c.OpenTimeout || c.MaxOpenTimeout > MaxOpenTimeoutLimit {
			t.Fatalf("accepted config %+v has fields out of range", c)
		}
		for i := 0; i < c.Failures && i < 100; i++ {
			if p, err := b.Allow(t0); err == nil {
				p.Failed(t0)
			}
		}
		if c.Failures <= 100 {
			if d := b.OpenUntil().Sub(t0); d < c.OpenTimeout || d > c.MaxOpenTimeout {
				t.Fatalf("%+v: open for %v, outside [%v, %v]", c, d, c.OpenTimeout, c.MaxOpenTimeout)
			}
		}
	})
}

func BenchmarkAllowSucceeded(b *testing.B) {
	var br Breaker
	now := t0
	for b.Loop() {
		p, _ := br.Allow(now)
		p.Succeeded(now)
	}
}

func BenchmarkAllowSucceededParallel(b *testing.B) {
	var br Breaker
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			now := time.Now()
			p, _ := br.Allow(now)
			p.Succeeded(now)
		}
	})
}

func BenchmarkAllowWhileOpen(b *testing.B) {
	br, _ := New(Config{Failures: 1, OpenTimeout: time.Hour})
	p, _ := br.Allow(t0)
	p.Failed(t0)
	for b.Loop() {
		br.Allow(t0)
	}
}
