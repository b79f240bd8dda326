package cohort

import (
	"testing"
	"time"
)

// BenchmarkRun measures the event-driven simulator on the lesson's settings,
// reporting events (calls + completions) per second.
func BenchmarkRun(b *testing.B) {
	for _, set := range []struct {
		name string
		cfg  func(Named) Config
	}{{"main", func(p Named) Config { return Main(p.Policy) }}, {"overload", func(p Named) Config { return Overload(p.Policy) }}} {
		for _, p := range DefaultLineup() {
			b.Run(set.name+"/"+p.Name, func(b *testing.B) {
				c := set.cfg(p)
				events := 0
				for b.Loop() {
					r, err := Run(c)
					if err != nil {
						b.Fatal(err)
					}
					events += r.Events()
				}
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// BenchmarkLessonTables computes every table of the lesson (main, caps,
// spread, no outage: 40 seeds; overload: 20) with the event-driven
// simulator. The target is under one second.
func BenchmarkLessonTables(b *testing.B) {
	for b.Loop() {
		if _, err := LessonTables(DefaultSeeds, OverloadSeeds); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLessonTablesTick computes the same tables with the tick-loop
// oracle, for the ratio.
func BenchmarkLessonTablesTick(b *testing.B) {
	for b.Loop() {
		if _, err := lessonTables(tickRun, DefaultSeeds, OverloadSeeds); err != nil {
			b.Fatal(err)
		}
	}
}

// endless is the main setting with exponential backoff and a dependency
// that never comes back: a run that lasts until its horizon.
func endless(h time.Duration) Config {
	c := Main(DefaultLineup()[0].Policy)
	c.Outage, c.Horizon = MaxHorizon, h
	return c
}

// BenchmarkHorizon runs a cohort that never finishes to ever longer
// horizons: time grows with the calls made, memory (B/op) stays the same.
func BenchmarkHorizon(b *testing.B) {
	for _, h := range []time.Duration{time.Minute, 10 * time.Minute, time.Hour} {
		b.Run(h.String(), func(b *testing.B) {
			c := endless(h)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMemoryFlatInHorizon checks that a run's allocations do not depend on
// its horizon (a run that never finishes, 1 min against 1 h).
func TestMemoryFlatInHorizon(t *testing.T) {
	allocs := func(h time.Duration) float64 {
		c := endless(h)
		return testing.AllocsPerRun(2, func() {
			if _, err := Run(c); err != nil {
				t.Fatal(err)
			}
		})
	}
	if short, long := allocs(time.Minute), allocs(time.Hour); long != short {
		t.Errorf("allocations: %v for a 1 min horizon, %v for 1 h; want the same", short, long)
	}
}
