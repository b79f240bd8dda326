package synchronisers

// This file is the whole model of lesson 08's four other synchronisers,
// written to be read: a fleet's cron job, cache keys with one TTL, a
// rolling restart and a healing partition, each with the remedy they
// share, a random offset of up to a fraction of the natural interval.

import (
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
)

// Events returns the start of every run, instance by instance.
func (c Cron) Events() ([]time.Duration, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	spread := fraction(c.Offset, c.Period)
	if !c.Even {
		// An instance whose first run is at a random offset in [0, spread)
		// and that then waits exactly Period: a cohort with a constant wait.
		return synchrony.Cohort{
			Clients: c.Instances,
			Policy:  schedule.Constant{Base: c.Period},
			Spread:  spread,
			Outage:  synchrony.MaxHorizon,
			Horizon: time.Duration(c.Runs) * c.Period,
			Seed:    c.Seed,
		}.Events()
	}
	out := make([]time.Duration, 0, c.Instances*c.Runs)
	for i := range c.Instances {
		o := time.Duration(float64(spread) * float64(i) / float64(c.Instances))
		for k := range c.Runs {
			out = append(out, time.Duration(k)*c.Period+o)
		}
	}
	return out, nil
}

// Events returns the time of every miss (and reload), key by key.
func (c TTL) Events() ([]time.Duration, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	// A key is a client that "retries" (reloads) after every TTL and never
	// stops: the writes at t = 0 are its first attempts, the misses its
	// retries.
	a, err := synchrony.Cohort{
		Clients: c.Keys,
		Policy:  offsetWait{interval: c.TTL, offset: c.Offset},
		Outage:  synchrony.MaxHorizon,
		Horizon: c.Horizon,
		Seed:    c.Seed,
	}.Arrivals()
	if err != nil {
		return nil, err
	}
	return a.Retries().Times(), nil
}

// Events returns the opening of every connection, instance by instance.
func (c RollingRestart) Events() ([]time.Duration, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	g := lcg.MustNew(c.Seed)
	spread := fraction(c.Offset, c.Step)
	out := make([]time.Duration, 0, c.Instances*c.Connections)
	for i := range c.Instances {
		up := time.Duration(i/c.Batch) * c.Step
		if spread > 0 {
			up += synchrony.Within(spread, g.Float64())
		}
		for range c.Connections {
			out = append(out, up)
		}
	}
	return out, nil
}

// Events returns the time each node reconnects, node by node.
func (c PartitionHeal) Events() ([]time.Duration, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	// The nodes are a cohort failing together at t = 0 with a constant wait,
	// against an outage that ends at Heal; only successes reach the
	// database, so only they are kept. The horizon lets every node make
	// its first attempt at or after Heal.
	out := make([]time.Duration, 0, c.Nodes)
	synchrony.Cohort{
		Clients: c.Nodes,
		Policy:  offsetWait{interval: c.Interval, offset: c.Offset},
		Outage:  c.Heal,
		Horizon: synchrony.MaxHorizon,
		Seed:    c.Seed,
	}.Walk(func(a synchrony.Arrival) bool {
		if a.Succeeded {
			out = append(out, a.At)
		}
		return true
	})
	return out, nil
}

// offsetWait waits interval plus a random offset in [0, offset·interval):
// the constant wait of a periodic participant with the shared remedy applied.
// It draws once per Delay when offset is positive, never otherwise.
type offsetWait struct {
	interval time.Duration
	offset   float64
}

// Delay returns interval + u·offset·interval for one draw u from r.
func (w offsetWait) Delay(_ int, _ time.Duration, r schedule.Uniform) time.Duration {
	spread := fraction(w.offset, w.interval)
	if spread == 0 {
		return w.interval
	}
	return w.interval + synchrony.Within(spread, r.Float64())
}

// fraction returns f·d truncated to whole nanoseconds, for f in [0, 1].
func fraction(f float64, d time.Duration) time.Duration {
	return time.Duration(f * float64(d))
}
