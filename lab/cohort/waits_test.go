package cohort

import (
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// TestWaitsMatchPolicies checks the simulator's own waits against each
// policy's Delay, bit for bit and draw for draw, over retry numbers past
// the doubling window's saturation, previous waits of every size and
// parameters at their limits.
func TestWaitsMatchPolicies(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		p    schedule.Policy
		kind int
	}{
		{"exponential", schedule.Exponential{Base: 100 * ms, Cap: 3200 * ms}, kindExponential},
		{"exponential uncapped", schedule.Exponential{Base: 7 * ms}, kindExponential},
		{"exponential multiplier 2", schedule.Exponential{Base: ms, Cap: time.Hour, Multiplier: 2}, kindExponential},
		{"exponential multiplier 3", schedule.Exponential{Base: 7 * ms, Multiplier: 3}, kindOther},
		{"full", schedule.FullJitter{Base: 100 * ms, Cap: 3200 * ms}, kindFull},
		{"full uncapped", schedule.FullJitter{Base: 3 * ms}, kindFull},
		{"full multiplier 1.5", schedule.FullJitter{Base: 3 * ms, Multiplier: 1.5}, kindOther},
		{"equal", schedule.EqualJitter{Base: 100 * ms, Cap: 3200 * ms}, kindEqual},
		{"equal uncapped", schedule.EqualJitter{Base: 1}, kindEqual},
		{"decorrelated", schedule.Decorrelated{Base: 100 * ms, Cap: 3200 * ms}, kindDecorrelated},
		{"decorrelated uncapped", schedule.Decorrelated{Base: 5 * ms}, kindDecorrelated},
		{"decorrelated multiplier 1", schedule.Decorrelated{Base: 5 * ms, Cap: time.Second, Multiplier: 1}, kindDecorrelated},
		{"decorrelated huge multiplier", schedule.Decorrelated{Base: 5 * ms, Multiplier: math.MaxFloat64}, kindDecorrelated},
		{"constant", schedule.Constant{Base: 100 * ms}, kindConstant},
		{"constant zero", schedule.Constant{}, kindConstant},
		{"uniform", schedule.UniformJitter{Base: 100 * ms, Cap: 3200 * ms, Width: 1}, kindOther},
		{"immediate", schedule.Immediate{}, kindOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWaits(tc.p)
			if w.kind != tc.kind {
				t.Fatalf("kind %d, want %d", w.kind, tc.kind)
			}
			mine, theirs := lcg.MustNew(11), lcg.MustNew(11)
			prev := time.Duration(0)
			for i := range 20000 {
				n := i % 130 // past the 64 doublings
				if i%7 == 0 {
					prev = time.Duration(mine.Next()) * time.Duration(i%1000) // previous waits of every size
					theirs.Next()
				}
				got, want := w.delay(n, prev, mine), tc.p.Delay(n, prev, theirs)
				if got != want {
					t.Fatalf("retry %d after %v: %v, want %v", n, prev, got, want)
				}
				prev = got
			}
			if mine.Next() != theirs.Next() {
				t.Errorf("the draws went out of step")
			}
		})
	}
}
