// Package slotwidth is an exercise from the Waves lesson: how wide can a
// histogram slot be before it hides a spike? Count the attempts once at a
// fine slot (1 ms), read the peak rate at wider and wider slots, and find
// the first width at which the reported peak has fallen to half of what the
// finest slot showed.
//
// Write HalvingWidth below, then run the check:
//
//	go test -tags exercise ./exercises/waves/slotwidth
package slotwidth

import (
	"errors"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
)

// Errors HalvingWidth returns.
var (
	// ErrNoWidths: there is no width to measure at.
	ErrNoWidths = errors.New("slotwidth: no slot widths given")
	// ErrNoHalving: no width reports half the first width's peak rate.
	ErrNoHalving = errors.New("slotwidth: the reported peak never falls to half over these widths")
)

// HalvingWidth measures the peak rate of the events counted in fine at each
// of widths (increasing, each a whole multiple of fine.Slot) and returns the
// first width whose peak rate is at most half the peak rate at widths[0].
// Without widths it returns ErrNoWidths; when no width halves the peak,
// ErrNoHalving; for a width that is not a multiple of fine.Slot, an error.
func HalvingWidth(fine metrics.Histogram, widths []time.Duration) (time.Duration, error) {
	// YOUR CODE HERE
	panic("not implemented")
}
