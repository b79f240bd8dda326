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
	var b bytes.Buffer
	if !check.Verdict(&b, nil, nil) || b.String() != check.Passed+"\n" {
		t.Errorf("passing verdict: %q", b.String())
	}
	b.Reset()
	if check.Verdict(&b, check.Problems{"F is not written yet."}) || b.String() != "1 thing to fix:\n  1. F is not written yet.\n" {
		t.Errorf("failing verdict: %q", b.String())
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
