package schedule

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
)

// Uniform is a source of uniform draws in [0, 1). *lcg.LCG satisfies it, and
// so does *math/rand/v2.Rand.
//
// It is an alias of the unnamed interface type, and so is package retry's
// Uniform: the two are one type, so every Policy here is also a
// retry.Policy.
type Uniform = interface{ Float64() float64 }

// Policy decides how long to wait before a retry. n is the retry number,
// 0 for the wait before the first retry; prev is what the previous call
// returned for the same client (0 before the first retry). A jittered policy
// draws exactly once from r per call; the others never touch r.
//
// Delay never panics and never returns a negative duration; see the package
// documentation for how it treats out-of-range arguments.
type Policy interface {
	Delay(n int, prev time.Duration, r Uniform) time.Duration
}

// Delays returns the first count waits of p for one client, feeding each
// result back as the next call's prev: the schedule a single client follows.
// It returns nil when count <= 0.
func Delays(p Policy, count int, r Uniform) []time.Duration {
	if count <= 0 {
		return nil
	}
	out := make([]time.Duration, count)
	var prev time.Duration
	for n := range out {
		prev = p.Delay(n, prev, r)
		out[n] = prev
	}
	return out
}

// Policy names accepted by New, one per behaviour; Names lists them in
// teaching order and Label gives each its display label.
const (
	NameExponential  = "exponential"  // Exponential: the growing window, no jitter
	NameFull         = "full"         // FullJitter
	NameEqual        = "equal"        // EqualJitter
	NameDecorrelated = "decorrelated" // Decorrelated
	NameUniform      = "uniform"      // UniformJitter
	NameConstant     = "constant"     // Constant: the same wait every time
	NameImmediate    = "immediate"    // Immediate: no wait at all, retry at once
)

// Names returns the policy names in teaching order: no jitter first, then
// the jittered policies, then the two that do not back off.
func Names() []string {
	return []string{NameExponential, NameFull, NameEqual, NameDecorrelated, NameUniform, NameConstant, NameImmediate}
}

// labels are the display labels of the names, for tables and legends.
var labels = map[string]string{
	NameExponential:  "exponential (no jitter)",
	NameFull:         "full jitter",
	NameEqual:        "equal jitter",
	NameDecorrelated: "decorrelated jitter",
	NameUniform:      "uniform jitter",
	NameConstant:     "constant wait",
	NameImmediate:    "immediate (no wait)",
}

// Label returns the display label of a policy name, for a table or a
// legend: "full jitter" for "full". A name that is not one of Names is
// returned as it is.
func Label(name string) string {
	if l, ok := labels[name]; ok {
		return l
	}
	return name
}

// renamed are names earlier editions used, with what replaces them.
var renamed = map[string]string{
	"none": `"exponential" (no jitter) or "immediate" (no wait)`,
	"flat": `"constant"`,
}

// CheckName returns nil if name is one of Names, and otherwise an error
// that lists them (and, for a name earlier editions used, says what
// replaces it). Case and surrounding spaces are not ignored: names are
// compared exactly.
func CheckName(name string) error {
	if _, ok := labels[name]; ok {
		return nil
	}
	if r, ok := renamed[strings.ToLower(strings.TrimSpace(name))]; ok {
		return fmt.Errorf("schedule: policy %q was renamed: use %s", name, r)
	}
	return fmt.Errorf("schedule: unknown policy %q: want one of %s", name, strings.Join(Names(), ", "))
}

// Named is a policy with its name, the unit a lineup of policies is made
// of: tables and figures show the name's Label.
type Named struct {
	Name   string
	Policy Policy
}

// Config describes a policy by name, for callers that pick the policy at run
// time (a command-line flag, a notebook parameter). Every field is checked
// by New, including those the named policy does not use, so a loop that
// builds each policy from one Config fails early on a bad value.
type Config struct {
	// Name is the policy: one of Names(); case and surrounding spaces are
	// ignored.
	Name string
	// Base is the first window (the constant wait for Constant). It must be
	// positive, except for Constant, where 0 means "retry at once".
	Base time.Duration
	// Cap bounds every wait; 0 means uncapped. A positive Cap must be at
	// least Base. Constant ignores it.
	Cap time.Duration
	// Multiplier is the window's growth per retry: at least 1, with 0
	// meaning 2 (3 for Decorrelated). Constant ignores it.
	Multiplier float64
	// Width is UniformJitter's relative band width, in [0, 2]. The other
	// policies ignore it.
	Width float64
}

// New returns the policy cfg describes, or an error naming the first
// parameter that is out of range, or an unknown name.
func New(cfg Config) (Policy, error) {
	name := strings.ToLower(strings.TrimSpace(cfg.Name))
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if err := checkWidth(cfg.Width); err != nil {
		return nil, err
	}
	var p interface {
		Policy
		Validate() error
	}
	switch name {
	case NameExponential:
		p = Exponential{Base: cfg.Base, Cap: cfg.Cap, Multiplier: cfg.Multiplier}
	case NameFull:
		p = FullJitter{Base: cfg.Base, Cap: cfg.Cap, Multiplier: cfg.Multiplier}
	case NameEqual:
		p = EqualJitter{Base: cfg.Base, Cap: cfg.Cap, Multiplier: cfg.Multiplier}
	case NameDecorrelated:
		p = Decorrelated{Base: cfg.Base, Cap: cfg.Cap, Multiplier: cfg.Multiplier}
	case NameUniform:
		p = UniformJitter{Base: cfg.Base, Cap: cfg.Cap, Multiplier: cfg.Multiplier, Width: cfg.Width}
	case NameConstant:
		if err := checkGrowth(0, cfg.Base, cfg.Cap, cfg.Multiplier); err != nil {
			return nil, err
		}
		p = Constant{Base: cfg.Base}
	default: // NameImmediate
		if err := checkGrowth(0, 0, cfg.Cap, cfg.Multiplier); err != nil {
			return nil, err
		}
		p = Immediate{}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkGrowth validates the parameters shared by the growing policies.
// minBase is the smallest allowed base: 1 for the growing policies, 0 for
// Constant.
func checkGrowth(minBase, base, cap time.Duration, multiplier float64) error {
	if base < minBase {
		want := "base > 0"
		if minBase == 0 {
			want = "base >= 0"
		}
		return fmt.Errorf("schedule: base %v out of range: want %s", base, want)
	}
	if cap < 0 {
		return fmt.Errorf("schedule: cap %v out of range: want cap >= 0 (0 means uncapped)", cap)
	}
	if cap > 0 && cap < base {
		return fmt.Errorf("schedule: cap %v below base %v: want cap >= base, or cap = 0 for uncapped", cap, base)
	}
	if multiplier != 0 && !(multiplier >= 1 && multiplier <= math.MaxFloat64) {
		return fmt.Errorf("schedule: multiplier %v out of range: want a finite multiplier >= 1 (0 means the default)", multiplier)
	}
	return nil
}

// checkWidth validates UniformJitter's width.
func checkWidth(w float64) error {
	if !(w >= 0 && w <= 2) {
		return fmt.Errorf("schedule: width %v out of range: want 0 <= width <= 2", w)
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

// draw takes one draw from r, clamped into [0, 1). A nil r draws 0.5. The
// lessons' generator is called directly rather than through the interface
// (its draws are in [0, 1) already): the simulators call a policy millions
// of times.
func draw(r Uniform) float64 {
	if g, ok := r.(*lcg.LCG); ok {
		return g.Float64()
	}
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
