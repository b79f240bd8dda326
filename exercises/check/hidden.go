package check

import (
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/waves"
)

// The hidden checks: extra cases that exercise notebooks run between
// "BEGIN HIDDEN TESTS" and "END HIDDEN TESTS", so that the learner's
// version does not show them. They call the learner's functions on runs
// the visible checks do not use, which catches answers written to fit the
// visible cases (a peak that only knows the exercise's numbers, say).

// OverloadHidden checks the 2000-client exercise's peak(c) on runs other
// than the exercise's: other seeds, populations, widths, slots and bases.
// Each must equal the peak waves.Run measures.
func OverloadHidden(peak func(waves.Config) (metrics.Peak, error)) error {
	var r report
	x := waves.Exercise()
	for _, c := range []waves.Config{
		x.WithSeed(7),
		x.WithClients(1000).WithJitter(0.5),
		x.WithSlot(100 * ms),
		x.WithBase(2700 * ms).WithSeed(42),
	} {
		want, err := waves.Run(c)
		if err != nil {
			panic(err) // the cases are valid
		}
		var got metrics.Peak
		if !r.call("Peak", func() { got, err = peak(c) }) {
			break
		}
		if err != nil || got != want.Peak() {
			r.add("Peak for a run with %s at %v slots returned %v%s, want %v: Peak must run whatever configuration it is given, not only the exercise's.",
				c.Label(), c.Slot, got, errNote(err), want.Peak())
		}
	}
	return r.err()
}

// JitterHidden checks jittered(d, w, u) on 200 seeded random cases over
// the whole range: d from 1 ms to 64 s, w from 0 to 2, u in [0, 1).
func JitterHidden(jittered func(d time.Duration, w, u float64) time.Duration) error {
	var r report
	g := lcg.MustNew(20260)
	for range 200 {
		d := time.Duration(float64(ms) * (1 + 64000*g.Float64()))
		w, u := 2*g.Float64(), g.Float64()
		want := time.Duration(float64(d) * (1 - w/2 + w*u))
		var got time.Duration
		if !r.call("Jittered", func() { got = jittered(d, w, u) }) {
			break
		}
		if got-want > 1 || want-got > 1 {
			r.add("Jittered(%v, %.6g, %.6g) = %v, want %v: the attempt is at d·(1 − w/2 + w·u) for every d, w in [0, 2] and u in [0, 1).", d, w, u, got, want)
			break
		}
	}
	return r.err()
}

// BaseHidden checks the rehearsal's smallestBase on another capacity and
// step than the visible check uses.
func BaseHidden(smallestBase func(c waves.Config, capacity float64, step time.Duration) (time.Duration, error)) error {
	var r report
	for _, tc := range []struct {
		capacity float64
		step     time.Duration
	}{
		{1500, 250 * ms},
		{2000, 50 * ms},
	} {
		want, err := firstFit(waves.Exercise(), tc.capacity, tc.step)
		if err != nil {
			panic(err) // the cases have an answer
		}
		var got time.Duration
		if !r.call("SmallestBase", func() { got, err = smallestBase(waves.Exercise(), tc.capacity, tc.step) }) {
			break
		}
		if err != nil || got != want {
			r.add("SmallestBase for 2000 clients, %v/s and %v steps returned %v%s, want %v: step the base from step upwards and stop at the first that fits.",
				tc.capacity, tc.step, got, errNote(err), want)
		}
	}
	return r.err()
}
