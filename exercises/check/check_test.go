package check_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/exercises/check"
	basesol "github.com/backofflab/backofflab/exercises/solutions/waves/base"
	jittersol "github.com/backofflab/backofflab/exercises/solutions/waves/jitter"
	overloadsol "github.com/backofflab/backofflab/exercises/solutions/waves/overload"
	slotwidthsol "github.com/backofflab/backofflab/exercises/solutions/waves/slotwidth"
	"github.com/backofflab/backofflab/exercises/waves/base"
	"github.com/backofflab/backofflab/exercises/waves/jitter"
	"github.com/backofflab/backofflab/exercises/waves/overload"
	"github.com/backofflab/backofflab/exercises/waves/slotwidth"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/waves"
)

// exercise is one exercise's check run on the solution and on the stub.
type exercise struct {
	name           string
	solution, stub func() error
}

var exercises = []exercise{
	{"waves/overload",
		func() error { return check.Overload(overloadsol.Scenario, overloadsol.Peak, overloadsol.TimesCapacity) },
		func() error { return check.Overload(overload.Scenario, overload.Peak, overload.TimesCapacity) }},
	{"waves/jitter",
		func() error { return check.Jitter(jittersol.Jittered) },
		func() error { return check.Jitter(jitter.Jittered) }},
	{"waves/slotwidth",
		func() error {
			return check.SlotWidth(slotwidthsol.HalvingWidth, slotwidthsol.ErrNoWidths, slotwidthsol.ErrNoHalving)
		},
		func() error {
			return check.SlotWidth(slotwidth.HalvingWidth, slotwidth.ErrNoWidths, slotwidth.ErrNoHalving)
		}},
	{"waves/base",
		func() error {
			return check.Base(basesol.Estimate, basesol.SmallestBase, basesol.ErrStep, basesol.ErrNoFit)
		},
		func() error { return check.Base(base.Estimate, base.SmallestBase, base.ErrStep, base.ErrNoFit) }},
}

func TestSolutionsPass(t *testing.T) {
	for _, e := range exercises {
		if err := e.solution(); err != nil {
			t.Errorf("%s: the solution fails its check:\n%v", e.name, err)
		}
	}
}

func TestStubsFailSayingWhatToWrite(t *testing.T) {
	for _, e := range exercises {
		err := e.stub()
		if err == nil {
			t.Errorf("%s: the unsolved stub passes its check", e.name)
			continue
		}
		var p check.Problems
		if !errors.As(err, &p) || !strings.Contains(err.Error(), "not written yet") {
			t.Errorf("%s: the stub's failure does not say what is missing:\n%v", e.name, err)
		}
	}
}

// wantProblem asserts that err reports a problem containing every hint.
func wantProblem(t *testing.T, what string, err error, hints ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: the check passed", what)
		return
	}
	for _, h := range hints {
		if !strings.Contains(err.Error(), h) {
			t.Errorf("%s: the check's message lacks %q:\n%v", what, h, err)
		}
	}
}

// The checks must catch the mistakes learners make, in words that point
// at the mistake.
func TestChecksCatchTypicalMistakes(t *testing.T) {
	noJitter := func() waves.Config {
		return waves.Lesson().WithClients(2000).WithOutage(30 * time.Second).WithJitter(0)
	}
	wantProblem(t, "scenario without jitter",
		check.Overload(noJitter, overloadsol.Peak, overloadsol.TimesCapacity), "Scenario().Jitter is 0, want 1")
	wantProblem(t, "peak hard-coded",
		check.Overload(overloadsol.Scenario, func(waves.Config) (metrics.Peak, error) {
			return metrics.Peak{Count: 615, Width: 200 * time.Millisecond}, nil
		}, overloadsol.TimesCapacity), "without jitter", "-1 clients")
	wantProblem(t, "count per slot instead of rate",
		check.Overload(overloadsol.Scenario, overloadsol.Peak, func(p metrics.Peak, c float64) float64 {
			return float64(p.Count) / c
		}), "TimesCapacity", "PerSecond")

	wantProblem(t, "jitter not centred",
		check.Jitter(func(d time.Duration, w, u float64) time.Duration { return time.Duration(float64(d) * (1 + w*u)) }),
		"centre", "start of the band")
	wantProblem(t, "jitter ignoring w",
		check.Jitter(func(d time.Duration, w, u float64) time.Duration { return time.Duration(float64(d) * (0.5 + u)) }),
		"width 0")

	wantProblem(t, "halving judged on counts",
		check.SlotWidth(func(fine metrics.Histogram, widths []time.Duration) (time.Duration, error) {
			peaks, err := metrics.PeakSweep(fine, widths)
			if err != nil || len(peaks) == 0 {
				return 0, errors.New("no")
			}
			for _, p := range peaks[1:] {
				if p.Count <= peaks[0].Count/2 {
					return p.Width, nil
				}
			}
			return 0, errors.New("no")
		}, slotwidthsol.ErrNoWidths, slotwidthsol.ErrNoHalving), "per second")
	wantProblem(t, "strictly below half",
		check.SlotWidth(func(fine metrics.Histogram, widths []time.Duration) (time.Duration, error) {
			peaks, err := metrics.PeakSweep(fine, widths)
			if err != nil || len(peaks) == 0 {
				return 0, errors.New("no")
			}
			for _, p := range peaks[1:] {
				if p.PerSecond() < peaks[0].PerSecond()/2 {
					return p.Width, nil
				}
			}
			return 0, errors.New("no")
		}, slotwidthsol.ErrNoWidths, slotwidthsol.ErrNoHalving), "exactly half counts")

	wantProblem(t, "one step too early",
		check.Base(basesol.Estimate, func(c waves.Config, capacity float64, step time.Duration) (time.Duration, error) {
			b, err := basesol.SmallestBase(c, capacity, step)
			return b - step, err
		}, basesol.ErrStep, basesol.ErrNoFit), "SmallestBase", "2.7s")
	wantProblem(t, "estimate in milliseconds",
		check.Base(func(n int, c float64) time.Duration { return time.Duration(float64(n) / c * 1e6) }, basesol.SmallestBase, basesol.ErrStep, basesol.ErrNoFit),
		"Estimate(2000, 1200)", "1.667s")

	old := check.Timeout
	check.Timeout = 50 * time.Millisecond
	defer func() { check.Timeout = old }()
	wantProblem(t, "a loop that never stops",
		check.Base(basesol.Estimate, func(waves.Config, float64, time.Duration) (time.Duration, error) { select {} }, basesol.ErrStep, basesol.ErrNoFit),
		"did not return", "loop")
	wantProblem(t, "a panic",
		check.Jitter(func(time.Duration, float64, float64) time.Duration { panic("oops") }), "panicked (oops)")
}

// The lesson's answers, as the checks know them.
func TestCheckedAnswers(t *testing.T) {
	p, err := overloadsol.Peak(overloadsol.Scenario())
	if err != nil || p.PerSecond() != 3075 {
		t.Errorf("2000-client peak %v (%v), want 3075/s", p, err)
	}
	if r := overloadsol.TimesCapacity(p, overloadsol.Capacity); r != 2.5625 {
		t.Errorf("times capacity %v, want 2.5625", r)
	}
	b, err := basesol.SmallestBase(overloadsol.Scenario(), overloadsol.Capacity, 100*time.Millisecond)
	if err != nil || b != 2700*time.Millisecond {
		t.Errorf("smallest base %v (%v), want 2.7s", b, err)
	}
	if e := basesol.Estimate(overloadsol.Clients, overloadsol.Capacity); e.Round(time.Millisecond) != 1667*time.Millisecond {
		t.Errorf("estimate %v, want 1.667s", e)
	}
}

func TestProblemsReadAsAList(t *testing.T) {
	one := check.Problems{"a."}
	two := check.Problems{"a.", "b."}
	if got, want := one.Error(), "1 thing to fix:\n  1. a."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := two.Error(), "2 things to fix:\n  1. a.\n  2. b."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// An exercise that names the errors to return is checked on those errors: any error will not
// do, nor one with the same text that is another value, nor one exercise error for another.
func TestChecksRequireTheExercisesErrors(t *testing.T) {
	// smallestBase is the solution, except that its answer for a bad step is badStep's.
	smallestBase := func(badStep func() error, noFit error) func(waves.Config, float64, time.Duration) (time.Duration, error) {
		return func(c waves.Config, capacity float64, step time.Duration) (time.Duration, error) {
			if step <= 0 {
				return 0, badStep()
			}
			b, err := basesol.SmallestBase(c, capacity, step)
			if errors.Is(err, basesol.ErrNoFit) {
				err = noFit
			}
			return b, err
		}
	}
	base := func(f func(waves.Config, float64, time.Duration) (time.Duration, error)) error {
		return check.Base(basesol.Estimate, f, basesol.ErrStep, basesol.ErrNoFit)
	}
	wantProblem(t, "any error for a bad step",
		base(smallestBase(func() error { return errors.New("bad step") }, basesol.ErrNoFit)),
		"a step of 0", `"bad step"`, "ErrStep", "errors.Is")
	wantProblem(t, "ErrStep's text in another error",
		base(smallestBase(func() error { return errors.New(basesol.ErrStep.Error()) }, basesol.ErrNoFit)),
		"another error value", "ErrStep")
	wantProblem(t, "ErrStep where no base fits",
		base(smallestBase(func() error { return basesol.ErrStep }, basesol.ErrStep)),
		"a capacity of 0", "ErrNoFit")
	if err := base(smallestBase(func() error { return fmt.Errorf("SmallestBase: %w", basesol.ErrStep) }, basesol.ErrNoFit)); err != nil {
		t.Errorf("ErrStep wrapped with %%w fails the check:\n%v", err)
	}
	wantProblem(t, "the model's error swallowed",
		base(func(c waves.Config, capacity float64, step time.Duration) (time.Duration, error) {
			if c.Validate() != nil {
				return 0, basesol.ErrNoFit
			}
			return basesol.SmallestBase(c, capacity, step)
		}),
		"-1 clients", "waves.Run")

	halvingWidth := func(noWidths, noHalving error) func(metrics.Histogram, []time.Duration) (time.Duration, error) {
		return func(fine metrics.Histogram, widths []time.Duration) (time.Duration, error) {
			w, err := slotwidthsol.HalvingWidth(fine, widths)
			switch {
			case errors.Is(err, slotwidthsol.ErrNoWidths):
				err = noWidths
			case errors.Is(err, slotwidthsol.ErrNoHalving):
				err = noHalving
			}
			return w, err
		}
	}
	slotWidth := func(f func(metrics.Histogram, []time.Duration) (time.Duration, error)) error {
		return check.SlotWidth(f, slotwidthsol.ErrNoWidths, slotwidthsol.ErrNoHalving)
	}
	wantProblem(t, "any error without widths",
		slotWidth(halvingWidth(errors.New("nothing to do"), slotwidthsol.ErrNoHalving)), "no widths at all", "ErrNoWidths")
	wantProblem(t, "ErrNoWidths where the peak never halves",
		slotWidth(halvingWidth(slotwidthsol.ErrNoWidths, slotwidthsol.ErrNoWidths)), "never halves", "ErrNoHalving")

	wantProblem(t, "Peak's own error for an invalid configuration",
		check.Overload(overloadsol.Scenario, func(c waves.Config) (metrics.Peak, error) {
			if c.Clients < 1 {
				return metrics.Peak{}, errors.New("invalid configuration")
			}
			return overloadsol.Peak(c)
		}, overloadsol.TimesCapacity), "-1 clients", "waves.Run", `"invalid configuration"`)

	for name, err := range map[string]error{
		"Base without ErrStep":          check.Base(basesol.Estimate, basesol.SmallestBase, nil, basesol.ErrNoFit),
		"SlotWidth without ErrNoWidths": check.SlotWidth(slotwidthsol.HalvingWidth, nil, slotwidthsol.ErrNoHalving),
	} {
		if err == nil || !strings.Contains(err.Error(), "not nil") {
			t.Errorf("%s: %v, want an error saying the check needs the exercise's errors", name, err)
		}
	}
}
