package retry_test

import (
	"math/rand/v2"
)

// seeded returns a generator with a fixed seed, so that jittered waits are
// the same on every run.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }
