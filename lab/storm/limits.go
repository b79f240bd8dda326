package storm

import (
	"errors"
	"fmt"
)

// ErrDescriptors is the error CheckDescriptors wraps when the process may
// not open enough files for a run.
var ErrDescriptors = errors.New("not enough file descriptors")

// Descriptors returns about how many file descriptors a run with n clients
// holds at once: each client's connection has two ends in this process,
// plus some for the server, the runtime and the standard files.
func Descriptors(n int) int { return 2*n + 64 }

// CheckDescriptors reports whether this process may open enough files for
// a run with n clients, raising its soft limit towards the hard one if
// that helps. The error names the clients, what they need, the limit and
// the largest cohort that fits; it wraps ErrDescriptors. Without such a
// check a run past the limit does not fail: the server stops accepting
// ("too many open files") and the warm-up waits for ever.
func CheckDescriptors(n int) error {
	need := uint64(Descriptors(n))
	soft, hard, ok := openFileLimit()
	if !ok || soft >= need {
		return nil
	}
	if hard >= need {
		if raiseOpenFileLimit(need) {
			return nil
		}
	}
	fit := 0
	if limit := min(soft, hard); limit > uint64(Descriptors(0)) {
		fit = int((limit - uint64(Descriptors(0))) / 2)
	}
	return fmt.Errorf("storm: clients %d need about %d open files, but the limit is %d (hard limit %d): want clients <= %d, or a higher limit (ulimit -n): %w",
		n, need, soft, hard, fit, ErrDescriptors)
}

// describeLimit returns the soft open-file limit, or "unknown".
func describeLimit() string {
	if soft, _, ok := openFileLimit(); ok {
		return fmt.Sprint(soft)
	}
	return "unknown"
}
