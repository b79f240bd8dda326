package schedule

import "github.com/backofflab/backofflab/retry/backoff"

// The policies are package retry's (its package backoff, which retry names
// too), so a lesson's schedule and a service's retries run the same code.
// Each is documented there; the package documentation here gives their
// formulas side by side.
type (
	// Exponential waits exactly c(n) = min(Cap, Base·Multiplierⁿ): plain
	// exponential backoff with no jitter. It never draws from r.
	Exponential = backoff.Exponential
	// FullJitter waits u·c(n), uniformly anywhere between 0 and the window:
	// the flattest spread of many clients' retries.
	FullJitter = backoff.FullJitter
	// EqualJitter waits c(n)/2 + u·c(n)/2: somewhere in the upper half of
	// the window.
	EqualJitter = backoff.EqualJitter
	// UniformJitter waits c(n)·(1 − w/2 + w·u) for width w: a band around
	// the un-jittered wait, capped.
	UniformJitter = backoff.UniformJitter
	// Decorrelated waits min(Cap, Base + u·(Multiplier·p − Base)), where p
	// is the previous wait: it grows from its own last wait, not from n.
	Decorrelated = backoff.Decorrelated
	// Constant waits Base before every retry.
	Constant = backoff.Constant
	// Immediate retries at once.
	Immediate = backoff.Immediate
)
