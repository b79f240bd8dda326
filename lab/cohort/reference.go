package cohort

// This file is the whole model of the In Phase lessons, written to be read:
// their rules in the order lesson 05 states them, applied one millisecond at
// a time to every client. Run and RunTraced give exactly its results, much
// faster (the package's tests compare the two on random configurations).

import (
	"fmt"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// RunReference runs c by the rules, one millisecond at a time, and returns
// its Result and the Trace of every attempt. It is slow (every millisecond
// visits every client), and meant to be read.
func RunReference(c Config) (Result, *Trace, error) {
	if err := c.Validate(); err != nil {
		return Result{}, nil, err
	}
	ms := func(d time.Duration) int64 { return int64(d / time.Millisecond) }
	service, outage, horizon := ms(c.Service), ms(c.Outage), ms(c.Horizon)
	budget := c.MaxCalls
	tr := &Trace{Clients: c.Clients, Limit: c.Limit, Service: c.Service, Outage: c.Outage}
	rng := lcg.MustNew(c.Seed) // one generator for the run; Validate checked the seed

	// Each client needs one admitted call. It makes its first attempt at
	// t = 0, or, with a Spread, at a whole millisecond drawn for it.
	next := make([]int64, c.Clients) // each client's next attempt, in ms
	for i := range next {
		if c.Spread > 0 {
			next[i] = int64(rng.Float64() * float64(ms(c.Spread)))
		}
	}
	done := make([]bool, c.Clients)
	refusals := make([]int, c.Clients)       // each client's refusals so far
	prev := make([]time.Duration, c.Clients) // each client's last wait, as its policy returned it
	var ends []int64                         // when each call in flight ends, in ms
	unfinished := c.Clients

	var r Result
	var idle, lastEnd int64
	bucket, inBucket := int64(-1), 0 // the current Bucket and its calls

	for t := int64(0); t < horizon; t++ {
		// Within a millisecond, calls that end free their slots first.
		ends = slices.DeleteFunc(ends, func(end int64) bool { return end <= t })
		if unfinished == 0 && len(ends) == 0 {
			break // every client has its answer
		}
		// Then the clients due now try, in client order.
		callsNow := 0
		for i := range c.Clients {
			if done[i] || next[i] != t {
				continue
			}
			if r.Calls == budget {
				return Result{}, nil, fmt.Errorf("%w: more than %d calls before %v (raise the call budget, MaxCalls or --max-calls, or shorten the horizon)",
					ErrTooManyCalls, budget, time.Duration(t)*time.Millisecond)
			}
			r.Calls++
			callsNow++
			if t/ms(Bucket) != bucket {
				bucket, inBucket = t/ms(Bucket), 0
			}
			inBucket++
			r.PeakPer100ms = max(r.PeakPer100ms, inBucket)
			if t < outage {
				r.CallsOutage++
			} else {
				r.CallsRecovery++
			}
			// Until the outage ends the dependency refuses everything.
			// From then on it admits a call if fewer than Limit are in
			// flight; the call holds its slot for Service and always
			// succeeds, which finishes the client. A refusal is free.
			admitted := t >= outage && len(ends) < c.Limit
			tr.Attempts = append(tr.Attempts, Attempt{At: time.Duration(t) * time.Millisecond, Client: i, Retry: refusals[i], Admitted: admitted})
			if admitted {
				ends = append(ends, t+service)
				lastEnd = t + service
				done[i] = true
				unfinished--
				r.Admitted++
				continue
			}
			// A refused client waits as its policy says (n: its refusals
			// before this one; prev: the wait it returned last), floored
			// to whole milliseconds and at least 1 ms, and tries again.
			prev[i] = c.Policy.Delay(refusals[i], prev[i], rng)
			refusals[i]++
			next[i] = t + max(ms(prev[i]), 1)
		}
		if t >= outage {
			r.PeakPerMs = max(r.PeakPerMs, callsNow)
			if len(ends) == 0 && unfinished > 0 {
				idle++ // capacity unused while a client still waits
			}
		}
	}

	// Nothing happens at or after the horizon: a client without an
	// admitted call by then is unfinished, and the run lasts to it.
	r.Unfinished = unfinished
	end := lastEnd
	if unfinished > 0 {
		end = horizon
	}
	r.Finish = time.Duration(end) * time.Millisecond
	r.Recovery = time.Duration(max(end-outage, 0)) * time.Millisecond
	r.Idle = time.Duration(idle) * time.Millisecond
	tr.End = r.Finish
	return r, tr, nil
}
