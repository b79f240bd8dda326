package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
	"github.com/backofflab/backofflab/retry/internal/rng"
)

// Defaults used for zero Config fields.
const (
	// DefaultMaxAttempts is the number of attempts per call, first included.
	DefaultMaxAttempts = 3
	// DefaultMaxRetryAfter is the longest server-requested wait honoured.
	DefaultMaxRetryAfter = 30 * time.Second
	// DefaultBudgetMinRetries is the number of retries per window that the
	// default budget allows on top of its 10 %, so that a client sending a
	// request now and then can still retry one.
	DefaultBudgetMinRetries = 10
)

// Limits on Config fields; New rejects values outside them.
const (
	// MaxAttemptsLimit bounds MaxAttempts.
	MaxAttemptsLimit = 1000
	// MaxDuration bounds AttemptTimeout and MaxRetryAfter.
	MaxDuration = 24 * time.Hour
)

// MaxMaxAttempts is the old name of MaxAttemptsLimit.
//
// Deprecated: use MaxAttemptsLimit. MaxMaxAttempts will be removed in the
// next release.
const MaxMaxAttempts = MaxAttemptsLimit

// DefaultPolicy is the wait before each retry when Config.Policy is nil:
// full jitter, u·min(10 s, 100 ms·2ⁿ).
var DefaultPolicy Policy = FullJitter{Base: 100 * time.Millisecond, Cap: 10 * time.Second}

// Reasons for giving up. A call that gives up returns an *Error whose
// Reason is one of these (or the context's error), so errors.Is(err,
// retry.ErrDeadline) and the like tell them apart.
var (
	// ErrAttemptsExhausted: the call made MaxAttempts attempts.
	ErrAttemptsExhausted = errors.New("attempt limit reached")
	// ErrNotRetryable: the request is not safe to repeat (a method that is
	// not idempotent and has no Idempotency-Key, or a body that cannot be
	// replayed), so it had one attempt.
	ErrNotRetryable = errors.New("request not safe to retry")
	// ErrDeadline: the next wait plus a worst-case attempt would end after
	// the context's deadline, so the call gave up instead of sleeping.
	ErrDeadline = errors.New("no time left before the deadline for another attempt")
	// ErrBudgetExhausted: the retry budget refused the retry.
	ErrBudgetExhausted = errors.New("retry budget exhausted")
	// ErrBreakerOpen: the circuit breaker refused the attempt, without
	// touching the dependency. It is breaker.ErrOpen.
	ErrBreakerOpen = breaker.ErrOpen
	// ErrRetryAfterTooLong: the server asked for a wait longer than
	// MaxRetryAfter.
	ErrRetryAfterTooLong = errors.New("server asked to wait longer than MaxRetryAfter")
)

// Error reports why a call gave up and what its last attempt returned.
type Error struct {
	// Attempts is the number of attempts made.
	Attempts int
	// Reason is why the call stopped: one of the Err variables of this
	// package, or the context's error.
	Reason error
	// Last is the last attempt's error, nil if no attempt failed with one
	// (for instance when the breaker refused the first attempt).
	Last error
	// Wait is the wait the call would have slept next, when it had got that
	// far, else 0.
	Wait time.Duration
	// detail adds the numbers behind Reason to the message.
	detail string
}

// Error describes the give-up: "retry: gave up after 2 attempts: <reason>
// (<detail>): last error: <last>".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "retry: gave up after %d attempt", e.Attempts)
	if e.Attempts != 1 {
		b.WriteByte('s')
	}
	fmt.Fprintf(&b, ": %v", e.Reason)
	if e.detail != "" {
		fmt.Fprintf(&b, " (%s)", e.detail)
	}
	if e.Last != nil {
		fmt.Fprintf(&b, ": last error: %v", e.Last)
	}
	return b.String()
}

// Unwrap returns Reason and Last, so errors.Is and errors.As see both.
func (e *Error) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Last}
}

// Permanent wraps err so that the retrying call stops at once and returns
// err (unwrapped). A breaker counts a permanent error as a success: the
// dependency answered; the answer was no. If the call's context has ended,
// the call returns an *Error for that instead (see Retrier.Do).
// Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// RetryAfter wraps err with a wait the dependency asked for, such as an
// HTTP Retry-After: the next retry waits at least d, plus the policy's
// jittered wait. A d longer than MaxRetryAfter makes the call give up; a
// negative d counts as 0. RetryAfter(nil, d) is nil.
func RetryAfter(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &afterError{err: err, floor: max(d, 0)}
}

// After is the old name of RetryAfter.
//
// Deprecated: use RetryAfter, whose name does not read as time.After.
// After will be removed in the next release.
func After(err error, d time.Duration) error { return RetryAfter(err, d) }

type afterError struct {
	err   error
	floor time.Duration
}

func (e *afterError) Error() string { return e.err.Error() }
func (e *afterError) Unwrap() error { return e.err }

// Config sets a Retrier's parameters. A zero field means its default, so the
// zero Config is the lessons' advice: full jitter, three attempts, the
// deadline check, a 10 % budget and a breaker.
type Config struct {
	// Policy computes the wait before each retry; nil means DefaultPolicy.
	// A policy with a Validate() error method (FullJitter, and every policy
	// of the lessons' schedule package) is validated by New.
	Policy Policy
	// MaxAttempts is the most attempts per call, the first included, in
	// [1, 1000]; 0 means DefaultMaxAttempts.
	MaxAttempts int
	// AttemptTimeout, if positive, bounds each attempt with its own context
	// deadline, and is the worst-case attempt used by the deadline check.
	// When it is 0 there is no per-attempt timeout and the deadline check
	// uses the longest attempt seen so far in the call. In [0, 24h].
	AttemptTimeout time.Duration
	// MaxRetryAfter is the longest server-requested wait the call honours,
	// in [0, 24h]; 0 means DefaultMaxRetryAfter. A longer request makes the
	// call give up with ErrRetryAfterTooLong rather than return early.
	MaxRetryAfter time.Duration
	// Budget is the retry budget shared by every call; nil means a new
	// budget for this Retrier or Transport: 10 % over ten one-second buckets
	// plus DefaultBudgetMinRetries per window.
	Budget *budget.Budget
	// DisableBudget turns the budget off. It must not be set with Budget.
	DisableBudget bool
	// Breaker is the circuit breaker consulted before every attempt; nil
	// means a new default breaker (breaker.Config{}) for this Retrier, or
	// one per host for a Transport. If you pass your own, its
	// OnStateChange hook is yours: Counters.OnStateChange fits it.
	Breaker *breaker.Breaker
	// DisableBreaker turns the breaker off. It must not be set with
	// Breaker.
	DisableBreaker bool
	// Rand supplies the policy's uniform draws; nil means math/rand/v2's
	// global generator. Calls are serialised, so a generator that is not
	// safe for concurrent use, such as *rand.Rand, is fine. Do not
	// give every process the same seed: identical "random" waits
	// synchronise a fleet as surely as no jitter at all.
	Rand Uniform
	// Observer, if not nil, receives an Event for every attempt, retry,
	// refusal, give-up and change of a breaker this package made. It is
	// called synchronously from concurrent calls: it must be quick and safe
	// for concurrent use. Breaker changes are reported under the breaker's
	// lock, so it must not call the breaker.
	Observer func(Event)
}

// Validate reports the first field that is out of range, naming it and the
// allowed range. Zero fields are valid: they mean the defaults.
func (c Config) Validate() error {
	switch {
	case c.MaxAttempts < 0 || c.MaxAttempts > MaxAttemptsLimit:
		return fmt.Errorf("retry: max attempts %d out of range: want 1 <= max attempts <= %d (0 means the default %d)", c.MaxAttempts, MaxAttemptsLimit, DefaultMaxAttempts)
	case c.AttemptTimeout < 0 || c.AttemptTimeout > MaxDuration:
		return fmt.Errorf("retry: attempt timeout %v out of range: want 0 <= attempt timeout <= %v (0 means none)", c.AttemptTimeout, MaxDuration)
	case c.MaxRetryAfter < 0 || c.MaxRetryAfter > MaxDuration:
		return fmt.Errorf("retry: max retry-after %v out of range: want 0 <= max retry-after <= %v (0 means the default %v)", c.MaxRetryAfter, MaxDuration, DefaultMaxRetryAfter)
	case c.Budget != nil && c.DisableBudget:
		return errors.New("retry: both Budget and DisableBudget set: want at most one")
	case c.Breaker != nil && c.DisableBreaker:
		return errors.New("retry: both Breaker and DisableBreaker set: want at most one")
	}
	if v, ok := c.Policy.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("retry: policy %v: %w", c.Policy, err)
		}
	}
	return nil
}

// Retrier retries operations. It is safe for concurrent use, and the budget
// and breaker it holds are shared by all its calls. The zero Retrier is
// ready to use and behaves as New(Config{}) would; it must not be copied
// after first use.
type Retrier struct {
	once          sync.Once
	policy        Policy
	maxAttempts   int
	attemptTO     time.Duration
	maxRetryAfter time.Duration
	budget        *budget.Budget
	breaker       *breaker.Breaker // nil when disabled
	rand          Uniform
	observe       func(Event)
	now           func() time.Time
}

// New returns a Retrier with the given Config, or an error naming the first
// parameter that is out of range.
func New(cfg Config) (*Retrier, error) {
	r, err := newRetrier(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Breaker == nil && !cfg.DisableBreaker {
		r.breaker = r.newBreaker("")
	}
	return r, nil
}

// init sets up a zero Retrier as New(Config{}) would.
func (r *Retrier) init() {
	r.once.Do(func() {
		r.setup(Config{})
		r.breaker = r.newBreaker("")
	})
}

// newRetrier builds everything but the default breaker.
func newRetrier(cfg Config) (*Retrier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Retrier{}
	r.once.Do(func() { r.setup(cfg) })
	return r, nil
}

// setup fills in r from a valid cfg, all but the default breaker.
func (r *Retrier) setup(cfg Config) {
	r.policy = cfg.Policy
	r.maxAttempts = cfg.MaxAttempts
	r.attemptTO = cfg.AttemptTimeout
	r.maxRetryAfter = cfg.MaxRetryAfter
	r.budget = cfg.Budget
	r.breaker = cfg.Breaker
	r.rand = rng.Global{}
	r.observe = cfg.Observer
	r.now = time.Now
	if r.policy == nil {
		r.policy = DefaultPolicy
	}
	if r.maxAttempts == 0 {
		r.maxAttempts = DefaultMaxAttempts
	}
	if r.maxRetryAfter == 0 {
		r.maxRetryAfter = DefaultMaxRetryAfter
	}
	if r.budget == nil && !cfg.DisableBudget {
		r.budget, _ = budget.New(budget.Config{MinRetries: DefaultBudgetMinRetries})
	}
	if cfg.Rand != nil {
		r.rand = &lockedUniform{u: cfg.Rand}
	}
}

// newBreaker makes a default breaker whose changes go to the observer.
func (r *Retrier) newBreaker(host string) *breaker.Breaker {
	b, _ := breaker.New(breaker.Config{OnStateChange: func(from, to breaker.State, at time.Time) {
		r.emit(Event{Kind: EventBreakerChange, Host: host, From: from, To: to, At: at})
	}})
	return b
}

// Budget returns the Retrier's retry budget, nil if disabled.
func (r *Retrier) Budget() *budget.Budget {
	r.init()
	return r.budget
}

// Breaker returns the Retrier's breaker, nil if disabled.
func (r *Retrier) Breaker() *breaker.Breaker {
	r.init()
	return r.breaker
}

// lockedUniform serialises draws from a generator that is not safe for
// concurrent use.
type lockedUniform struct {
	mu sync.Mutex
	u  Uniform
}

func (l *lockedUniform) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.u.Float64()
}

var defaultRetrier, _ = newRetrier(Config{DisableBudget: true, DisableBreaker: true})

// Do calls op until it succeeds, with the default policy, attempt limit and
// deadline check, but no budget or breaker: those need to be shared across
// calls, so make a Retrier with New for them. See Retrier.Do.
func Do(ctx context.Context, op func(context.Context) error) error {
	return defaultRetrier.Do(ctx, op)
}

// Do calls op until it returns nil, and returns nil; or gives up and returns
// an *Error saying why, with the last attempt's error; or returns the error
// inside Permanent at once.
//
// Before every attempt it asks the breaker, and gives up with
// ErrBreakerOpen if refused. Before every retry it draws the wait from the
// policy (plus any floor from RetryAfter), then gives up instead of waiting if
// the attempt limit is reached, the floor exceeds MaxRetryAfter, the
// breaker is open (this failure or another opened it) for longer than the
// wait, the wait plus a worst-case attempt would pass the context's
// deadline, or the budget refuses. A context that ends stops the call with
// an *Error whose Reason is context.Cause(ctx), whatever op returned, and
// the attempt counts as neither a success nor a failure for the breaker;
// so does an attempt whose op panics, before the panic goes on.
func (r *Retrier) Do(ctx context.Context, op func(context.Context) error) error {
	r.init()
	return r.run(ctx, call{breaker: r.breaker, limit: r.maxAttempts}, func(ctx context.Context) error {
		if r.attemptTO <= 0 {
			return op(ctx)
		}
		ctx, cancel := context.WithTimeout(ctx, r.attemptTO)
		defer cancel()
		return op(ctx)
	})
}

// call is what varies between the calls run makes.
type call struct {
	breaker *breaker.Breaker
	host    string // for events
	limit   int    // attempts allowed
	// limitReason is the Reason when the limit is reached;
	// nil means ErrAttemptsExhausted.
	limitReason error
	// discard, if set, is called when a failed attempt's result will not be
	// returned: just before the wait.
	discard func()
}

// run is the retry loop shared by Do and Transport.
//
// It reads the clock only when something needs the time: a budget, a
// breaker, an observer or a context deadline. Without them (the
// package-level Do with a context.Background) a call costs no clock read.
func (r *Retrier) run(ctx context.Context, c call, op func(context.Context) error) error {
	_, hasDeadline := ctx.Deadline()
	clock := hasDeadline || r.budget != nil || c.breaker != nil || r.observe != nil
	var start, end time.Time
	if clock {
		start = r.now()
	}
	if r.budget != nil {
		r.budget.RecordRequest(start)
	}
	var last error
	var prev, longest time.Duration
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return r.giveUp(c, &Error{Attempts: attempt - 1, Reason: context.Cause(ctx), Last: last})
		}
		if clock && attempt > 1 {
			start = r.now()
		}
		var permit breaker.Permit
		var err error
		if c.breaker != nil {
			p, aerr := c.breaker.Allow(start)
			if aerr != nil {
				r.emit(Event{Kind: EventBreakerRefused, Host: c.host, Attempt: attempt, At: start})
				return r.giveUp(c, &Error{Attempts: attempt - 1, Reason: ErrBreakerOpen, Last: last})
			}
			permit = p
			r.emit(Event{Kind: EventAttempt, Host: c.host, Attempt: attempt, At: start})
			err = guarded(ctx, op, permit)
		} else {
			r.emit(Event{Kind: EventAttempt, Host: c.host, Attempt: attempt, At: start})
			err = op(ctx)
		}
		if clock {
			end = r.now()
			longest = max(longest, end.Sub(start))
		}
		if err == nil {
			permit.Succeeded(end)
			return nil
		}
		if ctx.Err() != nil { // the caller gave up, not the dependency
			permit.Abandoned()
			return r.giveUp(c, &Error{Attempts: attempt, Reason: context.Cause(ctx), Last: unwrapStop(err)})
		}
		if pe, ok := errors.AsType[*permanentError](err); ok {
			permit.Succeeded(end)
			return pe.err
		}
		if ae, ok := errors.AsType[*abandonedError](err); ok {
			permit.Abandoned()
			return ae.err
		}
		permit.Failed(end)
		last = err
		if attempt >= c.limit {
			reason := c.limitReason
			if reason == nil {
				reason = ErrAttemptsExhausted
			}
			return r.giveUp(c, &Error{Attempts: attempt, Reason: reason, Last: err})
		}
		// A negative wait from a custom policy means "at once": it must not
		// eat into a Retry-After floor.
		wait := max(r.policy.Delay(attempt-1, prev, r.rand), 0)
		prev = wait
		if ae, ok := errors.AsType[*afterError](err); ok {
			if ae.floor > r.maxRetryAfter {
				return r.giveUp(c, &Error{Attempts: attempt, Reason: ErrRetryAfterTooLong, Last: err,
					detail: fmt.Sprintf("asked for %v, max %v", ae.floor, r.maxRetryAfter)})
			}
			wait = addSaturating(ae.floor, wait)
		}
		if c.breaker != nil && openPast(c.breaker, end, wait) {
			// This failure (or a concurrent one) opened the breaker, which
			// would refuse the retry on waking: refuse it now, without
			// sleeping or spending the budget.
			r.emit(Event{Kind: EventBreakerRefused, Host: c.host, Attempt: attempt + 1, At: end})
			return r.giveUp(c, &Error{Attempts: attempt, Reason: ErrBreakerOpen, Last: err, Wait: wait})
		}
		if hasDeadline {
			due, _ := ctx.Deadline()
			worst := longest
			if r.attemptTO > 0 {
				worst = r.attemptTO
			}
			if left := due.Sub(end); !Fits(wait, worst, left) {
				return r.giveUp(c, &Error{Attempts: attempt, Reason: ErrDeadline, Last: err, Wait: wait,
					detail: fmt.Sprintf("wait %v + worst-case attempt %v > %v left", wait, worst, max(left, 0))})
			}
		}
		if r.budget != nil && !r.budget.AllowRetry(end) {
			r.emit(Event{Kind: EventBudgetRefused, Host: c.host, Attempt: attempt, Err: err, At: end})
			return r.giveUp(c, &Error{Attempts: attempt, Reason: ErrBudgetExhausted, Last: err})
		}
		if c.discard != nil {
			c.discard()
		}
		r.emit(Event{Kind: EventRetry, Host: c.host, Attempt: attempt, Wait: wait, Err: err, At: end})
		if err := sleep(ctx, wait); err != nil {
			return r.giveUp(c, &Error{Attempts: attempt, Reason: err, Last: last, Wait: wait})
		}
	}
}

// guarded calls op under permit, and reports the permit abandoned if op
// panics (or calls runtime.Goexit), so that a half-open breaker's probe
// slot is not lost with it. The panic goes on.
func guarded(ctx context.Context, op func(context.Context) error, permit breaker.Permit) error {
	returned := false
	defer func() {
		if !returned {
			permit.Abandoned()
		}
	}()
	err := op(ctx)
	returned = true
	return err
}

// openPast reports whether b is open at now and stays open for longer than
// wait.
func openPast(b *breaker.Breaker, now time.Time, wait time.Duration) bool {
	return b.State(now) == breaker.Open && b.OpenUntil().After(now.Add(wait))
}

// unwrapStop returns the error inside a Permanent or abandoned wrapper, or
// err itself.
func unwrapStop(err error) error {
	if pe, ok := err.(*permanentError); ok {
		return pe.err
	}
	if ae, ok := err.(*abandonedError); ok {
		return ae.err
	}
	return err
}

// abandonedError makes the call stop at once and return err, reporting the
// attempt to the breaker as abandoned: it failed before, or without,
// hearing from the dependency (a request body that cannot be rewound, an
// unknown host, a TLS alert), so it says nothing about the dependency's
// health.
type abandonedError struct{ err error }

func (e *abandonedError) Error() string { return e.err.Error() }
func (e *abandonedError) Unwrap() error { return e.err }

// emit passes e to the observer, if there is one.
func (r *Retrier) emit(e Event) {
	if r.observe != nil {
		r.observe(e)
	}
}

// giveUp reports e to the observer and returns it.
func (r *Retrier) giveUp(c call, e *Error) error {
	if r.observe != nil {
		r.observe(Event{Kind: EventGiveUp, Host: c.host, Attempt: e.Attempts, Wait: e.Wait, Err: e, At: r.now()})
	}
	return e
}

// sleep waits d, or until ctx ends, and returns context.Cause(ctx) in that
// case: the reason the caller gave, when it gave one, rather than a bare
// context.Canceled.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// addSaturating returns a+b for non-negative a and b, or the largest
// Duration if the sum overflows. Callers make sure both are non-negative.
func addSaturating(a, b time.Duration) time.Duration {
	if b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}
