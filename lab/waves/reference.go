package waves

// This file is the whole model of the Waves lessons: their rules, in the
// order lesson 01 states them, and nothing else. Every number the lessons
// print comes from it; the rest of the package configures it, sweeps it and
// draws what it returns.

import (
	"iter"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
)

// Attempts returns every attempt the clients make, in client-major order:
// client 0's attempts in order, then client 1's, and so on. Each pass
// replays the same run from the seed.
func (m *Model) Attempts() iter.Seq[Attempt] {
	return func(yield func(Attempt) bool) {
		c := m.cfg
		g := lcg.MustNew(c.Seed) // the lessons' generator; Validate checked the seed
		// N clients fail together at t = 0; the dependency they call
		// stays down for the outage.
		draws := make([]float64, c.Attempts)
		for client := range c.Clients {
			// Every client takes one draw per attempt, whether or not it
			// makes the attempt, so that a client's draws do not depend
			// on what became of the clients before it.
			for i := range draws {
				draws[i] = g.Float64()
			}
			for i := 1; i <= c.Attempts; i++ {
				// Attempt i is scheduled at dᵢ = Base·2ⁱ⁻¹ after the
				// failure. Jitter of width w moves it to
				// dᵢ·(1 − w/2 + w·u): into a band w·dᵢ wide centred on
				// dᵢ, placed from the failure, not from the attempt
				// before.
				d := float64(m.Nominal(i))
				at := d * (1 - c.Jitter/2 + float64(c.Jitter*draws[i-1])) // float64(): no fused multiply-add
				a := Attempt{Client: client, N: i, At: saturate(at)}
				// An attempt after the outage succeeds and the client
				// stops; one at or after the window is not counted, and
				// the client stops too.
				switch {
				case a.At >= c.Window:
					a.Outcome = PastWindow
				case a.At >= c.Outage:
					a.Outcome = Succeeded
				default:
					a.Outcome = Failed
				}
				if !yield(a) {
					return
				}
				if a.Outcome != Failed {
					break
				}
			}
		}
	}
}

// Run counts every attempt of Attempts: the counted ones in slots of
// Config.Slot, and each client by what became of it. Its memory is the
// histogram's, whatever the number of clients.
func (m *Model) Run() Result {
	h, _ := metrics.NewHistogram(m.cfg.Slot, m.cfg.Window) // New checked that the slots fit
	r := Result{Config: m.cfg, Histogram: h}
	for a := range m.Attempts() {
		left := m.cfg.Attempts - a.N // the client's planned attempts after this one
		switch a.Outcome {
		case Failed:
			r.Histogram.Add(a.At)
			r.Total++
			if left == 0 {
				r.Exhausted++
			}
		case Succeeded:
			r.Histogram.Add(a.At)
			r.Total++
			r.Recovered++
			r.SkippedAfterSuccess += left
		case PastWindow:
			r.CutOff++
			r.SkippedPastWindow += 1 + left
		}
	}
	return r
}
