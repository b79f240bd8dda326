package check

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Passed is what Verdict prints when every check passes.
const Passed = "All checks pass."

// All merges the results of several checks into one: nil when every one
// is nil, otherwise one Problems list holding every problem in order. A
// notebook's test cell uses it to add its hidden checks to the visible
// ones.
func All(errs ...error) error {
	var all Problems
	for _, err := range errs {
		var p Problems
		switch {
		case err == nil:
		case errors.As(err, &p):
			all = append(all, p...)
		default:
			all = append(all, err.Error())
		}
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

// Verdict writes what a test cell tells the learner: Passed, or the
// numbered list of problems. It reports whether everything passed.
func Verdict(w io.Writer, errs ...error) bool {
	err := All(errs...)
	if err == nil {
		fmt.Fprintln(w, Passed)
		return true
	}
	fmt.Fprintln(w, err)
	return false
}

// Conclude ends a notebook's test cell: it prints the Verdict on standard
// output and, when something is wrong, ends the cell's program with exit
// status 1. Jupyter then marks the cell as failed, which is what nbgrader
// scores as zero points, and the learner reads the list above the error
// instead of a Go stack trace.
func Conclude(errs ...error) {
	if !Verdict(os.Stdout, errs...) {
		os.Exit(1)
	}
}
