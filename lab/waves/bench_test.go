package waves

import (
	"fmt"
	"testing"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
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

// draws returns how many generator draws a run of c takes: every client
// takes Attempts draws, used or not.
func draws(c Config) int { return c.Clients * c.Attempts }

// BenchmarkFloor is the floor loop: per draw, one generator step and one
// histogram increment (the slot by a multiply and a shift, no division),
// over as many draws as BenchmarkDraws' run. Runs are measured against it
// in ns/draw. Its time is the generator's chain, one multiply-add per draw
// waiting for the one before; the run's count is not tied to that chain (it
// reaches each of a client's draws by a jump from the client's first
// state), so it is bound by its own work instead.
func BenchmarkFloor(b *testing.B) {
	c := Lesson()
	c.Clients, c.Jitter = 1_000_000, 1
	h, err := metrics.NewHistogram(c.Slot, c.Window)
	if err != nil {
		b.Fatal(err)
	}
	slots := uint64(len(h.Counts))
	n := draws(c)
	for b.Loop() {
		g := lcg.MustNew(c.Seed)
		for range n {
			h.Counts[uint64(g.Next())*slots>>31]++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/draw")
}

// BenchmarkDraws runs a million clients with full-width jitter, the
// floor's twin, and reports the cost per draw.
func BenchmarkDraws(b *testing.B) {
	c := Lesson()
	c.Clients, c.Jitter = 1_000_000, 1
	m, err := New(c)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Run()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*draws(c)), "ns/draw")
}
