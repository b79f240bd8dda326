// Package base is the Waves lesson's faded rehearsal. Keep the 2000 clients
// and the recovery capacity of 1200 requests a second, and find the smallest
// backoff base that brings the jittered peak down to that capacity.
//
// The first move is given: full-width jitter spreads the first wave over an
// interval about as long as the base, so the peak is roughly clients/base
// per second. That is a lower bound, because later waves overlap the first.
// Estimate the base from it, then find the true answer by stepping the base
// and running the model, and compare the two.
//
// Write Estimate and SmallestBase below, then run the check:
//
//	go test -tags exercise ./exercises/waves/base
package base

import (
	"errors"
	"time"

	"github.com/backofflab/backofflab/lab/waves"
)

// Errors SmallestBase returns.
var (
	// ErrStep: the step is not positive.
	ErrStep = errors.New("base: step out of range: want step > 0")
	// ErrNoFit: no base up to the window brings the peak within capacity.
	ErrNoFit = errors.New("base: no base up to the window brings the peak within capacity")
)

// Estimate returns the first move's estimate of the base: the base at
// which clients/base per second equals capacity.
func Estimate(clients int, capacity float64) time.Duration {
	// BEGIN SOLUTION
	return time.Duration(float64(clients) / capacity * float64(time.Second))
	// END SOLUTION
}

// SmallestBase runs c with the bases step, 2·step, 3·step, … up to
// c.Window, and returns the first at which the peak (at c's slot width) is
// at most capacity per second. It returns ErrStep for a step that is not
// positive, ErrNoFit when no base up to the window fits, and the model's
// error for an invalid c.
func SmallestBase(c waves.Config, capacity float64, step time.Duration) (time.Duration, error) {
	// BEGIN SOLUTION
	if step <= 0 {
		return 0, ErrStep
	}
	for b := step; b <= c.Window; b += step {
		r, err := waves.Run(c.WithBase(b))
		if err != nil {
			return 0, err
		}
		if r.Peak().PerSecond() <= capacity {
			return b, nil
		}
	}
	return 0, ErrNoFit
	// END SOLUTION
}
