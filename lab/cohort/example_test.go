package cohort_test

import (
	"fmt"
	"github.com/backofflab/backofflab/lab/schedule"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
)

// Sixty clients, all refused by a three-second outage, back off
// exponentially without jitter: they stay in step, so the dependency sees
// the whole cohort in one millisecond and then nothing for 3.2 s.
func Example() {
	r, err := cohort.Run(cohort.Lesson()) // the lesson's policy: exponential, no jitter
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

// The constant wait never backs off: it is the fastest policy in the main
// setting and the most expensive, and its numbers do not depend on the seed.
func ExampleAverage() {
	p, err := cohort.NewPolicy(schedule.NameConstant, cohort.DefaultBase, cohort.DefaultCap, cohort.DefaultWait)
	if err != nil {
		panic(err)
	}
	s, err := cohort.Average(cohort.Lesson().WithPolicy(p), cohort.DefaultSeeds)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.0f ms, %.0f calls, %.0f during the outage\n", s.FinishMs, s.Calls, s.CallsOutage)
	// Output:
	// 4520 ms, 2252 calls, 1800 during the outage
}

// In the overload setting exponential backoff never catches up: 168 of the
// 240 clients are still waiting at the 60 s horizon, where full jitter
// finishes them all. Rows are read by
// policy name.
func ExampleTable() {
	rows, err := cohort.Table(cohort.Lesson().WithOverload(), cohort.Lineup(), cohort.OverloadSeeds)
	if err != nil {
		panic(err)
	}
	for _, name := range []string{schedule.NameExponential, schedule.NameFull} {
		r := rows.Of(name)
		fmt.Printf("%s: %.0f unfinished (%d to %d over %d seeds), idle %.1f%%\n",
			schedule.Label(name), r.Unfinished, r.UnfinishedMin, r.UnfinishedMax, r.Seeds, 100*r.IdleFraction)
	}
	// Output:
	// exponential (no jitter): 168 unfinished (168 to 168 over 20 seeds), idle 96.2%
	// full jitter: 0 unfinished (0 to 0 over 20 seeds), idle 11.6%
}

// Waves groups the attempts by retry number: with the first attempts spread
// over 50 ms, exponential backoff moves the whole burst without changing its
// width until the dependency starts admitting calls.
func ExampleTrace_Waves() {
	_, tr, err := cohort.RunTraced(cohort.Lesson().WithSpread(50 * time.Millisecond))
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

// A policy table. Exponential backoff and the constant
// wait have no randomness, so their means are the same in every seed.
func ExampleRows_Table() {
	var lineup []schedule.Named
	for _, p := range cohort.Lineup() {
		if p.Name == schedule.NameExponential || p.Name == schedule.NameConstant {
			lineup = append(lineup, p)
		}
	}
	rows, err := cohort.Table(cohort.Lesson(), lineup, cohort.DefaultSeeds)
	if err != nil {
		panic(err)
	}
	fmt.Print(rows.Table())
	// Output:
	// finish   calls  calls in  calls   idle  idle  peak per    peak     clients
	// policy            s     all    outage  after      s     %    100 ms  per ms  unfinished
	// exponential   25.62   556.0     300.0  256.0  21.66  95.8      60.0    60.0         0.0
	// constant       4.52  2252.0    1800.0  452.0   0.56  36.8      60.0    60.0         0.0
	// (means over 40 seeds)
}

// The reference applies the rules one millisecond at a time and gives
// exactly what Run gives; its source is what a lesson prints to show the
// model.
func ExampleRunReference() {
	r, tr, err := cohort.RunReference(cohort.Lesson())
	if err != nil {
		panic(err)
	}
	fast, err := cohort.Run(cohort.Lesson())
	if err != nil {
		panic(err)
	}
	fmt.Println("finish:", r.Finish, "calls:", r.Calls, "attempts traced:", len(tr.Attempts))
	fmt.Println("the same as Run:", r == fast)
	fmt.Println(cohort.Reference().Path)
	// Output:
	// finish: 25.62s calls: 556 attempts traced: 556
	// the same as Run: true
	// lab/cohort/reference.go
}
