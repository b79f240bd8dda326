package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/backofflab/backofflab/retry/backoff"
)

// Uniform is a source of uniform draws in [0, 1). *lcg.LCG satisfies it, and
// so does *math/rand/v2.Rand. It is package retry's Uniform (package
// backoff's, which retry names too), an alias of the unnamed interface type.
type Uniform = backoff.Uniform

// Policy decides how long to wait before a retry. n is the retry number,
// 0 for the wait before the first retry; prev is what the previous call
// returned for the same client (0 before the first retry). A jittered policy
// draws exactly once from r per call; the others never touch r.
//
// It is package retry's Policy (package backoff's, which retry names too):
// every policy here drives a retry.Retrier, and every retry policy a
// lesson's model. Delay never panics and never returns a negative duration;
// see the package documentation for how it treats out-of-range arguments.
type Policy = backoff.Policy

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
	// The width, the cap and the multiplier are checked whatever the name,
	// by the policies that use them.
	if err := (UniformJitter{Base: 1, Width: cfg.Width}).Validate(); err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	var p interface {
		Policy
		Validate() error
	}
	growth := Exponential{Base: 1} // the growth parameters, when p ignores them
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
		p = Constant{Base: cfg.Base}
		// Constant ignores the cap and the multiplier; check them as the
		// growing policies would, against its base.
		growth = Exponential{Base: max(cfg.Base, 1), Cap: cfg.Cap, Multiplier: cfg.Multiplier}
	default: // NameImmediate
		p = Immediate{}
		growth = Exponential{Base: 1, Cap: cfg.Cap, Multiplier: cfg.Multiplier}
	}
	for _, v := range []interface{ Validate() error }{p, growth} {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
	}
	return p, nil
}
