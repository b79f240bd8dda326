package cohort

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// The lesson's default policy parameters.
const (
	// DefaultBase is the first backoff window.
	DefaultBase = 100 * time.Millisecond
	// DefaultCap bounds every backoff window.
	DefaultCap = 3200 * time.Millisecond
	// DefaultWait is the constant policy's wait between tries.
	DefaultWait = 100 * time.Millisecond
)

// NewPolicy returns the policy called name (one of schedule.Names) with
// backoff windows starting at base and capped at cap, or, for
// schedule.NameConstant, a retry every wait. Parameters the policy does not
// use are still checked: base and wait must be positive and cap at least
// base. An unknown name is an error that lists the names.
func NewPolicy(name string, base, cap, wait time.Duration) (schedule.Policy, error) {
	switch {
	case base <= 0:
		return nil, fmt.Errorf("cohort: base %v out of range: want base > 0", base)
	case cap < base:
		return nil, fmt.Errorf("cohort: cap %v out of range: want cap >= base (%v)", cap, base)
	case wait <= 0:
		return nil, fmt.Errorf("cohort: wait %v out of range: want wait > 0", wait)
	}
	if err := schedule.CheckName(name); err != nil {
		return nil, errors.New("cohort: " + strings.TrimPrefix(err.Error(), "schedule: "))
	}
	if name == schedule.NameConstant {
		return schedule.Constant{Base: wait}, nil
	}
	return schedule.New(schedule.Config{Name: name, Base: base, Cap: cap})
}

// NewLineup returns the lesson's five policies in the order of its tables
// (exponential without jitter, full, equal and decorrelated jitter, then the
// constant wait that never backs off), with the given parameters (see
// NewPolicy).
func NewLineup(base, cap, wait time.Duration) ([]schedule.Named, error) {
	names := []string{schedule.NameExponential, schedule.NameFull, schedule.NameEqual, schedule.NameDecorrelated, schedule.NameConstant}
	out := make([]schedule.Named, len(names))
	for i, name := range names {
		p, err := NewPolicy(name, base, cap, wait)
		if err != nil {
			return nil, err
		}
		out[i] = schedule.Named{Name: name, Policy: p}
	}
	return out, nil
}

// Lineup returns the lesson's lineup with its default parameters:
// NewLineup(DefaultBase, DefaultCap, DefaultWait).
func Lineup() []schedule.Named {
	l, err := NewLineup(DefaultBase, DefaultCap, DefaultWait)
	if err != nil {
		panic(err) // unreachable: the defaults are valid
	}
	return l
}
