package cohort

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// The lesson's default policy parameters.
const (
	// DefaultBase is the first backoff window.
	DefaultBase = 100 * time.Millisecond
	// DefaultCap bounds every backoff window.
	DefaultCap = 3200 * time.Millisecond
	// DefaultFlat is the flat-retry interval.
	DefaultFlat = 100 * time.Millisecond
)

// PolicyNames lists the lesson's five policies in the order its tables use.
var PolicyNames = []string{"exponential", "full", "equal", "decorrelated", "flat"}

// Named is a policy with the name a table shows for it.
type Named struct {
	Name   string
	Policy schedule.Policy
}

// NewPolicy returns the policy called name ("none" or "exponential", "full",
// "equal", "decorrelated", "flat") with backoff windows starting at base and
// capped at cap, or, for "flat", a retry every flat. Parameters the policy
// does not use are still checked: base and flat must be positive and cap at
// least base.
func NewPolicy(name string, base, cap, flat time.Duration) (schedule.Policy, error) {
	switch {
	case base <= 0:
		return nil, fmt.Errorf("cohort: base %v out of range: want base > 0", base)
	case cap < base:
		return nil, fmt.Errorf("cohort: cap %v out of range: want cap >= base (%v)", cap, base)
	case flat <= 0:
		return nil, fmt.Errorf("cohort: flat %v out of range: want flat > 0", flat)
	}
	switch name {
	case "none":
		return schedule.New(schedule.Config{Name: schedule.NameExponential, Base: base, Cap: cap})
	case "exponential", "full", "equal", "decorrelated":
		return schedule.New(schedule.Config{Name: name, Base: base, Cap: cap})
	case "flat":
		return schedule.New(schedule.Config{Name: schedule.NameConstant, Base: flat})
	}
	return nil, fmt.Errorf("cohort: unknown policy %q: want none, exponential, full, equal, decorrelated or flat", name)
}

// Lineup returns the five policies of PolicyNames with the given parameters
// (see NewPolicy).
func Lineup(base, cap, flat time.Duration) ([]Named, error) {
	out := make([]Named, len(PolicyNames))
	for i, name := range PolicyNames {
		p, err := NewPolicy(name, base, cap, flat)
		if err != nil {
			return nil, err
		}
		out[i] = Named{name, p}
	}
	return out, nil
}

// DefaultLineup returns Lineup(DefaultBase, DefaultCap, DefaultFlat).
func DefaultLineup() []Named {
	l, err := Lineup(DefaultBase, DefaultCap, DefaultFlat)
	if err != nil {
		panic(err) // unreachable: the defaults are valid
	}
	return l
}
