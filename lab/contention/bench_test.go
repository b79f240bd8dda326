package contention

import (
	"testing"

	"github.com/backofflab/backofflab/lab/schedule"
)

// BenchmarkRun reports the simulator's speed in delivered messages per
// second, for 100 clients without backoff (the busiest policy).
func BenchmarkRun(b *testing.B) {
	for _, policy := range []string{schedule.NameImmediate, schedule.NameFull} {
		b.Run(policy, func(b *testing.B) {
			c := Lesson().WithPolicy(policy)
			events := 0
			for b.Loop() {
				r, err := Run(c)
				if err != nil {
					b.Fatal(err)
				}
				events += r.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}

// BenchmarkBrookerSweep times Brooker's whole experiment: 10 to 190 clients
// in steps of 10, 100 runs each, for the five policies. Run it with -cpu 1
// to compare with Brooker's single-threaded Python simulator (about 77 s
// for the same sweep on the machine of issue 14).
func BenchmarkBrookerSweep(b *testing.B) {
	events := 0
	for b.Loop() {
		ms, err := Sweep(Lesson(), SweepClients(), Policies(), 100)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			events += m.Events
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
