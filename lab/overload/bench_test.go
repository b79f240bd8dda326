package overload

import "testing"

// BenchmarkRun reports the simulator's speed for the lesson's 60 s runs:
// ticks and attempts per second of wall time, and events/s counting each
// tick and each attempt as one event.
func BenchmarkRun(b *testing.B) {
	for name, c := range map[string]Config{
		"plain":   Default(),
		"budget":  Default().WithBudget(),
		"breaker": Default().WithBreaker(),
		"pacing":  Default().WithPacing(),
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
