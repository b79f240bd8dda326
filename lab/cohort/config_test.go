package cohort

import (
	"errors"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	ok := Lesson().WithPolicy(lineupOf(schedule.NameFull).Policy)
	if err := ok.Validate(); err != nil {
		t.Fatalf("Lesson: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string // the parameter the error must name
	}{
		{"zero clients", func(c *Config) { c.Clients = 0 }, "clients 0 out of range"},
		{"negative clients", func(c *Config) { c.Clients = -3 }, "clients -3"},
		{"too many clients", func(c *Config) { c.Clients = MaxClients + 1 }, "clients"},
		{"zero limit", func(c *Config) { c.Limit = 0 }, "limit 0 out of range"},
		{"negative limit", func(c *Config) { c.Limit = -1 }, "limit -1"},
		{"huge limit", func(c *Config) { c.Limit = math.MaxInt }, "limit"},
		{"zero service", func(c *Config) { c.Service = 0 }, "service 0s out of range"},
		{"negative service", func(c *Config) { c.Service = -time.Second }, "service"},
		{"sub-ms service", func(c *Config) { c.Service = 1500 * time.Microsecond }, "service 1.5ms is not a whole number"},
		{"negative outage", func(c *Config) { c.Outage = -1 }, "outage"},
		{"negative spread", func(c *Config) { c.Spread = -time.Millisecond }, "spread -1ms out of range"},
		{"fractional spread", func(c *Config) { c.Spread = time.Nanosecond }, "spread 1ns is not"},
		{"zero horizon", func(c *Config) { c.Horizon = 0 }, "horizon 0s out of range"},
		{"horizon overflow", func(c *Config) { c.Horizon = math.MaxInt64 }, "horizon"},
		{"outage overflow", func(c *Config) { c.Outage = MaxHorizon + time.Millisecond }, "outage"},
		{"nil policy", func(c *Config) { c.Policy = nil }, "policy is nil"},
		{"negative seed", func(c *Config) { c.Seed = -1 }, "seed -1"},
		{"huge seed", func(c *Config) { c.Seed = 1 << 31 }, "seed"},
		{"negative budget", func(c *Config) { c.MaxCalls = -1 }, "max calls"},
		{"no budget", func(c *Config) { c.MaxCalls = 0 }, "max calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err2 := Run(c); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("Run error %v, want %v", err2, err)
			}
			if _, err2 := Average(c, 2); err2 == nil {
				t.Errorf("Average accepted it")
			}
		})
	}
}

func TestNewPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, policy    string
		base, cap, wait time.Duration
		want            string
	}{
		{"zero base", "full", 0, DefaultCap, DefaultWait, "base 0s out of range"},
		{"cap below base", "full", DefaultBase, 50 * time.Millisecond, DefaultWait, "cap 50ms out of range: want cap >= base (100ms)"},
		{"negative cap", "full", DefaultBase, -1, DefaultWait, "cap"},
		{"zero wait", "constant", DefaultBase, DefaultCap, 0, "wait 0s out of range"},
		{"unknown name", "jitter", DefaultBase, DefaultCap, DefaultWait, `unknown policy "jitter": want one of exponential, full`},
		{"first edition's none", "none", DefaultBase, DefaultCap, DefaultWait, `policy "none" was renamed`},
		{"first edition's flat", "flat", DefaultBase, DefaultCap, DefaultWait, `use "constant"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPolicy(tc.policy, tc.base, tc.cap, tc.wait)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cohort: ") {
				t.Errorf("NewPolicy(%q, %v, %v, %v) error %v, want %q", tc.policy, tc.base, tc.cap, tc.wait, err, tc.want)
			}
		})
	}
	if _, err := NewLineup(DefaultBase, DefaultBase/2, DefaultWait); err == nil {
		t.Error("NewLineup accepted cap < base")
	}
	// The constant policy waits wait, the others start from base.
	c, _ := NewPolicy(schedule.NameConstant, DefaultBase, DefaultCap, 7*time.Millisecond)
	e, _ := NewPolicy(schedule.NameExponential, DefaultBase, DefaultCap, 7*time.Millisecond)
	if c.Delay(5, 0, nil) != 7*time.Millisecond || e.Delay(0, 0, nil) != DefaultBase {
		t.Errorf("constant waits %v, exponential first %v; want 7ms and %v", c.Delay(5, 0, nil), e.Delay(0, 0, nil), DefaultBase)
	}
}

// TestLesson: the lesson's setting is valid as it is, its policy is plain
// exponential backoff, and the modifiers change only what they name.
func TestLesson(t *testing.T) {
	l := Lesson()
	if err := l.Validate(); err != nil {
		t.Fatalf("Lesson(): %v", err)
	}
	if l.Policy != lineupOf(schedule.NameExponential).Policy || l.Seed != lcg.DefaultSeed {
		t.Errorf("Lesson() policy %v, seed %d; want the lineup's exponential and lcg.DefaultSeed", l.Policy, l.Seed)
	}
	o := l.WithOverload()
	if o.Clients != 240 || o.Limit != 4 || o.Horizon != time.Minute || o.Outage != l.Outage || o.Service != l.Service {
		t.Errorf("WithOverload() = %+v", o)
	}
	if n := l.WithoutOutage(); n.Outage != 0 || n.Clients != l.Clients {
		t.Errorf("WithoutOutage() = %+v", n)
	}
	w := l.WithClients(7).WithSpread(time.Second).WithSeed(3).WithPolicy(schedule.Immediate{})
	if w.Clients != 7 || w.Spread != time.Second || w.Seed != 3 || w.Policy != (schedule.Immediate{}) || l.Clients != 60 {
		t.Errorf("modifiers gave %+v and left the original %+v", w, l)
	}
	if _, err := Run(l.WithClients(0)); err == nil || !strings.Contains(err.Error(), "clients 0 out of range") {
		t.Errorf("Run with 0 clients: %v", err)
	}
}

// TestRowsOf: rows are addressed by policy name; an absent name gives the
// zero Row.
func TestRowsOf(t *testing.T) {
	rows := Rows{{Policy: "full", Summary: Summary{Seeds: 2}}, {Policy: "equal", Summary: Summary{Seeds: 3}}}
	if rows.Of(schedule.NameEqual).Seeds != 3 || rows.Of(schedule.NameFull).Seeds != 2 {
		t.Errorf("Of picked the wrong row: %+v", rows)
	}
	if r := rows.Of("jitter"); r.Policy != "" || r.Seeds != 0 {
		t.Errorf("Of(absent) = %+v, want the zero Row", r)
	}
}

func TestAverageSeeds(t *testing.T) {
	c := Lesson().WithPolicy(lineupOf("full").Policy)
	for _, seeds := range []int{0, -1, MaxSeeds + 1} {
		if _, err := Average(c, seeds); err == nil || !strings.Contains(err.Error(), "seeds") {
			t.Errorf("Average(%d seeds): %v, want a seeds error", seeds, err)
		}
	}
	c.Seed = math.MaxInt32 - 1
	if _, err := Average(c, 3); err == nil || !strings.Contains(err.Error(), "seed + seeds - 1") {
		t.Errorf("seeds past 2^31: %v", err)
	}
	if _, err := Average(c, 2); err != nil {
		t.Errorf("last two seeds: %v", err)
	}
	// The mean is the mean of the runs, and the runs are Run's.
	c.Seed = 11
	s, err := Average(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for i, r := range s.Runs {
		ci := c
		ci.Seed += int64(i)
		want, _ := Run(ci)
		if r != want {
			t.Errorf("run %d = %+v, want Run's %+v", i, r, want)
		}
		sum += float64(r.Calls)
	}
	if s.Calls != sum/3 || s.Seeds != 3 {
		t.Errorf("mean calls %v over %d seeds, want %v over 3", s.Calls, s.Seeds, sum/3)
	}
}

// FuzzConfig feeds arbitrary parameters to NewPolicy, Validate and Run:
// they must return errors naming a parameter, never panic or hang.
func FuzzConfig(f *testing.F) {
	f.Add(60, 8, int64(120), int64(3000), int64(0), int64(600000), uint8(1), int64(100), int64(3200), int64(100), int64(1513241), 0)
	f.Add(0, 8, int64(120), int64(3000), int64(0), int64(600000), uint8(0), int64(100), int64(3200), int64(100), int64(1), 0)
	f.Add(60, -1, int64(120), int64(3000), int64(0), int64(600000), uint8(2), int64(100), int64(3200), int64(100), int64(1), 0)
	f.Add(60, 8, int64(0), int64(3000), int64(0), int64(600000), uint8(3), int64(100), int64(3200), int64(100), int64(1), 0)
	f.Add(60, 8, int64(120), int64(3000), int64(-5), int64(600000), uint8(4), int64(100), int64(50), int64(100), int64(1), 0)
	f.Add(60, 8, int64(120), int64(3000), int64(0), int64(math.MaxInt64), uint8(4), int64(100), int64(3200), int64(0), int64(1), 0)
	f.Add(240, 4, int64(120), int64(3000), int64(400), int64(86400000), uint8(4), int64(1), int64(1), int64(1), int64(1), 5000)
	f.Fuzz(func(t *testing.T, clients, limit int, service, outage, spread, horizon int64, pol uint8,
		base, cap, constant, seed int64, maxCalls int) {
		msd := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
		name := append(schedule.Names(), "none", "flat", "bogus")[int(pol)%10]
		p, err := NewPolicy(name, msd(base), msd(cap), msd(constant))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "cohort: ") {
				t.Fatalf("NewPolicy error without the package prefix: %v", err)
			}
			p = nil
		}
		c := Config{Clients: clients, Limit: limit, Service: msd(service), Outage: msd(outage),
			Spread: msd(spread), Horizon: msd(horizon), Policy: p, Seed: seed, MaxCalls: maxCalls}
		if err := c.Validate(); err != nil {
			if !strings.HasPrefix(err.Error(), "cohort: ") {
				t.Fatalf("Validate error without the package prefix: %v", err)
			}
			if _, err2 := Run(c); err2 == nil {
				t.Fatalf("Run accepted a config Validate rejects: %v", err)
			}
			return
		}
		if clients > 5000 {
			return // valid; too big to run on every fuzz input
		}
		c.MaxCalls = min(max(c.MaxCalls, 1), 20000) // keep each run short
		r, err := Run(c)
		if err != nil {
			if !errors.Is(err, ErrTooManyCalls) {
				t.Fatalf("Run(%+v): %v", c, err)
			}
			return
		}
		if r.Admitted+r.Unfinished != clients || r.Calls != r.CallsOutage+r.CallsRecovery ||
			r.Idle < 0 || r.Idle > r.Recovery || r.Finish < 0 {
			t.Fatalf("inconsistent result %+v for %+v", r, c)
		}
	})
}
