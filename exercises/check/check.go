// Package check holds the automatic checks of Backoff Lab's classroom
// exercises. Each check takes the learner's functions as values, calls them
// on the lesson's cases and returns nil when everything is right, or an
// error that says in plain words what is wrong and what was expected.
//
// The same checks run in three places: the learner's `go test -tags
// exercise` in an exercise package, a notebook's (hidden) test cell, and
// this package's own tests, which confirm that the solutions pass and the
// untouched stubs fail. A learner's function that panics is reported, not
// fatal: a stub's panic(NotImplemented) reads as "not written yet".
//
// The checks know the answers (some pinned from the lesson, some computed
// with the lab's packages), so reading them spoils the exercises.
package check

import (
	"fmt"
	"strings"
	"time"
)

// NotImplemented is the panic value of an exercise stub, the body that
// replaces each solution region: panic("not implemented").
const NotImplemented = "not implemented"

// NotRun is the panic value of an answer's placeholder. A notebook's setup
// cell declares every answer function as a placeholder that panics with
// NotRun naming the answer's cell; the answer cell, once it compiles and
// runs, replaces it (GoNB keeps the last declaration that compiled). So when
// an answer cell has a compile error, or was never run, the check cell still
// compiles and its list names that cell, instead of failing with "undefined"
// on a line of a generated file.
type NotRun struct {
	// Cell is the answer cell's title as the notebook shows it, e.g.
	// "2. Its peak".
	Cell string
}

// Problems is the error a check returns: every problem it found, in the
// order it found them, each a sentence for the learner.
type Problems []string

// Error lists the problems, numbered, after a one-line summary.
func (p Problems) Error() string {
	var b strings.Builder
	if len(p) == 1 {
		b.WriteString("1 thing to fix:")
	} else {
		fmt.Fprintf(&b, "%d things to fix:", len(p))
	}
	for i, s := range p {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, s)
	}
	return b.String()
}

// report collects problems during one check.
type report struct {
	problems Problems
	skip     map[string]bool // functions not to call again: not written yet, or stuck
}

func (r *report) add(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func (r *report) err() error {
	if len(r.problems) == 0 {
		return nil
	}
	return r.problems
}

// Timeout is how long a check waits for one call of the learner's
// function before reporting that it does not return.
var Timeout = 20 * time.Second

// call runs f, turning a panic, or a call that does not return within
// Timeout, into a problem about the function named name. It reports whether
// f returned normally; only then may the caller read what f stored.
func (r *report) call(name string, f func()) bool {
	if r.skip[name] {
		return false
	}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		if v == nil {
			return true
		}
		if nr, isNotRun := v.(NotRun); isNotRun {
			r.add("%s has not run yet, or its cell (%q) has an error: run that cell and fix the line its error names (\"line n\" counts from the top of the cell).", name, nr.Cell)
			r.skipFrom(name)
		} else if s, isString := v.(string); isString && s == NotImplemented {
			r.add("%s is not written yet: replace its panic(%q) with your code.", name, NotImplemented)
			r.skipFrom(name)
		} else {
			r.add("%s panicked (%v): a function should return an error for bad input, never panic.", name, v)
		}
	case <-time.After(Timeout):
		r.add("%s did not return within %v: does every loop in it stop?", name, Timeout)
		r.skipFrom(name)
	}
	return false
}

func (r *report) skipFrom(name string) {
	if r.skip == nil {
		r.skip = map[string]bool{}
	}
	r.skip[name] = true
}
