package waves

import (
	"fmt"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/metrics"
)

// Exercise returns the run of the lesson's 2000-client exercise: Lesson()
// with 2000 clients, a 30 s outage and full-width jitter (w = 1). Compare
// its peak with ExerciseCapacity.
func Exercise() Config {
	return Lesson().WithClients(2000).WithOutage(30 * time.Second).WithJitter(1)
}

// ExerciseCapacity is the number of requests a second the exercise's
// service can serve while it recovers: less than in steady state, because
// its caches are cold and its connection pools empty.
const ExerciseCapacity = 1200.0

// SlotWidths returns the slot widths the lesson measures one run at, from
// 1 ms to 1 s: 1, 2, 5, 10, 20, 50, 100, 200 and 500 ms, and 1 s. Each is a
// whole multiple of the first, as SweepSlots needs.
func SlotWidths() []time.Duration {
	ms := time.Millisecond
	return []time.Duration{ms, 2 * ms, 5 * ms, 10 * ms, 20 * ms, 50 * ms, 100 * ms, 200 * ms, 500 * ms, time.Second}
}

// JitterWidths returns the jitter widths the lesson compares: 0, 25, 50, 75
// and 100 %.
func JitterWidths() []float64 { return []float64{0, 0.25, 0.5, 0.75, 1} }

// Steps returns from, from+step, from+2·step, … up to and including to.
// It returns nil when step is not positive, when to is before from, or
// when there would be more than MaxSteps values.
func Steps(from, to, step time.Duration) []time.Duration {
	if step <= 0 || to < from {
		return nil
	}
	span := to - from
	if span < 0 || span/step >= MaxSteps { // span < 0: to − from overflowed
		return nil
	}
	ds := make([]time.Duration, span/step+1)
	for i := range ds {
		ds[i] = from + time.Duration(i)*step
	}
	return ds
}

// MaxSteps is the most values Steps returns.
const MaxSteps = 1 << 20

// Label names the run for tables and legends: every setting of the clients
// that differs from Lesson() (clients, attempts, base, outage, window,
// seed), then the jitter width, e.g. "no jitter", "jitter 50%" or
// "2000 clients, outage 30s, jitter 100%". The slot width is left out:
// it is a setting of the measurement, not of the run, and every peak
// carries it.
func (c Config) Label() string {
	l := Lesson()
	var parts []string
	add := func(differs bool, format string, v any) {
		if differs {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add(c.Clients != l.Clients, "%d clients", c.Clients)
	add(c.Attempts != l.Attempts, "%d attempts", c.Attempts)
	add(c.Base != l.Base, "base %v", c.Base)
	add(c.Outage != l.Outage, "outage %v", c.Outage)
	add(c.Window != l.Window, "window %v", c.Window)
	add(c.Seed != l.Seed, "seed %d", c.Seed)
	if c.Jitter == 0 {
		parts = append(parts, "no jitter")
	} else {
		parts = append(parts, fmt.Sprintf("jitter %.4g%%", 100*c.Jitter))
	}
	return strings.Join(parts, ", ")
}

// WithClients returns a copy of c with n clients. Like every With
// modifier it does not validate: Run does, naming the parameter and its
// range.
func (c Config) WithClients(n int) Config { c.Clients = n; return c }

// WithAttempts returns a copy of c in which each client makes at most n
// attempts.
func (c Config) WithAttempts(n int) Config { c.Attempts = n; return c }

// WithBase returns a copy of c whose first attempt is nominally at base.
func (c Config) WithBase(base time.Duration) Config { c.Base = base; return c }

// WithOutage returns a copy of c with an outage of d.
func (c Config) WithOutage(d time.Duration) Config { c.Outage = d; return c }

// WithWindow returns a copy of c observed over a window of d.
func (c Config) WithWindow(d time.Duration) Config { c.Window = d; return c }

// WithJitter returns a copy of c with jitter width w: 0 is no jitter, 1 is
// full width.
func (c Config) WithJitter(w float64) Config { c.Jitter = w; return c }

// WithSlot returns a copy of c counted in slots of d.
func (c Config) WithSlot(d time.Duration) Config { c.Slot = d; return c }

// WithSeed returns a copy of c drawing from the generator seeded with seed.
func (c Config) WithSeed(seed int64) Config { c.Seed = seed; return c }

// EachJitter returns one copy of c per jitter width, in order: a sweep for
// RunEach.
func (c Config) EachJitter(widths ...float64) []Config { return each(c, Config.WithJitter, widths) }

// EachBase returns one copy of c per base, in order.
func (c Config) EachBase(bases ...time.Duration) []Config { return each(c, Config.WithBase, bases) }

// EachSeed returns one copy of c per seed, in order.
func (c Config) EachSeed(seeds ...int64) []Config { return each(c, Config.WithSeed, seeds) }

// EachClients returns one copy of c per population size, in order.
func (c Config) EachClients(ns ...int) []Config { return each(c, Config.WithClients, ns) }

// each applies the modifier with to c once per value.
func each[T any](c Config, with func(Config, T) Config, values []T) []Config {
	cs := make([]Config, len(values))
	for i, v := range values {
		cs[i] = with(c, v)
	}
	return cs
}

// Results are the runs of a sweep, in the order of its configurations.
type Results []Result

// Jitter returns the first run whose jitter width is w, or the zero Result
// if there is none (as http.Header.Get returns ""), so that a cell names
// the run it means: rs.Jitter(1), not rs[1].
func (rs Results) Jitter(w float64) Result {
	return lab.Of(rs, func(r Result) float64 { return r.Config.Jitter }, w)
}

// RunEach runs every configuration, in order (lab.RunEach). It checks
// them all before the first run, with an error that says which it was.
func RunEach(cs []Config) (Results, error) { return lab.RunEach(cs, Run) }

// SlotSweep is one run measured at several slot widths.
type SlotSweep struct {
	// Config is the run; its Slot is the narrowest width.
	Config Config
	// Peaks holds the peak at each width, in the order of the widths.
	Peaks []metrics.Peak
}

// SweepSlots runs c once, counting its attempts at the first of widths
// (the narrowest), and reads the peak at every width from that count with
// metrics.PeakSweep. Each width must be a whole multiple of the first;
// c's own Slot is replaced by the first width.
func SweepSlots(c Config, widths []time.Duration) (SlotSweep, error) {
	if len(widths) == 0 {
		return SlotSweep{}, fmt.Errorf("waves: no slot widths to sweep: want at least one")
	}
	c.Slot = widths[0]
	r, err := Run(c)
	if err != nil {
		return SlotSweep{}, err
	}
	peaks, err := metrics.PeakSweep(r.Histogram, widths)
	if err != nil {
		return SlotSweep{}, err
	}
	return SlotSweep{Config: c, Peaks: peaks}, nil
}

// PeakAt returns the peak the sweep measured at slot width w, or the zero
// Peak if w is not one of its widths.
func (s SlotSweep) PeakAt(w time.Duration) metrics.Peak {
	for _, p := range s.Peaks {
		if p.Width == w {
			return p
		}
	}
	return metrics.Peak{}
}

// SlotSweeps are the sweeps of several runs, in the order of their
// configurations.
type SlotSweeps []SlotSweep

// Jitter returns the first sweep whose run has jitter width w, or the zero
// SlotSweep if there is none.
func (ss SlotSweeps) Jitter(w float64) SlotSweep {
	for _, s := range ss {
		if s.Config.Jitter == w {
			return s
		}
	}
	return SlotSweep{}
}

// SweepEach applies SweepSlots to every configuration, in order, at the
// same widths. It stops at the first error, saying which run it was.
func SweepEach(cs []Config, widths []time.Duration) (SlotSweeps, error) {
	return lab.RunEach(cs, func(c Config) (SlotSweep, error) { return SweepSlots(c, widths) })
}
