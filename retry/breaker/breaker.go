// Package breaker implements a circuit breaker: after enough consecutive
// failures it stops letting requests through for a while, then lets a few
// probes test whether the dependency has recovered.
//
// A Breaker is in one of three states:
//
//	Closed    requests pass; Failures consecutive failures open it
//	Open      every request is refused at once, without touching the dependency,
//	          until the open timeout has passed; then the next caller finds it half-open
//	HalfOpen  up to Probes requests pass as probes; if all of them succeed it
//	          closes, and if any fails it opens again for a fresh timeout
//
// The breaker trips on consecutive failures rather than on a failure ratio:
// it needs no minimum request count or window to be meaningful, so it behaves
// the same for a client sending one request a minute and one sending a
// thousand a second, and a single success proves the dependency is answering.
// Pair it with a retry budget (package budget) to bound the load from
// partial failures that never string enough failures together.
//
// The open timeout is jittered: each time the breaker opens it draws its open
// time uniformly from [OpenTimeout, MaxOpenTimeout]. Without that, a fleet of
// clients whose breakers opened on the same outage would half-open on the same
// millisecond and probe the recovering dependency in one synchronised wave.
//
// Every method takes the current time explicitly, so the same Breaker serves
// a live client (pass time.Now()) and a tick-based simulation. A Breaker is
// safe for concurrent use.
package breaker

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/backofflab/backofflab/retry/internal/rng"
)

// State is a breaker's state.
type State int

// The three states of a circuit breaker.
const (
	// Closed lets every request through and counts consecutive failures.
	Closed State = iota
	// Open refuses every request until its (jittered) timeout has passed.
	Open
	// HalfOpen lets a limited number of probes through.
	HalfOpen
)

// String returns "closed", "open" or "half-open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// ErrOpen is returned by Allow when the breaker refuses a request: it is
// open, or half-open with every probe slot taken.
var ErrOpen = errors.New("breaker: circuit open, request refused")

// Defaults used for zero Config fields and by the zero Breaker.
const (
	// DefaultFailures is the number of consecutive failures that opens a
	// closed breaker.
	DefaultFailures = 5
	// DefaultOpenTimeout is the shortest time a breaker stays open.
	DefaultOpenTimeout = 5 * time.Second
	// DefaultJitter is how much longer than OpenTimeout the open time may
	// be, as a fraction of OpenTimeout, when MaxOpenTimeout is zero: open
	// times are drawn from [OpenTimeout, 1.5·OpenTimeout].
	DefaultJitter = 0.5
	// DefaultProbes is the number of probes a half-open breaker admits.
	DefaultProbes = 1
)

// Limits on Config fields; New rejects values outside them.
const (
	// MaxFailures bounds Failures.
	MaxFailures = 1_000_000
	// MinOpenTimeout and MaxOpenTimeoutLimit bound OpenTimeout and
	// MaxOpenTimeout.
	MinOpenTimeout      = time.Microsecond
	MaxOpenTimeoutLimit = 24 * time.Hour
	// MaxProbes bounds Probes.
	MaxProbes = 1000
)

// Config sets a Breaker's parameters. A zero field means its default.
type Config struct {
	// Failures is the number of consecutive failures that opens the
	// breaker, in [1, 1e6]; 0 means DefaultFailures.
	Failures int
	// OpenTimeout is the shortest time the breaker stays open, in
	// [1µs, 24h]; 0 means DefaultOpenTimeout.
	OpenTimeout time.Duration
	// MaxOpenTimeout is the longest: each opening draws its open time
	// uniformly from [OpenTimeout, MaxOpenTimeout]. It must lie in
	// [OpenTimeout, 24h]; 0 means 1.5·OpenTimeout. Setting it equal to
	// OpenTimeout turns the jitter off.
	MaxOpenTimeout time.Duration
	// Probes is the number of requests a half-open breaker lets through;
	// all must succeed for it to close. In [1, 1000]; 0 means
	// DefaultProbes.
	Probes int
	// Rand supplies the uniform draws for the jitter, one per opening; nil
	// means math/rand/v2's global generator. The Breaker calls it under its
	// lock, so a generator that is not safe for concurrent use, such as
	// *rand.Rand from math/rand/v2, is fine as long as only this Breaker
	// uses it. The lessons' *lcg.LCG fits too.
	Rand interface{ Float64() float64 }
	// OnStateChange, if not nil, is called on every change of state, in
	// order, with the time of the call that caused it. It runs while the
	// breaker's lock is held: it must be quick and must not call the
	// Breaker's methods.
	OnStateChange func(from, to State, at time.Time)
}

// Validate reports the first field that is out of range, naming it and the
// allowed range. Zero fields are valid: they mean the defaults.
func (c Config) Validate() error {
	switch {
	case c.Failures < 0 || c.Failures > MaxFailures:
		return fmt.Errorf("breaker: failures %d out of range: want 1 <= failures <= %d (0 means the default %d)", c.Failures, MaxFailures, DefaultFailures)
	case c.OpenTimeout != 0 && (c.OpenTimeout < MinOpenTimeout || c.OpenTimeout > MaxOpenTimeoutLimit):
		return fmt.Errorf("breaker: open timeout %v out of range: want %v <= open timeout <= %v (0 means the default %v)", c.OpenTimeout, MinOpenTimeout, MaxOpenTimeoutLimit, DefaultOpenTimeout)
	case c.Probes < 0 || c.Probes > MaxProbes:
		return fmt.Errorf("breaker: probes %d out of range: want 1 <= probes <= %d (0 means the default %d)", c.Probes, MaxProbes, DefaultProbes)
	}
	if c.MaxOpenTimeout != 0 {
		lo := c.OpenTimeout
		if lo == 0 {
			lo = DefaultOpenTimeout
		}
		if c.MaxOpenTimeout < lo || c.MaxOpenTimeout > MaxOpenTimeoutLimit {
			return fmt.Errorf("breaker: max open timeout %v out of range: want open timeout (%v) <= max open timeout <= %v (0 means %g × open timeout)", c.MaxOpenTimeout, lo, MaxOpenTimeoutLimit, 1+DefaultJitter)
		}
	}
	return nil
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	if c.Failures == 0 {
		c.Failures = DefaultFailures
	}
	if c.OpenTimeout == 0 {
		c.OpenTimeout = DefaultOpenTimeout
	}
	if c.MaxOpenTimeout == 0 {
		c.MaxOpenTimeout = min(c.OpenTimeout+time.Duration(DefaultJitter*float64(c.OpenTimeout)), MaxOpenTimeoutLimit)
	}
	if c.Probes == 0 {
		c.Probes = DefaultProbes
	}
	if c.Rand == nil {
		c.Rand = rng.Global{}
	}
	return c
}

// Breaker is a circuit breaker. The zero Breaker is ready to use with the
// default Config. A Breaker must not be copied after first use.
type Breaker struct {
	mu        sync.Mutex
	cfg       Config
	ready     bool
	state     State
	gen       uint64        // changes on every transition; stale permits are ignored
	failures  int           // consecutive failures while closed
	until     time.Time     // when an open breaker may half-open
	openFor   time.Duration // the drawn open time of the current or last opening
	since     time.Time     // when the breaker went half-open
	admitted  int           // probes admitted while half-open
	succeeded int           // probes that succeeded while half-open
}

// New returns a Breaker with the given Config, or an error naming the first
// parameter that is out of range.
func New(cfg Config) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{cfg: cfg.withDefaults(), ready: true}, nil
}

// init sets up a zero Breaker; the caller holds b.mu.
func (b *Breaker) init() {
	if !b.ready {
		b.cfg, b.ready = Config{}.withDefaults(), true
	}
}

// Config returns the Breaker's parameters, with defaults filled in (a nil
// Rand comes back as the global generator).
func (b *Breaker) Config() Config {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	return b.cfg
}

// State returns the breaker's state at now. An open breaker whose timeout
// has passed becomes half-open here, as it would in Allow.
func (b *Breaker) State(now time.Time) State {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.advance(now)
	return b.state
}

// OpenUntil returns the time at which the current or last opening ends, and
// the zero Time if the breaker has never opened.
func (b *Breaker) OpenUntil() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.until
}

// Permit is a breaker's leave for one request. Report its outcome with
// Succeeded or Failed; outcomes reported after the breaker has changed state
// since the permit was issued are ignored, so a slow request from before an
// outage cannot close a breaker that has reopened since. The zero Permit
// ignores its outcome.
type Permit struct {
	b   *Breaker
	gen uint64
}

// Allow asks to send a request at now. It returns a Permit, or ErrOpen if
// the breaker is open or half-open with every probe slot taken.
//
// A probe that never reports its outcome would hold its slot for ever; so
// if a half-open breaker has had all its slots taken for longer than its
// last open time, Allow counts the missing outcomes as failures and opens
// the breaker again.
func (b *Breaker) Allow(now time.Time) (Permit, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.advance(now)
	switch b.state {
	case Open:
		return Permit{}, ErrOpen
	case HalfOpen:
		if b.admitted >= b.cfg.Probes {
			if !now.Before(b.since.Add(b.openFor)) {
				b.open(now)
			}
			return Permit{}, ErrOpen
		}
		b.admitted++
	}
	return Permit{b: b, gen: b.gen}, nil
}

// Succeeded reports that the permitted request succeeded at now.
func (p Permit) Succeeded(now time.Time) { p.report(now, true) }

// Failed reports that the permitted request failed at now.
func (p Permit) Failed(now time.Time) { p.report(now, false) }

// Abandoned reports that the permitted request ended without an outcome
// that says anything about the dependency, for instance because its caller
// cancelled it. A half-open breaker frees the probe slot for another probe;
// otherwise nothing changes.
func (p Permit) Abandoned() {
	b := p.b
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.gen == b.gen && b.state == HalfOpen && b.admitted > 0 {
		b.admitted--
	}
}

func (p Permit) report(now time.Time, ok bool) {
	b := p.b
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.gen != b.gen {
		return // issued before the last change of state
	}
	switch b.state {
	case Closed:
		if ok {
			b.failures = 0
			return
		}
		b.failures++
		if b.failures >= b.cfg.Failures {
			b.open(now)
		}
	case HalfOpen:
		if !ok {
			b.open(now)
			return
		}
		b.succeeded++
		if b.succeeded >= b.cfg.Probes {
			b.set(Closed, now)
		}
	}
}

// advance half-opens an open breaker whose timeout has passed; the caller
// holds b.mu.
func (b *Breaker) advance(now time.Time) {
	if b.state == Open && !now.Before(b.until) {
		b.set(HalfOpen, now)
	}
}

// open opens the breaker at now for a freshly drawn open time; the caller
// holds b.mu.
func (b *Breaker) open(now time.Time) {
	lo, hi := b.cfg.OpenTimeout, b.cfg.MaxOpenTimeout
	u := b.cfg.Rand.Float64()
	if !(u >= 0) || u >= 1 { // a misbehaving source must not push us out of range
		u = 0
	}
	b.openFor = lo + time.Duration(u*float64(hi-lo))
	b.until = now.Add(b.openFor)
	b.set(Open, now)
}

// set moves to state s at now, resetting the counters and invalidating
// outstanding permits; the caller holds b.mu.
func (b *Breaker) set(s State, now time.Time) {
	from := b.state
	b.state = s
	b.gen++
	b.failures, b.admitted, b.succeeded = 0, 0, 0
	if s == HalfOpen {
		b.since = now
	}
	if b.cfg.OnStateChange != nil && from != s {
		b.cfg.OnStateChange(from, s, now)
	}
}
