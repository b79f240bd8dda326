package cohort

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// tickFast is the tick loop written for speed, the twin the benchmarks
// hold the event-driven simulator against: each millisecond it visits every
// unfinished client in index order, with no map and no trace. It computes
// Result only (traced is ignored) and agrees with tickRun exactly.
func tickFast(c Config, _ bool) (Result, *Trace, error) {
	if err := c.Validate(); err != nil {
		return Result{}, nil, err
	}
	service, outage, horizon := msec(c.Service), msec(c.Outage), msec(c.Horizon)
	budget := c.MaxCalls
	if budget == 0 {
		budget = DefaultMaxCalls
	}
	rng := lcg.MustNew(c.Seed)
	next := make([]int64, c.Clients)
	if spread := float64(msec(c.Spread)); spread > 0 {
		for i := range next {
			next[i] = int64(rng.Float64() * spread)
		}
	}
	const done = -1
	retries := make([]int, c.Clients)
	prev := make([]time.Duration, c.Clients)
	ring := make([]int64, min(c.Limit, c.Clients)) // completion times, in order
	head, inFlight, remaining := 0, 0, c.Clients
	var r Result
	var idle, lastEnd int64
	bucket, inBucket := int64(-1), 0
	for t := int64(0); t < horizon; t++ {
		for inFlight > 0 && ring[head] <= t {
			inFlight--
			if head++; head == len(ring) {
				head = 0
			}
		}
		if remaining == 0 && inFlight == 0 {
			break
		}
		thisMs := 0
		for i, at := range next {
			if at != t {
				continue
			}
			if r.Calls == budget {
				return Result{}, nil, fmt.Errorf("%w: tick loop over budget", ErrTooManyCalls)
			}
			r.Calls++
			thisMs++
			if b := t / msec(Bucket); b != bucket {
				bucket, inBucket = b, 0
			}
			inBucket++
			r.PeakPer100ms = max(r.PeakPer100ms, inBucket)
			if t < outage {
				r.CallsOutage++
			} else {
				r.CallsRecovery++
			}
			if t >= outage && inFlight < c.Limit {
				lastEnd = t + service
				ring[(head+inFlight)%len(ring)] = lastEnd
				inFlight++
				next[i] = done
				remaining--
				r.Admitted++
				continue
			}
			d := c.Policy.Delay(retries[i], prev[i], rng)
			retries[i]++
			prev[i] = d
			next[i] = t + max(msec(d), 1)
		}
		if t >= outage {
			r.PeakPerMs = max(r.PeakPerMs, thisMs)
			if inFlight == 0 && remaining > 0 {
				idle++
			}
		}
	}
	finishTicks(&r, remaining, lastEnd, horizon, outage, idle)
	return r, nil, nil
}
