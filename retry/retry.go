package retry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
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
	// ErrPermanent: the attempt's error was not worth retrying (it was
	// wrapped by Permanent, refused by Config.Retryable, or classified Stop,
	// Fail or Ignore by a Transport), so the call returned that error itself
	// at once. It is the Reason of such a call's EventGiveUp; the call
	// returns the error, not an *Error.
	ErrPermanent = errors.New("error not worth retrying")
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
//
// The budget and the breaker are shared state: every call through one
// Retrier shares them, which is what makes them work (a budget bounds the
// retries of many calls; a breaker opened by some calls spares the
// dependency the others). The calls a Retrier makes should therefore all go
// to one dependency. Calls to several through one Retrier would couple
// them: one failing dependency would open the breaker, and spend the
// budget, of all. Make one Retrier per dependency, or name each call's
// dependency with Retrier.For, which keeps a breaker and a budget per name.
// A Transport keeps them per host.
type Config struct {
	// Policy computes the wait before each retry; nil means DefaultPolicy.
	// A policy with a Validate() error method (every policy of this
	// package) is validated by New.
	Policy Policy
	// MaxAttempts is the most attempts per call, the first included, in
	// [1, 1000]; 0 means DefaultMaxAttempts.
	MaxAttempts int
	// AttemptTimeout, if positive, bounds each attempt with its own context
	// deadline, and is the worst-case attempt used by the deadline check.
	// When it is 0 there is no per-attempt timeout and the deadline check
	// uses the longest attempt seen so far in the call. In [0, 24h]. (A
	// Transport's attempt ends when its response headers arrive: see
	// Transport.)
	AttemptTimeout time.Duration
	// MaxRetryAfter is the longest server-requested wait the call honours,
	// in [0, 24h]; 0 means DefaultMaxRetryAfter. A longer request makes the
	// call give up with ErrRetryAfterTooLong rather than return early.
	MaxRetryAfter time.Duration
	// Budget is the retry budget; nil means a budget the Retrier makes
	// itself (10 % over ten one-second buckets plus DefaultBudgetMinRetries
	// per window), one for all its calls, one per name for Retrier.For,
	// and one per host for a Transport. A Budget you pass is shared by
	// every call, whatever its name or host: pass one to bound the retries
	// to a fleet of hosts together.
	Budget *budget.Budget
	// DisableBudget turns the budget off. It must not be set with Budget.
	DisableBudget bool
	// Breaker is the circuit breaker consulted before every attempt; nil
	// means a default breaker (breaker.Config{}) the Retrier makes itself:
	// one for all its calls, one per name for Retrier.For, one per host for
	// a Transport. A Breaker you pass is shared by every call, and its
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
	// lock, so it must not call the breaker. LogEvents(logger) logs every
	// event; Counters.Observe counts them.
	Observer func(Event)
	// Retryable, if not nil, says whether a failed attempt's error is worth
	// another attempt; nil means every error is, except one wrapped by
	// Permanent. An error it refuses ends the call at once, as Permanent
	// would: the call returns that error as it is, the breaker counts the
	// attempt as an answer (a success), and the observer gets an
	// EventGiveUp whose Reason is ErrPermanent. It sees the op's error as
	// returned (RetryAfter's wrapping included), never nil and never a
	// Permanent one, and it must be safe for concurrent use. A Transport
	// classifies its attempts with TransportConfig.Classify instead.
	Retryable func(error) bool
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

// settings are a Retrier's parameters with the defaults filled in, shared
// by value with the Retriers For returns.
type settings struct {
	policy        Policy
	maxAttempts   int
	attemptTO     time.Duration
	maxRetryAfter time.Duration
	rand          Uniform
	observe       func(Event)
	retryable     func(error) bool
	now           func() time.Time
	// ownBreaker and ownBudget are set when the Retrier makes its breaker
	// or its budget itself (the Config gave none and did not disable it):
	// then For keys them by name.
	ownBreaker, ownBudget bool
}

// Retrier retries operations. It is safe for concurrent use, and the budget
// and breaker it holds are shared by all its calls (see Config). The zero
// Retrier is ready to use and behaves as New(Config{}) would; it must not be
// copied after first use.
type Retrier struct {
	once sync.Once
	settings
	breaker *breaker.Breaker // nil when disabled
	budget  *budget.Budget   // nil when disabled
	key     string           // the name For gave it, for events
	names   *names           // For's Retriers, shared with them
}

// names holds the Retriers For returns, made on first use.
type names struct {
	once  sync.Once
	table *table
}

// New returns a Retrier with the given Config, or an error naming the first
// parameter that is out of range.
func New(cfg Config) (*Retrier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Retrier{}
	r.once.Do(func() { r.setup(cfg) })
	return r, nil
}

// init sets up a zero Retrier as New(Config{}) would.
func (r *Retrier) init() {
	r.once.Do(func() { r.setup(Config{}) })
}

// setup fills in r from a valid cfg.
func (r *Retrier) setup(cfg Config) {
	r.settings = newSettings(cfg)
	r.breaker, r.budget = cfg.Breaker, cfg.Budget
	if r.ownBreaker {
		r.breaker = r.newBreaker("", nil)
	}
	if r.ownBudget {
		r.budget = newBudget()
	}
	r.names = &names{}
}

// newSettings returns cfg's settings with the defaults filled in.
func newSettings(cfg Config) settings {
	s := settings{
		policy:        cfg.Policy,
		maxAttempts:   cfg.MaxAttempts,
		attemptTO:     cfg.AttemptTimeout,
		maxRetryAfter: cfg.MaxRetryAfter,
		rand:          rng.Global{},
		observe:       cfg.Observer,
		retryable:     cfg.Retryable,
		now:           time.Now,
		ownBreaker:    cfg.Breaker == nil && !cfg.DisableBreaker,
		ownBudget:     cfg.Budget == nil && !cfg.DisableBudget,
	}
	if s.policy == nil {
		s.policy = DefaultPolicy
	}
	if s.maxAttempts == 0 {
		s.maxAttempts = DefaultMaxAttempts
	}
	if s.maxRetryAfter == 0 {
		s.maxRetryAfter = DefaultMaxRetryAfter
	}
	if cfg.Rand != nil {
		s.rand = &lockedUniform{u: cfg.Rand}
	}
	return s
}

// newBudget makes a default budget.
func newBudget() *budget.Budget {
	b, _ := budget.New(budget.Config{MinRetries: DefaultBudgetMinRetries})
	return b
}

// newBreaker makes a default breaker whose changes go to the observer as
// key's, and to tripped, if not nil, as whether it is open or half-open.
func (s *settings) newBreaker(key string, tripped *atomic.Bool) *breaker.Breaker {
	b, _ := breaker.New(breaker.Config{OnStateChange: func(from, to breaker.State, at time.Time) {
		if tripped != nil {
			tripped.Store(to != breaker.Closed)
		}
		s.emit(Event{Kind: EventBreakerChange, Host: key, From: from, To: to, At: at})
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

// DefaultMaxKeys is the number of names Retrier.For keeps a breaker and a
// budget for; beyond it the least recently used name's are dropped, the
// closed breakers' first (see TransportConfig.MaxHosts).
const DefaultMaxKeys = 1024

// For returns a Retrier for the dependency called name: r's settings, with
// a breaker and a budget of its own for that name, made on first use and
// kept while the name is used, so that calls to several dependencies
// through one Retrier do not share them:
//
//	users, orders := r.For("users"), r.For("orders")
//	err := users.Do(ctx, getUser) // a failing orders service leaves users' breaker closed
//
// Calls to For with the same name return the same Retrier, whose events
// carry the name as Host. Only what r makes itself is keyed: a Breaker or a
// Budget given in r's Config is shared by every name, and a disabled one
// stays disabled. r keeps up to DefaultMaxKeys names; beyond that the
// least recently used name's state is dropped (the closed breakers' first)
// and the name starts afresh if it comes back. For on a Retrier that For
// returned names within the same set: r.For("a").For("b") is r.For("b").
func (r *Retrier) For(name string) *Retrier {
	r.init()
	n := r.names
	n.once.Do(func() { n.table = newTable(DefaultMaxKeys, r.ownBreaker, r.ownBudget, &r.settings) })
	e := n.table.get(name, func(e *entry) {
		child := &Retrier{settings: r.settings, key: name, names: n, breaker: r.breaker, budget: r.budget}
		child.once.Do(func() {})
		if e.breaker != nil {
			child.breaker = e.breaker
		}
		if e.budget != nil {
			child.budget = e.budget
		}
		e.retrier = child
	})
	return e.retrier
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

var defaultRetrier, _ = New(Config{DisableBudget: true, DisableBreaker: true})

// Do calls op until it succeeds, with the default policy, attempt limit and
// deadline check, but no budget or breaker: those need to be shared across
// calls, so make a Retrier with New for them. See Retrier.Do.
func Do(ctx context.Context, op func(context.Context) error) error {
	return defaultRetrier.Do(ctx, op)
}

// Do calls op until it returns nil, and returns nil; or gives up and returns
// an *Error saying why, with the last attempt's error; or returns at once
// the error inside Permanent, or one Config.Retryable refuses.
//
// Before every attempt it asks the breaker, and gives up with
// ErrBreakerOpen if refused. Before every retry it draws the wait from the
// policy (plus any floor from RetryAfter), then gives up instead of
// waiting if the attempt limit is reached, the floor exceeds MaxRetryAfter,
// the breaker is open (this failure or another opened it) for longer than
// the wait, the wait plus a worst-case attempt would pass the context's
// deadline, or the budget refuses.
//
// A context that ends stops the call with an *Error whose Reason is
// context.Cause(ctx), whatever op returned. If it was cancelled, the
// attempt counts as neither a success nor a failure for the breaker: the
// caller gave up, not the dependency. If its deadline passed during the
// attempt, the attempt counts as a failure: a dependency that hangs until
// its callers' deadlines expire is failing them, and the breaker must open
// for it. An attempt whose op panics counts as neither, and the panic goes
// on.
func (r *Retrier) Do(ctx context.Context, op func(context.Context) error) error {
	r.init()
	return r.run(ctx, call{breaker: r.breaker, budget: r.budget, host: r.key, limit: r.maxAttempts}, func(ctx context.Context) error {
		if r.attemptTO <= 0 {
			return op(ctx)
		}
		ctx, cancel := context.WithTimeout(ctx, r.attemptTO)
		defer cancel()
		return op(ctx)
	})
}

// DoValue calls op as r.Do would, and returns the value of the attempt that
// succeeded, or the zero T with the error Do would have returned. A nil r
// means the package-level Do's Retrier: no budget, no breaker.
func DoValue[T any](ctx context.Context, r *Retrier, op func(context.Context) (T, error)) (T, error) {
	if r == nil {
		r = defaultRetrier
	}
	var v T
	err := r.Do(ctx, func(ctx context.Context) error {
		got, err := op(ctx)
		if err == nil {
			v = got // the attempt that succeeded is the last
		}
		return err
	})
	return v, err
}

// call is what varies between the calls run makes.
type call struct {
	breaker *breaker.Breaker
	budget  *budget.Budget
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
	clock := hasDeadline || c.budget != nil || c.breaker != nil || r.observe != nil
	var start, end time.Time
	if clock {
		start = r.now()
	}
	if c.budget != nil {
		c.budget.RecordRequest(start)
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
			err = r.guarded(ctx, op, permit, Event{Kind: EventAttempt, Host: c.host, Attempt: attempt, At: start})
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
		ae, abandoned := errors.AsType[*abandonedError](err)
		if ctx.Err() != nil {
			// The caller's context ended during the attempt. A deadline
			// that passed while the dependency had the request is the
			// dependency's failure to answer in time; a cancellation is
			// the caller's own doing, and says nothing about the
			// dependency (nor does an attempt that never reached it).
			if !abandoned && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				permit.Failed(end)
			} else {
				permit.Abandoned()
			}
			return r.giveUp(c, &Error{Attempts: attempt, Reason: context.Cause(ctx), Last: unwrapStop(err)})
		}
		if abandoned {
			permit.Abandoned()
			return r.stop(c, attempt, ae.err, end)
		}
		if fe, ok := errors.AsType[*failedError](err); ok {
			permit.Failed(end)
			return r.stop(c, attempt, fe.err, end)
		}
		if pe, ok := errors.AsType[*permanentError](err); ok {
			permit.Succeeded(end)
			return r.stop(c, attempt, pe.err, end)
		}
		if r.retryable != nil && !r.retryable(err) {
			permit.Succeeded(end)
			return r.stop(c, attempt, err, end)
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
		if c.budget != nil && !c.budget.AllowRetry(end) {
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

// guarded reports attempt to the observer and calls op under permit. If
// either panics (or calls runtime.Goexit), it reports the permit abandoned,
// so that a half-open breaker's probe slot is not lost with it; the panic
// goes on.
func (r *Retrier) guarded(ctx context.Context, op func(context.Context) error, permit breaker.Permit, attempt Event) error {
	returned := false
	defer func() {
		if !returned {
			permit.Abandoned()
		}
	}()
	r.emit(attempt)
	err := op(ctx)
	returned = true
	return err
}

// openPast reports whether b is open at now and stays open for longer than
// wait.
func openPast(b *breaker.Breaker, now time.Time, wait time.Duration) bool {
	return b.State(now) == breaker.Open && b.OpenUntil().After(now.Add(wait))
}

// unwrapStop returns the error inside a Permanent, failed or abandoned
// wrapper, or err itself.
func unwrapStop(err error) error {
	switch e := err.(type) {
	case *permanentError:
		return e.err
	case *abandonedError:
		return e.err
	case *failedError:
		return e.err
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

// failedError makes the call stop at once and return err, reporting the
// attempt to the breaker as a failure: the dependency failed in a way that
// another attempt will not mend (a Transport's Fail verdict).
type failedError struct{ err error }

func (e *failedError) Error() string { return e.err.Error() }
func (e *failedError) Unwrap() error { return e.err }

// emit passes e to the observer, if there is one.
func (s *settings) emit(e Event) {
	if s.observe != nil {
		s.observe(e)
	}
}

// giveUp reports e to the observer and returns it.
func (r *Retrier) giveUp(c call, e *Error) error {
	if r.observe != nil {
		r.observe(Event{Kind: EventGiveUp, Host: c.host, Attempt: e.Attempts, Wait: e.Wait, Err: e, Reason: e.Reason, At: r.now()})
	}
	return e
}

// stop reports a call that ends at once with err, not worth retrying, after
// attempt attempts, and returns err.
func (r *Retrier) stop(c call, attempt int, err error, at time.Time) error {
	if r.observe != nil {
		r.observe(Event{Kind: EventGiveUp, Host: c.host, Attempt: attempt, Err: err, Reason: ErrPermanent, At: at})
	}
	return err
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
