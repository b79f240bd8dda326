package cohort

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// MaxSeeds is the most seeds Average takes.
const MaxSeeds = 100_000

// Summary is the mean of each Result measure over several seeds. Times are
// in milliseconds; the JSON names are those of the command line's --json.
type Summary struct {
	// Seeds is the number of runs averaged.
	Seeds int `json:"seeds"`
	// FinishMs is the mean Result.Finish.
	FinishMs float64 `json:"finish_ms"`
	// Calls, CallsOutage and CallsRecovery are the mean call counts.
	Calls         float64 `json:"calls"`
	CallsOutage   float64 `json:"calls_outage"`
	CallsRecovery float64 `json:"calls_recovery"`
	// Admitted is the mean number of admitted calls: the work done.
	Admitted float64 `json:"admitted"`
	// IdleMs and RecoveryMs are the mean Result.Idle and Result.Recovery.
	IdleMs     float64 `json:"idle_ms"`
	RecoveryMs float64 `json:"recovery_ms"`
	// IdleFraction is IdleMs/RecoveryMs: the share of all recovery time,
	// over every run, spent with nothing in flight.
	IdleFraction float64 `json:"idle_fraction"`
	// PeakPer100ms and PeakPerMs are the mean worst bursts.
	PeakPer100ms float64 `json:"peak_per_100ms"`
	PeakPerMs    float64 `json:"peak_per_ms"`
	// Unfinished is the mean number of unfinished clients, and
	// UnfinishedMin and UnfinishedMax its extremes over the seeds.
	Unfinished    float64 `json:"unfinished"`
	UnfinishedMin int     `json:"unfinished_min"`
	UnfinishedMax int     `json:"unfinished_max"`
	// Runs holds each seed's Result, in seed order.
	Runs []Result `json:"-"`
}

// runner runs one Config, tracing it if asked (enough for Trace.Waves, at
// least); the tests swap in the millisecond loop.
type runner func(c Config, traced bool) (Result, *Trace, error)

// simulate is the event-driven runner. Its traces only tally the waves.
func simulate(c Config, traced bool) (Result, *Trace, error) {
	if !traced {
		r, err := Run(c)
		return r, nil, err
	}
	tr := &Trace{tally: true}
	r, err := run(c, tr)
	return r, tr, err
}

// Average runs c with seeds c.Seed, c.Seed+1, …, c.Seed+seeds−1 and returns
// the means. seeds must be in [1, MaxSeeds] and the last seed below 2³¹.
// A run that draws nothing from its generator (every first attempt at
// t = 0, a policy without jitter) is the same for every seed: it is run
// once and counted for each.
func Average(c Config, seeds int) (Summary, error) {
	s, _, err := events().average(c, seeds, false)
	return s, err
}

// averager averages runs made with run over seeds. With once set (the
// event-driven simulator's tables) it does no work twice: a seed-free run
// (see seedFree) is made once for all its seeds, and an untraced average of
// a configuration it has averaged before is looked up. The reference
// leaves once unset and makes every run, for the tests and the benchmarks
// that compare the two.
type averager struct {
	run  runner
	once bool
	memo map[averageKey]Summary
}

// averageKey names an untraced average: the configuration (of a policy
// from package schedule, whose values compare) and the number of seeds.
type averageKey struct {
	c     Config
	seeds int
}

// events returns the event-driven simulator's averager, with an empty memo.
func events() *averager { return &averager{run: simulate, once: true} }

// seedFree reports whether a run of c draws nothing from its generator, so
// that its Result is the same for every seed: no spread of the first
// attempts, and a policy whose waits do not draw (the exponential and the
// constant wait).
func seedFree(c Config) bool {
	if c.Spread != 0 {
		return false
	}
	switch c.Policy.(type) {
	case schedule.Exponential, schedule.Constant:
		return true
	}
	return false
}

// memoizable reports whether c's policy is one of package schedule's, whose
// values compare as map keys and whose waits depend on nothing else.
func memoizable(c Config) bool {
	switch c.Policy.(type) {
	case schedule.Exponential, schedule.FullJitter, schedule.EqualJitter, schedule.Decorrelated, schedule.Constant:
		return true
	}
	return false
}

// average runs c with seeds c.Seed, c.Seed+1, … as Average does, keeping
// each run's trace if traced.
func (a *averager) average(c Config, seeds int, traced bool) (Summary, []*Trace, error) {
	if seeds < 1 || seeds > MaxSeeds {
		return Summary{}, nil, fmt.Errorf("cohort: seeds %d out of range: want 1 <= seeds <= %d", seeds, MaxSeeds)
	}
	if c.Seed >= 0 && c.Seed+int64(seeds)-1 > math.MaxInt32 {
		return Summary{}, nil, fmt.Errorf("cohort: seeds %d from seed %d out of range: want seed + seeds - 1 < 2^31", seeds, c.Seed)
	}
	key := averageKey{c, seeds}
	memo := a.once && !traced && memoizable(c)
	if memo {
		if s, ok := a.memo[key]; ok {
			s.Runs = slices.Clone(s.Runs) // each row owns its runs
			return s, nil, nil
		}
	}
	same := a.once && !traced && seedFree(c)
	runs := make([]Result, 0, seeds)
	var traces []*Trace
	for i := range seeds {
		if i > 0 && same {
			runs = append(runs, runs[0]) // the same run for every seed
			continue
		}
		ci := c
		ci.Seed = c.Seed + int64(i)
		r, tr, err := a.run(ci, traced)
		if err != nil {
			return Summary{}, nil, err
		}
		if traced {
			traces = append(traces, tr)
		}
		runs = append(runs, r)
	}
	s := summarize(runs)
	if memo {
		if a.memo == nil {
			a.memo = make(map[averageKey]Summary)
		}
		a.memo[key] = s
		s.Runs = slices.Clone(runs)
	}
	return s, traces, nil
}

// summarize returns the means of runs (at least one).
func summarize(runs []Result) Summary {
	s := Summary{Seeds: len(runs), Runs: runs}
	var finish, idle, recovery time.Duration
	for i, r := range runs {
		finish += r.Finish
		idle += r.Idle
		recovery += r.Recovery
		s.Calls += float64(r.Calls)
		s.CallsOutage += float64(r.CallsOutage)
		s.CallsRecovery += float64(r.CallsRecovery)
		s.Admitted += float64(r.Admitted)
		s.PeakPer100ms += float64(r.PeakPer100ms)
		s.PeakPerMs += float64(r.PeakPerMs)
		s.Unfinished += float64(r.Unfinished)
		if i == 0 || r.Unfinished < s.UnfinishedMin {
			s.UnfinishedMin = r.Unfinished
		}
		s.UnfinishedMax = max(s.UnfinishedMax, r.Unfinished)
	}
	n := float64(len(runs))
	s.FinishMs = ms(finish) / n
	s.IdleMs = ms(idle) / n
	s.RecoveryMs = ms(recovery) / n
	if recovery > 0 {
		s.IdleFraction = float64(idle) / float64(recovery)
	}
	for _, f := range []*float64{&s.Calls, &s.CallsOutage, &s.CallsRecovery, &s.Admitted, &s.PeakPer100ms, &s.PeakPerMs, &s.Unfinished} {
		*f /= n
	}
	return s
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
