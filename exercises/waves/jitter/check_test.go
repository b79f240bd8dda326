//go:build exercise

package jitter

import (
	"testing"

	"github.com/backofflab/backofflab/exercises/check"
)

// TestJittered runs the exercise's check on your code:
//
//	go test -tags exercise ./exercises/waves/jitter
//
// (The tag keeps the project's own test run, which checks the solutions,
// from failing on the unsolved stubs.)
func TestJittered(t *testing.T) {
	if err := check.Jitter(Jittered); err != nil {
		t.Fatal(err)
	}
}
