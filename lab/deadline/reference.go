package deadline

// This file is the whole model of the deadline lesson (lesson 08's first
// part), written to be read: a request's life, attempt by attempt, in the
// order the lesson tells it. Every number the lesson prints comes from Run.

import (
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry"
)

// Run simulates c once. It returns an error naming the parameter if c is
// invalid.
func Run(c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	r := Result{Mode: c.Mode, Requests: c.Requests}
	worst := c.Worst // the attempt time the check assumes
	for i := range c.Requests {
		// Each request draws from its own generator, so that every mode
		// sees the same start, attempts and waits for it.
		g := lcg.MustNew(StreamSeed(c.Seed, i))
		// Requests start at random over Spread; the caller waits until
		// the deadline, Budget after the start, and no longer.
		var start time.Duration
		if c.Spread > 0 {
			start = uniform(0, c.Spread-1, g)
		}
		deadline := start + c.Budget
		t := start
		var prev time.Duration
		for n := 0; ; n++ {
			// Every attempt, failed or not, takes a time drawn from
			// [AttemptMin, AttemptMax]; one that ends after the deadline
			// is wasted: the dependency works, and nobody reads the answer.
			end := add(t, uniform(c.AttemptMin, c.AttemptMax, g))
			r.Attempts++
			if end > deadline {
				r.Wasted++
			}
			// The dependency answers every attempt that starts at or
			// after the outage, and fails every earlier one.
			if t >= c.Outage {
				if end <= deadline {
					r.InTime++
				} else {
					r.Late++
				}
				break
			}
			if n+1 == c.MaxAttempts {
				r.Exhausted++
				break
			}
			// After a failure the client asks its policy for the wait.
			// The oblivious client sleeps and retries; checking on wake
			// gives up if the deadline passed during the sleep; checking
			// before sleep gives up now unless wait + worst-case attempt
			// fits the time left (retry.Fits: ≤).
			prev = c.Policy.Delay(n, prev, g)
			wake := add(end, max(prev, 0))
			if (c.Mode == CheckBeforeSleep && !retry.Fits(prev, worst, deadline-end)) ||
				(c.Mode == CheckOnWake && wake >= deadline) {
				r.GaveUp++
				break
			}
			t = wake
		}
	}
	return r, nil
}

// uniform returns a time drawn uniformly from [lo, hi] (whole nanoseconds)
// with one draw from g.
func uniform(lo, hi time.Duration, g *lcg.LCG) time.Duration {
	return lo + min(time.Duration(g.Float64()*float64(hi-lo+1)), hi-lo)
}

// add returns t + d, saturating at the largest Duration.
func add(t, d time.Duration) time.Duration {
	if d > math.MaxInt64-t {
		return math.MaxInt64
	}
	return t + d
}
