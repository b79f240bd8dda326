// Package jitter is an exercise from the Waves lesson: place one attempt in
// its jitter band. An attempt nominally at d, under jitter of width w, is
// drawn uniformly from [d(1 − w/2), d(1 + w/2)): a band of width w·d centred
// on d. Given a uniform draw u in [0, 1), the attempt is at
//
//	d·(1 − w/2 + w·u)
//
// Write Jittered below, then run the check:
//
//	go test -tags exercise ./exercises/waves/jitter
package jitter

import "time"

// Jittered returns the time of an attempt nominally at d, under jitter of
// width w (0 ≤ w ≤ 2), for the uniform draw u (0 ≤ u < 1), truncated to
// whole nanoseconds.
func Jittered(d time.Duration, w, u float64) time.Duration {
	// BEGIN SOLUTION
	return time.Duration(float64(d) * (1 - w/2 + w*u))
	// END SOLUTION
}
