package layered

// This file is the whole model of lesson 08's two layers, written to be
// read: an outer layer that backs off (a synchrony.Cohort) above an inner one that
// retries at once, in the order the lesson states them.

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
)

// Arrivals runs the two layers and returns every attempt the dependency
// sees, client by client, each client's in order; Attempt counts all of the
// client's earlier attempts, inner ones included.
func (l Config) Arrivals() (synchrony.Arrivals, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	// The outer layer's attempts: the cohort, each wait starting when the
	// inner layer has given up (the outer layer sees one failure only when
	// all of the inner attempts have failed).
	outer := l.Cohort
	outer.Policy = afterInner{outer.Policy, time.Duration(l.Inner-1) * l.Gap}
	a, err := outer.Arrivals()
	if err != nil {
		return nil, err
	}
	out := make(synchrony.Arrivals, 0, len(a))
	done, n := -1, 0
	for _, x := range a {
		if x.Client == done {
			continue
		}
		if x.Attempt == 0 {
			n = 0
		}
		// The inner layer turns the outer attempt into Inner attempts,
		// Gap apart, without waiting; the first at or after the outage
		// succeeds and ends the client.
		for j := range l.Inner {
			at := synchrony.Later(x.At, time.Duration(j)*l.Gap)
			if at >= outer.Horizon {
				break
			}
			ok := at >= outer.Outage
			out = append(out, synchrony.Arrival{Client: x.Client, Attempt: n, At: at, Succeeded: ok})
			n++
			if ok {
				done = x.Client
				break
			}
		}
		if len(out) > synchrony.MaxEvents {
			return nil, fmt.Errorf("%w: more than %d attempts", synchrony.ErrTooManyEvents, synchrony.MaxEvents)
		}
	}
	return out, nil
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
	return synchrony.Later(w.p.Delay(n, max(prev-w.extra, 0), r), w.extra)
}
