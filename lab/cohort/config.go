package cohort

import (
	"fmt"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// Limits on a Config. They keep every run finite and every time
// representable; Validate names the one that is exceeded.
const (
	// MaxClients is the largest cohort.
	MaxClients = 1 << 20
	// MaxLimit is the largest concurrency limit.
	MaxLimit = 1 << 20
	// MaxHorizon is the longest horizon (and the longest service time,
	// outage and spread).
	MaxHorizon = 24 * time.Hour
	// DefaultMaxCalls is the lessons' call budget of a run (Lesson's
	// MaxCalls): a run that would make more calls stops with
	// ErrTooManyCalls instead of running for minutes.
	DefaultMaxCalls = 20_000_000
)

// Bucket is the width of the time buckets in which calls are counted for
// Result.PeakPer100ms.
const Bucket = 100 * time.Millisecond

// Config describes one run. Durations must be whole milliseconds. The zero
// Config is not runnable (it has no clients); start from [Lesson] and change
// what the lesson varies with the With… modifiers.
type Config struct {
	// Clients is the size of the cohort, in [1, MaxClients].
	Clients int
	// Limit is how many calls the dependency serves at once, in
	// [1, MaxLimit].
	Limit int
	// Service is how long an admitted call holds its slot, in
	// [1ms, MaxHorizon].
	Service time.Duration
	// Outage is when the dependency stops refusing everything, in
	// [0, MaxHorizon]; 0 means no outage.
	Outage time.Duration
	// Spread is the window over which the first attempts are spread, in
	// [0, MaxHorizon]; 0 means every client starts at t = 0.
	Spread time.Duration
	// Horizon ends the run, in [1ms, MaxHorizon].
	Horizon time.Duration
	// Policy is how long a refused client waits; it must not be nil.
	Policy schedule.Policy
	// Seed seeds the run's generator, in [0, 2³¹).
	Seed int64
	// MaxCalls bounds the calls of one run, in [1, MaxInt32] (Lesson:
	// DefaultMaxCalls).
	MaxCalls int
}

// Lesson returns the lesson's main setting: 60 clients, a limit of 8,
// 120 ms per call, a 3 s outage, a 600 s horizon, seed lcg.DefaultSeed, and
// exponential backoff without jitter (DefaultBase, DefaultCap) as the
// policy. Table and NewBoard replace the policy with each of a lineup's.
func Lesson() Config {
	return Config{
		Clients:  60,
		Limit:    8,
		Service:  120 * time.Millisecond,
		Outage:   3 * time.Second,
		Horizon:  600 * time.Second,
		Policy:   schedule.Exponential{Base: DefaultBase, Cap: DefaultCap},
		Seed:     lcg.DefaultSeed,
		MaxCalls: DefaultMaxCalls,
	}
}

// WithoutOutage returns c with no outage: the dependency is up from t = 0,
// and the cohort is formed only by starting together (the lesson's
// no-outage table).
func (c Config) WithoutOutage() Config {
	c.Outage = 0
	return c
}

// WithOverload returns c with more clients than the dependency can serve
// quickly, the lesson's overload setting: 240 clients, a limit of 4 and a
// 60 s horizon, so that Lesson().WithOverload() needs at least
// 240·120 ms / 4 = 7.2 s of service after the outage.
func (c Config) WithOverload() Config {
	c.Clients, c.Limit, c.Horizon = 240, 4, 60*time.Second
	return c
}

// WithPolicy returns c with policy p.
func (c Config) WithPolicy(p schedule.Policy) Config {
	c.Policy = p
	return c
}

// WithClients returns c with n clients.
func (c Config) WithClients(n int) Config {
	c.Clients = n
	return c
}

// WithSpread returns c with the first attempts spread over [0, d).
func (c Config) WithSpread(d time.Duration) Config {
	c.Spread = d
	return c
}

// WithSeed returns c with seed s.
func (c Config) WithSeed(s int64) Config {
	c.Seed = s
	return c
}

// Work returns the least time the dependency needs to serve the whole cohort
// once it is up: Clients·Service/Limit (the "work floor").
func (c Config) Work() time.Duration {
	if c.Limit <= 0 {
		return 0
	}
	return time.Duration(float64(c.Service) * float64(c.Clients) / float64(c.Limit))
}

// Validate reports the first parameter that is out of range, naming it and
// the range allowed.
func (c Config) Validate() error {
	if c.Clients < 1 || c.Clients > MaxClients {
		return fmt.Errorf("cohort: clients %d out of range: want 1 <= clients <= %d", c.Clients, MaxClients)
	}
	if c.Limit < 1 || c.Limit > MaxLimit {
		return fmt.Errorf("cohort: limit %d out of range: want 1 <= limit <= %d", c.Limit, MaxLimit)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		min  time.Duration
	}{
		{"service", c.Service, time.Millisecond},
		{"outage", c.Outage, 0},
		{"spread", c.Spread, 0},
		{"horizon", c.Horizon, time.Millisecond},
	} {
		if d.v < d.min || d.v > MaxHorizon {
			return fmt.Errorf("cohort: %s %v out of range: want %v <= %s <= %v", d.name, d.v, d.min, d.name, MaxHorizon)
		}
		if d.v%time.Millisecond != 0 {
			return fmt.Errorf("cohort: %s %v is not a whole number of milliseconds", d.name, d.v)
		}
	}
	if c.Policy == nil {
		return fmt.Errorf("cohort: policy is nil: want a schedule.Policy (see Lineup and NewPolicy)")
	}
	if _, err := lcg.New(c.Seed); err != nil {
		return fmt.Errorf("cohort: seed %d out of range: want 0 <= seed < 2^31", c.Seed)
	}
	if c.MaxCalls < 1 || c.MaxCalls > math.MaxInt32 {
		return fmt.Errorf("cohort: max calls %d out of range: want 1 <= max calls <= %d (the lessons use %d)", c.MaxCalls, math.MaxInt32, DefaultMaxCalls)
	}
	return nil
}
