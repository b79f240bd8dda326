package synchrony

// This file is the whole model of lesson 07's cohort, written to be read:
// its rules in the order the lesson states them. Every attempt time the
// lesson measures comes from walk; the Layered, Warmup and synchroniser
// models build on it.

import (
	"fmt"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// walk generates the attempts of a valid cohort, client by client, until
// yield returns false.
func (c Cohort) walk(yield func(Arrival) bool) {
	g := lcg.MustNew(c.Seed) // the clients draw from it one after another
	for i := range c.Clients {
		if c.SameSeed {
			g = lcg.MustNew(c.Seed) // every client seeded alike: the same waits
		}
		// The clients fail together at t = 0 (or, with a Spread, each
		// at its own offset), when their dependency goes down until
		// Outage.
		var t time.Duration
		if c.Spread > 0 {
			t = within(c.Spread, g.Float64())
		}
		var prev time.Duration
		for n := 0; t < c.Horizon && (c.MaxAttempts == 0 || n < c.MaxAttempts); n++ {
			// The first attempt at or after the outage succeeds and
			// ends the client.
			ok := t >= c.Outage
			if !yield(Arrival{Client: i, Attempt: n, At: t, Succeeded: ok}) {
				return
			}
			if ok {
				break
			}
			// A refused client waits as its policy says (n: its retries
			// so far; prev: the wait it returned last) and tries again:
			// its attempt times are the running sums of its waits.
			prev = c.Policy.Delay(n, prev, g)
			t = add(t, max(prev, 0))
		}
	}
}

// Arrivals runs the cohort and returns every attempt, client by client.
// It returns an error naming the parameter if c is invalid, or wrapping
// ErrTooManyEvents if the run would make more than MaxEvents attempts
// (it counts them first, so such a run fails fast and allocates nothing).
func (c Cohort) Arrivals() (Arrivals, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	n := 0
	c.walk(func(Arrival) bool { n++; return n <= MaxEvents })
	if n > MaxEvents {
		return nil, fmt.Errorf("%w: more than %d attempts (does the policy wait 0 without an attempt limit?)", ErrTooManyEvents, MaxEvents)
	}
	out := make(Arrivals, 0, n)
	c.walk(func(a Arrival) bool { out = append(out, a); return true })
	return out, nil
}

// within returns the offset u·span, truncated to whole nanoseconds, for a
// draw u in [0, 1): a time in [0, span).
func within(span time.Duration, u float64) time.Duration {
	d := time.Duration(u * float64(span))
	return min(max(d, 0), span-1)
}

// add returns t + d, saturating at the largest Duration.
func add(t, d time.Duration) time.Duration {
	if d > math.MaxInt64-t {
		return math.MaxInt64
	}
	return t + d
}
