package bubble

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRunUsesFakeTime(t *testing.T) {
	var slept time.Duration
	var started time.Time
	err := Run(func() {
		started = time.Now()
		time.Sleep(time.Hour)
		slept = time.Since(started)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Exactly an hour of the bubble's clock, from synctest's epoch: fake time. (A real hour
	// would outlast go test's timeout; the test reads no wall clock, so no load can fail it.)
	if slept != time.Hour {
		t.Errorf("slept %v in the bubble, want exactly 1h", slept)
	}
	if want := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); !started.Equal(want) {
		t.Errorf("the bubble started at %v, want synctest's %v", started, want)
	}
}

func TestRunReportsAPanic(t *testing.T) {
	err := Run(func() { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Run = %v, want an error carrying the panic", err)
	}
	// The bubble after a panic still works.
	if err := Run(func() { time.Sleep(time.Second) }); err != nil {
		t.Fatal(err)
	}
}

func TestOutsideSeesTheRealClock(t *testing.T) {
	var inside, outside time.Time
	err := Run(func() {
		inside = time.Now()
		Outside(func() { outside = time.Now() })
	})
	if err != nil {
		t.Fatal(err)
	}
	if inside.Year() != 2000 || outside.Year() < 2025 {
		t.Errorf("inside %v, outside %v: want the fake year 2000 inside and the real clock outside", inside, outside)
	}
}

// The testing-package hooks this package relies on belong to one Go release.
func TestGoVersion(t *testing.T) {
	if v := runtime.Version(); !strings.HasPrefix(v, "go1.26") {
		t.Errorf("built with %s: check deps against testing.testDeps of this release, then update this test", v)
	}
}

// An Example's output is what it prints, whether go test runs with -v or
// not: under -v the testing package would print the bubble's own
// "=== RUN   bubble" into it. The test runs this test binary again, verbose,
// on ExampleRun.
func TestExampleOutputUnderVerbose(t *testing.T) {
	if os.Getenv("BUBBLE_EXAMPLE_CHILD") != "" {
		t.Skip("the child run")
	}
	cmd := exec.Command(os.Args[0], "-test.v=true", "-test.run=^ExampleRun$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BUBBLE_EXAMPLE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: ExampleRun") {
		t.Fatalf("ExampleRun under -v: %v\n%s", err, out)
	}
}

func ExampleRun() {
	err := Run(func() {
		start := time.Now()
		time.Sleep(90 * time.Second)
		fmt.Println("slept", time.Since(start), "of the bubble's clock")
	})
	fmt.Println("error:", err)
	// Output:
	// slept 1m30s of the bubble's clock
	// error: <nil>
}
