// Package backoff holds the wait policies of package retry: how long to
// wait before each retry, plain exponential backoff and its jittered
// variants. Package retry's Policy, Uniform and policy types are aliases of
// these, so the two name one set of types; this package imports only fmt,
// math and time, and a program that needs the policies but no HTTP client
// (a simulation, a scheduler) links them without net/http.
package backoff

import (
	"fmt"
	"math"
	"time"
)

// Uniform is a source of uniform draws in [0, 1), such as *rand.Rand from
// math/rand/v2.
//
// It is an alias of the unnamed interface type, not a named type, and so is
// the Uniform of the lessons' schedule package: the two are one type.
type Uniform = interface{ Float64() float64 }

// Policy decides how long to wait before a retry. n is the retry number, 0
// for the wait before the first retry; prev is the wait the policy returned
// before the previous retry of the same call (0 before the first). A
// jittered policy draws from r; r is never nil when a retry.Retrier calls
// Delay.
//
// The package's policies are the seven the Backoff Lab lessons compare.
// With base b, multiplier m and cap C, the window before retry n is
//
//	c(n) = min(C, b·mⁿ)
//
// which grows m-fold (doubles, by default) on every retry until it reaches
// the cap. The policies differ in what they do with it; u is one uniform
// draw in [0, 1):
//
//	Exponential   c(n)                        no randomness: every client waits the same
//	FullJitter    u·c(n)                      anywhere in [0, c): the flattest spread
//	EqualJitter   c(n)/2 + u·c(n)/2           the upper half [c/2, c): keeps a floor
//	UniformJitter c(n)·(1 − w/2 + w·u)        a band of relative width w around c:
//	                                          [c(1 − w/2), c(1 + w/2)), still capped at C
//	Decorrelated  min(C, b + u·(m·p − b))     grows from the previous wait p instead of n
//	Constant      b                           the same wait every time
//	Immediate     0                           no wait at all
//
// Every jittered policy takes exactly one draw per Delay, whatever its
// parameters (UniformJitter with width 0 included); Exponential, Constant
// and Immediate take none. Replaying a seeded Uniform therefore replays the
// waits draw for draw, and swapping one jittered policy for another leaves
// every later draw where it was.
//
// Delay cannot return an error, so it never panics and never returns a
// negative wait or one above the cap: it clamps. A negative n counts as 0,
// a draw outside [0, 1) (or NaN) is clamped into it, a nil r draws 0.5, and
// an uncapped window saturates at the largest Duration (about 292 years)
// instead of overflowing, in constant time for any n. Validate methods
// report parameters out of range, naming the parameter and the range
// (retry.New validates its Config's policy). A zero-value policy is usable
// and waits 0 every time.
type Policy interface {
	Delay(n int, prev time.Duration, r Uniform) time.Duration
}

// Policy names, as Name methods return them.
const (
	nameExponential  = "exponential"
	nameFull         = "full"
	nameEqual        = "equal"
	nameDecorrelated = "decorrelated"
	nameUniform      = "uniform"
	nameConstant     = "constant"
	nameImmediate    = "immediate"
)

// Exponential waits exactly c(n) = min(Cap, Base·Multiplierⁿ): plain
// exponential backoff with no jitter. It never draws from r. Clients that
// failed together retry together with it, every time: the lessons' waves.
type Exponential struct {
	// Base is the first wait; it must be positive.
	Base time.Duration
	// Cap bounds every wait; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the growth per retry, at least 1; 0 means 2.
	Multiplier float64
}

// Delay returns c(n). prev and r are ignored.
func (p Exponential) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	return p.Ceiling(n)
}

// Ceiling returns c(n) = min(Cap, Base·Multiplierⁿ), saturating at the
// largest Duration when uncapped. A negative n counts as 0.
func (p Exponential) Ceiling(n int) time.Duration {
	return window(p.Base, p.Cap, orDefault(p.Multiplier, 2), n)
}

// Validate reports a parameter out of range: Base must be positive, Cap 0
// or at least Base, and Multiplier 0 or a finite number at least 1.
func (p Exponential) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "exponential".
func (p Exponential) Name() string { return nameExponential }

// String describes the policy with its defaults filled in:
// "exponential(base=100ms cap=10s mult=2)", "cap=none" when uncapped.
func (p Exponential) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), "")
}

// FullJitter waits u·c(n) before retry n, for one uniform draw u: anywhere
// between 0 and a window that grows with every retry, on the first retry
// as well as at the cap. Among the jittered policies it spreads a crowd of
// clients' retries most evenly (Brooker, "Exponential Backoff And Jitter",
// AWS Architecture Blog, 2015), at the price of sometimes retrying almost
// at once. DefaultPolicy is a FullJitter.
type FullJitter struct {
	// Base is the first window; it must be positive.
	Base time.Duration
	// Cap bounds every window, at least Base; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the window's growth per retry, at least 1; 0 means 2.
	Multiplier float64
}

// Delay returns u·c(n) for one draw u from r; prev is ignored.
func (p FullJitter) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	c := p.Ceiling(n)
	return clamp(float64(c)*draw(r), c)
}

// Ceiling returns the window c(n) = min(Cap, Base·Multiplierⁿ), the upper
// bound of Delay(n). A negative n counts as 0.
func (p FullJitter) Ceiling(n int) time.Duration {
	return window(p.Base, p.Cap, orDefault(p.Multiplier, 2), n)
}

// Validate reports a parameter out of range: Base must be positive, Cap 0
// or at least Base, and Multiplier 0 or a finite number at least 1.
func (p FullJitter) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "full".
func (p FullJitter) Name() string { return nameFull }

// String describes the policy with its defaults filled in:
// "full(base=100ms cap=10s mult=2)", "cap=none" when uncapped.
func (p FullJitter) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), "")
}

// EqualJitter waits c(n)/2 + u·c(n)/2: somewhere in the upper half of the
// window, so every wait is at least half the un-jittered one. It draws once
// from r per Delay.
type EqualJitter struct {
	// Base is the first window; it must be positive.
	Base time.Duration
	// Cap bounds every window; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the window's growth per retry, at least 1; 0 means 2.
	Multiplier float64
}

// Delay returns c(n)/2 + u·c(n)/2 for one draw u from r; prev is ignored.
func (p EqualJitter) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	c := p.Ceiling(n)
	return clamp(float64(c)/2*(1+draw(r)), c)
}

// Ceiling returns the window c(n) = min(Cap, Base·Multiplierⁿ), the upper
// bound of Delay(n). A negative n counts as 0.
func (p EqualJitter) Ceiling(n int) time.Duration {
	return window(p.Base, p.Cap, orDefault(p.Multiplier, 2), n)
}

// Validate reports a parameter out of range: Base must be positive, Cap 0
// or at least Base, and Multiplier 0 or a finite number at least 1.
func (p EqualJitter) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "equal".
func (p EqualJitter) Name() string { return nameEqual }

// String describes the policy with its defaults filled in.
func (p EqualJitter) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), "")
}

// UniformJitter waits c(n)·(1 − w/2 + w·u) for width w = Width: uniformly in
// the band [c(1 − w/2), c(1 + w/2)) around the un-jittered wait, then capped,
// so no wait exceeds Cap. Width 0 is plain exponential backoff, 1 spreads
// each wait over ±50 %, and 2 over [0, 2c). It draws once from r per Delay,
// whatever the width.
type UniformJitter struct {
	// Base is the first un-jittered wait; it must be positive.
	Base time.Duration
	// Cap bounds every wait, after jitter; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the growth per retry, at least 1; 0 means 2.
	Multiplier float64
	// Width is the band's width relative to c(n), in [0, 2].
	Width float64
}

// Delay returns min(Cap, c(n)·(1 − w/2 + w·u)) for one draw u from r; prev
// is ignored.
func (p UniformJitter) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	c := p.Ceiling(n)
	w := p.Width
	return clamp(float64(c)*(1-w/2+w*draw(r)), limit(p.Cap))
}

// Ceiling returns the un-jittered wait c(n) = min(Cap, Base·Multiplierⁿ),
// the centre of Delay(n)'s band. A negative n counts as 0.
func (p UniformJitter) Ceiling(n int) time.Duration {
	return window(p.Base, p.Cap, orDefault(p.Multiplier, 2), n)
}

// Validate reports a parameter out of range: Base must be positive, Cap 0
// or at least Base, Multiplier 0 or a finite number at least 1, and Width
// in [0, 2].
func (p UniformJitter) Validate() error {
	if err := checkGrowth(1, p.Base, p.Cap, p.Multiplier); err != nil {
		return err
	}
	if !(p.Width >= 0 && p.Width <= 2) {
		return fmt.Errorf("width %v out of range: want 0 <= width <= 2", p.Width)
	}
	return nil
}

// Name returns "uniform".
func (p UniformJitter) Name() string { return nameUniform }

// String describes the policy with its defaults filled in.
func (p UniformJitter) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), fmt.Sprintf(" width=%g", p.Width))
}

// Decorrelated waits min(Cap, Base + u·(Multiplier·p − Base)), where p is
// the previous wait (Base before the first retry): each wait is drawn
// between Base and Multiplier times the previous one. It depends on prev,
// not on the retry number n, so clients whose sequences started at
// different retry numbers do not line up again. It draws once from r per
// Delay.
//
// A prev below Base (including 0) counts as Base. That only changes the
// formula for values the policy never produces itself, and keeps every wait
// at least Base.
type Decorrelated struct {
	// Base is the smallest wait; it must be positive.
	Base time.Duration
	// Cap bounds every wait; 0 means uncapped.
	Cap time.Duration
	// Multiplier bounds each wait's growth over the previous one, at least
	// 1; 0 means 3.
	Multiplier float64
}

// Delay returns min(Cap, Base + u·(Multiplier·p − Base)) for one draw u from
// r, with p = max(prev, Base); n is ignored.
func (p Decorrelated) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	b := float64(p.Base)
	hi := orDefault(p.Multiplier, 3) * float64(max(prev, p.Base))
	// A huge Multiplier makes hi +Inf; a draw of 0 must then give Base,
	// not 0·Inf = NaN (a wait of 0).
	if u := draw(r); u > 0 {
		b += u * (hi - b)
	}
	return clamp(b, limit(p.Cap))
}

// Validate reports a parameter out of range: Base must be positive, Cap 0
// or at least Base, and Multiplier 0 or a finite number at least 1.
func (p Decorrelated) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "decorrelated".
func (p Decorrelated) Name() string { return nameDecorrelated }

// String describes the policy with its defaults filled in.
func (p Decorrelated) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 3), "")
}

// Constant waits Base before every retry: a steady pace that does not back
// off. It never draws from r. The zero value retries at once.
type Constant struct {
	// Base is the wait, not negative; 0 means retry at once.
	Base time.Duration
}

// Delay returns Base (0 if Base is negative). n, prev and r are ignored.
func (p Constant) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	return max(p.Base, 0)
}

// Validate reports whether Base is in range: not negative.
func (p Constant) Validate() error { return checkGrowth(0, p.Base, 0, 0) }

// Name returns "constant".
func (p Constant) Name() string { return nameConstant }

// String describes the policy and its wait: "constant(base=1s)".
func (p Constant) String() string { return fmt.Sprintf("%s(base=%v)", p.Name(), p.Base) }

// Immediate retries at once: no wait before any retry, the behaviour of a
// client with no backoff at all. It never draws from r.
type Immediate struct{}

// Delay returns 0.
func (Immediate) Delay(n int, prev time.Duration, r Uniform) time.Duration { return 0 }

// Validate reports nil: Immediate has no parameters.
func (Immediate) Validate() error { return nil }

// Name returns "immediate".
func (Immediate) Name() string { return nameImmediate }

// String returns "immediate".
func (Immediate) String() string { return nameImmediate }

// Compile-time checks that every policy is a Policy.
var (
	_ Policy = Exponential{}
	_ Policy = FullJitter{}
	_ Policy = EqualJitter{}
	_ Policy = UniformJitter{}
	_ Policy = Decorrelated{}
	_ Policy = Constant{}
	_ Policy = Immediate{}
)

// checkGrowth validates the parameters shared by the growing policies.
// minBase is the smallest allowed base: 1 for the growing policies, 0 for
// Constant.
func checkGrowth(minBase, base, cap time.Duration, multiplier float64) error {
	if base < minBase {
		want := "base > 0"
		if minBase == 0 {
			want = "base >= 0"
		}
		return fmt.Errorf("base %v out of range: want %s", base, want)
	}
	if cap < 0 {
		return fmt.Errorf("cap %v out of range: want cap >= 0 (0 means uncapped)", cap)
	}
	if cap > 0 && cap < base {
		return fmt.Errorf("cap %v below base %v: want cap >= base, or cap = 0 for uncapped", cap, base)
	}
	if multiplier != 0 && !(multiplier >= 1 && multiplier <= math.MaxFloat64) {
		return fmt.Errorf("multiplier %v out of range: want a finite multiplier >= 1 (0 means the default)", multiplier)
	}
	return nil
}

// orDefault returns m, or def when m is zero.
func orDefault(m, def float64) float64 {
	if m == 0 {
		return def
	}
	return m
}

// limit is the largest wait a policy with this cap may return.
func limit(cap time.Duration) time.Duration {
	if cap > 0 {
		return cap
	}
	return math.MaxInt64
}

// clamp converts f nanoseconds to a Duration in [0, lim]. NaN and negative
// values give 0; values at or beyond lim (including +Inf) give lim, so the
// float-to-integer conversion never sees a value it cannot represent.
func clamp(f float64, lim time.Duration) time.Duration {
	if !(f > 0) {
		return 0
	}
	if f >= float64(lim) {
		return lim
	}
	return min(time.Duration(f), lim)
}

// window is c(n) = min(cap, base·mⁿ), computed in constant time and
// saturating instead of overflowing. A negative n counts as 0.
func window(base, cap time.Duration, m float64, n int) time.Duration {
	n = max(n, 0)
	if m == 2 {
		// The common case, exact and several times faster than math.Pow:
		// base·2ⁿ is a multiplication by the float whose exponent field
		// is n, as math.Ldexp computes it but without its call and its
		// normalising (the product of a whole number and 2ⁿ ≤ 2⁶⁴ is never
		// subnormal). Any n beyond 64 saturates a positive base anyway
		// (2⁶⁴ ns > max).
		return clamp(float64(base)*math.Float64frombits(uint64(1023+min(n, 64))<<52), limit(cap))
	}
	return clamp(float64(base)*math.Pow(m, float64(n)), limit(cap))
}

// largestBelowOne is the largest float64 less than 1.
var largestBelowOne = math.Nextafter(1, 0)

// draw takes one draw from r, clamped into [0, 1). A nil r draws 0.5.
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

// describe formats a policy's name and parameters for String methods.
func describe(name string, base, cap time.Duration, m float64, extra string) string {
	c := "none"
	if cap > 0 {
		c = cap.String()
	}
	return fmt.Sprintf("%s(base=%v cap=%s mult=%g%s)", name, base, c, m, extra)
}

// Fits reports whether sleeping for wait and then making an attempt that
// takes worst ends by a deadline left from now: wait + worst <= left,
// computed without overflow. A negative wait or worst counts as 0; a
// negative left (the deadline has passed) fits nothing.
//
// The comparison is <=: an attempt that would end exactly at the deadline
// fits. worst is already a bound on the attempt (its timeout, or the longest
// attempt seen), so the limit case is one the attempt will usually beat.
// A retry.Retrier makes this check before every wait, and the lessons'
// deadline simulator makes the same one.
func Fits(wait, worst, left time.Duration) bool {
	wait, worst = max(wait, 0), max(worst, 0)
	return wait <= left && worst <= left-wait
}
