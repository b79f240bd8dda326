package lcg_test

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/lcg"
)

// Three uniform draws from the lessons' default seed: the same on every machine.
func Example() {
	g := lcg.MustNew(1513241)
	for i := 0; i < 3; i++ {
		fmt.Printf("%.6f\n", g.Float64())
	}
	// Output:
	// 0.571919
	// 0.633167
	// 0.902431
}
