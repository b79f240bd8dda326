package deadline_test

import (
	"fmt"
	"time"

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

// The check before sleeping: 800 ms left, a 500 ms wait, attempts that take
// up to 250 ms fit; attempts that take up to 350 ms do not.
func ExampleFits() {
	left := 800 * time.Millisecond
	fmt.Println(deadline.Fits(500*time.Millisecond, 250*time.Millisecond, left))
	fmt.Println(deadline.Fits(500*time.Millisecond, 350*time.Millisecond, left))
	// Output:
	// true
	// false
}
