package cohort

import (
	"fmt"
	"github.com/backofflab/backofflab/lab/schedule"
	"testing"
	"time"
)

// BenchmarkRun measures the event-driven simulator on the lesson's settings,
// reporting events (calls + completions) per second.
func BenchmarkRun(b *testing.B) {
	for _, set := range []struct {
		name string
		cfg  func(schedule.Named) Config
	}{{"main", func(p schedule.Named) Config { return Lesson().WithPolicy(p.Policy) }}, {"overload", func(p schedule.Named) Config { return Lesson().WithOverload().WithPolicy(p.Policy) }}} {
		for _, p := range Lineup() {
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
// simulator. Besides the time it reports the process's CPU time per table
// set (cpu-ms/op), which a busy machine moves less: the ratio to
// BenchmarkLessonTablesReference is taken on it.
func BenchmarkLessonTables(b *testing.B) {
	benchTables(b, events)
}

// BenchmarkLessonTablesReference computes the same tables with the
// reference, every seed of every table, for the ratio.
func BenchmarkLessonTablesReference(b *testing.B) {
	benchTables(b, func() *averager { return &averager{run: reference} })
}

// benchTables computes the lesson's tables b.N times, each with a fresh
// averager from tables, and reports the CPU time per computation.
func benchTables(b *testing.B, tables func() *averager) {
	cpu0, ok := cpuTime()
	for b.Loop() {
		if _, err := lessonTables(tables(), DefaultSeeds, OverloadSeeds); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := cpuTime(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// endless is the main setting with exponential backoff and a dependency
// that never comes back: a run that lasts until its horizon.
func endless(h time.Duration) Config {
	c := Lesson().WithPolicy(lineupOf("exponential").Policy)
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

// lineupOf returns the policy of the lesson's lineup called name.
func lineupOf(name string) schedule.Named {
	for _, p := range Lineup() {
		if p.Name == name {
			return p
		}
	}
	panic("cohort: no policy " + name + " in the lineup")
}

// denseScenarios are the synchronised schedules the lessons are about, where
// many clients call in the same millisecond: the constant wait in the main
// and the overload setting, and the main setting with ten times the clients.
func denseScenarios() []struct {
	name string
	c    Config
} {
	f := lineupOf(schedule.NameConstant).Policy
	wide := Lesson().WithPolicy(f)
	wide.Clients = 600
	return []struct {
		name string
		c    Config
	}{{"main-constant", Lesson().WithPolicy(f)}, {"overload-constant", Lesson().WithOverload().WithPolicy(f)}, {"600-constant", wide}}
}

// benchCalls runs c with run b.N times and reports the cost per call.
func benchCalls(b *testing.B, c Config, run runner) {
	calls := 0
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := run(c, false)
		if err != nil {
			b.Fatal(err)
		}
		calls += r.Calls
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
}

// BenchmarkDense runs each dense scenario with the event-driven simulator
// and with the reference: where many clients share a millisecond the
// reference visits each millisecond only once, its best case.
func BenchmarkDense(b *testing.B) {
	for _, sc := range denseScenarios() {
		b.Run(sc.name+"/events", func(b *testing.B) { benchCalls(b, sc.c, simulate) })
		b.Run(sc.name+"/reference", func(b *testing.B) { benchCalls(b, sc.c, reference) })
	}
}

// BenchmarkPerCall measures the cost per call of the main setting as the
// cohort grows tenfold (60 and 600 clients), for a jittered policy and for
// the constant wait: it should stay flat.
func BenchmarkPerCall(b *testing.B) {
	for _, p := range []schedule.Named{lineupOf(schedule.NameFull), lineupOf(schedule.NameConstant)} {
		for _, n := range []int{60, 600} {
			b.Run(fmt.Sprintf("%s/clients=%d", p.Name, n), func(b *testing.B) {
				c := Lesson().WithPolicy(p.Policy)
				c.Clients = n
				benchCalls(b, c, simulate)
			})
		}
	}
}
