package check

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/waves"
)

const ms = time.Millisecond

// Overload checks the 2000-client exercise (package overload): scenario
// must return the lesson's configuration with 2000 clients, a 30 s outage
// and full-width jitter; peak must run a configuration and return its peak
// (3075/s at 200 ms for the scenario); timesCapacity must divide the peak
// rate by the capacity (3075/1200 ≈ 2.56).
func Overload(
	scenario func() waves.Config,
	peak func(waves.Config) (metrics.Peak, error),
	timesCapacity func(metrics.Peak, float64) float64,
) error {
	var r report

	want := waves.Lesson().WithClients(2000).WithOutage(30 * time.Second).WithJitter(1)
	var got waves.Config
	if r.call("Scenario", func() { got = scenario() }) {
		for _, f := range []struct {
			name      string
			got, want any
			hint      string
		}{
			{"Clients", got.Clients, want.Clients, "the exercise has 2000 clients"},
			{"Outage", got.Outage, want.Outage, "the dependency is down for 30 s"},
			{"Jitter", got.Jitter, want.Jitter, "full-width jitter is w = 1"},
			{"Attempts", got.Attempts, want.Attempts, "start from waves.Lesson() and keep its 6 attempts"},
			{"Base", got.Base, want.Base, "start from waves.Lesson() and keep its 1 s base"},
			{"Window", got.Window, want.Window, "start from waves.Lesson() and keep its 40 s window"},
			{"Slot", got.Slot, want.Slot, "start from waves.Lesson() and keep its 200 ms slot"},
			{"Seed", got.Seed, want.Seed, "start from waves.Lesson() and keep the lessons' seed"},
		} {
			if f.got != f.want {
				r.add("Scenario().%s is %v, want %v: %s.", f.name, f.got, f.want, f.hint)
			}
		}
	}

	noJitter := want.WithJitter(0)
	for _, tc := range []struct {
		c    waves.Config
		want float64
		what string
	}{
		{want, 3075, "the exercise's scenario"},
		{noJitter, 10000, "the scenario without jitter"},
	} {
		var p metrics.Peak
		var err error
		if !r.call("Peak", func() { p, err = peak(tc.c) }) {
			break
		}
		switch {
		case err != nil:
			r.add("Peak returned the error %q for %s, which is a valid configuration.", err, tc.what)
		case p.Width != tc.c.Slot:
			r.add("Peak for %s was measured at %v slots, want the configuration's slot, %v: a peak rate means nothing without its slot width.", tc.what, p.Width, tc.c.Slot)
		case p.PerSecond() != tc.want:
			r.add("Peak for %s is %v, want %v/s at 200 ms: run the configuration you are given (waves.Run) and take the result's Peak().", tc.what, p, tc.want)
		}
	}
	bad := want.WithClients(-1)
	wantErr := modelError(bad)
	var badErr error
	if r.call("Peak", func() { _, badErr = peak(bad) }) {
		switch {
		case badErr == nil:
			r.add("Peak returned no error for a configuration with -1 clients: pass on the error waves.Run returns.")
		case !passesOn(badErr, wantErr):
			r.add("Peak returned the error %q for a configuration with -1 clients, want the error waves.Run returns for it, %q: pass that error on (wrapping it with %%w is fine).", badErr, wantErr)
		}
	}

	for _, tc := range []struct {
		p        metrics.Peak
		capacity float64
		want     float64
	}{
		{metrics.Peak{Count: 615, Width: 200 * ms}, 1200, 3075.0 / 1200},
		{metrics.Peak{Count: 600, Width: 200 * ms}, 1500, 2},
		{metrics.Peak{Count: 30, Width: 10 * ms}, 6000, 0.5},
	} {
		var x float64
		if !r.call("TimesCapacity", func() { x = timesCapacity(tc.p, tc.capacity) }) {
			break
		}
		if math.Abs(x-tc.want) > 1e-9*tc.want {
			r.add("TimesCapacity(%v, %v) = %v, want %v: divide the peak's rate per second (Peak.PerSecond) by the capacity.", tc.p, tc.capacity, x, tc.want)
			break
		}
	}
	return r.err()
}

// Jitter checks the width-w jitter exercise (package jitter): jittered(d,
// w, u) must be d·(1 − w/2 + w·u), to within a nanosecond of rounding.
func Jitter(jittered func(d time.Duration, w, u float64) time.Duration) error {
	var r report
	// want is the lab's own formula, schedule.UniformJitter, for one draw.
	want := func(d time.Duration, w, u float64) time.Duration {
		return schedule.UniformJitter{Base: d, Width: w}.Delay(0, 0, fixed(u))
	}
	near := func(a, b time.Duration) bool { return a-b <= 1 && b-a <= 1 }

	groups := []struct {
		hint  string
		cases [][3]float64 // d in seconds, w, u
	}{
		{"with width 0 there is no jitter: the attempt stays at its nominal time d whatever u is",
			[][3]float64{{1, 0, 0}, {1, 0, 0.9}, {8, 0, 0.25}}},
		{"the centre of the band, u = 0.5, must give the nominal time d: jitter spreads attempts around d without delaying them",
			[][3]float64{{1, 1, 0.5}, {4, 0.5, 0.5}, {16, 2, 0.5}}},
		{"the smallest draw, u = 0, must give the start of the band, d·(1 − w/2)",
			[][3]float64{{1, 1, 0}, {2, 0.5, 0}, {4, 2, 0}}},
		{"u close to 1 must give the end of the band, just below d·(1 + w/2)",
			[][3]float64{{1, 1, 0.999}, {8, 0.5, 0.999}}},
		{"an attempt must be at d·(1 − w/2 + w·u)",
			[][3]float64{{1, 1, 0.571919}, {2, 0.25, 0.1}, {32, 0.75, 0.8}, {0.2, 1.5, 0.3}, {1.5, 1, 0.123456789}}},
	}
	for _, g := range groups {
		for _, c := range g.cases {
			d := time.Duration(c[0] * float64(time.Second))
			var got time.Duration
			if !r.call("Jittered", func() { got = jittered(d, c[1], c[2]) }) {
				return r.err()
			}
			if w := want(d, c[1], c[2]); !near(got, w) {
				r.add("Jittered(%v, %g, %g) = %v, want %v: %s.", d, c[1], c[2], got, w, g.hint)
				break
			}
		}
	}
	if len(r.problems) == 0 {
		// Many seeded draws: the mean stays at d.
		g := lcg.MustNew(1513241)
		const n = 20000
		d := 4 * time.Second
		sum := 0.0
		for range n {
			sum += float64(jittered(d, 1, g.Float64()))
		}
		if mean := sum / n; math.Abs(mean/float64(d)-1) > 0.01 {
			r.add("Over %d random draws Jittered(%v, 1, u) averages %v, want about %v: jitter must not move attempts later or earlier on average.", n, d, time.Duration(mean), d)
		}
	}
	return r.err()
}

// errNote describes an unexpected error for a problem's sentence.
func errNote(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(" with the error %q", err)
}

// passesOn reports whether got is want or carries it: the same error value (errors.Is), or an
// error whose message contains want's, as one made with fmt.Errorf("...: %w", want) or "%v" does.
// For the lab's errors, which are made afresh on each call and so compare by their message; an
// exercise's own errors (ErrStep and the like) are compared with errors.Is alone.
func passesOn(got, want error) bool {
	return got != nil && want != nil && (errors.Is(got, want) || strings.Contains(got.Error(), want.Error()))
}

// wrongError says what is wrong with err, which is not want (an exercise's error, as errors.Is
// tells): the right text in another error value still fails errors.Is.
func wrongError(err, want error) string {
	if err.Error() == want.Error() || strings.Contains(err.Error(), want.Error()) {
		return fmt.Sprintf("the error %q reads like %q but is another error value: return the exercise's variable itself (or wrap it with %%w), which errors.Is recognises", err, want)
	}
	return fmt.Sprintf("the error %q, want %q", err, want)
}

// modelError returns the error waves.Run gives for c, a configuration a check knows to be invalid.
func modelError(c waves.Config) error {
	_, err := waves.Run(c)
	if err == nil {
		panic(fmt.Sprintf("check: the configuration %+v is valid: a check's invalid case must be invalid", c))
	}
	return err
}

// fixed is a schedule.Uniform that always draws the same value.
type fixed float64

// Float64 returns the fixed draw.
func (f fixed) Float64() float64 { return float64(f) }

// SlotWidth checks the bucket-width exercise (package slotwidth):
// halvingWidth(fine, widths) must return the first width whose peak rate is
// at most half the rate at widths[0]; errNoWidths (the exercise's
// ErrNoWidths) when there are no widths, errNoHalving (its ErrNoHalving)
// when no width halves the peak, and metrics.PeakSweep's error for a width
// that is not a multiple of the histogram's slot.
func SlotWidth(halvingWidth func(metrics.Histogram, []time.Duration) (time.Duration, error), errNoWidths, errNoHalving error) error {
	if errNoWidths == nil || errNoHalving == nil {
		return errors.New("check.SlotWidth: errNoWidths and errNoHalving must be the exercise's ErrNoWidths and ErrNoHalving, not nil")
	}
	var r report
	widths := []time.Duration{ms, 2 * ms, 5 * ms, 10 * ms, 20 * ms, 50 * ms, 100 * ms, 200 * ms, 500 * ms, time.Second}
	lesson := func(w float64) metrics.Histogram {
		res, err := waves.Run(waves.Lesson().WithJitter(w).WithSlot(ms))
		if err != nil {
			panic(err) // the lesson's configuration is valid
		}
		return res.Histogram
	}
	for _, tc := range []struct {
		fine   metrics.Histogram
		widths []time.Duration
		want   time.Duration
		what   string
		hint   string
	}{
		{lesson(0), widths, 2 * ms, "the lesson's run without jitter, counted at 1 ms",
			"a spike narrower than every slot reports the same count in any slot, so its rate halves as soon as the slot doubles"},
		{lesson(1), widths, 5 * ms, "the lesson's full-width run, counted at 1 ms",
			"compare each width's peak rate (count per second, not count per slot) with the first width's"},
		{metrics.Histogram{Slot: ms, Counts: []int{0, 4, 0, 0, 0, 0}}, []time.Duration{ms, 2 * ms, 3 * ms}, 2 * ms, "4 events in one 1 ms slot",
			"at 2 ms the peak rate is exactly half the 1 ms rate, and exactly half counts as halved"},
		{metrics.Histogram{Slot: 10 * ms, Counts: []int{0, 4, 0, 0, 0, 0, 0, 0}}, []time.Duration{20 * ms, 40 * ms, 80 * ms}, 40 * ms, "a 10 ms histogram measured from 20 ms",
			"halving is relative to the peak at widths[0], not at the histogram's own slot"},
	} {
		var got time.Duration
		var err error
		if !r.call("HalvingWidth", func() { got, err = halvingWidth(tc.fine, tc.widths) }) {
			return r.err()
		}
		if err != nil || got != tc.want {
			r.add("HalvingWidth for %s returned %v%s, want %v: %s.", tc.what, got, errNote(err), tc.want, tc.hint)
		}
	}
	odd := []time.Duration{ms, 1500 * time.Microsecond}
	_, sweepErr := metrics.PeakSweep(lesson(0), odd)
	if sweepErr == nil {
		panic("check: metrics.PeakSweep accepts a 1.5 ms width on a 1 ms histogram: the check's invalid case must be invalid")
	}
	for _, tc := range []struct {
		fine     metrics.Histogram
		widths   []time.Duration
		want     error
		sentinel bool // want is the exercise's own error: errors.Is must recognise it
		what     string
		hint     string
	}{
		{metrics.Histogram{Slot: ms, Counts: []int{1, 1, 1, 1, 1, 1, 1, 1}}, []time.Duration{ms, 2 * ms, 4 * ms}, errNoHalving, true,
			"evenly spread events, whose peak rate never halves", "return ErrNoHalving when no width halves the peak"},
		{lesson(0), nil, errNoWidths, true, "no widths at all", "return ErrNoWidths when there is no width to measure at"},
		{lesson(0), odd, sweepErr, false, "a width of 1.5 ms on a 1 ms histogram",
			"pass on the error metrics.PeakSweep returns for a width that is not a multiple of the slot"},
	} {
		var got time.Duration
		var err error
		if !r.call("HalvingWidth", func() { got, err = halvingWidth(tc.fine, tc.widths) }) {
			return r.err()
		}
		switch {
		case err == nil:
			r.add("HalvingWidth for %s returned %v and no error: it should say that there is no answer (%s).", tc.what, got, tc.hint)
		case tc.sentinel && !errors.Is(err, tc.want):
			r.add("HalvingWidth for %s returned %s: %s, so that a caller can tell the cases apart with errors.Is.", tc.what, wrongError(err, tc.want), tc.hint)
		case !tc.sentinel && !passesOn(err, tc.want):
			r.add("HalvingWidth for %s returned the error %q, want %q: %s.", tc.what, err, tc.want, tc.hint)
		}
	}
	return r.err()
}

// Base checks the faded rehearsal (package base): estimate(clients,
// capacity) must be clients/capacity seconds; smallestBase must step the
// base and return the first that brings the jittered peak within capacity
// (2.7 s for the 2000-client scenario in 100 ms steps), and return errStep
// (the exercise's ErrStep) for a step that is not positive, errNoFit (its
// ErrNoFit) when no base up to the window fits, and waves.Run's error for
// an invalid configuration.
func Base(
	estimate func(clients int, capacity float64) time.Duration,
	smallestBase func(c waves.Config, capacity float64, step time.Duration) (time.Duration, error),
	errStep, errNoFit error,
) error {
	if errStep == nil || errNoFit == nil {
		return errors.New("check.Base: errStep and errNoFit must be the exercise's ErrStep and ErrNoFit, not nil")
	}
	var r report
	for _, tc := range []struct {
		clients  int
		capacity float64
		want     time.Duration
	}{
		{2000, 1200, 1666666666 * time.Nanosecond},
		{600, 1500, 400 * ms},
		{100, 50, 2 * time.Second},
	} {
		var got time.Duration
		if !r.call("Estimate", func() { got = estimate(tc.clients, tc.capacity) }) {
			break
		}
		if d := got - tc.want; d > ms || d < -ms {
			r.add("Estimate(%d, %v) = %v, want about %v: if the peak is clients/base per second, the base that matches the capacity is clients/capacity seconds.", tc.clients, tc.capacity, got, tc.want.Round(ms))
			break
		}
	}

	scenario := waves.Lesson().WithClients(2000).WithOutage(30 * time.Second).WithJitter(1)
	small := waves.Lesson().WithJitter(1)
	for _, tc := range []struct {
		c        waves.Config
		capacity float64
		step     time.Duration
		what     string
	}{
		{scenario, 1200, 100 * ms, "2000 clients, 1200/s, 100 ms steps"},
		{small, 500, 250 * ms, "600 clients, 500/s, 250 ms steps"},
	} {
		var got time.Duration
		var err error
		if !r.call("SmallestBase", func() { got, err = smallestBase(tc.c, tc.capacity, tc.step) }) {
			return r.err()
		}
		want, _ := firstFit(tc.c, tc.capacity, tc.step)
		if err != nil || got != want {
			r.add("SmallestBase for %s returned %v%s, want %v: try step, 2·step, 3·step, … and stop at the first base whose peak rate is at most the capacity.", tc.what, got, errNote(err), want)
		}
	}
	invalid := scenario.WithClients(-1)
	for _, tc := range []struct {
		c        waves.Config
		capacity float64
		step     time.Duration
		want     error
		sentinel bool // want is the exercise's own error: errors.Is must recognise it
		what     string
		hint     string
	}{
		{scenario, 1200, 0, errStep, true, "a step of 0", "return ErrStep for a step that is not positive"},
		{scenario, 1200, -100 * ms, errStep, true, "a step of -100ms", "return ErrStep for a step that is not positive"},
		{scenario, 0, 100 * ms, errNoFit, true, "a capacity of 0, which no base reaches", "return ErrNoFit when no base up to the window fits"},
		{invalid, 1200, 100 * ms, modelError(invalid.WithBase(100 * ms)), false, "a configuration with -1 clients",
			"pass on the error waves.Run returns for an invalid configuration"},
	} {
		var got time.Duration
		var err error
		if !r.call("SmallestBase", func() { got, err = smallestBase(tc.c, tc.capacity, tc.step) }) {
			return r.err()
		}
		switch {
		case err == nil:
			r.add("SmallestBase with %s returned %v and no error: it should %s (and stop, not loop forever).", tc.what, got, tc.hint)
		case tc.sentinel && !errors.Is(err, tc.want):
			r.add("SmallestBase with %s returned %s: %s, so that a caller can tell the cases apart with errors.Is.", tc.what, wrongError(err, tc.want), tc.hint)
		case !tc.sentinel && !passesOn(err, tc.want):
			r.add("SmallestBase with %s returned the error %q, want %q: %s.", tc.what, err, tc.want, tc.hint)
		}
	}
	return r.err()
}

// firstFit is the reference for Base: the first multiple of step, up to
// the window, whose peak is within capacity.
func firstFit(c waves.Config, capacity float64, step time.Duration) (time.Duration, error) {
	for b := step; b <= c.Window; b += step {
		res, err := waves.Run(c.WithBase(b))
		if err != nil {
			return 0, err
		}
		if res.Peak().PerSecond() <= capacity {
			return b, nil
		}
	}
	return 0, errors.New("no base fits")
}
