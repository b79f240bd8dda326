package synchrony

import (
	"testing"
	"time"
)

// BenchmarkArrivals reports attempts generated per second for the lesson's
// cohort under each policy.
func BenchmarkArrivals(b *testing.B) {
	for _, p := range lineup(b, LessonBase, LessonCap) {
		b.Run(p.Name, func(b *testing.B) {
			c := Lesson().WithPolicy(p.Policy)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				a, err := c.Arrivals()
				if err != nil {
					b.Fatal(err)
				}
				n += len(a)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "attempts/s")
		})
	}
}

// BenchmarkLessonTable times the notebook's main table: four cohorts of a
// thousand clients, each measured twice.
func BenchmarkLessonTable(b *testing.B) {
	for b.Loop() {
		if _, err := LessonTable(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMeasure reports events read per second by both detectors.
func BenchmarkMeasure(b *testing.B) {
	ev, err := Cron{Instances: 1000, Period: time.Minute, Runs: 100, Offset: 1, Seed: 1}.Events()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Measure(Times(ev), time.Second); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ev))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
