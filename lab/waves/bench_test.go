package waves

import (
	"fmt"
	"testing"
	"time"

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
// in ns/draw: what the model costs beyond drawing and counting (its rules,
// a division for each attempt's slot, a call per attempt through the
// Attempts iterator).
func BenchmarkFloor(b *testing.B) {
	c, h := floorSetup(b)
	n := draws(c)
	for b.Loop() {
		floorLoop(c, h)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/draw")
}

// floorSetup returns the floor loop's configuration (BenchmarkDraws' run)
// and its histogram.
func floorSetup(b *testing.B) (Config, metrics.Histogram) {
	c := Lesson()
	c.Clients, c.Jitter = 1_000_000, 1
	h, err := metrics.NewHistogram(c.Slot, c.Window)
	if err != nil {
		b.Fatal(err)
	}
	return c, h
}

// floorLoop makes c's draws, each one generator step and one increment of
// h.
func floorLoop(c Config, h metrics.Histogram) {
	slots := uint64(len(h.Counts))
	g := lcg.MustNew(c.Seed)
	for range draws(c) {
		h.Counts[uint64(g.Next())*slots>>31]++
	}
}

// BenchmarkFloorShare times BenchmarkDraws' run and the floor loop in turns,
// one of each in every iteration, and reports the floor's time as a share
// of the run's ("floor/run-%"): the machine's other work slows both alike
// within an iteration, where two benchmarks run seconds apart can each meet
// different neighbours.
func BenchmarkFloorShare(b *testing.B) {
	c, h := floorSetup(b)
	m, err := New(c)
	if err != nil {
		b.Fatal(err)
	}
	var run, floor time.Duration
	for b.Loop() {
		t0 := time.Now()
		m.Run()
		t1 := time.Now()
		floorLoop(c, h)
		run, floor = run+t1.Sub(t0), floor+time.Since(t1)
	}
	b.ReportMetric(100*float64(floor)/float64(run), "floor/run-%")
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

// BenchmarkLessonSeeds is lesson 04's largest cell: the three jittered
// cases over 5000 seeds each (OverSeeds), about 96 million draws, the
// heaviest use any lesson makes of the model.
func BenchmarkLessonSeeds(b *testing.B) {
	seeds := Seeds(5000)
	cases := []Config{Lesson().WithJitter(1), Lesson().WithJitter(0.5), Exercise()}
	for b.Loop() {
		for _, c := range cases {
			if _, err := OverSeeds(c, seeds); err != nil {
				b.Fatal(err)
			}
		}
	}
}
