package cohort

import (
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The policies whose waits the simulator computes itself, found once per
// run by the policy's concrete type; any other policy (or a growing one
// with a multiplier other than 2) is asked through the interface.
const (
	kindOther = iota
	kindExponential
	kindFull
	kindEqual
	kindDecorrelated
	kindConstant
)

// maxDoublings is the retry number from which a doubling window no longer
// changes: schedule computes c(n) for n > 64 as c(64).
const maxDoublings = 64

// waits computes a policy's waits as schedule's policies do, bit for bit,
// without an interface call per refusal: a refusal costs the simulator
// little else, and the lesson's tables make millions of them. The doubling
// window c(n) is looked up instead of computed. The tests compare every
// kind with the policy's own Delay.
type waits struct {
	kind   int
	policy schedule.Policy
	window [maxDoublings + 1]time.Duration // c(n), for the kinds that double
	base   time.Duration                   // Decorrelated's base, Constant's wait
	lim    time.Duration                   // Decorrelated's largest wait
	mult   float64                         // Decorrelated's multiplier
}

// newWaits returns the waits of p.
func newWaits(p schedule.Policy) waits {
	w := waits{policy: p}
	var ceiling func(int) time.Duration
	switch p := p.(type) {
	case schedule.Exponential:
		if p.Multiplier == 0 || p.Multiplier == 2 {
			w.kind, ceiling = kindExponential, p.Ceiling
		}
	case schedule.FullJitter:
		if p.Multiplier == 0 || p.Multiplier == 2 {
			w.kind, ceiling = kindFull, p.Ceiling
		}
	case schedule.EqualJitter:
		if p.Multiplier == 0 || p.Multiplier == 2 {
			w.kind, ceiling = kindEqual, p.Ceiling
		}
	case schedule.Decorrelated:
		w.kind, w.base, w.lim, w.mult = kindDecorrelated, p.Base, p.Cap, p.Multiplier
		if w.lim <= 0 {
			w.lim = math.MaxInt64
		}
		if w.mult == 0 {
			w.mult = 3
		}
	case schedule.Constant:
		w.kind, w.base = kindConstant, max(p.Base, 0)
	}
	if ceiling != nil {
		for n := range w.window {
			w.window[n] = ceiling(n)
		}
	}
	return w
}

// delay returns the wait before retry n after a wait of prev, drawing from
// g as the policy does. The simulator's loop repeats this switch inline
// (a call per refusal costs as much as the wait itself): each case is one
// of the small functions below.
func (w *waits) delay(n int, prev time.Duration, g *lcg.LCG) time.Duration {
	switch w.kind {
	case kindExponential:
		return w.ceiling(n)
	case kindFull:
		return fullWait(w.ceiling(n), g.Float64())
	case kindEqual:
		return equalWait(w.ceiling(n), g.Float64())
	case kindDecorrelated:
		return w.decorrelated(prev, g.Float64())
	case kindConstant:
		return w.base
	}
	return w.policy.Delay(n, prev, g)
}

// ceiling returns the doubling window c(n), n >= 0.
func (w *waits) ceiling(n int) time.Duration { return w.window[min(n, maxDoublings)] }

// fullWait is schedule.FullJitter's wait in window c for the draw u.
func fullWait(c time.Duration, u float64) time.Duration { return clamp(float64(c)*u, c) }

// equalWait is schedule.EqualJitter's wait in window c for the draw u.
func equalWait(c time.Duration, u float64) time.Duration { return clamp(float64(c)/2*(1+u), c) }

// decorrelated is schedule.Decorrelated's wait after prev for the draw u.
func (w *waits) decorrelated(prev time.Duration, u float64) time.Duration {
	b := float64(w.base)
	if u > 0 {
		b += u * (w.mult*float64(max(prev, w.base)) - b)
	}
	return clamp(b, w.lim)
}

// clamp converts f nanoseconds to a Duration in [0, lim] exactly as
// schedule does: NaN and negative values give 0, values at or beyond lim
// give lim.
func clamp(f float64, lim time.Duration) time.Duration {
	if !(f > 0) {
		return 0
	}
	if f >= float64(lim) {
		return lim
	}
	return min(time.Duration(f), lim)
}
