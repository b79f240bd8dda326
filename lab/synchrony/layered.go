package synchrony

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// MaxInner is the most attempts Layered's inner layer may make for one
// attempt of the outer layer.
const MaxInner = 100

// Layered is a cohort whose retries pass through two layers: the outer
// layer (Cohort: an application with its backoff policy) makes an attempt,
// and the inner layer beneath it (a client library, a sidecar, a load
// balancer) turns it into Inner attempts, Gap apart, retrying at once
// without any backoff. The outer layer sees one failure only when all of
// them have failed, and only then waits as its policy says.
//
// Every inner attempt is an Arrival; the first inner attempt at or after
// the outage succeeds and ends the client, and inner attempts at or after
// the horizon are not made. Inner = 1 is the plain cohort. The outer
// policy's prev is the wait it returned last, without the inner layer's
// time.
type Layered struct {
	// Cohort is the outer layer and its clients; see Cohort for its
	// parameters.
	Cohort Cohort
	// Inner is the number of attempts the inner layer makes for each of
	// the outer layer's, in [1, MaxInner].
	Inner int
	// Gap is the time between the inner layer's attempts (a failed
	// attempt's round trip), in [0, time.Second].
	Gap time.Duration
}

// Validate reports the first parameter that is out of range.
func (l Layered) Validate() error {
	if err := l.Cohort.Validate(); err != nil {
		return err
	}
	if l.Inner < 1 || l.Inner > MaxInner {
		return fmt.Errorf("synchrony: inner %d out of range: want 1 <= inner <= %d", l.Inner, MaxInner)
	}
	if l.Gap < 0 || l.Gap > time.Second {
		return fmt.Errorf("synchrony: gap %v out of range: want 0 <= gap <= 1s", l.Gap)
	}
	return nil
}

// Arrivals runs the two layers and returns every attempt the dependency
// sees, client by client, each client's in order; Attempt counts all of the
// client's earlier attempts, inner ones included.
func (l Layered) Arrivals() (Arrivals, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	// The outer layer's attempts: the cohort, each wait starting when the
	// inner layer has given up.
	outer := l.Cohort
	outer.Policy = afterInner{outer.Policy, time.Duration(l.Inner-1) * l.Gap}
	a, err := outer.Arrivals()
	if err != nil {
		return nil, err
	}
	out := make(Arrivals, 0, len(a))
	done, n := -1, 0
	for _, x := range a {
		if x.Client == done {
			continue
		}
		if x.Attempt == 0 {
			n = 0
		}
		for j := range l.Inner {
			at := add(x.At, time.Duration(j)*l.Gap)
			if at >= outer.Horizon {
				break
			}
			ok := at >= outer.Outage
			out = append(out, Arrival{Client: x.Client, Attempt: n, At: at, Succeeded: ok})
			n++
			if ok {
				done = x.Client
				break
			}
		}
		if len(out) > MaxEvents {
			return nil, fmt.Errorf("%w: more than %d attempts", ErrTooManyEvents, MaxEvents)
		}
	}
	return out, nil
}

// Events returns the times of every attempt, inner ones included: it makes
// a Layered a Source.
func (l Layered) Events() ([]time.Duration, error) {
	a, err := l.Arrivals()
	if err != nil {
		return nil, err
	}
	return a.Times(), nil
}

// afterInner is an outer policy whose every wait starts extra later: when
// the inner layer has made its last attempt.
type afterInner struct {
	p     schedule.Policy
	extra time.Duration
}

// Delay returns the outer policy's wait plus extra, handing it its own
// previous wait.
func (w afterInner) Delay(n int, prev time.Duration, r schedule.Uniform) time.Duration {
	return add(w.p.Delay(n, max(prev-w.extra, 0), r), w.extra)
}
