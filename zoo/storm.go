// Package zoo runs the retry libraries that Go services use through the same
// synchronised failure: a cohort of clients that all failed at t = 0 against
// a dependency that stays down for a while. Every library runs its own code at
// a pinned version (the versions are in this module's go.mod); nothing here
// re-implements a library's formula.
//
// A library that exposes its delay function (NextBackOff, RetryDelay, Step,
// Pause, When, a Backoff func) is called in-process, client after client in
// the order of the attempts. A library whose delay lives inside its own retry
// loop runs that loop, sleeps included, with one goroutine per client inside
// a testing/synctest bubble (package internal/bubble), where time is fake and
// a minute of sleeping takes no time at all. Both drivers run in the bubble,
// so libraries that read the clock (a breaker's open timeout, a token bucket)
// see the simulated time.
//
// Results are deterministic when the library's randomness can be seeded (its
// Entry says so); the rest draw from generators seeded by the runtime, so the
// lesson reports them as ranges over several runs.
package zoo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/zoo/internal/bubble"
)

// Slot is the width of the slots in which arrivals are counted.
const Slot = 10 * time.Millisecond

// Limits on a Storm's fields.
const (
	MaxClients = 100_000
	MaxOutage  = time.Hour
	// Horizon is how far in fake time a client may keep retrying; one still
	// trying then counts as having given up.
	Horizon = 2 * time.Hour
)

// Storm is the shared failure: Clients clients send their first request at
// t = 0, and the dependency fails every request that arrives before Outage.
// The zero Storm is the lesson's: 1000 clients, a 10 s outage, lcg.DefaultSeed.
//
// With RetryAfter set, the dependency instead answers each client's first
// request with 503 and a Retry-After of that many whole seconds, and serves
// every later request; Outage is then ignored.
type Storm struct {
	Clients    int
	Outage     time.Duration
	Seed       uint64
	RetryAfter time.Duration
}

func (s Storm) withDefaults() (Storm, error) {
	if s.Clients == 0 {
		s.Clients = 1000
	}
	if s.Outage == 0 {
		s.Outage = 10 * time.Second
	}
	if s.Seed == 0 {
		s.Seed = lcg.DefaultSeed
	}
	if s.Clients < 1 || s.Clients > MaxClients {
		return s, fmt.Errorf("zoo: Storm.Clients = %d, want 1 to %d", s.Clients, MaxClients)
	}
	if s.Outage < 0 || s.Outage > MaxOutage {
		return s, fmt.Errorf("zoo: Storm.Outage = %v, want 0 to %v", s.Outage, MaxOutage)
	}
	if s.RetryAfter < 0 || s.RetryAfter > time.Hour || s.RetryAfter%time.Second != 0 {
		return s, fmt.Errorf("zoo: Storm.RetryAfter = %v, want whole seconds from 0 to 1h", s.RetryAfter)
	}
	return s, nil
}

// ErrDown is what the dependency answers during the outage. It carries the
// HTTP status 503, so status-aware libraries (the AWS retryer) retry it.
var ErrDown = errors.New("503 Service Unavailable")

// down is ErrDown with the methods that libraries probe errors for.
type down struct{}

func (down) Error() string        { return ErrDown.Error() }
func (down) Unwrap() error        { return ErrDown }
func (down) HTTPStatusCode() int  { return 503 }
func (down) ErrorCode() string    { return "ServiceUnavailable" }
func (down) Temporary() bool      { return true }
func (down) RetryableError() bool { return true }

// RetryAfterError is the dependency's first answer in a Retry-After storm: a
// 503 whose Retry-After header says Wait.
type RetryAfterError struct {
	down
	Wait time.Duration
}

// Header is the Retry-After header's value, such as "2".
func (e RetryAfterError) Header() string { return strconv.Itoa(int(e.Wait / time.Second)) }

// Result is what one library at one setting did to the storm.
type Result struct {
	Entry
	// Version is the library's module version in this build.
	Version string
	// Attempts holds, per client, when each of its requests reached the
	// dependency (the first at 0). Requests a breaker refused are not there.
	Attempts [][]time.Duration
	// Retries are every request after each client's first, in time order.
	Retries []time.Duration
	// Peak is the fullest Slot of retries; LastRetry the latest retry (0 if none).
	Peak      int
	LastRetry time.Duration
	// Served counts clients that got an answer; GaveUp the others.
	Served, GaveUp int
}

// Histogram counts the retries per Slot from t = 0.
func (r Result) Histogram() (metrics.Histogram, error) {
	if len(r.Retries) == 0 {
		return metrics.NewHistogram(Slot, Slot)
	}
	return metrics.Count(r.Retries, Slot)
}

// stepper is one client of an in-process library: try makes attempt n (0 for
// the first) at the current fake time, reaching the dependency through send,
// and returns the wait before the next attempt, or more == false to stop.
type stepper func(n int, send func() error) (wait time.Duration, more bool)

// backoffClient turns a delay function into a stepper: after the k-th failure
// (k from 1) it waits next(k, err), or stops when next says so.
func backoffClient(next func(k int, err error) (time.Duration, bool)) stepper {
	return func(n int, send func() error) (time.Duration, bool) {
		err := send()
		if err == nil {
			return 0, false
		}
		return next(n+1, err)
	}
}

// record notes the arrivals of one storm.
type record struct {
	mu       sync.Mutex
	starts   []time.Time // each client's t = 0
	outage   time.Duration
	after    time.Duration // Storm.RetryAfter
	attempts [][]time.Duration
	served   []bool
}

func newRecord(s Storm) *record {
	rec := &record{starts: make([]time.Time, s.Clients), outage: s.Outage, after: s.RetryAfter, attempts: make([][]time.Duration, s.Clients), served: make([]bool, s.Clients)}
	now := time.Now()
	for i := range rec.starts {
		rec.starts[i] = now
	}
	return rec
}

// send is client i's request at the current fake time.
func (r *record) send(i int) error {
	at := time.Since(r.starts[i])
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts[i] = append(r.attempts[i], at)
	if r.after > 0 {
		if r.served[i] = len(r.attempts[i]) > 1; !r.served[i] {
			return RetryAfterError{Wait: r.after}
		}
		return nil
	}
	if at < r.outage {
		r.served[i] = false
		return down{}
	}
	r.served[i] = true
	return nil
}

// stepped runs one in-process client per stepper, attempt by attempt in time
// order (ties by client number), sleeping the bubble's clock forward between
// attempts. It must run inside a bubble.
func stepped(s Storm, clients []stepper) *record {
	rec := newRecord(s)
	type due struct {
		at time.Duration
		i  int
		n  int
	}
	queue := make([]due, len(clients))
	for i := range clients {
		queue[i] = due{0, i, 0}
	}
	for len(queue) > 0 {
		// The queue is small (one entry per client still trying); a sort
		// keeps the order obvious and deterministic.
		slices.SortFunc(queue, func(a, b due) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.i, b.i))
		})
		d := queue[0]
		queue = queue[1:]
		if wait := d.at - time.Since(rec.starts[d.i]); wait > 0 {
			time.Sleep(wait)
		}
		wait, more := clients[d.i](d.n, func() error { return rec.send(d.i) })
		if more && d.at+wait <= Horizon {
			queue = append(queue, due{d.at + max(wait, 0), d.i, d.n + 1})
		}
	}
	return rec
}

// A looper runs client i's whole retry loop with the library's own code,
// calling send for every request, until it stops.
type looper func(ctx context.Context, i int, send func() error)

// looped runs the library's own retry loop for every client, inside a bubble.
// Clients run one after another, each from its own t = 0, when the library
// draws from a shared generator that was seeded (one by one, the draws happen
// in the same order on every run), and all at once otherwise. Each client's
// context ends at Horizon.
func looped(s Storm, run looper, oneByOne bool) *record {
	rec := newRecord(s)
	client := func(i int) {
		ctx, cancel := context.WithTimeout(context.Background(), Horizon)
		defer cancel()
		run(ctx, i, func() error { return rec.send(i) })
	}
	if oneByOne {
		for i := range s.Clients {
			rec.starts[i] = time.Now()
			client(i)
		}
		return rec
	}
	var wg sync.WaitGroup
	for i := range s.Clients {
		wg.Go(func() { client(i) })
	}
	wg.Wait()
	return rec
}

// summarise turns a record into a Result.
func summarise(e Entry, rec *record) (Result, error) {
	res := Result{Entry: e, Version: Version(e.Module), Attempts: rec.attempts}
	for i, a := range rec.attempts {
		if len(a) > 1 {
			res.Retries = append(res.Retries, a[1:]...)
		}
		if rec.served[i] {
			res.Served++
		} else {
			res.GaveUp++
		}
	}
	slices.Sort(res.Retries)
	if len(res.Retries) > 0 {
		res.LastRetry = res.Retries[len(res.Retries)-1]
		h, err := res.Histogram()
		if err != nil {
			return res, err
		}
		res.Peak = h.Peak().Count
	}
	return res, nil
}

// Run puts one library setting through the storm.
func Run(e Entry, s Storm) (Result, error) {
	s, err := s.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if e.steppers == nil && e.loop == nil && e.whole == nil {
		return Result{}, fmt.Errorf("zoo: entry %q has nothing to run", e.Name)
	}
	var rec *record
	err = bubble.Run(func() {
		if e.steppers != nil {
			rec = stepped(s, e.steppers(s))
			return
		}
		if e.whole != nil {
			rec = newRecord(s)
			e.whole(s, rec.send)
			return
		}
		rec = looped(s, e.loop(s), e.Seeded)
	})
	if err != nil {
		return Result{}, fmt.Errorf("zoo: %s: %w", e.Name, err)
	}
	return summarise(e, rec)
}

// RunAll puts every entry through the storm, in order.
func RunAll(entries []Entry, s Storm) ([]Result, error) {
	out := make([]Result, 0, len(entries))
	for _, e := range entries {
		r, err := Run(e, s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
