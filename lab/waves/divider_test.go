package waves

import (
	"math"
	"math/bits"
	"testing"

	"github.com/backofflab/backofflab/lab/lcg"
)

// The divider must give exactly n/d for every n below 2⁶³: checked at the
// edges (around multiples of d, powers of two, the largest n) and for
// seeded random n, for divisors of every size.
func TestDividerIsExact(t *testing.T) {
	g := lcg.MustNew(7)
	divisors := []uint64{1, 2, 3, 5, 7, 10, 1000, 1_000_000, 200_000_000, 1<<31 - 1, 1 << 32, 1<<32 + 1, 1e15, 1<<62 - 1, 1 << 62, 1<<62 + 1, math.MaxInt64}
	for range 200 {
		divisors = append(divisors, g.Uint64()>>(1+g.Next()%63)|1, g.Uint64()>>(1+g.Next()%63)+1)
	}
	for _, d := range divisors {
		v := newDivider(d)
		ns := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxInt64, math.MaxInt64 - 1}
		if hi, lo := bits.Mul64(d, math.MaxInt64/d); hi == 0 {
			ns = append(ns, lo, lo-1)
		}
		for range 200 {
			n := g.Uint64() >> 1
			ns = append(ns, n, n>>(g.Next()%63), n/d*d, n/d*d-1)
		}
		for _, n := range ns {
			if n > math.MaxInt64 {
				continue
			}
			if got := v.quo(n); got != n/d {
				t.Fatalf("divider(%d).quo(%d) = %d, want %d", d, n, got, n/d)
			}
		}
	}
}
