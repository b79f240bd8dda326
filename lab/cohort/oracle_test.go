package cohort

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// randomConfigs returns n varied, small configurations (so that the tick
// loop stays quick), drawn from a fixed generator: every policy, with and
// without outage and spread, horizons that cut runs short and ones that do
// not, limits above and below the cohort size.
func randomConfigs(n int) []Config {
	g := lcg.MustNew(7)
	pick := func(lo, hi int) int { return lo + int(g.Float64()*float64(hi-lo+1)) }
	msd := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	var out []Config
	for len(out) < n {
		base := pick(1, 200)
		l := Lineup()
		p, err := NewPolicy(l[pick(0, len(l)-1)].Name, msd(base), msd(base*pick(1, 40)), msd(pick(1, 200)))
		if err != nil {
			panic(err)
		}
		c := Config{
			Clients: pick(1, 80),
			Limit:   pick(1, 12),
			Service: msd(pick(1, 300)),
			Outage:  msd(pick(0, 3000) * pick(0, 1)),
			Spread:  msd(pick(0, 500) * pick(0, 1)),
			Horizon: msd(pick(1, 15000)),
			Policy:  p,
			Seed:    int64(g.Next()),
		}
		out = append(out, c)
	}
	return out
}

// TestEventsMatchTickLoop checks that the event-driven simulator and the
// millisecond loop agree exactly, attempt by attempt, on hundreds of
// configurations and on the lesson's own settings.
func TestEventsMatchTickLoop(t *testing.T) {
	configs := randomConfigs(400)
	for _, p := range Lineup() {
		for s := range int64(3) {
			for _, c := range []Config{Lesson().WithPolicy(p.Policy), Lesson().WithoutOutage().WithPolicy(p.Policy), Lesson().WithOverload().WithPolicy(p.Policy)} {
				c.Seed += s
				c.Spread = time.Duration(s*50) * time.Millisecond
				configs = append(configs, c)
			}
		}
	}
	for i, c := range configs {
		got, gtr, err := RunTraced(c)
		if err != nil {
			t.Fatalf("config %d %+v: %v", i, c, err)
		}
		want, wtr, err := tickRun(c, true)
		if err != nil {
			t.Fatalf("config %d: tick loop: %v", i, err)
		}
		if got != want {
			t.Fatalf("config %d %+v:\nevents %+v\ntick   %+v", i, c, got, want)
		}
		if !slices.Equal(gtr.Attempts, wtr.Attempts) || gtr.End != wtr.End {
			t.Fatalf("config %d %+v: traces differ", i, c)
		}
		r, err := Run(c)
		if err != nil || r != got {
			t.Fatalf("config %d: Run %+v, %v differs from RunTraced %+v", i, r, err, got)
		}
	}
}

// TestCallBudget checks that both simulators stop at the same budget, and
// that a budget equal to the calls a run makes is enough.
func TestCallBudget(t *testing.T) {
	p, _ := NewPolicy("constant", DefaultBase, DefaultCap, DefaultWait)
	c := Lesson().WithPolicy(p) // constant retry makes 2252 calls
	for _, tc := range []struct {
		budget int
		fails  bool
	}{{2252, false}, {2251, true}, {0, false}, {1, true}} {
		t.Run(fmt.Sprintf("budget %d", tc.budget), func(t *testing.T) {
			c.MaxCalls = tc.budget
			for name, run := range map[string]runner{"events": simulate, "tick": tickRun} {
				_, _, err := run(c, false)
				if fails := errors.Is(err, ErrTooManyCalls); fails != tc.fails || (err != nil && !fails) {
					t.Errorf("%s: error %v, want failure %v", name, err, tc.fails)
				}
			}
		})
	}
}

// TestTickFastMatchesTickLoop checks that the benchmarks' fast tick loop
// is a faithful twin of the oracle.
func TestTickFastMatchesTickLoop(t *testing.T) {
	configs := randomConfigs(200)
	for _, sc := range denseScenarios() {
		configs = append(configs, sc.c)
	}
	for i, c := range configs {
		got, _, err := tickFast(c, false)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		want, _, err := tickRun(c, false)
		if err != nil {
			t.Fatalf("config %d: tick loop: %v", i, err)
		}
		if got != want {
			t.Fatalf("config %d %+v:\nfast %+v\ntick %+v", i, c, got, want)
		}
	}
}
