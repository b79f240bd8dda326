package overload

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

// Limits on a Config. They keep a run's work and memory bounded: at most
// MaxTicks ticks and MaxRequests expected requests, each with at most
// MaxAttemptsLimit attempts.
const (
	MinTick          = 100 * time.Microsecond
	MaxTick          = time.Second
	MaxDuration      = time.Hour
	MaxTicks         = 1_000_000
	MaxRate          = 1e5
	MaxRequests      = 1e6
	MaxCapacity      = 1e6
	MaxAttemptsLimit = 10
	MaxPacing        = time.Hour
)

// Config describes one run. Start from [Lesson] and change what you study
// with the With methods; Run checks every field.
type Config struct {
	// Tick is the simulation step, in [MinTick, MaxTick].
	Tick time.Duration
	// Duration is the simulated time, in [Tick, MaxDuration] and at most
	// MaxTicks ticks; it is rounded up to whole ticks.
	Duration time.Duration
	// Rate is the mean number of new requests per second, in [0, MaxRate],
	// with Rate × Duration at most MaxRequests.
	Rate float64
	// Capacity is how many queue entries the server handles per second,
	// in (0, MaxCapacity]. Fractions of an entry carry over between ticks.
	Capacity float64
	// Timeout is how long a client waits for one attempt before giving up
	// on it, in [Tick, Duration]; it is rounded up to whole ticks.
	Timeout time.Duration
	// DipStart and DipEnd bound the capacity dip: ticks starting in
	// [DipStart, DipEnd) run at DipCapacity × Capacity. 0 <= DipStart <=
	// DipEnd <= Duration; DipStart == DipEnd means no dip.
	DipStart, DipEnd time.Duration
	// DipCapacity is the fraction of Capacity left during the dip, in [0, 1].
	DipCapacity float64
	// MaxAttempts is the number of attempts a request may make, the first
	// included, in [1, MaxAttemptsLimit]. The SRE book's advice is 3.
	MaxAttempts int
	// Budget, if not nil, is the retry budget every retry must fit.
	Budget *budget.Config
	// Breaker, if not nil, configures the circuit breaker every attempt
	// must pass. A nil Breaker.Rand means the run's own generator, so the
	// breaker's open times follow the seed too.
	Breaker *breaker.Config
	// Pacing, if not nil, turns on server-side pacing.
	Pacing *Pacing
	// Sample is the resolution of Result.Timeline: a whole number of ticks,
	// in [Tick, Duration].
	Sample time.Duration
	// Seed seeds the run's generator, in [0, 2³¹).
	Seed int64
}

// Pacing configures server-side pacing. The server's backlog is its queue
// length divided by its normal capacity: how long the queue would take to
// drain. While the backlog exceeds Above, the server queues no new attempt;
// it answers each at once with Retry-After = backlog + u·Jitter, u drawn
// uniformly from [0, 1), and the client sends its next attempt (if it has
// one left) after that wait.
type Pacing struct {
	// Above is the backlog beyond which the server paces, in [0, MaxPacing].
	Above time.Duration
	// Jitter is the width of the random part of Retry-After, in
	// [0, MaxPacing].
	Jitter time.Duration
}

// Lesson returns the lesson's setting: 10 ms ticks, Poisson arrivals at
// 800/s, capacity 1000/s, a 1 s client timeout, capacity at zero from 10 s
// to 13 s, a 60 s run, 3 attempts per request, no budget, breaker or
// pacing, a timeline at 100 ms resolution and the lessons' default seed.
func Lesson() Config {
	return Config{
		Tick:        10 * time.Millisecond,
		Duration:    60 * time.Second,
		Rate:        800,
		Capacity:    1000,
		Timeout:     time.Second,
		DipStart:    10 * time.Second,
		DipEnd:      13 * time.Second,
		DipCapacity: 0,
		MaxAttempts: 3,
		Sample:      100 * time.Millisecond,
		Seed:        lcg.DefaultSeed,
	}
}

// WithAttempts returns c with n attempts per request, the first included.
func (c Config) WithAttempts(n int) Config { c.MaxAttempts = n; return c }

// WithDipLength returns c with a dip of length d from DipStart on (0: no
// dip).
func (c Config) WithDipLength(d time.Duration) Config { c.DipEnd = c.DipStart + d; return c }

// WithDipCapacity returns c with the fraction f of its capacity left
// during the dip.
func (c Config) WithDipCapacity(f float64) Config { c.DipCapacity = f; return c }

// WithRate returns c with perSecond new requests per second.
func (c Config) WithRate(perSecond float64) Config { c.Rate = perSecond; return c }

// WithTimeout returns c with clients that give up on an attempt after d.
func (c Config) WithTimeout(d time.Duration) Config { c.Timeout = d; return c }

// WithDuration returns c simulating d.
func (c Config) WithDuration(d time.Duration) Config { c.Duration = d; return c }

// WithSample returns c with a timeline at resolution d.
func (c Config) WithSample(d time.Duration) Config { c.Sample = d; return c }

// WithSeed returns c with the given seed.
func (c Config) WithSeed(seed int64) Config { c.Seed = seed; return c }

// WithBudget returns c with the SRE book's retry budget: retries at most
// 10 % of the requests of the last ten one-second buckets.
func (c Config) WithBudget() Config {
	c.Budget = &budget.Config{Ratio: 0.1, Buckets: 10, Width: time.Second}
	return c
}

// WithBreaker returns c with a circuit breaker that opens after 5
// consecutive timed-out attempts and stays open 1 to 2 s (jittered) before
// it lets one probe through.
func (c Config) WithBreaker() Config {
	c.Breaker = &breaker.Config{Failures: 5, OpenTimeout: time.Second, MaxOpenTimeout: 2 * time.Second, Probes: 1}
	return c
}

// WithPacing returns c with server-side pacing: beyond half a second of
// backlog the server answers Retry-After = backlog + up to 1 s of jitter.
func (c Config) WithPacing() Config {
	c.Pacing = &Pacing{Above: 500 * time.Millisecond, Jitter: time.Second}
	return c
}

// Validate reports the first parameter outside its range, naming it and the
// range allowed; nil means the Config can run.
func (c Config) Validate() error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("overload: %s %v out of range: want %s", name, v, want)
	}
	switch {
	case c.Tick < MinTick || c.Tick > MaxTick:
		return bad("Tick", c.Tick, fmt.Sprintf("%v <= Tick <= %v", MinTick, MaxTick))
	case c.Duration < c.Tick || c.Duration > MaxDuration:
		return bad("Duration", c.Duration, fmt.Sprintf("Tick (%v) <= Duration <= %v", c.Tick, MaxDuration))
	case ticks(c.Duration, c.Tick) > MaxTicks:
		return bad("Duration", c.Duration, fmt.Sprintf("at most %d ticks of %v", MaxTicks, c.Tick))
	case !(c.Rate >= 0 && c.Rate <= MaxRate):
		return bad("Rate", c.Rate, fmt.Sprintf("0 <= Rate <= %g per second", MaxRate))
	case c.Rate*c.Duration.Seconds() > MaxRequests:
		return bad("Rate", c.Rate, fmt.Sprintf("Rate × Duration <= %g requests (Duration is %v)", MaxRequests, c.Duration))
	case !(c.Capacity > 0 && c.Capacity <= MaxCapacity):
		return bad("Capacity", c.Capacity, fmt.Sprintf("0 < Capacity <= %g per second", MaxCapacity))
	case c.Timeout < c.Tick || c.Timeout > c.Duration:
		return bad("Timeout", c.Timeout, fmt.Sprintf("Tick (%v) <= Timeout <= Duration (%v)", c.Tick, c.Duration))
	case c.DipStart < 0 || c.DipStart > c.Duration:
		return bad("DipStart", c.DipStart, fmt.Sprintf("0 <= DipStart <= Duration (%v)", c.Duration))
	case c.DipEnd < c.DipStart || c.DipEnd > c.Duration:
		return bad("DipEnd", c.DipEnd, fmt.Sprintf("DipStart (%v) <= DipEnd <= Duration (%v)", c.DipStart, c.Duration))
	case !(c.DipCapacity >= 0 && c.DipCapacity <= 1):
		return bad("DipCapacity", c.DipCapacity, "0 <= DipCapacity <= 1")
	case c.MaxAttempts < 1 || c.MaxAttempts > MaxAttemptsLimit:
		return bad("MaxAttempts", c.MaxAttempts, fmt.Sprintf("1 <= MaxAttempts <= %d", MaxAttemptsLimit))
	case c.Sample < c.Tick || c.Sample > c.Duration || c.Sample%c.Tick != 0:
		return bad("Sample", c.Sample, fmt.Sprintf("a whole number of ticks (%v) in [Tick, Duration (%v)]", c.Tick, c.Duration))
	case c.Seed < 0 || c.Seed >= lcg.Modulus:
		return bad("Seed", c.Seed, "0 <= Seed < 2^31")
	}
	if c.Budget != nil {
		if err := c.Budget.Validate(); err != nil {
			return fmt.Errorf("overload: Budget: %w", err)
		}
	}
	if c.Breaker != nil {
		if err := c.Breaker.Validate(); err != nil {
			return fmt.Errorf("overload: Breaker: %w", err)
		}
	}
	if p := c.Pacing; p != nil {
		switch {
		case p.Above < 0 || p.Above > MaxPacing:
			return bad("Pacing.Above", p.Above, fmt.Sprintf("0 <= Pacing.Above <= %v", MaxPacing))
		case p.Jitter < 0 || p.Jitter > MaxPacing:
			return bad("Pacing.Jitter", p.Jitter, fmt.Sprintf("0 <= Pacing.Jitter <= %v", MaxPacing))
		}
	}
	return nil
}

// remedies returns the retry budget and the circuit breaker c asks for (nil
// if it asks for none). A breaker without a Rand of its own draws its open
// times from g, so that they follow the seed too. c must be valid.
func (c Config) remedies(g *lcg.LCG) (*budget.Budget, *breaker.Breaker) {
	var bud *budget.Budget
	if c.Budget != nil {
		bud, _ = budget.New(*c.Budget) // validated
	}
	var brk *breaker.Breaker
	if c.Breaker != nil {
		bc := *c.Breaker
		if bc.Rand == nil {
			bc.Rand = g
		}
		brk, _ = breaker.New(bc) // validated
	}
	return bud, brk
}

// ticks is d in whole ticks, rounded up; d and tick must be positive and
// in range, so the sum cannot overflow.
func ticks(d, tick time.Duration) int {
	return int((d + tick - 1) / tick)
}
