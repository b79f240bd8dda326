package retry_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry"
)

// fixed is a Uniform that returns the same draw every time.
type fixed float64

func (f fixed) Float64() float64 { return float64(f) }

func TestFullJitterDelay(t *testing.T) {
	p := retry.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}
	for _, tc := range []struct {
		name string
		n    int
		u    retry.Uniform
		want time.Duration
	}{
		{"half the first window", 0, fixed(0.5), 50 * time.Millisecond},
		{"the window doubles", 2, fixed(0.5), 200 * time.Millisecond},
		{"the cap bounds the window", 10, fixed(0.5), 500 * time.Millisecond},
		{"a draw of 0 waits 0", 3, fixed(0), 0},
		{"a negative n counts as 0", -4, fixed(0.5), 50 * time.Millisecond},
		{"a nil Uniform draws 0.5", 1, nil, 100 * time.Millisecond},
		{"a NaN draw counts as 0", 1, fixed(math.NaN()), 0},
		{"a negative draw counts as 0", 1, fixed(-3), 0},
		{"a draw of 1 stays below the window", 0, fixed(1), 100*time.Millisecond - 1},
		{"a huge n saturates at the cap", math.MaxInt, fixed(0.5), 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Delay(tc.n, 0, tc.u); got != tc.want {
				t.Errorf("Delay(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
	uncapped := retry.FullJitter{Base: time.Second}
	if got := uncapped.Ceiling(math.MaxInt); got != math.MaxInt64 {
		t.Errorf("uncapped Ceiling(MaxInt) = %v, want the largest Duration", got)
	}
}

func TestFullJitterValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    retry.FullJitter
		want string // "" for valid
	}{
		{"default", retry.FullJitter{Base: 100 * time.Millisecond, Cap: 10 * time.Second}, ""},
		{"uncapped", retry.FullJitter{Base: time.Millisecond}, ""},
		{"zero base", retry.FullJitter{}, "base 0s out of range"},
		{"negative base", retry.FullJitter{Base: -1}, "base -1ns out of range"},
		{"negative cap", retry.FullJitter{Base: 1, Cap: -1}, "cap -1ns out of range"},
		{"cap below base", retry.FullJitter{Base: 2, Cap: 1}, "cap 1ns below base 2ns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func ExampleFullJitter() {
	p := retry.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}
	fmt.Println(p)
	fmt.Println(p.Ceiling(0), p.Ceiling(1), p.Ceiling(2), p.Ceiling(3), p.Ceiling(4))
	fmt.Println(p.Delay(3, 0, fixed(0.25))) // a quarter of the 800ms window
	// Output:
	// full(base=100ms cap=1s mult=2)
	// 100ms 200ms 400ms 800ms 1s
	// 200ms
}
