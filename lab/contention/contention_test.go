package contention

import (
	"math"
	"strings"
	"testing"
	"time"
)

// means runs every policy at n clients with cfg's other parameters and
// returns the means by policy name.
func means(t *testing.T, cfg Config, n, runs int) map[string]Mean {
	t.Helper()
	ms, err := Sweep(cfg, []int{n}, Policies(), runs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Mean{}
	for _, m := range ms {
		out[m.Config.Policy] = m
	}
	return out
}

// The qualitative claims of Brooker's post, on his parameters, at 100
// clients averaged over 100 runs.
func TestBrookerClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("averages 500 runs")
	}
	m := means(t, Brooker(0, ""), 100, 100)
	exp, full, equal, dec := m["exponential"], m["full"], m["equal"], m["decorrelated"]
	for _, p := range Policies() {
		t.Logf("%-12s %7.1f writes %8.0f ms", p, m[p].Calls, m[p].TimeMS())
	}
	// Jitter more than halves the calls (full and equal: about 0.43×;
	// decorrelated makes more calls and only cuts them to about 0.54×).
	for _, j := range []Mean{full, equal} {
		if r := j.Calls / exp.Calls; r >= 0.5 {
			t.Errorf("%s/exponential calls = %.2f, want < 0.5", j.Config.Policy, r)
		}
	}
	if r := dec.Calls / exp.Calls; r >= 0.6 {
		t.Errorf("decorrelated/exponential calls = %.2f, want < 0.6", r)
	}
	// Exponential is the clear loser among the backoff policies, in work
	// and in time (it takes over ten times as long as any jittered policy).
	for _, j := range []Mean{full, equal, dec} {
		if j.Calls >= exp.Calls {
			t.Errorf("%s makes %.0f calls, exponential %.0f: want exponential to make more", j.Config.Policy, j.Calls, exp.Calls)
		}
		if r := exp.TimeMS() / j.TimeMS(); r < 8 {
			t.Errorf("exponential takes %.1f× as long as %s, want > 8×", r, j.Config.Policy)
		}
	}
	// Full and equal jitter spend about the same calls...
	if r := equal.Calls / full.Calls; math.Abs(r-1) > 0.05 {
		t.Errorf("equal/full calls = %.3f, want within 5%% of 1", r)
	}
	// ...but equal jitter takes clearly longer.
	if r := equal.TimeMS() / full.TimeMS(); r < 1.2 {
		t.Errorf("equal/full time = %.2f, want > 1.2", r)
	}
	// Decorrelated spends more calls than full but less time.
	if r := dec.Calls / full.Calls; r < 1.15 {
		t.Errorf("decorrelated/full calls = %.2f, want > 1.15", r)
	}
	if dec.Time >= full.Time {
		t.Errorf("decorrelated takes %v, full %v: want decorrelated faster", dec.Time, full.Time)
	}
	// Without backoff everyone commits fastest, at the price of the most work.
	none := m[NoBackoff]
	for _, p := range Policies()[1:] {
		if none.Time >= m[p].Time || none.Calls <= m[p].Calls {
			t.Errorf("none: %v and %.0f calls; %s: %v and %.0f calls: want none faster and busier", none.Time, none.Calls, p, m[p].Time, m[p].Calls)
		}
	}
}

// Decorrelated jitter's time advantage over full jitter is a
// small-population effect in this model: it holds at 50 and 100 clients for
// every seed tried, and is gone by 150 (see TestDecorrelatedCrossover).
func TestDecorrelatedFasterAt50(t *testing.T) {
	if testing.Short() {
		t.Skip("averages 200 runs")
	}
	for _, seed := range []int64{1, 2} {
		c := Brooker(50, "full")
		c.Seed = seed
		full, _ := Repeat(c, 100)
		c.Policy = "decorrelated"
		dec, _ := Repeat(c, 100)
		if r := dec.TimeMS() / full.TimeMS(); r > 0.9 {
			t.Errorf("seed %d: decorrelated/full time at 50 clients = %.2f, want < 0.9", seed, r)
		}
	}
}

// At 190 clients decorrelated jitter is the slower of the two.
func TestDecorrelatedCrossover(t *testing.T) {
	if testing.Short() {
		t.Skip("averages 200 runs at 190 clients")
	}
	c := Brooker(190, "full")
	full, _ := Repeat(c, 100)
	c.Policy = "decorrelated"
	dec, _ := Repeat(c, 100)
	if dec.Time <= full.Time {
		t.Errorf("190 clients: decorrelated %v, full %v: want decorrelated slower", dec.Time, full.Time)
	}
}

// The Backoff Lab summary's figures for 100 clients, and what the Summary
// parameter set gives with the default seed over 100 runs. The set matches
// full jitter's calls; the others differ by the margins pinned here, because
// no single parameter set gives all four (3.2 s for full jitter needs a cap
// of about 0.75 s, which would cut exponential's 38 s to about 14 s).
func TestSummarySet(t *testing.T) {
	if testing.Short() {
		t.Skip("averages 200 runs")
	}
	full, err := Repeat(Summary(100, "full"), 100)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := Repeat(Summary(100, "exponential"), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name             string
		got, want, pin   float64
		pinTol, claimTol float64 // relative tolerances
	}{
		{"full calls", full.Calls, 1490, 1493.4, 0.01, 0.01},
		{"exponential calls", exp.Calls, 2584, 2268.7, 0.01, 0.15},
		{"full time ms", full.TimeMS(), 3200, 4555.5, 0.03, 0.50},
		{"exponential time ms", exp.TimeMS(), 38000, 34046.8, 0.03, 0.15},
	} {
		if rel := math.Abs(c.got/c.pin - 1); rel > c.pinTol {
			t.Errorf("%s = %.1f, pinned %.1f ± %.0f%%", c.name, c.got, c.pin, 100*c.pinTol)
		}
		if rel := math.Abs(c.got/c.want - 1); rel > c.claimTol {
			t.Errorf("%s = %.1f, summary says %.0f: %.0f%% off, documented as within %.0f%%", c.name, c.got, c.want, 100*rel, 100*c.claimTol)
		}
	}
}

func TestSameSeedSameNumbers(t *testing.T) {
	for _, p := range Policies() {
		c := Brooker(40, p)
		a, err := Repeat(c, 5)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Repeat(c, 5)
		if a != b {
			t.Errorf("%s: two runs with one seed differ: %+v vs %+v", p, a, b)
		}
		c.Seed++
		d, _ := Repeat(c, 5)
		if a.Time == d.Time && a.Calls == d.Calls {
			t.Errorf("%s: seeds %d and %d give identical numbers", p, c.Seed-1, c.Seed)
		}
	}
}

// A pair's numbers from Sweep equal Repeat's for the same Config, whatever
// else the sweep contains and however its goroutines are scheduled.
func TestSweepMatchesRepeat(t *testing.T) {
	ms, err := Sweep(Brooker(0, ""), []int{30, 10, 20}, []string{"full", "none"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 6 {
		t.Fatalf("got %d means, want 6", len(ms))
	}
	for i, want := range []struct {
		p string
		n int
	}{{"full", 30}, {"full", 10}, {"full", 20}, {"none", 30}, {"none", 10}, {"none", 20}} {
		m := ms[i]
		if m.Config.Policy != want.p || m.Config.Clients != want.n {
			t.Fatalf("mean %d is %s/%d, want %s/%d", i, m.Config.Policy, m.Config.Clients, want.p, want.n)
		}
		r, _ := Repeat(m.Config, 3)
		if r != m {
			t.Errorf("%s/%d: sweep %+v, repeat %+v", want.p, want.n, m, r)
		}
	}
}

// With no network delay every message is due at t = 0, so only the tie
// rule orders them: messages are delivered in the order they were sent.
// Each round every remaining client reads, then writes, and only the first
// write succeeds: N + (N−1) + … + 1 writes.
func TestTiesInSendingOrder(t *testing.T) {
	for _, n := range []int{1, 2, 7, 50} {
		c := Brooker(n, NoBackoff)
		c.Net, c.NetSD = 0, 0
		r, err := Run(c)
		if err != nil {
			t.Fatal(err)
		}
		want := n * (n + 1) / 2
		if r.Writes != want || r.Reads != want || r.Time != 0 {
			t.Errorf("%d clients: %d writes, %d reads, time %v; want %d, %d, 0", n, r.Writes, r.Reads, r.Time, want, want)
		}
	}
}

func TestEventQueueOrder(t *testing.T) {
	var q eventQueue
	// Times 0..9 pushed in a scrambled order, three events each; within a
	// time the pushes' order must come back out.
	for k := range 30 {
		q.push(event{at: time.Duration((k * 7) % 10), client: int32(k)})
	}
	var last event
	for i := 0; q.len() > 0; i++ {
		e := q.min()
		q.dropMin()
		if i > 0 && !last.before(&e) {
			t.Fatalf("event %d (at %v seq %d) came after (at %v seq %d)", i, e.at, e.seq, last.at, last.seq)
		}
		last = e
	}
}

func TestCounting(t *testing.T) {
	c := Brooker(30, "full")
	w, _ := Run(c)
	c.Count = ReadsAndWrites
	rw, _ := Run(c)
	if w.Calls != w.Writes || rw.Calls != rw.Reads+rw.Writes || w.Writes != rw.Writes {
		t.Errorf("writes-only %+v, reads+writes %+v", w, rw)
	}
	// Every write follows its own read.
	if w.Reads != w.Writes {
		t.Errorf("%d reads for %d writes, want equal", w.Reads, w.Writes)
	}
	if got := ReadsAndWrites.String(); got != "reads+writes" {
		t.Errorf("String = %q", got)
	}
}

// The first-retry convention only matters to the growing policies.
func TestFirstExponent(t *testing.T) {
	for _, p := range []string{"full", "decorrelated", "none"} {
		c := Brooker(60, p)
		a, _ := Run(c)
		c.FirstExponent = 0
		b, _ := Run(c)
		if changed := a != b; changed != (p == "full") {
			t.Errorf("%s: FirstExponent 1 → 0 changed the run: %v, want %v", p, changed, p == "full")
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Brooker(10, "full")
	if err := ok.Validate(); err != nil {
		t.Fatalf("Brooker: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Clients = 0 }, "Clients 0 out of range"},
		{func(c *Config) { c.Clients = MaxClients + 1 }, "Clients"},
		{func(c *Config) { c.Policy = "fancy" }, `Policy "fancy" unknown: want one of none, exponential, full, equal, decorrelated (or uniform, constant)`},
		{func(c *Config) { c.Base = 0 }, "Base 0s out of range"},
		{func(c *Config) { c.Cap = c.Base - 1 }, "Cap"},
		{func(c *Config) { c.Cap = MaxCap + 1 }, "Cap"},
		{func(c *Config) { c.FirstExponent = -1 }, "FirstExponent"},
		{func(c *Config) { c.Net = -1 }, "Net -1ns out of range"},
		{func(c *Config) { c.NetSD = 2 * MaxNet }, "NetSD"},
		{func(c *Config) { c.Count = 2 }, "Count"},
		{func(c *Config) { c.Seed = -1 }, "Seed"},
	} {
		c := ok
		tc.edit(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want an error containing %q", c, err, tc.want)
		}
		if _, rerr := Run(c); rerr == nil {
			t.Errorf("Run accepted %+v", c)
		}
	}
	if _, err := Repeat(ok, 0); err == nil || !strings.Contains(err.Error(), "runs 0 out of range") {
		t.Errorf("Repeat(runs=0) = %v", err)
	}
	if _, err := Sweep(ok, nil, Policies(), 1); err == nil {
		t.Error("Sweep with no client counts succeeded")
	}
	if _, err := Sweep(ok, []int{10}, []string{"full", "bogus"}, 1); err == nil {
		t.Error("Sweep with a bad policy succeeded")
	}
}

// Any Config either fails Validate or runs to completion with sane counts.
func FuzzConfig(f *testing.F) {
	f.Add(10, "full", int64(5e6), int64(2e9), 1, int64(10e6), int64(2e6), 0, int64(1))
	f.Add(3, "none", int64(1), int64(1), 0, int64(0), int64(0), 1, int64(0))
	f.Add(5, "decorrelated", int64(-1), int64(0), 99, int64(-5), int64(1e12), 7, int64(1<<40))
	f.Fuzz(func(t *testing.T, clients int, policy string, base, cap int64, first int, net, sd int64, count int, seed int64) {
		c := Config{Clients: clients, Policy: policy, Base: time.Duration(base), Cap: time.Duration(cap),
			FirstExponent: first, Net: time.Duration(net), NetSD: time.Duration(sd), Count: Counting(count), Seed: seed}
		if c.Validate() != nil || clients > 40 {
			return
		}
		r, err := Run(c)
		if err != nil {
			t.Fatalf("Validate passed but Run failed: %v", err)
		}
		if r.Writes < clients || r.Reads != r.Writes || r.Time < 0 || r.Writes > clients*(clients+1)/2 {
			t.Fatalf("%+v: implausible result %+v", c, r)
		}
	})
}
