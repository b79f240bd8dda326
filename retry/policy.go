package retry

import (
	"fmt"
	"math"
	"time"
)

// Uniform is a source of uniform draws in [0, 1), such as *rand.Rand from
// math/rand/v2.
//
// It is an alias of the unnamed interface type, not a named type, and so is
// the Uniform of the lessons' schedule package: the two are one type, and a
// policy written against either satisfies the other's Policy.
type Uniform = interface{ Float64() float64 }

// Policy decides how long to wait before a retry. n is the retry number, 0
// for the wait before the first retry; prev is the wait the policy returned
// before the previous retry of the same call (0 before the first). A
// jittered policy draws from r; r is never nil when a Retrier calls Delay.
//
// Its method set is that of the lessons' schedule.Policy, so every policy of
// that package can be used here as it is.
type Policy interface {
	Delay(n int, prev time.Duration, r Uniform) time.Duration
}

// FullJitter waits u·min(Cap, Base·2ⁿ) before retry n, for one uniform draw
// u: anywhere between 0 and a window that doubles with every retry. Among
// the jittered policies it spreads a crowd of clients' retries most evenly
// (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015).
// DefaultPolicy is a FullJitter.
//
// Delay never panics: a draw outside [0, 1) (or NaN) is clamped into it, a
// nil r draws 0.5, a negative n counts as 0, and windows saturate at Cap
// instead of overflowing.
type FullJitter struct {
	// Base is the first window; it must be positive.
	Base time.Duration
	// Cap bounds every window, at least Base; 0 means uncapped.
	Cap time.Duration
}

// Delay returns u·min(Cap, Base·2ⁿ) for one draw u from r; prev is
// ignored.
func (p FullJitter) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	c := p.Ceiling(n)
	return clampDuration(float64(c)*draw(r), c)
}

// Ceiling returns the window min(Cap, Base·2ⁿ), the upper bound of
// Delay(n). A negative n counts as 0.
func (p FullJitter) Ceiling(n int) time.Duration {
	lim := time.Duration(math.MaxInt64)
	if p.Cap > 0 {
		lim = p.Cap
	}
	// Beyond 2⁶⁴ any positive base saturates anyway.
	return clampDuration(float64(p.Base)*math.Ldexp(1, min(max(n, 0), 64)), lim)
}

// Validate reports a parameter out of range: Base must be positive, and Cap
// 0 or at least Base.
func (p FullJitter) Validate() error {
	switch {
	case p.Base <= 0:
		return fmt.Errorf("full jitter: base %v out of range: want base > 0", p.Base)
	case p.Cap < 0:
		return fmt.Errorf("full jitter: cap %v out of range: want cap >= 0 (0 means uncapped)", p.Cap)
	case p.Cap > 0 && p.Cap < p.Base:
		return fmt.Errorf("full jitter: cap %v below base %v: want cap >= base, or cap = 0 for uncapped", p.Cap, p.Base)
	}
	return nil
}

// String describes the policy as the lessons' schedule package describes
// its full jitter: "full(base=100ms cap=10s mult=2)", "cap=none" when
// uncapped.
func (p FullJitter) String() string {
	c := "none"
	if p.Cap > 0 {
		c = p.Cap.String()
	}
	return fmt.Sprintf("full(base=%v cap=%s mult=2)", p.Base, c)
}

// largestBelowOne is the largest float64 less than 1.
var largestBelowOne = math.Nextafter(1, 0)

// draw takes one draw from r, clamped into [0, 1); a nil r draws 0.5.
func draw(r Uniform) float64 {
	if r == nil {
		return 0.5
	}
	u := r.Float64()
	switch {
	case !(u >= 0): // negative or NaN
		return 0
	case u >= 1:
		return largestBelowOne
	}
	return u
}

// clampDuration converts f nanoseconds to a Duration in [0, lim]: NaN and
// negative values give 0, values at or beyond lim give lim.
func clampDuration(f float64, lim time.Duration) time.Duration {
	if !(f > 0) {
		return 0
	}
	if f >= float64(lim) {
		return lim
	}
	return min(time.Duration(f), lim)
}

// Fits reports whether sleeping for wait and then making an attempt that
// takes worst ends by a deadline left from now: wait + worst <= left,
// computed without overflow. A negative wait or worst counts as 0; a
// negative left (the deadline has passed) fits nothing.
//
// The comparison is <=: an attempt that would end exactly at the deadline
// fits. worst is already a bound on the attempt (its timeout, or the longest
// attempt seen), so the limit case is one the attempt will usually beat.
// The Retrier makes this check before every wait, and the lessons'
// deadline simulator makes the same one.
func Fits(wait, worst, left time.Duration) bool {
	wait, worst = max(wait, 0), max(worst, 0)
	return wait <= left && worst <= left-wait
}
