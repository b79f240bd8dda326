package synchrony

import (
	"testing"
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
