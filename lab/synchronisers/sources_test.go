package synchronisers

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/synchrony"
)

func measure(t *testing.T, s metrics.Source, slot time.Duration) metrics.Reading {
	t.Helper()
	r, err := metrics.Measure(s, slot)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Cron shows the CV's three regimes: in step (far above 1), random offsets
// (about 1), offsets handed out evenly (0).
func TestCron(t *testing.T) {
	c := Cron{Instances: 500, Period: time.Minute, Runs: 10, Seed: 1513241}
	r := measure(t, c, time.Second)
	// 4999 gaps: 9 of a minute, the rest 0, so CV² = 4999/9 − 1.
	if r.Events != 5000 || r.Peak.Count != 500 || math.Abs(r.CV-math.Sqrt(4999.0/9-1)) > 1e-9 {
		t.Errorf("no offset: %v, want 500 per second and CV %.2f", r, math.Sqrt(4999.0/9-1))
	}
	c.Offset = 1
	if r := measure(t, c, time.Second); math.Abs(r.CV-1) > 0.1 || r.Peak.Count > 25 {
		t.Errorf("random offsets: %v, want CV about 1 and a peak near the mean of 500/60 per second", r)
	}
	c.Even = true
	if r := measure(t, c, time.Second); r.CV != 0 || r.Peak.Count != 9 {
		t.Errorf("even offsets: %v, want CV 0 and ⌈500/60⌉ = 9 per second", r)
	}
	// An offset much smaller than the period leaves a burst every minute.
	c.Even, c.Offset = false, 0.01
	if r := measure(t, c, time.Second); r.CV < 15 {
		t.Errorf("offset of 1%% of the period: %v, want the bursts to remain (CV far above 1)", r)
	}
	// Every instance runs once per period, at its own fixed offset.
	c.Offset = 0.5
	ev, _ := c.Events()
	for i := range c.Instances {
		runs := ev[i*c.Runs : (i+1)*c.Runs]
		for k, at := range runs {
			if off := at - time.Duration(k)*c.Period; off != runs[0] || off < 0 || off >= c.Period/2 {
				t.Fatalf("instance %d run %d at %v: offset %v, want the same offset in [0, 30s) every run", i, k, at, off)
			}
		}
	}
}

func TestTTL(t *testing.T) {
	c := TTL{Keys: 500, TTL: 5 * time.Minute, Horizon: time.Hour, Seed: 1513241}
	ev, err := c.Events()
	if err != nil {
		t.Fatal(err)
	}
	// Expiries at 5, 10, …, 55 minutes: 11 per key, all keys together.
	if r := measure(t, c, time.Second); len(ev) != 500*11 || r.Peak.Count != 500 || r.Peak.At() != 5*time.Minute {
		t.Errorf("no offset: %d misses, %v; want 5500, all 500 keys in one second at 5m", len(ev), r)
	}
	c.Offset = 0.2
	ev, _ = c.Events()
	prev, key := time.Duration(0), -1
	for _, at := range ev { // key by key, in order: each gap is one TTL
		if at <= prev {
			key++
			prev = 0
		}
		if gap := at - prev; gap < c.TTL || gap >= c.TTL*6/5 {
			t.Fatalf("key %d: a TTL of %v, want one in [5m, 6m)", key, gap)
		}
		prev = at
	}
	r := measure(t, c, time.Second)
	if r.Peak.Count > 50 || r.CV < 3 {
		t.Errorf("±10 %%-style offset: %v, want the peak cut tenfold and the waves still visible (CV > 3)", r)
	}
}

func TestRollingRestart(t *testing.T) {
	c := RollingRestart{Instances: 100, Batch: 10, Step: 30 * time.Second, Connections: 20, Seed: 1513241}
	if r := measure(t, c, 10*time.Millisecond); r.Events != 2000 || r.Peak.Count != 200 {
		t.Errorf("lockstep: %v, want 2000 connections, 200 (a batch's pools) in one slot", r)
	}
	c.Offset = 1
	ev, _ := c.Events()
	for i := range c.Instances {
		pool := ev[i*c.Connections : (i+1)*c.Connections]
		start := time.Duration(i/c.Batch) * c.Step
		if slices.Min(pool) != slices.Max(pool) || pool[0] < start || pool[0] >= start+c.Step {
			t.Fatalf("instance %d opens its pool at %v…%v, want one instant in [%v, %v)", i, slices.Min(pool), slices.Max(pool), start, start+c.Step)
		}
	}
	// The offset spreads the instances, not each instance's own pool.
	if r := measure(t, c, 10*time.Millisecond); r.Peak.Count < c.Connections || r.Peak.Count >= 100 {
		t.Errorf("staggered: %v, want at least one pool (%d) and far below 200", r, c.Connections)
	}
}

func TestPartitionHeal(t *testing.T) {
	c := PartitionHeal{Nodes: 1000, Interval: time.Second, Heal: 30*time.Second + 500*time.Millisecond, Seed: 1513241}
	ev, err := c.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1000 || slices.Min(ev) != 31*time.Second || slices.Max(ev) != 31*time.Second {
		t.Errorf("no offset: %d reconnects from %v to %v, want all 1000 at the first tick after the heal, 31s", len(ev), slices.Min(ev), slices.Max(ev))
	}
	if r := measure(t, c, 10*time.Millisecond); !math.IsNaN(r.CV) {
		t.Errorf("all at one instant: CV %v, want undefined", r.CV)
	}
	c.Offset = 1
	ev, _ = c.Events()
	if slices.Min(ev) < c.Heal || slices.Max(ev) >= c.Heal+2*c.Interval {
		t.Errorf("offset 1: reconnects from %v to %v, want them in [heal, heal + 2·interval)", slices.Min(ev), slices.Max(ev))
	}
	if r := measure(t, c, 10*time.Millisecond); r.Peak.Count > 30 || math.Abs(r.CV-1) > 0.5 {
		t.Errorf("offset 1: %v, want a peak of a few per slot and a CV near 1", r)
	}
}

func TestSourcesValidate(t *testing.T) {
	cron := func(f func(*Cron)) metrics.Source {
		c := Cron{Instances: 10, Period: time.Minute, Runs: 5}
		f(&c)
		return c
	}
	ttl := func(f func(*TTL)) metrics.Source {
		c := TTL{Keys: 10, TTL: time.Minute, Horizon: time.Hour}
		f(&c)
		return c
	}
	restart := func(f func(*RollingRestart)) metrics.Source {
		c := RollingRestart{Instances: 10, Batch: 2, Step: time.Minute, Connections: 3}
		f(&c)
		return c
	}
	heal := func(f func(*PartitionHeal)) metrics.Source {
		c := PartitionHeal{Nodes: 10, Interval: time.Second, Heal: time.Minute}
		f(&c)
		return c
	}
	for _, tc := range []struct {
		s    metrics.Source
		want string
	}{
		{cron(func(c *Cron) { c.Instances = 0 }), "instances 0 out of range"},
		{cron(func(c *Cron) { c.Period = 0 }), "period 0s out of range"},
		{cron(func(c *Cron) { c.Runs = 0 }), "runs 0 out of range"},
		{cron(func(c *Cron) { c.Runs = 1441 }), "runs 1441 out of range"}, // more than a day of minutes
		{cron(func(c *Cron) { c.Offset = 1.5 }), "offset 1.5 out of range"},
		{cron(func(c *Cron) { c.Offset = math.NaN() }), "offset NaN"},
		{cron(func(c *Cron) { c.Seed = -1 }), "seed -1"},
		{ttl(func(c *TTL) { c.Keys = -1 }), "keys -1"},
		{ttl(func(c *TTL) { c.TTL = synchrony.MaxHorizon + 1 }), "ttl"},
		{ttl(func(c *TTL) { c.Horizon = 0 }), "horizon 0s"},
		{ttl(func(c *TTL) { c.TTL = time.Nanosecond }), "horizon 1h0m0s out of range for 10 keys"},
		{ttl(func(c *TTL) { c.Offset = -0.1 }), "offset -0.1"},
		{restart(func(c *RollingRestart) { c.Batch = 11 }), "batch 11 out of range"},
		{restart(func(c *RollingRestart) { c.Step = -1 }), "step"},
		{restart(func(c *RollingRestart) { c.Step = synchrony.MaxHorizon }), "step 24h0m0s out of range for 5 batches"},
		{restart(func(c *RollingRestart) { c.Connections = 0 }), "connections 0"},
		{restart(func(c *RollingRestart) { c.Connections = synchrony.MaxEvents }), "connections"},
		{heal(func(c *PartitionHeal) { c.Nodes = synchrony.MaxParticipants + 1 }), "nodes"},
		{heal(func(c *PartitionHeal) { c.Interval = synchrony.MaxHorizon }), "interval 24h0m0s out of range"},
		{heal(func(c *PartitionHeal) { c.Heal = -1 }), "heal -1ns out of range"},
		{heal(func(c *PartitionHeal) { c.Heal = synchrony.MaxHorizon }), "heal 24h0m0s out of range"},
		{heal(func(c *PartitionHeal) { c.Interval = time.Nanosecond }), "heal 1m0s out of range for 10 nodes"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if _, err := tc.s.Events(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: error %v, want one containing %q", tc.s, err, tc.want)
			}
		})
	}
}

// FuzzSources checks that every synchroniser either rejects its parameters
// with an error or generates events within its bounds.
func FuzzSources(f *testing.F) {
	f.Add(500, int64(time.Minute), 10, 0.5, int64(1513241), int64(time.Hour), 2)
	f.Add(0, int64(0), 0, -1.0, int64(-1), int64(0), 0)
	f.Add(1, int64(synchrony.MaxHorizon), 1, 1.0, int64(1<<31-1), int64(synchrony.MaxHorizon), 1)
	f.Add(7, int64(1), 1000, math.NaN(), int64(3), int64(1), 7)
	f.Fuzz(func(t *testing.T, n int, interval int64, k int, offset float64, seed, horizon int64, batch int) {
		n, k = n%3000, k%3000 // keep runs short; the ranges are tested above
		d, h := time.Duration(interval), time.Duration(horizon)
		for _, s := range []metrics.Source{
			Cron{Instances: n, Period: d, Runs: k, Offset: offset, Seed: seed, Even: batch%2 == 0},
			TTL{Keys: n, TTL: d, Offset: offset, Horizon: h, Seed: seed},
			RollingRestart{Instances: n, Batch: batch, Step: d, Connections: k, Offset: offset, Seed: seed},
			PartitionHeal{Nodes: n, Interval: d, Heal: h, Offset: offset, Seed: seed},
		} {
			ev, err := s.Events()
			if err != nil {
				if !strings.HasPrefix(err.Error(), "synchronisers: ") || !strings.Contains(err.Error(), "out of range") {
					t.Fatalf("%+v: error %q does not name a parameter and its range", s, err)
				}
				continue
			}
			for _, at := range ev {
				if at < 0 || at >= synchrony.MaxHorizon+synchrony.MaxHorizon {
					t.Fatalf("%+v: event at %v", s, at)
				}
			}
		}
	})
}
