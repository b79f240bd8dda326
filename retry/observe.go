package retry

import (
	"context"
	"fmt"
	"log/slog"
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
	// EventGiveUp: the call stopped without success. Err is the error the
	// call returns: an *Error, whose Reason is also the event's Reason, or
	// an error not worth retrying (Permanent, refused by Retryable, or
	// classified so by a Transport), returned as it is, with Reason
	// ErrPermanent.
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
	// Host names the dependency whose breaker and budget the event is
	// about, the same in every event of a call and of its breaker: for a
	// Transport its host key, "scheme://host" with the port when it is not
	// the scheme's default (as Transport.Breaker compares hosts: lower
	// case, IDNA hosts in their ASCII form, "http://example.com" for
	// http://EXAMPLE.com:80/); for a Retrier from Retrier.For its name; ""
	// otherwise.
	Host string
	// Attempt is the attempt number the event is about, from 1.
	Attempt int
	// Wait is the wait before the retry (EventRetry), or the one refused.
	Wait time.Duration
	// Err is the failed attempt's error, or for EventGiveUp the error the
	// call returns.
	Err error
	// Reason is why the call gave up (EventGiveUp): one of the package's
	// Err variables, or the context's error.
	Reason error
	// From and To are the breaker's states for EventBreakerChange.
	From, To breaker.State
	// At is when it happened.
	At time.Time
}

// LogValue returns the event as a group of attributes, only those its
// Kind sets: kind, host (when not ""), attempt (attempts for a give-up),
// wait, reason, err, from and to. At is left to the log record's own time.
// Logged with a text handler as logger.Info("retrying", "event", e), a
// retry reads
//
//	level=INFO msg=retrying event.kind=retry event.host=https://api.example.com event.attempt=1 event.wait=72ms event.err="HTTP 503 Service Unavailable"
func (e Event) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs, slog.String("kind", e.Kind.String()))
	if e.Host != "" {
		attrs = append(attrs, slog.String("host", e.Host))
	}
	switch e.Kind {
	case EventBreakerChange:
		return slog.GroupValue(append(attrs, slog.String("from", e.From.String()), slog.String("to", e.To.String()))...)
	case EventAttempt, EventBreakerRefused:
		attrs = append(attrs, slog.Int("attempt", e.Attempt))
	case EventRetry:
		attrs = append(attrs, slog.Int("attempt", e.Attempt), slog.Duration("wait", e.Wait))
	case EventBudgetRefused:
		attrs = append(attrs, slog.Int("attempt", e.Attempt))
	case EventGiveUp:
		attrs = append(attrs, slog.Int("attempts", e.Attempt))
		if e.Reason != nil {
			attrs = append(attrs, slog.String("reason", e.Reason.Error()))
		}
		if e.Wait > 0 {
			attrs = append(attrs, slog.Duration("wait", e.Wait))
		}
	}
	if e.Err != nil {
		attrs = append(attrs, slog.String("err", e.Err.Error()))
	}
	return slog.GroupValue(attrs...)
}

// Level is the log level LogEvents gives e: Debug for an attempt, Info for
// a retry and for a breaker closing or half-opening, Warn for a refusal, a
// give-up and a breaker opening.
func (e Event) Level() slog.Level {
	switch e.Kind {
	case EventAttempt:
		return slog.LevelDebug
	case EventRetry:
		return slog.LevelInfo
	case EventBreakerChange:
		if e.To != breaker.Open {
			return slog.LevelInfo
		}
	}
	return slog.LevelWarn
}

// LogEvents returns an Observer that logs every event to l, as the message
// "retry <kind>" ("retry give-up") at the event's Level, with the event's
// attributes (see LogValue) at the top level of the record:
//
//	retry.New(retry.Config{Observer: retry.LogEvents(slog.Default())})
//
// Attempts are logged at Debug, so a logger at the default Info level
// shows retries, refusals, give-ups and breaker changes only. Events whose
// level l does not log cost no formatting. A nil l means slog.Default(),
// as it is when each event is logged.
func LogEvents(l *slog.Logger) func(Event) {
	return func(e Event) {
		l := l
		if l == nil {
			l = slog.Default()
		}
		level := e.Level()
		ctx := context.Background()
		if !l.Enabled(ctx, level) {
			return
		}
		l.LogAttrs(ctx, level, "retry "+e.Kind.String(), e.LogValue().Group()...)
	}
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
