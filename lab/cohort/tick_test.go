package cohort

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// tickRun is the oracle: the model's rules applied literally, one
// millisecond at a time, visiting every client in index order each
// millisecond. It shares no code with the event-driven simulator except
// Config.Validate and the result types.
func tickRun(c Config, traced bool) (Result, *Trace, error) {
	if err := c.Validate(); err != nil {
		return Result{}, nil, err
	}
	const milli = int64(time.Millisecond)
	service := int64(c.Service) / milli
	outage := int64(c.Outage) / milli
	horizon := int64(c.Horizon) / milli
	budget := c.MaxCalls
	if budget == 0 {
		budget = DefaultMaxCalls
	}
	var tr *Trace
	if traced {
		tr = &Trace{Clients: c.Clients, Limit: c.Limit, Service: c.Service, Outage: c.Outage}
	}

	rng := lcg.MustNew(c.Seed)
	next := make([]int64, c.Clients)
	if c.Spread > 0 {
		for i := range next {
			next[i] = int64(rng.Float64() * float64(int64(c.Spread)/milli))
		}
	}
	done := make([]bool, c.Clients)
	retries := make([]int, c.Clients)
	prev := make([]time.Duration, c.Clients)
	var ends []int64 // completion times of the calls in flight
	remaining := c.Clients
	var r Result
	var idle, lastEnd int64
	perBucket := map[int64]int{}

	t := int64(0)
	for ; t < horizon; t++ {
		// Completions first.
		kept := ends[:0]
		for _, e := range ends {
			if e > t {
				kept = append(kept, e)
			}
		}
		ends = kept
		if remaining == 0 && len(ends) == 0 {
			break
		}
		thisMs := 0
		for i := range next {
			if done[i] || next[i] != t {
				continue
			}
			if r.Calls == budget {
				return Result{}, nil, fmt.Errorf("%w: tick loop over budget", ErrTooManyCalls)
			}
			r.Calls++
			thisMs++
			perBucket[t/100]++
			r.PeakPer100ms = max(r.PeakPer100ms, perBucket[t/100])
			if t < outage {
				r.CallsOutage++
			} else {
				r.CallsRecovery++
			}
			admitted := t >= outage && len(ends) < c.Limit
			if tr != nil {
				tr.Attempts = append(tr.Attempts, Attempt{At: time.Duration(t * milli), Client: i, Retry: retries[i], Admitted: admitted})
			}
			if admitted {
				ends = append(ends, t+service)
				lastEnd = t + service
				done[i] = true
				remaining--
				r.Admitted++
				continue
			}
			d := c.Policy.Delay(retries[i], prev[i], rng)
			retries[i]++
			prev[i] = d
			wait := int64(d) / milli
			if wait < 1 {
				wait = 1
			}
			next[i] = t + wait
		}
		if t >= outage {
			r.PeakPerMs = max(r.PeakPerMs, thisMs)
			if len(ends) == 0 && remaining > 0 {
				idle++
			}
		}
	}
	finishTicks(&r, remaining, lastEnd, horizon, outage, idle)
	if tr != nil {
		tr.End = r.Finish
	}
	return r, tr, nil
}

// finishTicks fills in what a tick loop knows only at its end: the
// unfinished clients, and the finish, recovery and idle times (all in ms).
func finishTicks(r *Result, remaining int, lastEnd, horizon, outage, idle int64) {
	r.Unfinished = remaining
	end := lastEnd
	if remaining > 0 {
		end = horizon
	}
	r.Finish = time.Duration(end) * time.Millisecond
	r.Recovery = time.Duration(max(end-outage, 0)) * time.Millisecond
	r.Idle = time.Duration(idle) * time.Millisecond
}
