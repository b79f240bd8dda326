//go:build exercise

package overload

import (
	"testing"

	"github.com/backofflab/backofflab/exercises/check"
)

// TestOverload runs the exercise's check on your code:
//
//	go test -tags exercise ./exercises/waves/overload
//
// (The tag keeps the project's own test run, which checks the solutions,
// from failing on the unsolved stubs.)
func TestOverload(t *testing.T) {
	if err := check.Overload(Scenario, Peak, TimesCapacity); err != nil {
		t.Fatal(err)
	}
}
