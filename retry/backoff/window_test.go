package backoff

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// window's doubling path scales by building 2ⁿ from its exponent bits; it
// must give exactly what math.Ldexp gives, saturation included.
func TestWindowMatchesLdexp(t *testing.T) {
	bases := []time.Duration{-7, 0, 1, 3, 5 * time.Millisecond, 100 * time.Millisecond, time.Second, 1<<53 + 1, math.MaxInt64}
	caps := []time.Duration{0, time.Second, math.MaxInt64}
	for _, b := range bases {
		for _, c := range caps {
			t.Run(fmt.Sprintf("base=%d,cap=%d", b, c), func(t *testing.T) {
				for n := -2; n <= 70; n++ {
					want := clamp(math.Ldexp(float64(b), min(max(n, 0), 64)), limit(c))
					if got := window(b, c, 2, n); got != want {
						t.Fatalf("window(%d, %d, 2, %d) = %d, want %d (math.Ldexp)", b, c, n, got, want)
					}
				}
			})
		}
	}
}
