//go:build exercise

package base

import (
	"testing"

	"github.com/backofflab/backofflab/exercises/check"
)

// TestBase runs the exercise's check on your code:
//
//	go test -tags exercise ./exercises/waves/base
//
// (The tag keeps the project's own test run, which checks the solutions,
// from failing on the unsolved stubs.)
func TestBase(t *testing.T) {
	if err := check.Base(Estimate, SmallestBase, ErrStep, ErrNoFit); err != nil {
		t.Fatal(err)
	}
}
