package backoff_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/retry/backoff"
)

// The window doubles from Base until it reaches Cap; FullJitter waits
// anywhere below it (here the draw is always 0.5: half the window).
func Example() {
	p := backoff.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}
	half := constant(0.5)
	for n := range 5 {
		fmt.Printf("retry %d: window %v, wait %v\n", n, p.Ceiling(n), p.Delay(n, 0, half))
	}
	// Output:
	// retry 0: window 100ms, wait 50ms
	// retry 1: window 200ms, wait 100ms
	// retry 2: window 400ms, wait 200ms
	// retry 3: window 800ms, wait 400ms
	// retry 4: window 1s, wait 500ms
}

// constant is a Uniform that always draws the same value.
type constant float64

func (c constant) Float64() float64 { return float64(c) }
