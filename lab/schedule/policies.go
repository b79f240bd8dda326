package schedule

import (
	"fmt"
	"time"
)

// Exponential waits exactly c(n) = min(Cap, Base·Multiplierⁿ): plain
// exponential backoff with no jitter. It never draws from r.
//
// The zero value waits 0 every time.
type Exponential struct {
	// Base is the first wait; New requires it to be positive.
	Base time.Duration
	// Cap bounds every wait; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the growth per retry; 0 means 2.
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

// Validate reports whether the parameters are in range (see Config).
func (p Exponential) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "exponential".
func (p Exponential) Name() string { return NameExponential }

// String describes the policy and its parameters, with defaults filled in.
func (p Exponential) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), "")
}

// FullJitter waits u·c(n), uniformly anywhere between 0 and the window: the
// flattest spread of many clients' retries, at the price of sometimes
// retrying almost at once. It draws once from r per Delay.
//
// The zero value waits 0 every time.
type FullJitter struct {
	// Base is the first window; New requires it to be positive.
	Base time.Duration
	// Cap bounds every window; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the window's growth per retry; 0 means 2.
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

// Validate reports whether the parameters are in range (see Config).
func (p FullJitter) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "full".
func (p FullJitter) Name() string { return NameFull }

// String describes the policy and its parameters, with defaults filled in.
func (p FullJitter) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), "")
}

// EqualJitter waits c(n)/2 + u·c(n)/2: somewhere in the upper half of the
// window, so every wait is at least half the un-jittered one. It draws once
// from r per Delay.
//
// The zero value waits 0 every time.
type EqualJitter struct {
	// Base is the first window; New requires it to be positive.
	Base time.Duration
	// Cap bounds every window; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the window's growth per retry; 0 means 2.
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

// Validate reports whether the parameters are in range (see Config).
func (p EqualJitter) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "equal".
func (p EqualJitter) Name() string { return NameEqual }

// String describes the policy and its parameters, with defaults filled in.
func (p EqualJitter) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), "")
}

// UniformJitter waits c(n)·(1 − w/2 + w·u) for width w = Width: uniformly in
// the band [c(1 − w/2), c(1 + w/2)) around the un-jittered wait, then capped,
// so no wait exceeds Cap. Width 0 is plain exponential backoff, 1 spreads
// each wait over ±50 %, and 2 over [0, 2c). It draws once from r per Delay,
// whatever the width.
//
// The zero value waits 0 every time.
type UniformJitter struct {
	// Base is the first un-jittered wait; New requires it to be positive.
	Base time.Duration
	// Cap bounds every wait, after jitter; 0 means uncapped.
	Cap time.Duration
	// Multiplier is the growth per retry; 0 means 2.
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

// Validate reports whether the parameters are in range (see Config).
func (p UniformJitter) Validate() error {
	if err := checkGrowth(1, p.Base, p.Cap, p.Multiplier); err != nil {
		return err
	}
	return checkWidth(p.Width)
}

// Name returns "uniform".
func (p UniformJitter) Name() string { return NameUniform }

// String describes the policy and its parameters, with defaults filled in.
func (p UniformJitter) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 2), fmt.Sprintf(" width=%g", p.Width))
}

// Decorrelated waits min(Cap, Base + u·(Multiplier·p − Base)), where p is
// the previous wait (Base before the first retry): each wait is drawn
// between Base and Multiplier times the previous one. It depends on prev,
// not on the retry number n. It draws once from r per Delay.
//
// A prev below Base (including 0) counts as Base. That only changes the
// formula for values the policy never produces itself, and keeps every wait
// at least Base.
//
// The zero value waits 0 every time.
type Decorrelated struct {
	// Base is the smallest wait; New requires it to be positive.
	Base time.Duration
	// Cap bounds every wait; 0 means uncapped.
	Cap time.Duration
	// Multiplier bounds each wait's growth over the previous one; 0 means 3.
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

// Validate reports whether the parameters are in range (see Config).
func (p Decorrelated) Validate() error { return checkGrowth(1, p.Base, p.Cap, p.Multiplier) }

// Name returns "decorrelated".
func (p Decorrelated) Name() string { return NameDecorrelated }

// String describes the policy and its parameters, with defaults filled in.
func (p Decorrelated) String() string {
	return describe(p.Name(), p.Base, p.Cap, orDefault(p.Multiplier, 3), "")
}

// Constant waits Base before every retry: a retry that keeps a steady pace
// and does not back off. It never draws from r.
//
// The zero value retries at once.
type Constant struct {
	// Base is the wait; 0 means retry at once.
	Base time.Duration
}

// Delay returns Base (0 if Base is negative). n, prev and r are ignored.
func (p Constant) Delay(n int, prev time.Duration, r Uniform) time.Duration {
	return max(p.Base, 0)
}

// Validate reports whether Base is in range: not negative.
func (p Constant) Validate() error { return checkGrowth(0, p.Base, 0, 0) }

// Name returns "constant".
func (p Constant) Name() string { return NameConstant }

// String describes the policy and its wait.
func (p Constant) String() string { return fmt.Sprintf("%s(base=%v)", p.Name(), p.Base) }

// Immediate retries at once: no wait before any retry, the behaviour of a
// client with no backoff at all. It never draws from r.
type Immediate struct{}

// Delay returns 0.
func (Immediate) Delay(n int, prev time.Duration, r Uniform) time.Duration { return 0 }

// Validate reports nil: Immediate has no parameters.
func (Immediate) Validate() error { return nil }

// Name returns "immediate".
func (Immediate) Name() string { return NameImmediate }

// String returns "immediate".
func (Immediate) String() string { return NameImmediate }

// Compile-time checks that every concrete policy is a Policy.
var (
	_ Policy = Exponential{}
	_ Policy = FullJitter{}
	_ Policy = EqualJitter{}
	_ Policy = UniformJitter{}
	_ Policy = Decorrelated{}
	_ Policy = Constant{}
	_ Policy = Immediate{}
)
