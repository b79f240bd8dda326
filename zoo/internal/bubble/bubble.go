// Package bubble runs a function inside a testing/synctest bubble, where time
// is fake: a goroutine that sleeps for a minute returns at once, and
// time.Now has advanced by exactly a minute. It lets the zoo run a retry
// library's whole loop, sleeps included, for a thousand clients in well
// under a second, in a test, on the command line and in a notebook cell.
//
// synctest only offers bubbles to tests (synctest.Test takes a *testing.T).
// Inside a test binary, Run starts a subtest-free test through
// testing.RunTests. Elsewhere it first starts the testing package once with
// testing.MainStart, which the Go team documents as meant for 'go test' and
// free to change between releases: this package is pinned to the Go version
// in go.mod, and its test fails loudly if that changes.
package bubble

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

var (
	mu      sync.Mutex // one bubble at a time: testing's globals are not ours
	started bool
	// outside and back lead to and from a goroutine outside the running
	// bubble. Both are made outside the bubble: waiting on a channel made
	// inside would count as durably blocked and stop the fake clock's
	// bookkeeping from seeing that the outside goroutine is working.
	outside chan func()
	back    chan struct{}
)

// Outside calls f on a goroutine outside the running bubble, where time.Now
// is the real clock, and returns when f has returned. Use it for library code
// that seeds a generator from the clock: inside the bubble every client would
// read the same fake instant and draw the same numbers. Outside must be
// called from inside Run's f.
func Outside(f func()) {
	outside <- f
	<-back
}

// Run calls f inside a synctest bubble and returns when f and every goroutine
// it started have returned. It returns an error if the bubble failed: f
// panicked or a test helper failed. If goroutines of the bubble are still
// blocked forever when f returns, synctest panics and the program stops, as
// it would on a deadlock.
func Run(f func()) error {
	mu.Lock()
	defer mu.Unlock()
	outside, back = make(chan func()), make(chan struct{})
	defer close(outside)
	go func(work chan func(), back chan struct{}) {
		for f := range work {
			f()
			back <- struct{}{}
		}
	}(outside, back)
	var panicked any
	test := testing.InternalTest{Name: "bubble", F: func(t *testing.T) {
		synctest.Test(t, func(*testing.T) {
			defer func() { panicked = recover() }()
			f()
		})
	}}
	var ok bool
	if testing.Testing() || started {
		ok = quietly(func() bool { return testing.RunTests(matchAll, []testing.InternalTest{test}) })
	} else {
		// The first run outside a test binary initialises the testing
		// package's run settings (its CPU list) through M.Run.
		m := testing.MainStart(deps{}, []testing.InternalTest{test}, nil, nil, nil)
		if !flag.Parsed() {
			// M.Run would parse the program's own arguments as test flags.
			flag.CommandLine.Parse(nil)
		}
		ok = quietly(func() bool { return m.Run() == 0 })
		started = true
	}
	if panicked != nil {
		return fmt.Errorf("bubble: %v", panicked)
	}
	if !ok {
		return errors.New("bubble: the fake-time run failed (goroutines left blocked?)")
	}
	return nil
}

func matchAll(string, string) (bool, error) { return true, nil }

// quietly runs f with the testing package's own lines kept out of the
// caller's output. Outside test binaries, os.Stdout goes to nowhere, where
// the testing package would print "PASS". In a test binary run with -v, the
// testing package prints "=== RUN   bubble" and "--- PASS: bubble" on
// os.Stdout, which an Example captures as its output: those two lines are
// dropped, and everything else (what f prints, a failure's report) is kept.
func quietly(f func() bool) bool {
	if testing.Testing() && !testing.Verbose() {
		return f()
	}
	saved := os.Stdout
	if !testing.Testing() {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return f()
		}
		defer null.Close()
		os.Stdout = null
		defer func() { os.Stdout = saved }()
		return f()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return f()
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		lines := bufio.NewScanner(r)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			if l := lines.Text(); !chattyLine.MatchString(l) {
				fmt.Fprintln(saved, l)
			}
		}
		io.Copy(saved, r) // a line too long to scan
	}()
	os.Stdout = w
	ok := f()
	os.Stdout = saved
	w.Close()
	<-copied
	r.Close()
	return ok
}

// chattyLine is a line the testing package prints under -v for the bubble's
// test when it runs or passes.
var chattyLine = regexp.MustCompile(`^(=== (RUN|PAUSE|CONT|NAME) +bubble|--- PASS: bubble \(.*\))$`)

// deps is the smallest implementation of the testing package's unexported
// testDeps interface that runs plain tests: no profiles, fuzzing or coverage.
type deps struct{}

type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

func (deps) ImportPath() string                          { return "" }
func (deps) ModulePath() string                          { return "" }
func (deps) MatchString(pat, str string) (bool, error)   { return true, nil }
func (deps) SetPanicOnExit0(bool)                        {}
func (deps) StartCPUProfile(io.Writer) error             { return errors.New("bubble: no profiles") }
func (deps) StopCPUProfile()                             {}
func (deps) StartTestLog(io.Writer)                      {}
func (deps) StopTestLog() error                          { return nil }
func (deps) WriteProfileTo(string, io.Writer, int) error { return errors.New("bubble: no profiles") }
func (deps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return errors.New("bubble: no fuzzing")
}
func (deps) RunFuzzWorker(func(corpusEntry) error) error { return errors.New("bubble: no fuzzing") }
func (deps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, errors.New("bubble: no fuzzing")
}
func (deps) CheckCorpus([]any, []reflect.Type) error { return nil }
func (deps) ResetCoverage()                          {}
func (deps) SnapshotCoverage()                       {}
func (deps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
