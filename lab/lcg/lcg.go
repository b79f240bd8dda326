// Package lcg implements the seeded linear congruential generator that every
// Backoff Lab lesson draws from:
//
//	s ← (1103515245·s + 12345) mod 2³¹,  u = s / 2³¹
//
// The uniform draw u is the new state scaled to [0, 1), so a reader who knows
// the seed can reproduce every number a lesson prints. The generator is small
// and fast, not statistically strong: use it for reproducible teaching
// simulations, never for anything that needs unpredictability.
package lcg

import (
	"fmt"
	"math/rand/v2"
)

const (
	// Multiplier is the LCG's multiplier a.
	Multiplier = 1103515245
	// Increment is the LCG's increment c.
	Increment = 12345
	// Modulus is the LCG's modulus m = 2³¹.
	Modulus = 1 << 31
)

// LCG is the lessons' generator. Its zero value is a generator seeded with 0,
// ready to use. An LCG is not safe for concurrent use.
type LCG struct {
	state uint32
}

// DefaultSeed is the seed the lessons use unless a cell says otherwise. With
// it, the waves model reproduces the classic figures of the Waves lesson
// exactly (3000/s without jitter, 925/s with full-width jitter, for 600
// clients).
const DefaultSeed = 1513241

// New returns a generator seeded with seed. The seed must lie in
// [0, 2³¹); anything else is an error, because the state has 31 bits and a
// silently reduced seed would not reproduce the figure the reader asked for.
func New(seed int64) (*LCG, error) {
	if seed < 0 || seed >= Modulus {
		return nil, fmt.Errorf("lcg: seed %d out of range: want 0 <= seed < 2^31 (2147483648)", seed)
	}
	return &LCG{state: uint32(seed)}, nil
}

// MustNew is like New but panics on an invalid seed. It is meant for
// package-level variables and examples with constant seeds.
func MustNew(seed int64) *LCG {
	g, err := New(seed)
	if err != nil {
		panic(err)
	}
	return g
}

// State returns the current state (the last value drawn, or the seed).
func (g *LCG) State() uint32 { return g.state }

// Next advances the generator and returns the new state, in [0, 2³¹).
func (g *LCG) Next() uint32 {
	g.state = (Multiplier*g.state + Increment) & (Modulus - 1)
	return g.state
}

// Float64 advances the generator and returns the new state divided by 2³¹:
// a uniform draw in [0, 1).
func (g *LCG) Float64() float64 {
	return float64(g.Next()) / Modulus
}

// Uint64 returns 64 bits built from three draws (31 + 31 + the top 2 bits of
// the third), so an *LCG satisfies math/rand/v2's Source and can drive a
// rand.Rand: rand.New(lcg.MustNew(seed)).
func (g *LCG) Uint64() uint64 {
	a := uint64(g.Next())
	b := uint64(g.Next())
	c := uint64(g.Next())
	return a<<33 | b<<2 | c>>29
}

var _ rand.Source = (*LCG)(nil)
