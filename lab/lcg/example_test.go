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

// The first draws from the lessons' seed, as lesson 00 shows them.
func ExampleDrawTable() {
	t, err := lcg.DrawTable(lcg.DefaultSeed, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(t)
	// Output:
	// draw   new state         u
	//    1  1228186590  0.571919
	//    2  1359714751  0.633167
	//    3  1937954956  0.902431
}
