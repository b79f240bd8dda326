package waves

import (
	"fmt"
	"testing"
)

// BenchmarkRun reports attempts simulated per second and the memory of a
// run: allocations do not grow with the number of clients.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		for _, w := range []float64{0, 1} {
			b.Run(fmt.Sprintf("clients=%d/jitter=%g", n, w), func(b *testing.B) {
				c := Lesson()
				c.Clients, c.Jitter = n, w
				m, err := New(c)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				attempts := 0
				for b.Loop() {
					r := m.Run()
					attempts += r.Total + r.CutOff
				}
				b.ReportMetric(float64(attempts)/b.Elapsed().Seconds(), "attempts/s")
			})
		}
	}
}
