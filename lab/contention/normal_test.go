package contention

import (
	"fmt"
	"math"
	"testing"

	"github.com/backofflab/backofflab/lab/lcg"
)

// TestNormalMoments checks the ziggurat's variates against the standard
// normal: mean, variance, the share beyond 2 and beyond 3.5 (where the
// tail algorithm takes over), each within five standard errors.
func TestNormalMoments(t *testing.T) {
	const n = 4_000_000
	for _, seed := range []int64{1, 1513241} {
		g := lcg.MustNew(seed)
		var sum, sq float64
		beyond2, beyond35 := 0, 0
		for range n {
			z := zig.standard(g)
			sum += z
			sq += z * z
			if math.Abs(z) > 2 {
				beyond2++
			}
			if math.Abs(z) > 3.5 {
				beyond35++
			}
		}
		for _, c := range []struct {
			name     string
			got, sd  float64
			want, se float64
		}{
			{"mean", sum / n, 0, 0, 1 / math.Sqrt(n)},
			{"variance", sq / n, 0, 1, math.Sqrt(2.0 / n)},
			{"P(|z| > 2)", float64(beyond2) / n, 0, 0.0455003, math.Sqrt(0.0455 * (1 - 0.0455) / n)},
			{"P(|z| > 3.5)", float64(beyond35) / n, 0, 0.000465258, math.Sqrt(0.000465 / n)},
		} {
			t.Run(fmt.Sprintf("seed %d %s", seed, c.name), func(t *testing.T) {
				if math.Abs(c.got-c.want) > 5*c.se {
					t.Errorf("%s = %.6f, want %.6f ± %.6f", c.name, c.got, c.want, 5*c.se)
				}
			})
		}
	}
}

// TestZigguratTables checks the layer tables: layer i ≥ 1 is the rectangle
// [0, x_i] × [f_i, f_{i−1}] under the curve exp(−x²/2), layer 0 the base
// [0, R] × [0, f(R)] with the tail beyond R, and every one has area zigV
// (layer 1, whose top is the peak, only as closely as R was chosen).
func TestZigguratTables(t *testing.T) {
	const m = 1 << zigBits
	f := func(x float64) float64 { return math.Exp(-x * x / 2) }
	area := func(i int) float64 {
		if i == 0 {
			return zigR*f(zigR) + math.Sqrt(math.Pi/2)*math.Erfc(zigR/math.Sqrt2)
		}
		return zig.w[i] * m * (zig.f[i-1] - zig.f[i])
	}
	for i := range zigLayers {
		tol := 1e-9
		if i <= 1 {
			tol = 1e-3
		}
		if a := area(i); math.Abs(a/zigV-1) > tol {
			t.Errorf("layer %d: area %.9g, want %.9g", i, a, zigV)
		}
		if i > 0 && math.Abs(zig.f[i]-f(zig.w[i]*m)) > 1e-12 {
			t.Errorf("layer %d: f = %v, want exp(-x²/2) at its edge %v", i, zig.f[i], zig.w[i]*m)
		}
		if i > 1 && zig.w[i] <= zig.w[i-1] {
			t.Errorf("layer %d is no wider than layer %d", i, i-1)
		}
	}
}
