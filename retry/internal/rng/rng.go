// Package rng holds the source of uniform draws that package retry and its
// breaker use when their Config names none.
package rng

import "math/rand/v2"

// Global draws from math/rand/v2's global generator, which is safe for
// concurrent use and seeded differently in every process.
type Global struct{}

// Float64 returns a draw in [0, 1).
func (Global) Float64() float64 { return rand.Float64() }
