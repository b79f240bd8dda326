package retry

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/retry/breaker"
)

// EventKind says what an Event reports.
type EventKind int

// The kinds of Event.
const (
	// EventAttempt: an attempt is starting. Attempt is its number, from 1.
	EventAttempt EventKind = iota + 1
	// EventRetry: attempt number Attempt failed with Err and the call will
	// retry after Wait.
	EventRetry
	// EventBudgetRefused: the budget refused the retry after attempt
	// Attempt; an EventGiveUp follows.
	EventBudgetRefused
	// EventBreakerRefused: the breaker refused attempt number Attempt; an
	// EventGiveUp follows.
	EventBreakerRefused
	// EventGiveUp: the call stopped without success; Err is the *Error.
	EventGiveUp
	// EventBreakerChange: a breaker this package made changed from From to
	// To (for a Transport, Host's breaker).
	EventBreakerChange
)

// String returns the kind's name, such as "retry" or "budget-refused".
func (k EventKind) String() string {
	switch k {
	case EventAttempt:
		return "attempt"
	case EventRetry:
		return "retry"
	case EventBudgetRefused:
		return "budget-refused"
	case EventBreakerRefused:
		return "breaker-refused"
	case EventGiveUp:
		return "give-up"
	case EventBreakerChange:
		return "breaker-change"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing a Retrier or Transport did, for an Observer.
type Event struct {
	// Kind says what happened; the other fields are set as it describes.
	Kind EventKind
	// Host is the request's host for a Transport, "" for Retrier.Do.
	Host string
	// Attempt is the attempt number the event is about, from 1.
	Attempt int
	// Wait is the wait before the retry (EventRetry), or the one refused.
	Wait time.Duration
	// Err is the failed attempt's error, or the *Error of a give-up.
	Err error
	// From and To are the breaker's states for EventBreakerChange.
	From, To breaker.State
	// At is when it happened.
	At time.Time
}

// Counters counts events. Its Observe method is an Observer and its
// OnStateChange method fits breaker.Config.OnStateChange, for breakers you
// make yourself. The zero Counters is ready to use and it is safe for
// concurrent use.
type Counters struct {
	attempts, retries, budgetRefusals, breakerRefusals, giveUps, breakerChanges atomic.Int64
}

// Stats is a snapshot of Counters.
type Stats struct {
	Attempts        int64 // attempts started, first attempts included
	Retries         int64 // retries scheduled (attempts after the first)
	BudgetRefusals  int64 // retries the budget refused
	BreakerRefusals int64 // attempts the breaker refused
	GiveUps         int64 // calls that stopped without success
	BreakerChanges  int64 // breaker state changes
}

// Observe counts e.
func (c *Counters) Observe(e Event) {
	switch e.Kind {
	case EventAttempt:
		c.attempts.Add(1)
	case EventRetry:
		c.retries.Add(1)
	case EventBudgetRefused:
		c.budgetRefusals.Add(1)
	case EventBreakerRefused:
		c.breakerRefusals.Add(1)
	case EventGiveUp:
		c.giveUps.Add(1)
	case EventBreakerChange:
		c.breakerChanges.Add(1)
	}
}

// OnStateChange counts a breaker state change.
func (c *Counters) OnStateChange(from, to breaker.State, at time.Time) {
	c.breakerChanges.Add(1)
}

// Snapshot returns the counts so far.
func (c *Counters) Snapshot() Stats {
	return Stats{
		Attempts:        c.attempts.Load(),
		Retries:         c.retries.Load(),
		BudgetRefusals:  c.budgetRefusals.Load(),
		BreakerRefusals: c.breakerRefusals.Load(),
		GiveUps:         c.giveUps.Load(),
		BreakerChanges:  c.breakerChanges.Load(),
	}
}
