package synchrony

import (
	"fmt"
	"time"
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

// Events returns the times of every attempt, inner ones included: it makes
// a Layered a Source.
func (l Layered) Events() ([]time.Duration, error) {
	a, err := l.Arrivals()
	if err != nil {
		return nil, err
	}
	return a.Times(), nil
}
