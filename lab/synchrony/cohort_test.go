package synchrony

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

func lineup(t testing.TB, base, cap time.Duration) []schedule.Named {
	t.Helper()
	ps, err := NewLineup(base, cap)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// Without jitter every client attempts at the running sums of the same
// waits: 0, 1, 3, 7, 15 s during the outage, and 31 s, after it.
func TestExponentialStaysInStep(t *testing.T) {
	c := Lesson().WithPolicy(schedule.Exponential{Base: LessonBase, Cap: LessonCap})
	a, err := c.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second, 31 * time.Second}
	if len(a) != LessonClients*len(want) {
		t.Fatalf("%d attempts, want %d", len(a), LessonClients*len(want))
	}
	for i, x := range a {
		client, n := i/len(want), i%len(want)
		if x.Client != client || x.Attempt != n || x.At != want[n] || x.Succeeded != (n == len(want)-1) {
			t.Fatalf("arrival %d = %+v, want client %d attempt %d at %v", i, x, client, n, want[n])
		}
	}
	h, _ := metrics.Count(a.Times(), LessonSlot)
	for _, at := range want {
		if got := h.Counts[at/LessonSlot]; got != LessonClients {
			t.Errorf("slot at %v holds %d, want all %d clients", at, got, LessonClients)
		}
	}
	if n, last := a.Recovered(); n != LessonClients || last != 31*time.Second {
		t.Errorf("recovered %d by %v, want %d by 31s", n, last, LessonClients)
	}
}

// The lesson's table, pinned: the generator is seeded, so the jittered
// rows are exact too.
func TestLessonTable(t *testing.T) {
	rows, err := LessonTable()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"exponential 6000 5000 1000 1000@1s 43.45 1000 31s",
		"full 7059 6059 1000 21@710ms 2.29 1000 39.433s",
		"equal 6111 5111 1000 32@580ms 6.45 1000 39.347s",
		"decorrelated 6223 5223 1000 14@2.85s 1.90 1000 39.991s",
	}
	for i, r := range rows {
		got := fmt.Sprintf("%s %d %d %d %d@%v %.2f %d %v", r.Policy, r.Attempts, r.Retries, r.First.Count,
			r.Peak.Count, r.Peak.At(), r.CV, r.Recovered, r.Last.Round(time.Millisecond))
		if got != want[i] {
			t.Errorf("row %d: %s\n          want %s", i, got, want[i])
		}
		if r.First.Width != LessonSlot || r.Peak.Width != LessonSlot {
			t.Errorf("%s: peaks at %v and %v, want the %v slot", r.Policy, r.First.Width, r.Peak.Width, LessonSlot)
		}
	}
	// The claims the notebook makes from this table.
	none, full := rows[0], rows[1]
	for _, r := range rows[1:] {
		if r.Peak.Count*30 > none.Peak.Count {
			t.Errorf("%s: retry peak %d, want under a thirtieth of no jitter's %d", r.Policy, r.Peak.Count, none.Peak.Count)
		}
		if r.Attempts < none.Attempts {
			t.Errorf("%s: %d attempts, fewer than no jitter's %d: jitter should not cut the volume here", r.Policy, r.Attempts, none.Attempts)
		}
	}
	if full.Attempts <= rows[2].Attempts {
		t.Errorf("full jitter %d attempts vs equal %d: want full to spend the most (its mean wait is half the window)", full.Attempts, rows[2].Attempts)
	}
}

// Whatever the policy, the first attempts meet the failure together: no
// wait comes before them for jitter to act on.
func TestFirstAttemptsInStep(t *testing.T) {
	rows, err := Table(Lesson(), lineup(t, LessonBase, LessonCap), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.First.Count != LessonClients || r.First.At() != 0 {
			t.Errorf("%s: first attempts peak %v, want all %d at 0", r.Policy, r.First, LessonClients)
		}
	}
}

// A Cohort with whole-millisecond waits makes exactly the attempts of
// package cohort's simulator against an unlimited dependency.
func TestMatchesCohortPackage(t *testing.T) {
	for _, p := range []schedule.Policy{
		schedule.Exponential{Base: 100 * time.Millisecond, Cap: 3200 * time.Millisecond},
		schedule.Constant{Base: 100 * time.Millisecond},
		schedule.Exponential{Base: 7 * time.Millisecond, Multiplier: 3},
	} {
		cc := cohort.Lesson().WithPolicy(p)
		cc.Limit, cc.Service, cc.Horizon = cohort.MaxLimit, time.Millisecond, 20*time.Second
		_, tr, err := cohort.RunTraced(cc)
		if err != nil {
			t.Fatal(err)
		}
		var want []Arrival
		for _, x := range tr.Attempts {
			want = append(want, Arrival{Client: x.Client, Attempt: x.Retry, At: x.At, Succeeded: x.Admitted})
		}
		slices.SortFunc(want, func(a, b Arrival) int { return (a.Client-b.Client)*1_000_000 + a.Attempt - b.Attempt })
		got, err := Cohort{Clients: cc.Clients, Policy: p, Outage: cc.Outage, Horizon: cc.Horizon, Seed: cc.Seed}.Arrivals()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, Arrivals(want)) {
			t.Errorf("%v: %d arrivals here, %d in package cohort, or they differ", p, len(got), len(want))
		}
	}
}

// Every client seeded alike draws the same waits: jitter without
// independent randomness is no jitter at all.
func TestSameSeed(t *testing.T) {
	c := Lesson().WithPolicy(schedule.FullJitter{Base: LessonBase, Cap: LessonCap})
	c.SameSeed = true
	r, err := metrics.Measure(Retries{c}, LessonSlot)
	if err != nil {
		t.Fatal(err)
	}
	if r.Peak.Count != LessonClients {
		t.Errorf("same seed everywhere: retry peak %v, want all %d clients in one slot", r.Peak, LessonClients)
	}
	c.SameSeed = false
	if r, _ := metrics.Measure(Retries{c}, LessonSlot); r.Peak.Count > LessonClients/10 {
		t.Errorf("independent draws: retry peak %v, want a small fraction of the clients", r.Peak)
	}
}

// A spread of first attempts is kept by plain backoff, never widened:
// every wave stays as wide as the first.
func TestSpreadKeptWithoutJitter(t *testing.T) {
	c := Lesson().WithPolicy(schedule.Exponential{Base: LessonBase, Cap: LessonCap})
	c.Spread = 50 * time.Millisecond
	a, err := c.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := map[int]time.Duration{}, map[int]time.Duration{}
	for _, x := range a {
		if _, ok := lo[x.Attempt]; !ok {
			lo[x.Attempt], hi[x.Attempt] = x.At, x.At
		}
		lo[x.Attempt], hi[x.Attempt] = min(lo[x.Attempt], x.At), max(hi[x.Attempt], x.At)
	}
	for n := range lo {
		if w := hi[n] - lo[n]; w >= c.Spread || w < c.Spread*9/10 {
			t.Errorf("wave %d is %v wide, want just under the %v spread", n, w, c.Spread)
		}
	}
}

func TestMaxAttempts(t *testing.T) {
	c := Lesson().WithPolicy(schedule.FullJitter{Base: LessonBase})
	c.MaxAttempts = 3
	a, err := c.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 3*LessonClients {
		t.Errorf("%d attempts, want 3 per client", len(a))
	}
	for _, x := range a {
		if x.Attempt >= 3 || x.Succeeded {
			t.Fatalf("arrival %+v beyond the limit or after the outage", x)
		}
	}
}

// At the cap, plain backoff turns every client into a clock with the same
// period: the cohort meets the dependency in one slot every cap, for as long
// as the outage lasts. Full jitter at the cap keeps it spread.
func TestCapKeepsCohortInStep(t *testing.T) {
	c := Lesson()
	c.Outage = c.Horizon
	policies := lineup(t, 100*time.Millisecond, time.Second)
	for _, p := range policies {
		c.Policy = p.Policy
		peaks, err := c.RetryPeaks(LessonSlot, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for i, pk := range peaks {
			switch {
			case p.Name == schedule.NameExponential && pk.Count != LessonClients:
				t.Errorf("none, window %d: peak %d, want all %d clients", i, pk.Count, LessonClients)
			case p.Name != schedule.NameExponential && i > 0 && pk.Count > LessonClients/20:
				t.Errorf("%s, window %d: peak %d, want at most %d", p.Name, i, pk.Count, LessonClients/20)
			}
		}
	}
}

// An uncapped exponential schedule saturates instead of overflowing, so a
// day-long horizon ends.
func TestSaturation(t *testing.T) {
	c := Cohort{Clients: 3, Policy: schedule.Exponential{Base: time.Nanosecond}, Outage: MaxHorizon, Horizon: MaxHorizon}
	a, err := c.Arrivals()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range a {
		if x.At < 0 || x.At >= MaxHorizon {
			t.Fatalf("arrival at %v outside [0, horizon)", x.At)
		}
	}
	if len(a) != 3*47 { // 2⁴⁶ ns ≈ 19.5 h < 24 h ≤ 2⁴⁷ − 1 ns
		t.Errorf("%d attempts, want 47 per client", len(a))
	}
}

func TestTooManyEvents(t *testing.T) {
	c := Cohort{Clients: 2, Policy: schedule.Constant{}, Outage: time.Second, Horizon: time.Second}
	if _, err := c.Arrivals(); !errors.Is(err, ErrTooManyEvents) {
		t.Errorf("a zero wait without an attempt limit: error %v, want ErrTooManyEvents", err)
	}
	c.MaxAttempts = 10
	if a, err := c.Arrivals(); err != nil || len(a) != 20 {
		t.Errorf("with a limit: %d arrivals, %v; want 20", len(a), err)
	}
}

// A custom policy that returns a negative wait does not send time backwards.
type backwards struct{}

func (backwards) Delay(int, time.Duration, schedule.Uniform) time.Duration { return -time.Second }

func TestNegativeWait(t *testing.T) {
	a, err := Cohort{Clients: 1, Policy: backwards{}, Outage: time.Second, Horizon: time.Second, MaxAttempts: 4}.Arrivals()
	if err != nil || len(a) != 4 || a[3].At != 0 {
		t.Errorf("arrivals %v, %v: want 4 attempts at 0", a, err)
	}
}

func TestCohortValidate(t *testing.T) {
	for _, tc := range []struct {
		change func(*Cohort)
		want   string
	}{
		{func(c *Cohort) { c.Clients = 0 }, "clients 0 out of range"},
		{func(c *Cohort) { c.Clients = MaxParticipants + 1 }, "clients"},
		{func(c *Cohort) { c.Policy = nil }, "policy is nil"},
		{func(c *Cohort) { c.Spread = -1 }, "spread"},
		{func(c *Cohort) { c.Outage = MaxHorizon + 1 }, "outage"},
		{func(c *Cohort) { c.Horizon = 0 }, "horizon 0s out of range"},
		{func(c *Cohort) { c.MaxAttempts = -1 }, "max attempts -1"},
		{func(c *Cohort) { c.Seed = 1 << 31 }, "seed 2147483648 out of range"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			c := Lesson().WithPolicy(schedule.FullJitter{Base: time.Second})
			tc.change(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := c.Arrivals(); err == nil {
				t.Errorf("Arrivals accepted what Validate rejects (%q)", tc.want)
			}
		})
	}
}

// FuzzCohort checks that any cohort is rejected with an error naming a
// parameter, or runs within its limits.
func FuzzCohort(f *testing.F) {
	f.Add(1000, int64(0), int64(20*time.Second), int64(time.Minute), 0, int64(1513241), int64(time.Second), false)
	f.Add(0, int64(-1), int64(-1), int64(0), -1, int64(-1), int64(0), true)
	f.Add(5, int64(MaxHorizon), int64(MaxHorizon), int64(MaxHorizon), 3, int64(1<<31-1), int64(math.MaxInt64), false)
	f.Add(3, int64(time.Second), int64(time.Hour), int64(MaxHorizon), 0, int64(7), int64(1), true)
	f.Fuzz(func(t *testing.T, clients int, spread, outage, horizon int64, attempts int, seed, base int64, same bool) {
		if clients > 200 {
			clients %= 200 // keep runs short; the range is tested above
		}
		if attempts > 1000 {
			attempts %= 1000
		}
		if base < int64(time.Millisecond) && attempts <= 0 {
			attempts = 1000 // a tiny base without a limit is a long run, not a bug
		}
		c := Cohort{Clients: clients, Spread: time.Duration(spread), Outage: time.Duration(outage), Horizon: time.Duration(horizon),
			MaxAttempts: attempts, Seed: seed, SameSeed: same, Policy: schedule.Decorrelated{Base: time.Duration(base)}}
		a, err := c.Arrivals()
		if err != nil {
			if !strings.HasPrefix(err.Error(), "synchrony: ") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
			return
		}
		for _, x := range a {
			if x.At < 0 || x.At >= c.Horizon || x.Client < 0 || x.Client >= c.Clients || (attempts > 0 && x.Attempt >= attempts) {
				t.Fatalf("arrival %+v out of bounds for %+v", x, c)
			}
		}
	})
}

// When the lesson's clients recover, by policy: decorrelated jitter is not
// faster than full jitter here (a later mean, 90th percentile and last
// success, an earlier median), while it makes fewer attempts.
func TestRecovery(t *testing.T) {
	want := []string{
		"exponential 1000 31s 31s 31s 31s",
		"full 1000 26.158s 25.11s 33.336s 39.433s",
		"equal 1000 25.035s 24.189s 30.102s 39.347s",
		"decorrelated 1000 26.505s 24.961s 34.747s 39.991s",
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	for i, p := range lineup(t, LessonBase, LessonCap) {
		a, err := Lesson().WithPolicy(p.Policy).Arrivals()
		if err != nil {
			t.Fatal(err)
		}
		r := a.Recovery()
		if got := fmt.Sprintf("%s %d %v %v %v %v", p.Name, r.Clients, ms(r.Mean), ms(r.Median), ms(r.P90), ms(r.Last)); got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
	if r := (Arrivals{{At: time.Second}}).Recovery(); r != (Recovery{}) {
		t.Errorf("no success: %+v, want zero", r)
	}
	if r := (Arrivals{{At: 3, Succeeded: true}, {At: 1, Succeeded: true}}).Recovery(); r.Median != 1 || r.P90 != 3 || r.Mean != 2 {
		t.Errorf("two successes: %+v, want median 1, p90 3, mean 2", r)
	}
}

func TestCohortString(t *testing.T) {
	for _, c := range []struct {
		c    Cohort
		want string
	}{
		{Lesson(), "1000 clients, outage 20s, horizon 1m0s, exponential(base=1s cap=20s mult=2), seed 1513241"},
		{Cohort{Clients: 2, Spread: time.Second, Policy: schedule.Constant{Base: time.Second}, Outage: 1, Horizon: 2, MaxAttempts: 3, SameSeed: true},
			"2 clients starting over 1s, outage 1ns, horizon 2ns, constant(base=1s), at most 3 attempts, one seed for all, seed 0"},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
