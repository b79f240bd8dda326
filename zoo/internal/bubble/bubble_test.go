package bubble

import (
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
