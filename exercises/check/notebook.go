package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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

// List is how a notebook's test cell shows problems: one line per
// problem, each marked ✗, then a line that says what to do. Unlike
// Problems.Error it carries no numbering and no summary count, so a learner
// reads it as a checklist.
func List(err error) string {
	var p Problems
	if !errors.As(err, &p) {
		p = Problems{err.Error()}
	}
	var b strings.Builder
	for _, s := range p {
		fmt.Fprintf(&b, "✗ %s\n", s)
	}
	if len(p) == 1 {
		b.WriteString("1 check fails: fix it and run this cell again.\n")
	} else {
		fmt.Fprintf(&b, "%d checks fail: fix them and run this cell again.\n", len(p))
	}
	return b.String()
}

// Verdict writes what a test cell tells the learner: Passed on pass, and
// otherwise the List of problems on fail. It reports whether everything
// passed; a caller that needs both streams apart uses Conclude.
func Verdict(pass, fail io.Writer, errs ...error) bool {
	err := All(errs...)
	if err == nil {
		fmt.Fprintln(pass, Passed)
		return true
	}
	fmt.Fprint(fail, List(err))
	return false
}

// Conclude ends a notebook's test cell: it prints Passed on standard output,
// or the List of problems on standard error, and returns normally either way.
//
// Standard error is the verdict: Jupyter shows it as a red block under the
// cell, and nbgrader scores a test cell with any output on standard error as
// zero points (and one without as full marks), so the cell needs no exit
// status of its own. Ending the program with os.Exit(1) would add an error
// box saying "exit status 1" under the list, and tell the learner nothing.
func Conclude(errs ...error) {
	Verdict(os.Stdout, os.Stderr, errs...)
}
