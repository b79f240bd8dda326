package retry_test

import (
	"math/rand/v2"
	"time"

	"github.com/backofflab/backofflab/retry"
)

// constant is a policy that waits the same duration before every retry.
type constant time.Duration

func (c constant) Delay(int, time.Duration, retry.Uniform) time.Duration { return time.Duration(c) }

// seeded returns a generator with a fixed seed, so that jittered waits are
// the same on every run.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }
