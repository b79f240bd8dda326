// Package schedule computes how long a retrying client waits before each
// retry. A schedule is a [Policy]: given the retry number n (0 for the wait
// before the first retry), the previous wait and a source of uniform draws,
// it returns the next wait.
//
// The policies are package retry's (the types here are aliases of its
// types), so the schedules a lesson simulates are, to the nanosecond, the
// waits a service using retry sleeps. What this package adds is what the
// lessons need around them: the policies' names ([Names], [Label],
// [CheckName]), a policy picked by name at run time ([New]) and a client's
// whole schedule ([Delays]).
//
// Most policies start from the same growing window. With base b, multiplier
// m and cap C, the window before retry n is
//
//	c(n) = min(C, b·mⁿ)
//
// which grows m-fold (doubles, by default) on every retry until it reaches
// the cap. The policies differ in what they do with that window; u is one
// uniform draw in [0, 1):
//
//	Exponential   c(n)                        no randomness: every client waits the same
//	FullJitter    u·c(n)                      anywhere in [0, c): the flattest spread
//	EqualJitter   c(n)/2 + u·c(n)/2           the upper half [c/2, c): keeps a floor
//	UniformJitter c(n)·(1 − w/2 + w·u)        a band of relative width w around c:
//	                                          [c(1 − w/2), c(1 + w/2)), still capped at C
//	Decorrelated  min(C, b + u·(m·p − b))     grows from the previous wait p instead of n
//	Constant      b                           the same wait every time ("flat" retry)
//
// Exponential backoff on its own spreads one client's attempts over time but
// leaves many clients that failed together in step with each other; the
// jittered policies break that lock-step by letting each client draw its own
// wait. Decorrelated jitter ignores n altogether: each wait is drawn between
// the base and m times the previous wait (m = 3 unless set), so clients that
// started their sequences at different retry numbers do not line up again.
//
// # Draws
//
// Every jittered policy consumes exactly one draw per Delay call, whatever its
// parameters (even UniformJitter with width 0), and Exponential and Constant
// consume none. Replaying a seeded [Uniform] such as *lcg.LCG therefore
// replays a simulation draw for draw, and swapping one jittered policy for
// another leaves every later draw where it was, so two policies can be
// compared on the same stream of randomness.
//
// # Zero values and limits
//
// A zero Multiplier means 2 (3 for Decorrelated); a zero Cap means uncapped,
// in which case the window saturates at the largest Duration (about 292
// years) instead of overflowing, for any n, in constant time. [New] and the
// Validate methods reject parameters outside their ranges with an error that
// names the parameter and the allowed range. Delay itself cannot return an
// error, so it never panics and never returns a negative duration or one
// above the cap: it clamps instead. A negative n counts as 0, a draw outside
// [0, 1) (or NaN) is clamped into it, and a nil Uniform draws 0.5, the
// midpoint. (A non-nil Uniform that panics, such as a nil *lcg.LCG, still
// panics.) Fields set out of range without New are clamped the same way. A zero-value policy is usable and waits 0 every time,
// which is what a base of 0 means; New insists on a positive base for every
// policy except Constant, where a base of 0 means "retry at once".
package schedule
