package cohort

import (
	"errors"
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// ErrTooManyCalls is returned (wrapped) by a run that would make more calls
// than its budget, Config.MaxCalls.
var ErrTooManyCalls = errors.New("cohort: too many calls")

// Result is what one run measured. Times are whole milliseconds.
type Result struct {
	// Finish is when the last client's call completed, or the horizon if
	// some client is unfinished.
	Finish time.Duration
	// Recovery is the time from the end of the outage to Finish (0 if the
	// run ended during the outage).
	Recovery time.Duration
	// Idle is the part of Recovery with no call in flight: capacity standing
	// unused while some client still waits for its answer.
	Idle time.Duration
	// Calls counts every attempt; CallsOutage those made while the
	// dependency was down, CallsRecovery the rest.
	Calls, CallsOutage, CallsRecovery int
	// Admitted counts admitted calls: one per finished client.
	Admitted int
	// Unfinished counts clients without an admitted call at the horizon.
	Unfinished int
	// PeakPer100ms is the most calls made in one Bucket [k·100 ms,
	// (k+1)·100 ms).
	PeakPer100ms int
	// PeakPerMs is the most calls made in a single millisecond at or after
	// the end of the outage: the burst that meets a dependency able to
	// answer.
	PeakPerMs int
}

// IdleFraction returns Idle/Recovery, or 0 if there was no recovery.
func (r Result) IdleFraction() float64 {
	if r.Recovery <= 0 {
		return 0
	}
	return float64(r.Idle) / float64(r.Recovery)
}

// Events returns the number of events the simulator processed: one per call
// and one per completion.
func (r Result) Events() int { return r.Calls + r.Admitted }

// Run simulates c once. It returns an error naming the parameter if c is
// invalid, or wrapping ErrTooManyCalls if the run exceeds its call budget.
func Run(c Config) (Result, error) { return run(c, nil) }

// RunTraced is Run that also records every attempt, for figures and for
// measures beyond Result. The trace takes memory in proportion to the calls.
func RunTraced(c Config) (Result, *Trace, error) {
	tr := &Trace{Clients: c.Clients, Limit: c.Limit, Service: c.Service, Outage: c.Outage}
	r, err := run(c, tr)
	if err != nil {
		return Result{}, nil, err
	}
	tr.End = r.Finish
	return r, tr, nil
}

// msec converts a whole-millisecond duration to milliseconds.
func msec(d time.Duration) int64 { return int64(d / time.Millisecond) }

// run is the event-driven simulator; tr, if not nil, receives every attempt.
func run(c Config, tr *Trace) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	rng := lcg.MustNew(c.Seed) // Validate checked the seed
	budget := c.MaxCalls
	service, outage, horizon := msec(c.Service), msec(c.Outage), msec(c.Horizon)

	// The clients' next attempts, first attempts drawn in client order.
	q := newCalendar(c.Clients)
	defer q.free()
	spread := float64(msec(c.Spread))
	for i := range c.Clients {
		at := int64(0)
		if spread > 0 {
			at = int64(rng.Float64() * spread)
		}
		if at < horizon {
			q.add(at, int32(i))
		}
	}
	retries, prev := q.retries, q.prev

	// Calls in flight complete in the order they were admitted, because
	// every call takes the same service time: a ring of completion times.
	q.ring = zeroed(q.ring, min(c.Limit, c.Clients))
	ring := q.ring
	head, inFlight := 0, 0
	zeroSince := int64(0) // when the dependency last became empty
	var idle, lastEnd int64
	complete := func(t int64) { // frees every slot whose call ends by t
		for inFlight > 0 && ring[head] <= t {
			if inFlight--; inFlight == 0 {
				zeroSince = ring[head]
			}
			if head++; head == len(ring) {
				head = 0
			}
		}
	}

	var r Result
	bucket, inBucket := int64(-1), 0
	inMilli := 0
	for {
		t, first, last, ok := q.take(horizon)
		if !ok {
			break
		}
		if inFlight > 0 && ring[head] <= t {
			complete(t)
		}
		if b := t / msec(Bucket); b != bucket {
			bucket, inBucket = b, 0
		}
		inMilli = 0
		for id, after, end := first, int32(0), false; !end; id = after {
			after, end = q.next[id], id == last // before id is added again
			if r.Calls == budget {
				return Result{}, fmt.Errorf("%w: more than %d calls before %v (raise the call budget, MaxCalls or --max-calls, or shorten the horizon)", ErrTooManyCalls, budget, time.Duration(t)*time.Millisecond)
			}
			r.Calls++
			inBucket++
			if t < outage {
				r.CallsOutage++
			} else {
				r.CallsRecovery++
				inMilli++
			}
			if t >= outage && inFlight < c.Limit {
				if inFlight == 0 {
					idle += t - max(zeroSince, outage)
				}
				lastEnd = t + service
				ring[(head+inFlight)%len(ring)] = lastEnd
				inFlight++
				r.Admitted++
				if tr != nil { // a call per call costs, untraced
					tr.add(t, id, retries[id], true)
				}
				continue
			}
			if tr != nil {
				tr.add(t, id, retries[id], false)
			}
			d := c.Policy.Delay(retries[id], prev[id], rng)
			retries[id]++
			prev[id] = d
			// t < MaxHorizon in ms and d/ms < 2⁶³/10⁶, so the sum cannot overflow.
			if next := t + max(msec(d), 1); next >= horizon {
				// not retried within the horizon
			} else if next-q.now < window {
				if !q.addNear(next, id) { // inlined: most waits are within the window
					q.insert(next, id)
				}
			} else {
				q.addFar(next, id)
			}
		}
		r.PeakPer100ms = max(r.PeakPer100ms, inBucket)
		r.PeakPerMs = max(r.PeakPerMs, inMilli)
	}

	r.Unfinished = c.Clients - r.Admitted
	end := lastEnd
	if r.Unfinished > 0 {
		end = horizon
	}
	complete(end)
	if inFlight == 0 && end > outage {
		idle += end - max(zeroSince, outage)
	}
	r.Finish = time.Duration(end) * time.Millisecond
	r.Recovery = time.Duration(max(end-outage, 0)) * time.Millisecond
	r.Idle = time.Duration(idle) * time.Millisecond
	return r, nil
}

// event is a client's next attempt.
type event struct {
	at     int64 // ms
	client int32
}

// queue is a binary min-heap of events ordered by (at, client): the order in
// which a millisecond-by-millisecond loop over the clients would meet them.
// The calendar keeps the attempts beyond its window in one.
type queue []event

func (q queue) less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].client < q[j].client
}

// up restores the heap above i after q[i] was added.
func (q queue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// down restores the heap below i after q[i] grew.
func (q queue) down(i int) {
	n := len(q)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}

// pop removes the smallest event.
func (q *queue) pop() {
	old := *q
	n := len(old) - 1
	old[0] = old[n]
	*q = old[:n]
	q.down(0)
}
