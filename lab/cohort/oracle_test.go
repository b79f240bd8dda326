package cohort

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// randomConfigs returns n varied, small configurations (so that the
// reference stays quick), drawn from a fixed generator: every policy of
// package schedule, with and without outage and spread, horizons that cut
// runs short and ones that do not, limits above and below the cohort size.
func randomConfigs(n int) []Config {
	g := lcg.MustNew(7)
	pick := func(lo, hi int) int { return lo + int(g.Float64()*float64(hi-lo+1)) }
	msd := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	var out []Config
	for len(out) < n {
		base := pick(1, 200)
		names := schedule.Names()
		p, err := NewPolicy(names[pick(0, len(names)-1)], msd(base), msd(base*pick(1, 40)), msd(pick(1, 200)))
		if err != nil {
			panic(err)
		}
		// Now and then a multiplier other than 2, or sub-millisecond waits,
		// which the simulator does not compute itself but asks the policy.
		switch pick(0, 7) {
		case 0:
			p = schedule.Exponential{Base: msd(base), Cap: msd(base * 50), Multiplier: 1 + 2*g.Float64()}
		case 1:
			p = schedule.FullJitter{Base: time.Duration(pick(1, 3000)) * time.Microsecond, Multiplier: 3}
		}
		c := Config{
			Clients:  pick(1, 80),
			Limit:    pick(1, 12),
			Service:  msd(pick(1, 300)),
			Outage:   msd(pick(0, 3000) * pick(0, 1)),
			Spread:   msd(pick(0, 500) * pick(0, 1)),
			Horizon:  msd(pick(1, 15000)),
			Policy:   p,
			Seed:     int64(g.Next()),
			MaxCalls: DefaultMaxCalls,
		}
		out = append(out, c)
	}
	return out
}

// reference is RunReference as a runner, with the trace only if asked.
func reference(c Config, traced bool) (Result, *Trace, error) {
	r, tr, err := RunReference(c)
	if !traced {
		tr = nil
	}
	return r, tr, err
}

// TestRunIsTheReference checks that the event-driven simulator and the
// reference agree exactly, attempt by attempt, on hundreds of random
// configurations and on the lesson's own settings.
func TestRunIsTheReference(t *testing.T) {
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
		want, wtr, err := RunReference(c)
		if err != nil {
			t.Fatalf("config %d: reference: %v", i, err)
		}
		if got != want {
			t.Fatalf("config %d %+v:\nevents    %+v\nreference %+v", i, c, got, want)
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
	}{{2252, false}, {2251, true}, {DefaultMaxCalls, false}, {1, true}} {
		t.Run(fmt.Sprintf("budget %d", tc.budget), func(t *testing.T) {
			c.MaxCalls = tc.budget
			var msgs []string
			for name, run := range map[string]runner{"events": simulate, "reference": reference} {
				_, _, err := run(c, false)
				if fails := errors.Is(err, ErrTooManyCalls); fails != tc.fails || (err != nil && !fails) {
					t.Errorf("%s: error %v, want failure %v", name, err, tc.fails)
				}
				if err != nil {
					msgs = append(msgs, err.Error())
				}
			}
			if len(msgs) == 2 && msgs[0] != msgs[1] {
				t.Errorf("the two simulators say different things:\n%s\n%s", msgs[0], msgs[1])
			}
		})
	}
}
