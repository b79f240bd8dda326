package layered

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/table"
)

// MaxInner is the most attempts Config's inner layer may make for one
// attempt of the outer layer.
const MaxInner = 100

// Config is a cohort whose retries pass through two layers: the outer
// layer (Cohort: an application with its backoff policy) makes an attempt,
// and the inner layer beneath it (a client library, a sidecar, a load
// balancer) turns it into Inner attempts, Gap apart, retrying at once
// without any backoff. The outer layer sees one failure only when all of
// them have failed, and only then waits as its policy says.
//
// Every inner attempt is an synchrony.Arrival; the first inner attempt at or after
// the outage succeeds and ends the client, and inner attempts at or after
// the horizon are not made. Inner = 1 is the plain cohort. The outer
// policy's prev is the wait it returned last, without the inner layer's
// time.
type Config struct {
	// Cohort is the outer layer and its clients; see synchrony.Cohort for its
	// parameters.
	Cohort synchrony.Cohort
	// Inner is the number of attempts the inner layer makes for each of
	// the outer layer's, in [1, MaxInner].
	Inner int
	// Gap is the time between the inner layer's attempts (a failed
	// attempt's round trip), in [0, time.Second].
	Gap time.Duration
}

// Validate reports the first parameter that is out of range.
func (l Config) Validate() error {
	if err := l.Cohort.Validate(); err != nil {
		return err
	}
	if l.Inner < 1 || l.Inner > MaxInner {
		return fmt.Errorf("layered: inner %d out of range: want 1 <= inner <= %d", l.Inner, MaxInner)
	}
	if l.Gap < 0 || l.Gap > time.Second {
		return fmt.Errorf("layered: gap %v out of range: want 0 <= gap <= 1s", l.Gap)
	}
	return nil
}

// Events returns the times of every attempt, inner ones included: it makes
// a Config a metrics.Source.
func (l Config) Events() ([]time.Duration, error) {
	a, err := l.Arrivals()
	if err != nil {
		return nil, err
	}
	return a.Times(), nil
}

// Table runs the cohort c beneath an inner layer of each number of
// attempts of inners, gap apart, and returns, per layer, the attempts in all
// and how its retries read at the slot width (metrics.Measure).
func Table(c synchrony.Cohort, inners []int, gap, slot time.Duration) (table.Table, error) {
	t := table.New("inner attempts", "attempts in all", "retries", "retry peak", "CV")
	for _, inner := range inners {
		a, err := Config{Cohort: c, Inner: inner, Gap: gap}.Arrivals()
		if err != nil {
			return table.Table{}, err
		}
		r, err := metrics.Measure(metrics.Times(a.Retries().Times()), slot)
		if err != nil {
			return table.Table{}, err
		}
		t.Add(inner, len(a), r.Events, table.Num("%d in %v at %v", r.Peak.Count, r.Peak.Width, r.Peak.At()), table.Num("%s", metrics.FormatCV(r.CV)))
	}
	t.Note("the inner layer's attempts are %v apart", gap)
	return t, nil
}
