package retry

import (
	"time"

	"github.com/backofflab/backofflab/retry/backoff"
)

// The wait policies are package backoff's, named here too: retry.FullJitter
// and backoff.FullJitter are one type, and so are the others. See
// [backoff.Policy] for the formulas and what each policy draws.
type (
	// Uniform is a source of uniform draws in [0, 1), such as *rand.Rand
	// from math/rand/v2: an alias of interface{ Float64() float64 }.
	Uniform = backoff.Uniform
	// Policy decides how long to wait before a retry (see [backoff.Policy]).
	Policy = backoff.Policy
	// Exponential waits exactly c(n) = min(Cap, Base·Multiplierⁿ): no jitter.
	Exponential = backoff.Exponential
	// FullJitter waits u·c(n): anywhere in [0, c(n)).
	FullJitter = backoff.FullJitter
	// EqualJitter waits c(n)/2 + u·c(n)/2: the upper half of the window.
	EqualJitter = backoff.EqualJitter
	// UniformJitter waits c(n)·(1 − w/2 + w·u): a band of relative width w.
	UniformJitter = backoff.UniformJitter
	// Decorrelated grows from the previous wait instead of the retry number.
	Decorrelated = backoff.Decorrelated
	// Constant waits Base before every retry.
	Constant = backoff.Constant
	// Immediate retries at once.
	Immediate = backoff.Immediate
)

// Fits reports whether sleeping for wait and then making an attempt that
// takes worst ends by a deadline left from now: wait + worst <= left,
// computed without overflow (see [backoff.Fits]). The Retrier makes this
// check before every wait.
func Fits(wait, worst, left time.Duration) bool { return backoff.Fits(wait, worst, left) }
