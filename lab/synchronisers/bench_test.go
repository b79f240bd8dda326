package synchronisers

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
)

// BenchmarkMeasure reports events read per second by both detectors.
func BenchmarkMeasure(b *testing.B) {
	ev, err := Cron{Instances: 1000, Period: time.Minute, Runs: 100, Offset: 1, Seed: 1}.Events()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := metrics.Measure(metrics.Times(ev), time.Second); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ev))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
