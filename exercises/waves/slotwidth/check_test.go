//go:build exercise

package slotwidth

import (
	"testing"

	"github.com/backofflab/backofflab/exercises/check"
)

// TestHalvingWidth runs the exercise's check on your code:
//
//	go test -tags exercise ./exercises/waves/slotwidth
//
// (The tag keeps the project's own test run, which checks the solutions,
// from failing on the unsolved stubs.)
func TestHalvingWidth(t *testing.T) {
	if err := check.SlotWidth(HalvingWidth, ErrNoWidths, ErrNoHalving); err != nil {
		t.Fatal(err)
	}
}
