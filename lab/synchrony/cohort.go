package synchrony

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// Limits on the generators' parameters. They keep every run finite and every
// time representable; the Validate methods name the one that is exceeded.
const (
	// MaxParticipants is the largest population of any generator: clients,
	// instances, keys or nodes.
	MaxParticipants = 1 << 20
	// MaxHorizon is the longest horizon, outage, spread or interval.
	MaxHorizon = 24 * time.Hour
	// MaxEvents is the most events one run may generate. A run that would
	// generate more stops with ErrTooManyEvents instead of filling memory.
	MaxEvents = 1 << 22
)

// ErrTooManyEvents is returned (wrapped) by a generator whose run would
// produce more than MaxEvents events, such as a cohort whose policy waits 0
// and that retries without an attempt limit.
var ErrTooManyEvents = errors.New("synchrony: too many events")

// The lesson's cohort, used by Lesson.
const (
	// LessonClients is the size of the lesson's cohort: a thousand clients,
	// the load test the source suggests.
	LessonClients = 1000
	// LessonBase is the first backoff window of the lesson's policies.
	LessonBase = time.Second
	// LessonCap bounds the lesson's backoff windows.
	LessonCap = 20 * time.Second
	// LessonOutage is how long the dependency refuses every attempt.
	LessonOutage = 20 * time.Second
	// LessonHorizon ends the lesson's runs.
	LessonHorizon = time.Minute
	// LessonSlot is the resolution at which the lesson counts arrivals.
	LessonSlot = 10 * time.Millisecond
)

// A Cohort is a population of clients that fail together and retry by one
// policy, against a dependency that refuses every attempt before Outage and
// answers every attempt at or after it.
//
// Client i makes its first attempt at t = 0 (or at an offset drawn uniformly
// from [0, Spread)). While its attempts are refused it asks Policy for the
// wait before retry n (n = 0 before the first retry, prev = the wait the
// policy returned last, 0 before the first retry) and tries again that much
// later.
// An attempt at t ≥ Outage succeeds and ends the client; an attempt that would
// come at or after Horizon is not made; with MaxAttempts set, a client stops
// after that many attempts. metrics.Times are whole nanoseconds; a sum of waits that
// would overflow saturates at the largest Duration (and so passes Horizon), and
// a negative wait from a custom policy counts as 0.
//
// A Cohort is the configuration of a run of this package's model. The zero
// Cohort is not runnable (it has no clients and no policy); start from
// Lesson and change what the lesson varies with the With… modifiers.
type Cohort struct {
	// Clients is the size of the cohort, in [1, MaxParticipants].
	Clients int
	// Policy is the clients' retry policy; it must not be nil, and its
	// waits must depend only on its arguments and draws (as every
	// schedule policy's do): Arrivals generates the run twice.
	Policy schedule.Policy
	// Spread is the window over which the first attempts are drawn, in
	// [0, MaxHorizon]; 0 means every client starts at t = 0.
	Spread time.Duration
	// Outage is when the dependency starts answering, in [0, MaxHorizon]:
	// attempts before it are refused, attempts at or after it succeed.
	Outage time.Duration
	// Horizon ends the run, in [1ns, MaxHorizon]: no attempt is made at or
	// after it.
	Horizon time.Duration
	// MaxAttempts is the most attempts per client, the first included, in
	// [0, MaxEvents]; 0 means no limit other than Horizon.
	MaxAttempts int
	// Seed seeds the generator, in [0, 2³¹).
	Seed int64
	// SameSeed restarts the generator from Seed for every client, as a
	// fleet does whose processes all seed their random source with the
	// same constant: every client then draws the same waits.
	SameSeed bool
}

// Lesson returns the lesson's cohort: LessonClients clients failing
// together at t = 0, a LessonOutage outage, a LessonHorizon horizon, no
// attempt limit, seed lcg.DefaultSeed, and exponential backoff without
// jitter from LessonBase to LessonCap as the policy (Table replaces it with
// each of a lineup's).
func Lesson() Cohort {
	return Cohort{
		Clients: LessonClients,
		Policy:  schedule.Exponential{Base: LessonBase, Cap: LessonCap},
		Outage:  LessonOutage,
		Horizon: LessonHorizon,
		Seed:    lcg.DefaultSeed,
	}
}

// WithPolicy returns c with policy p.
func (c Cohort) WithPolicy(p schedule.Policy) Cohort {
	c.Policy = p
	return c
}

// WithClients returns c with n clients.
func (c Cohort) WithClients(n int) Cohort {
	c.Clients = n
	return c
}

// WithOutage returns c with the dependency refusing every attempt before d.
func (c Cohort) WithOutage(d time.Duration) Cohort {
	c.Outage = d
	return c
}

// WithSpread returns c with the first attempts spread over [0, d).
func (c Cohort) WithSpread(d time.Duration) Cohort {
	c.Spread = d
	return c
}

// WithSeed returns c with seed s.
func (c Cohort) WithSeed(s int64) Cohort {
	c.Seed = s
	return c
}

// WithSameSeed returns c with one seed for every client (see SameSeed).
func (c Cohort) WithSameSeed() Cohort {
	c.SameSeed = true
	return c
}

// Run runs c and returns every attempt, client by client: c.Arrivals().
func Run(c Cohort) (Arrivals, error) { return c.Arrivals() }

// Validate reports the first parameter that is out of range, naming it and
// the range allowed.
func (c Cohort) Validate() error {
	switch {
	case c.Clients < 1 || c.Clients > MaxParticipants:
		return fmt.Errorf("synchrony: clients %d out of range: want 1 <= clients <= %d", c.Clients, MaxParticipants)
	case c.Policy == nil:
		return errors.New("synchrony: policy is nil: want a schedule.Policy")
	case c.Spread < 0 || c.Spread > MaxHorizon:
		return fmt.Errorf("synchrony: spread %v out of range: want 0 <= spread <= %v", c.Spread, MaxHorizon)
	case c.Outage < 0 || c.Outage > MaxHorizon:
		return fmt.Errorf("synchrony: outage %v out of range: want 0 <= outage <= %v", c.Outage, MaxHorizon)
	case c.Horizon <= 0 || c.Horizon > MaxHorizon:
		return fmt.Errorf("synchrony: horizon %v out of range: want 0 < horizon <= %v", c.Horizon, MaxHorizon)
	case c.MaxAttempts < 0 || c.MaxAttempts > MaxEvents:
		return fmt.Errorf("synchrony: max attempts %d out of range: want 0 <= max attempts <= %d (0: no limit)", c.MaxAttempts, MaxEvents)
	}
	return checkSeed(c.Seed)
}

// checkSeed reports whether seed fits the lessons' generator.
func checkSeed(seed int64) error {
	if seed < 0 || seed >= lcg.Modulus {
		return fmt.Errorf("synchrony: seed %d out of range: want 0 <= seed < 2^31 (%d)", seed, int64(lcg.Modulus))
	}
	return nil
}

// An Arrival is one attempt of one client of a Cohort.
type Arrival struct {
	// Client is the client's index, from 0.
	Client int
	// Attempt counts the client's earlier attempts: 0 for its first
	// attempt, 1 for its first retry, and so on.
	Attempt int
	// At is the attempt's time after the shared failure.
	At time.Duration
	// Succeeded reports whether the attempt came at or after the end of the
	// outage, and so succeeded and ended the client.
	Succeeded bool
}

// Arrivals is the attempts of a cohort, client by client, each client's in
// order.
type Arrivals []Arrival

// Events returns the times of every attempt of the cohort, client by client:
// it makes a Cohort a metrics.Source.
func (c Cohort) Events() ([]time.Duration, error) {
	a, err := c.Arrivals()
	if err != nil {
		return nil, err
	}
	return a.Times(), nil
}

// Retries is a metrics.Source of a cohort's retries only: every attempt but the
// first of each client.
type Retries struct{ Cohort Cohort }

// Events returns the times of the cohort's retries, client by client.
func (r Retries) Events() ([]time.Duration, error) {
	a, err := r.Cohort.Arrivals()
	if err != nil {
		return nil, err
	}
	return a.Retries().Times(), nil
}

// metrics.Times returns the time of each arrival, in the same order.
func (a Arrivals) Times() []time.Duration {
	ts := make([]time.Duration, len(a))
	for i, x := range a {
		ts[i] = x.At
	}
	return ts
}

// Retries returns the arrivals that are retries (Attempt ≥ 1): the attempts
// a retry policy placed, without the first attempts that met the failure.
func (a Arrivals) Retries() Arrivals { return a.from(1) }

// First returns the first attempts (Attempt = 0): the requests that met the
// failure, which no retry policy can move.
func (a Arrivals) First() Arrivals {
	var out Arrivals
	for _, x := range a {
		if x.Attempt == 0 {
			out = append(out, x)
		}
	}
	return out
}

// from returns the arrivals whose Attempt is at least n.
func (a Arrivals) from(n int) Arrivals {
	var out Arrivals
	for _, x := range a {
		if x.Attempt >= n {
			out = append(out, x)
		}
	}
	return out
}

// Recovered returns the number of clients whose last attempt succeeded, and
// the time of the latest success (0 if there was none).
func (a Arrivals) Recovered() (clients int, last time.Duration) {
	for _, x := range a {
		if x.Succeeded {
			clients++
			last = max(last, x.At)
		}
	}
	return clients, last
}

// Recovery says when the clients of a run succeeded: how many did, and the
// mean, median (50th percentile), 90th percentile and latest of their
// success times (nearest rank; all 0 if none succeeded).
type Recovery struct {
	Clients                 int
	Mean, Median, P90, Last time.Duration
}

// Recovery summarises the success times of a.
func (a Arrivals) Recovery() Recovery {
	var ts []time.Duration
	var sum time.Duration
	for _, x := range a {
		if x.Succeeded {
			ts = append(ts, x.At)
			sum += x.At
		}
	}
	if len(ts) == 0 {
		return Recovery{}
	}
	slices.Sort(ts)
	rank := func(q float64) time.Duration { return ts[int(math.Ceil(q*float64(len(ts))))-1] }
	return Recovery{Clients: len(ts), Mean: sum / time.Duration(len(ts)), Median: rank(0.5), P90: rank(0.9), Last: ts[len(ts)-1]}
}

// String describes the cohort on one line, e.g. "1000 clients, outage 20s,
// horizon 1m0s, exponential(base=1s cap=20s mult=2), seed 1513241".
func (c Cohort) String() string {
	s := fmt.Sprintf("%d clients", c.Clients)
	if c.Spread > 0 {
		s += fmt.Sprintf(" starting over %v", c.Spread)
	}
	s += fmt.Sprintf(", outage %v, horizon %v, %v", c.Outage, c.Horizon, c.Policy)
	if c.MaxAttempts > 0 {
		s += fmt.Sprintf(", at most %d attempts", c.MaxAttempts)
	}
	if c.SameSeed {
		s += ", one seed for all"
	}
	return s + fmt.Sprintf(", seed %d", c.Seed)
}

// Walk calls yield with every attempt of the cohort, client by client and
// each client's in order, until yield returns false or the run ends: the
// walk every Arrivals is made of, for the models built on a cohort (the
// synchronisers, the layers, the crash loop). c must be valid.
func (c Cohort) Walk(yield func(Arrival) bool) { c.walk(yield) }

// Within returns the time that the uniform draw u in [0, 1) picks from
// [0, span): the offset of a first attempt spread over span, as a Cohort
// draws it.
func Within(span time.Duration, u float64) time.Duration { return within(span, u) }

// Later returns t + d, saturating at the largest Duration, as a Cohort adds
// its waits: a sum that would overflow passes every horizon.
func Later(t, d time.Duration) time.Duration { return add(t, d) }
