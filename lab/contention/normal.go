package contention

import (
	"math"

	"github.com/backofflab/backofflab/lab/lcg"
)

// normal draws Normal(mean, sd) variates from the lab's generator by
// Marsaglia and Tsang's ziggurat ("The Ziggurat Method for Generating
// Random Variables", 2000) with 128 layers: nearly every variate costs one
// draw, a multiplication and a comparison; the rest (about 1 in 80) fall in
// a wedge or the tail and take a few draws and an exp or a log.
//
// A draw's top 7 bits pick the layer (an LCG's high bits are its best),
// the next bit the sign, and its low 23 bits the point within the layer.
type normal struct {
	g        *lcg.LCG
	mean, sd float64
}

// draw returns the next variate.
func (n *normal) draw() float64 { return n.mean + n.sd*zig.standard(n.g) }

// The ziggurat's parameters for 128 layers: zigR is where the tail starts,
// zigV the area of every layer (and of the base with the tail).
const (
	zigLayers = 128
	zigBits   = 23 // bits of the point within a layer
	zigR      = 3.442619855899
	zigV      = 9.91256303526217e-3
)

// ziggurat holds the layer tables: a point j of layer i is x = j·w[i]; it is
// inside the curve without more work if j < k[i]; f[i] is the density
// exp(−x²/2) at the layer's edge.
type ziggurat struct {
	k [zigLayers]uint32
	w [zigLayers]float64
	f [zigLayers]float64
}

var zig = newZiggurat()

// newZiggurat computes the tables as Marsaglia and Tsang's zigset does.
func newZiggurat() *ziggurat {
	var z ziggurat
	const m = 1 << zigBits
	dn, tn := zigR, zigR
	q := zigV / math.Exp(-0.5*dn*dn)
	z.k[0] = uint32(dn / q * m)
	z.k[1] = 0
	z.w[0] = q / m
	z.w[zigLayers-1] = dn / m
	z.f[0] = 1
	z.f[zigLayers-1] = math.Exp(-0.5 * dn * dn)
	for i := zigLayers - 2; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(zigV/dn+math.Exp(-0.5*dn*dn)))
		z.k[i+1] = uint32(dn / tn * m)
		tn = dn
		z.f[i] = math.Exp(-0.5 * dn * dn)
		z.w[i] = dn / m
	}
	return &z
}

// standard returns a Normal(0, 1) variate drawn from g. Its common case,
// a point inside its layer's rectangle, is small enough to be inlined; the
// rest is in rare.
func (z *ziggurat) standard(g *lcg.LCG) float64 {
	u := g.Next() // 31 bits
	i := u >> (zigBits + 1)
	j := u & (1<<zigBits - 1)
	if j >= z.k[i] {
		return z.rare(g, u)
	}
	return signed(float64(j)*z.w[i], u)
}

// signed gives x the sign bit of the draw u, without a branch: a coin
// flip is the one thing a branch predictor cannot learn.
func signed(x float64, u uint32) float64 {
	return math.Float64frombits(math.Float64bits(x) | uint64(u>>zigBits&1)<<63)
}

// rare finishes a draw u whose point is outside its layer's rectangle: in
// the base layer's tail, in the wedge under the curve, or outside the
// curve (then it draws again).
func (z *ziggurat) rare(g *lcg.LCG, u uint32) float64 {
	for {
		i := u >> (zigBits + 1)
		j := u & (1<<zigBits - 1)
		x := float64(j) * z.w[i]
		if j >= z.k[i] {
			if i == 0 {
				x = z.tail(g)
			} else if z.f[i]+(1-g.Float64())*(z.f[i-1]-z.f[i]) >= math.Exp(-0.5*x*x) {
				u = g.Next() // outside the curve: draw again
				continue
			}
		}
		return signed(x, u)
	}
}

// tail returns a variate from the normal's tail beyond zigR.
func (z *ziggurat) tail(g *lcg.LCG) float64 {
	for {
		x := -math.Log(1-g.Float64()) / zigR // 1−u is in (0, 1]
		y := -math.Log(1 - g.Float64())
		if y+y >= x*x {
			return zigR + x
		}
	}
}
