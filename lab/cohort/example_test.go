package cohort_test

import (
	"fmt"
	"os"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
)

// Sixty clients, all refused by a three-second outage, back off
// exponentially without jitter: they stay in step, so the dependency sees
// the whole cohort in one millisecond and then nothing for 3.2 s.
func Example() {
	p, err := cohort.NewPolicy("exponential", cohort.DefaultBase, cohort.DefaultCap, cohort.DefaultFlat)
	if err != nil {
		panic(err)
	}
	r, err := cohort.Run(cohort.Main(p))
	if err != nil {
		panic(err)
	}
	fmt.Println("finish:", r.Finish)
	fmt.Printf("idle: %v of %v recovery (%.1f%%)\n", r.Idle, r.Recovery, 100*r.IdleFraction())
	fmt.Println("calls:", r.Calls, "worst millisecond:", r.PeakPerMs)
	// Output:
	// finish: 25.62s
	// idle: 21.66s of 22.62s recovery (95.8%)
	// calls: 556 worst millisecond: 60
}

// Flat retry never backs off: it is the fastest policy in the main setting
// and the most expensive, and its numbers do not depend on the seed.
func ExampleAverage() {
	p, _ := cohort.NewPolicy("flat", cohort.DefaultBase, cohort.DefaultCap, cohort.DefaultFlat)
	s, err := cohort.Average(cohort.Main(p), cohort.DefaultSeeds)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.0f ms, %.0f calls, %.0f during the outage\n", s.FinishMs, s.Calls, s.CallsOutage)
	// Output:
	// 4520 ms, 2252 calls, 1800 during the outage
}

// In the overload setting exponential backoff never catches up: 168 of the
// 240 clients are still waiting at the 60 s horizon.
func ExampleTable() {
	rows, err := cohort.Table(cohort.Overload(nil), cohort.DefaultLineup()[:1], cohort.OverloadSeeds)
	if err != nil {
		panic(err)
	}
	r := rows[0]
	fmt.Printf("%s: %.0f unfinished (%d to %d over %d seeds), idle %.1f%%\n",
		r.Policy, r.Unfinished, r.UnfinishedMin, r.UnfinishedMax, r.Seeds, 100*r.IdleFraction)
	// Output:
	// exponential: 168 unfinished (168 to 168 over 20 seeds), idle 96.2%
}

// Waves groups the attempts by retry number: with the first attempts spread
// over 50 ms, exponential backoff moves the whole burst without changing its
// width until the dependency starts admitting calls.
func ExampleTrace_Waves() {
	p, _ := cohort.NewPolicy("exponential", cohort.DefaultBase, cohort.DefaultCap, cohort.DefaultFlat)
	c := cohort.Main(p)
	c.Spread = 50 * time.Millisecond
	_, tr, err := cohort.RunTraced(c)
	if err != nil {
		panic(err)
	}
	for _, w := range tr.Waves()[:8] {
		fmt.Printf("retry %d: %2d calls from %v, %v wide\n", w.Retry, w.Calls, w.First, w.Width())
	}
	// Output:
	// retry 0: 60 calls from 0s, 50ms wide
	// retry 1: 60 calls from 100ms, 50ms wide
	// retry 2: 60 calls from 300ms, 50ms wide
	// retry 3: 60 calls from 700ms, 50ms wide
	// retry 4: 60 calls from 1.5s, 50ms wide
	// retry 5: 60 calls from 3.1s, 50ms wide
	// retry 6: 52 calls from 6.307s, 43ms wide
	// retry 7: 44 calls from 9.515s, 35ms wide
}

// WriteRows prints a policy table. Exponential backoff and flat retry have
// no randomness, so their means are the same in every seed.
func ExampleWriteRows() {
	l := cohort.DefaultLineup()
	rows, err := cohort.Table(cohort.Main(nil), []cohort.Named{l[0], l[4]}, cohort.DefaultSeeds)
	if err != nil {
		panic(err)
	}
	if err := cohort.WriteRows(os.Stdout, rows); err != nil {
		panic(err)
	}
	// Output:
	//   policy       finish s   calls  outage  recovery  admitted  idle s  idle %  peak/100ms  peak/ms  unfinished
	//   exponential     25.62   556.0   300.0     256.0      60.0   21.66    95.8        60.0     60.0         0.0
	//   flat             4.52  2252.0  1800.0     452.0      60.0    0.56    36.8        60.0     60.0         0.0
	// (means over 40 seeds)
}
