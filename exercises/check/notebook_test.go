package check_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/exercises/check"
	basesol "github.com/backofflab/backofflab/exercises/solutions/waves/base"
	jittersol "github.com/backofflab/backofflab/exercises/solutions/waves/jitter"
	overloadsol "github.com/backofflab/backofflab/exercises/solutions/waves/overload"
	"github.com/backofflab/backofflab/exercises/waves/base"
	"github.com/backofflab/backofflab/exercises/waves/jitter"
	"github.com/backofflab/backofflab/exercises/waves/overload"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/waves"
)

func TestAllMergesProblemsInOrder(t *testing.T) {
	if err := check.All(nil, nil); err != nil {
		t.Errorf("All(nil, nil) = %v, want nil", err)
	}
	err := check.All(check.Problems{"a.", "b."}, nil, errors.New("c."), check.Problems{"d."})
	var p check.Problems
	if !errors.As(err, &p) || strings.Join(p, " ") != "a. b. c. d." {
		t.Errorf("All = %#v, want one list a. b. c. d.", err)
	}
}

func TestVerdict(t *testing.T) {
	var pass, fail bytes.Buffer
	if !check.Verdict(&pass, &fail, nil, nil) || pass.String() != check.Passed+"\n" || fail.Len() != 0 {
		t.Errorf("passing verdict: %q on pass, %q on fail", pass.String(), fail.String())
	}
	pass.Reset()
	if check.Verdict(&pass, &fail, check.Problems{"F is not written yet."}) || pass.Len() != 0 ||
		fail.String() != "✗ F is not written yet.\n1 check fails: fix it and run this cell again.\n" {
		t.Errorf("failing verdict: %q on pass, %q on fail", pass.String(), fail.String())
	}
	fail.Reset()
	check.Verdict(&pass, &fail, check.Problems{"F is not written yet.", "G returns 0, want 3."}, errors.New("a plain error."))
	if want := "✗ F is not written yet.\n✗ G returns 0, want 3.\n✗ a plain error.\n3 checks fail: fix them and run this cell again.\n"; fail.String() != want {
		t.Errorf("failing verdict:\n%s\nwant\n%s", fail.String(), want)
	}
	if strings.Contains(fail.String(), "exit status") {
		t.Errorf("the verdict mentions an exit status: %q", fail.String())
	}
}

func TestHiddenChecksPassSolutionsAndFailStubs(t *testing.T) {
	for _, tc := range []struct {
		name           string
		solution, stub error
	}{
		{"overload", check.OverloadHidden(overloadsol.Peak), check.OverloadHidden(overload.Peak)},
		{"jitter", check.JitterHidden(jittersol.Jittered), check.JitterHidden(jitter.Jittered)},
		{"base", check.BaseHidden(basesol.SmallestBase), check.BaseHidden(base.SmallestBase)},
	} {
		if tc.solution != nil {
			t.Errorf("%s: the solution fails the hidden check:\n%v", tc.name, tc.solution)
		}
		if tc.stub == nil || !strings.Contains(tc.stub.Error(), "not written yet") {
			t.Errorf("%s: the stub's hidden check says %v, want \"not written yet\"", tc.name, tc.stub)
		}
	}
}

// The hidden checks catch answers fitted to the visible cases.
func TestHiddenChecksCatchFittedAnswers(t *testing.T) {
	fitted := func(c waves.Config) (metrics.Peak, error) {
		if c.Jitter == 0 {
			return metrics.Peak{Slot: 5, Count: 2000, Width: 200 * time.Millisecond}, nil
		}
		return metrics.Peak{Slot: 6, Count: 615, Width: 200 * time.Millisecond}, nil
	}
	wantProblem(t, "peak fitted to the exercise", check.OverloadHidden(fitted), "seed 7", "whatever configuration")

	narrow := func(d time.Duration, w, u float64) time.Duration {
		if w > 1 {
			w = 1 // only the widths the visible check uses most
		}
		return jittersol.Jittered(d, w, u)
	}
	wantProblem(t, "jitter clamped to full width", check.JitterHidden(narrow), "w in [0, 2]")

	only100ms := func(c waves.Config, capacity float64, step time.Duration) (time.Duration, error) {
		return basesol.SmallestBase(c, capacity, 100*time.Millisecond)
	}
	wantProblem(t, "step ignored", check.BaseHidden(only100ms), "250ms steps")
}

// An answer cell that does not compile leaves the setup cell's placeholder
// in place: the check names the cell instead of failing to compile.
func TestPlaceholderNamesTheAnswerCell(t *testing.T) {
	scenario := func() waves.Config { panic(check.NotRun{Cell: "1. The scenario"}) }
	err := check.Overload(scenario, overloadsol.Peak, overloadsol.TimesCapacity)
	wantProblem(t, "placeholder Scenario", err, "Scenario has not run yet", `"1. The scenario"`, "\"line n\" counts from the top")
	if strings.Contains(err.Error(), "panicked") {
		t.Errorf("a placeholder is reported as a panic:\n%v", err)
	}
}
