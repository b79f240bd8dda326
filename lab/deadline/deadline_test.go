package deadline

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table/tabletest"
)

// The lesson's table, pinned exactly: the generator is seeded, so these are
// not estimates.
func TestLessonTable(t *testing.T) {
	rs, err := Compare(Lesson())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Result{
		{Mode: Oblivious, Requests: 1000, Attempts: 3291, Wasted: 306, InTime: 627, Late: 100, Exhausted: 273},
		{Mode: CheckOnWake, Requests: 1000, Attempts: 3030, Wasted: 45, InTime: 627, Late: 10, GaveUp: 259, Exhausted: 104},
		{Mode: CheckBeforeSleep, Requests: 1000, Attempts: 2953, Wasted: 0, InTime: 624, GaveUp: 307, Exhausted: 69},
	} {
		t.Run(want.Mode.String(), func(t *testing.T) {
			if r := rs.Of(want.Mode); r != want {
				t.Errorf("%+v, want %+v", r, want)
			}
		})
	}
	if len(rs) != 3 || rs[0].Mode != Oblivious || rs[2].Mode != CheckBeforeSleep {
		t.Errorf("Compare's modes out of order: %+v", rs)
	}
	if r := rs[:1].Of(CheckOnWake); r != (Result{}) {
		t.Errorf("Of a mode the rows lack = %+v, want the zero Result", r)
	}
}

// Properties that hold for any setting, checked over a grid of them.
func TestInvariants(t *testing.T) {
	policies := []schedule.Policy{
		schedule.Exponential{Base: 100 * time.Millisecond, Cap: 2 * time.Second},
		schedule.FullJitter{Base: 100 * time.Millisecond, Cap: 2 * time.Second},
		schedule.EqualJitter{Base: 50 * time.Millisecond},
		schedule.Decorrelated{Base: 100 * time.Millisecond, Cap: time.Second},
		schedule.Constant{},
	}
	for _, p := range policies {
		for _, budget := range []time.Duration{100 * time.Millisecond, time.Second, 5 * time.Second} {
			for _, outage := range []time.Duration{0, 2 * time.Second, time.Minute} {
				c := Lesson()
				c.Requests, c.Policy, c.Budget, c.Outage = 300, p, budget, outage
				rs, err := Compare(c)
				if err != nil {
					t.Fatal(err)
				}
				name := func(i int) string { return Modes()[i].String() + " " + budget.String() + " " + outage.String() }
				for i, r := range rs {
					if n := r.InTime + r.Late + r.GaveUp + r.Exhausted; n != r.Requests {
						t.Errorf("%s: outcomes add up to %d, want %d requests: %+v", name(i), n, r.Requests, r)
					}
					if r.Wasted > r.Attempts || r.Attempts < r.Requests || r.Attempts > r.Requests*c.MaxAttempts {
						t.Errorf("%s: %+v: attempts out of bounds", name(i), r)
					}
				}
				ob, wake, check := rs.Of(Oblivious), rs.Of(CheckOnWake), rs.Of(CheckBeforeSleep)
				if ob.GaveUp != 0 {
					t.Errorf("oblivious gave up %d requests", ob.GaveUp)
				}
				// Checking on waking stops only requests whose later
				// attempts would all start after the deadline.
				if wake.InTime != ob.InTime {
					t.Errorf("%v/%v: in time %d on wake vs %d oblivious, want equal", budget, outage, wake.InTime, ob.InTime)
				}
				if !(check.InTime <= wake.InTime && check.Wasted <= wake.Wasted && wake.Wasted <= ob.Wasted &&
					check.Attempts <= wake.Attempts && wake.Attempts <= ob.Attempts) {
					t.Errorf("%v/%v: modes out of order: %+v", budget, outage, rs)
				}
				// With the true worst case, only a first attempt longer
				// than the whole budget can be wasted.
				if budget >= c.AttemptMax && check.Wasted != 0 {
					t.Errorf("%v/%v: check before sleep wasted %d attempts, want 0", budget, outage, check.Wasted)
				}
			}
		}
	}
}

// An optimistic worst case lets doomed attempts through.
func TestOptimisticWorst(t *testing.T) {
	c := Lesson().WithMode(CheckBeforeSleep)
	r, err := Run(c.WithWorst(100 * time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if r.Wasted == 0 {
		t.Errorf("worst case 100ms with attempts up to 250ms: no wasted attempts, want some: %+v", r)
	}
	exact, _ := Run(c.WithWorst(c.AttemptMax))
	if exact.Wasted != 0 {
		t.Errorf("true worst case: %d wasted attempts, want 0", exact.Wasted)
	}
}

// Without an outage every request is answered by its first attempt, within
// its budget.
func TestNoOutage(t *testing.T) {
	for _, m := range Modes() {
		t.Run(m.String(), func(t *testing.T) {
			r, _ := Run(Lesson().WithOutage(0).WithMode(m))
			if want := (Result{Mode: m, Requests: 1000, Attempts: 1000, InTime: 1000}); r != want {
				t.Errorf("%+v, want %+v", r, want)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := Run(Lesson())
	b, _ := Run(Lesson())
	if a != b {
		t.Errorf("same config, different results: %+v vs %+v", a, b)
	}
	if d, _ := Run(Lesson().WithSeed(Lesson().Seed + 1)); d == a {
		t.Errorf("another seed gave the same result %+v", d)
	}
}

func TestStreamSeed(t *testing.T) {
	seen := map[int64]bool{}
	for _, seed := range []int64{0, 1, 1513241, 1<<31 - 1} {
		for i := range 1000 {
			s := StreamSeed(seed, i)
			if s < 0 || s >= 1<<31 {
				t.Fatalf("StreamSeed(%d, %d) = %d, want a seed in [0, 2^31)", seed, i, s)
			}
			seen[s] = true
		}
	}
	if len(seen) < 3990 {
		t.Errorf("%d distinct stream seeds out of 4000", len(seen))
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Requests = 0 }, "requests 0 out of range"},
		{func(c *Config) { c.Requests = MaxRequests + 1 }, "requests"},
		{func(c *Config) { c.Spread = -1 }, "spread"},
		{func(c *Config) { c.Outage = MaxDuration + 1 }, "outage"},
		{func(c *Config) { c.Budget = 0 }, "budget 0s out of range"},
		{func(c *Config) { c.AttemptMin = 0 }, "attempt min"},
		{func(c *Config) { c.AttemptMax = c.AttemptMin - 1 }, "attempt max"},
		{func(c *Config) { c.Worst = -1 }, "worst"},
		{func(c *Config) { c.Worst = 0 }, "worst"},
		{func(c *Config) { c.MaxAttempts = 0 }, "max attempts 0 out of range"},
		{func(c *Config) { c.MaxAttempts = MaxAttempts + 1 }, "max attempts"},
		{func(c *Config) { c.Policy = nil }, "policy is nil"},
		{func(c *Config) { c.Mode = 3 }, "mode 3 out of range"},
		{func(c *Config) { c.Seed = 1 << 31 }, "seed 2147483648 out of range"},
		{func(c *Config) { c.Seed = -1 }, "seed -1"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			c := Lesson()
			tc.change(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := Run(c); err == nil {
				t.Errorf("Run accepted what Validate rejects (%q)", tc.want)
			}
		})
	}
	if err := Lesson().Validate(); err != nil {
		t.Errorf("Lesson(): %v", err)
	}
}

// The With methods change one field each and leave the receiver alone.
func TestWith(t *testing.T) {
	c := Lesson()
	exp := schedule.Exponential{Base: time.Millisecond}
	for _, tc := range []struct {
		name string
		got  Config
		want func(*Config)
	}{
		{"mode", c.WithMode(CheckOnWake), func(c *Config) { c.Mode = CheckOnWake }},
		{"policy", c.WithPolicy(exp), func(c *Config) { c.Policy = exp }},
		{"budget", c.WithBudget(time.Second), func(c *Config) { c.Budget = time.Second }},
		{"worst", c.WithWorst(time.Millisecond), func(c *Config) { c.Worst = time.Millisecond }},
		{"outage", c.WithOutage(0), func(c *Config) { c.Outage = 0 }},
		{"requests", c.WithRequests(5), func(c *Config) { c.Requests = 5 }},
		{"max attempts", c.WithMaxAttempts(2), func(c *Config) { c.MaxAttempts = 2 }},
		{"seed", c.WithSeed(4), func(c *Config) { c.Seed = 4 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := Lesson()
			tc.want(&want)
			if tc.got != want {
				t.Errorf("got %+v, want %+v", tc.got, want)
			}
		})
	}
	if c != Lesson() {
		t.Errorf("the With methods changed their receiver: %+v", c)
	}
}

func TestModeString(t *testing.T) {
	got := []string{}
	for _, m := range append(Modes(), Mode(7)) {
		got = append(got, m.String())
	}
	if s := strings.Join(got, "|"); s != "oblivious|check on wake|check before sleep|Mode(7)" {
		t.Errorf("mode names %q", s)
	}
}

// FuzzRun checks that any configuration is either rejected with an error
// naming a parameter or runs to completion with consistent counts.
func FuzzRun(f *testing.F) {
	f.Add(1000, int64(10*time.Second), int64(5*time.Second), int64(2*time.Second), int64(50*time.Millisecond), int64(250*time.Millisecond), int64(0), 6, 2, int64(1513241), int64(100*time.Millisecond))
	f.Add(1, int64(0), int64(0), int64(1), int64(1), int64(1), int64(0), 1, 0, int64(0), int64(0))
	f.Add(3, int64(-1), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(-1), 1001, 5, int64(-1), int64(math.MaxInt64))
	f.Add(50, int64(0), int64(MaxDuration), int64(MaxDuration), int64(MaxDuration), int64(MaxDuration), int64(MaxDuration), 1000, 1, int64(1<<31-1), int64(MaxDuration))
	f.Fuzz(func(t *testing.T, requests int, spread, outage, budget, amin, amax, worst int64, attempts, mode int, seed, base int64) {
		if requests > 2000 {
			requests %= 2000 // keep each run short; range checks are tested above
		}
		c := Config{
			Requests: requests, Spread: time.Duration(spread), Outage: time.Duration(outage),
			Budget: time.Duration(budget), AttemptMin: time.Duration(amin), AttemptMax: time.Duration(amax),
			Worst: time.Duration(worst), MaxAttempts: attempts, Mode: Mode(mode), Seed: seed,
			Policy: schedule.FullJitter{Base: time.Duration(base)},
		}
		r, err := Run(c)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "deadline: ") || !strings.Contains(err.Error(), "range") && !strings.Contains(err.Error(), "nil") {
				t.Fatalf("error %q does not name a parameter and its range", err)
			}
			return
		}
		if n := r.InTime + r.Late + r.GaveUp + r.Exhausted; n != r.Requests || r.Wasted > r.Attempts {
			t.Fatalf("inconsistent result %+v", r)
		}
	})
}

// The lesson's tables, as lesson 08 prints them.
func TestTables(t *testing.T) {
	rs, err := Compare(Lesson())
	if err != nil {
		t.Fatal(err)
	}
	if s := rs.Table().String(); !strings.Contains(s, "627") || strings.Count(s, "\n") < 4 {
		t.Errorf("Rows.Table: want a header and three modes:\n%s", s)
	}
	w, err := WorstTable(Lesson().WithMode(CheckBeforeSleep), 250*time.Millisecond, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "WorstTable", w,
		"                              250ms         250ms                0               624",
		"                              100ms         250ms               24               627")
}
