package deadline_test

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/deadline"
)

// The lesson's comparison: the same 1000 requests, the same draws, three
// ways of treating the deadline.
func Example() {
	rs, err := deadline.Compare(deadline.Lesson())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mode                attempts  wasted  in time  late  gave up")
	for i, r := range rs {
		fmt.Printf("%-18v  %8d  %6d  %7d  %4d  %7d\n", deadline.Modes()[i], r.Attempts, r.Wasted, r.InTime, r.Late, r.GaveUp)
	}
	// Output:
	// mode                attempts  wasted  in time  late  gave up
	// oblivious               3291     306      627   100        0
	// check on wake           3030      45      627    10      259
	// check before sleep      2953       0      624     0      307
}

