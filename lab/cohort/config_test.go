package cohort

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	p, err := NewPolicy("full", DefaultBase, DefaultCap, DefaultFlat)
	if err != nil {
		t.Fatal(err)
	}
	ok := Main(p)
	if err := ok.Validate(); err != nil {
		t.Fatalf("Main: %v", err)
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
	} {
		c := ok
		tc.change(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", tc.name, err, tc.want)
		}
		if _, err2 := Run(c); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%s: Run error %v, want %v", tc.name, err2, err)
		}
		if _, err2 := Average(c, 2); err2 == nil {
			t.Errorf("%s: Average accepted it", tc.name)
		}
	}
}

func TestNewPolicy(t *testing.T) {
	for _, tc := range []struct {
		name            string
		base, cap, flat time.Duration
		want            string
	}{
		{"full", 0, DefaultCap, DefaultFlat, "base 0s out of range"},
		{"full", DefaultBase, 50 * time.Millisecond, DefaultFlat, "cap 50ms out of range: want cap >= base (100ms)"},
		{"full", DefaultBase, -1, DefaultFlat, "cap"},
		{"flat", DefaultBase, DefaultCap, 0, "flat 0s out of range"},
		{"jitter", DefaultBase, DefaultCap, DefaultFlat, `unknown policy "jitter"`},
	} {
		if _, err := NewPolicy(tc.name, tc.base, tc.cap, tc.flat); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewPolicy(%q, %v, %v, %v) error %v, want %q", tc.name, tc.base, tc.cap, tc.flat, err, tc.want)
		}
	}
	if _, err := Lineup(DefaultBase, DefaultBase/2, DefaultFlat); err == nil {
		t.Error("Lineup accepted cap < base")
	}
	// "none" is exponential.
	none, _ := NewPolicy("none", DefaultBase, DefaultCap, DefaultFlat)
	exp, _ := NewPolicy("exponential", DefaultBase, DefaultCap, DefaultFlat)
	a, _ := Run(Main(none))
	b, _ := Run(Main(exp))
	if a != b {
		t.Errorf("none %+v differs from exponential %+v", a, b)
	}
}

func TestAverageSeeds(t *testing.T) {
	c := Main(DefaultLineup()[1].Policy)
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
		base, cap, flat, seed int64, maxCalls int) {
		msd := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
		name := []string{"none", "exponential", "full", "equal", "decorrelated", "flat", "bogus"}[int(pol)%7]
		p, err := NewPolicy(name, msd(base), msd(cap), msd(flat))
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
