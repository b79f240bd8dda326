package overload

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkRun reports the simulator's speed for the lesson's 60 s runs:
// ticks and attempts per second of wall time, and events/s counting each
// tick and each attempt as one event.
func BenchmarkRun(b *testing.B) {
	for name, c := range map[string]Config{
		"plain":   Lesson(),
		"budget":  Lesson().WithBudget(),
		"breaker": Lesson().WithBreaker(),
		"pacing":  Lesson().WithPacing(),
	} {
		b.Run(name, func(b *testing.B) {
			ticks, attempts := 0, 0
			for b.Loop() {
				r, err := Run(c)
				if err != nil {
					b.Fatal(err)
				}
				ticks += r.Ticks
				attempts += r.Attempts
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(ticks)/s, "ticks/s")
			b.ReportMetric(float64(attempts)/s, "attempts/s")
			b.ReportMetric(float64(ticks+attempts)/s, "events/s")
		})
	}
}

// BenchmarkMemory runs the default setting for its 60 s and for ten times
// as long (ten times the arrivals), with Run and with the reference: B/op,
// everything a run allocates, is an upper bound on its peak memory. Run's
// should not grow with the run; the reference's grows with the queue.
func BenchmarkMemory(b *testing.B) {
	for _, k := range []int{1, 10} {
		c := Lesson()
		c.Duration *= time.Duration(k)
		b.Run(fmt.Sprintf("arrivals=x%d", k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("arrivals=x%d/reference", k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RunReference(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
