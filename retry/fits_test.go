package retry_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry"
)

func TestFits(t *testing.T) {
	const max = time.Duration(math.MaxInt64)
	for _, tc := range []struct {
		name              string
		wait, worst, left time.Duration
		want              bool
	}{
		{"ends exactly at the deadline: in time", 100, 50, 150, true},
		{"ends 1ns after the deadline", 100, 51, 150, false},
		{"nothing to do, no time left", 0, 0, 0, true},
		{"any attempt, no time left", 0, 1, 0, false},
		{"the deadline has passed", 10, 10, -1, false},
		{"a negative wait counts as 0", -5, 10, 10, true},
		{"a negative worst case counts as 0", 10, -5, 10, true},
		{"huge wait and worst case", max, max, max, false},
		{"huge wait alone", max, 0, max, true},
		{"would overflow if added", max - 1, 2, max, false},
		{"huge worst case", 1, max, max, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retry.Fits(tc.wait, tc.worst, tc.left); got != tc.want {
				t.Errorf("Fits(%d, %d, %d) = %v, want %v", tc.wait, tc.worst, tc.left, got, tc.want)
			}
		})
	}
}

// The check before sleeping: 800 ms left, a 500 ms wait, attempts that take
// up to 250 ms fit; attempts that take up to 350 ms do not.
func ExampleFits() {
	left := 800 * time.Millisecond
	fmt.Println(retry.Fits(500*time.Millisecond, 250*time.Millisecond, left))
	fmt.Println(retry.Fits(500*time.Millisecond, 350*time.Millisecond, left))
	// Output:
	// true
	// false
}
