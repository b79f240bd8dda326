package overload_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/overload"
)

// The lesson's four runs: without a limit on retries the server never comes
// back from the 3 s dip; a retry budget, a breaker or server-side pacing each
// bring it back, at different prices.
func Example() {
	base := overload.Lesson()
	for _, v := range []struct {
		name string
		c    overload.Config
	}{
		{"3 attempts", base},
		{"+ budget", base.WithBudget()},
		{"+ breaker", base.WithBreaker()},
		{"+ pacing", base.WithPacing()},
	} {
		r, err := overload.Run(v.c)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-10s ×%.2f  recovered %-5v after %5.1f s  failed %5d  wasted %5d\n",
			v.name, r.Amplification, r.Recovered, r.RecoveredAfter.Seconds(), r.Failed, r.Wasted)
	}
	// Output:
	// 3 attempts ×2.62  recovered false after   0.0 s  failed 37679  wasted 47000
	// + budget   ×1.03  recovered true  after  15.9 s  failed 14586  wasted 16196
	// + breaker  ×0.93  recovered true  after   2.0 s  failed  4030  wasted   792
	// + pacing   ×1.15  recovered true  after   0.2 s  failed  1140  wasted   501
}

// The timeline at one-second resolution around the dip, without a budget:
// offered load triples and goodput never returns.
func ExampleResult_timeline() {
	r, err := overload.Run(overload.Lesson().WithDuration(20 * time.Second).WithSample(time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range r.Timeline[8:] {
		fmt.Printf("t=%2.0fs  offered %5.0f/s  goodput %4.0f/s  queue %5d\n", p.Start.Seconds(), p.Offered, p.Goodput, p.Queue)
	}
	// Output:
	// t= 8s  offered   822/s  goodput  822/s  queue     0
	// t= 9s  offered   798/s  goodput  795/s  queue     3
	// t=10s  offered   787/s  goodput    0/s  queue   790
	// t=11s  offered  1597/s  goodput    0/s  queue  2387
	// t=12s  offered  2381/s  goodput    0/s  queue  4768
	// t=13s  offered  2357/s  goodput    0/s  queue  6125
	// t=14s  offered  2362/s  goodput    0/s  queue  7487
	// t=15s  offered  2354/s  goodput    0/s  queue  8841
	// t=16s  offered  2413/s  goodput    0/s  queue 10254
	// t=17s  offered  2403/s  goodput    0/s  queue 11657
	// t=18s  offered  2431/s  goodput    0/s  queue 13088
	// t=19s  offered  2371/s  goodput    0/s  queue 14459
}

// Columns gives the timeline as one slice per quantity, the shape chart
// packages want.
func ExampleResult_Columns() {
	r, err := overload.Run(overload.Lesson().WithBudget().WithSample(10 * time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	col := r.Columns()
	fmt.Println("t (s):    ", col.T)
	fmt.Printf("goodput/s: %.0f\n", col.Goodput)
	fmt.Println("queue:    ", col.Queue)
	// Output:
	// t (s):     [0 10 20 30 40 50]
	// goodput/s: [792 0 80 864 814 799]
	// queue:     [3 1727 676 1 8 0]
}

// A Board runs the lesson's four variants on one time ruler; its figures
// (Timeline, Lines, Work) go to static.Show in a notebook.
func ExampleNewBoard() {
	b, err := overload.NewBoard(overload.Remedies(overload.Lesson()))
	if err != nil {
		fmt.Println(err)
		return
	}
	q := b.Lines(overload.Queue)
	fmt.Println(q.YLabel, "| dip shaded from", q.Spans[0].From, "to", q.Spans[0].To, "s")
	for _, s := range q.Series {
		fmt.Printf("%-9s queue at 30 s: %5.0f\n", s.Name, s.Y[300])
	}
	fmt.Println(len(b.Timeline().Panels), "panels:", overload.Offered, "/", overload.Goodput, "/", overload.Queue)
	// Output:
	// queue (entries) | dip shaded from 10 to 13 s
	// no limit  queue at 30 s: 28936
	// budget    queue at 30 s:   652
	// breaker   queue at 30 s:     0
	// pacing    queue at 30 s:     0
	// 3 panels: offered load (attempts/s) / goodput (requests/s) / queue (entries)
}

// RemedyBoard picks some of the lesson's variants by name: here the figure
// that compares the three remedies without the unlimited run.
func ExampleRemedyBoard() {
	b, err := overload.RemedyBoard(overload.Lesson(), "budget", "breaker", "pacing")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range b.Names {
		fmt.Println(name+": goodput back", b.Of(name).RecoveredAfter, "after the dip")
	}
	_, err = overload.RemedyBoard(overload.Lesson(), "retry harder")
	fmt.Println(err)
	// Output:
	// budget: goodput back 15.9s after the dip
	// breaker: goodput back 2s after the dip
	// pacing: goodput back 220ms after the dip
	// overload: no remedy named "retry harder": want one of ["no limit" "budget" "breaker" "pacing"]
}

// The reference keeps every entry in the queue, as the lesson describes it,
// and gives exactly what Run gives; a lesson prints its source to show the
// model.
func ExampleRunReference() {
	r, err := overload.RunReference(overload.Lesson())
	if err != nil {
		fmt.Println(err)
		return
	}
	fast, _ := overload.Run(overload.Lesson())
	fmt.Printf("queue at the end %d, served for nobody %d; the same as Run: %v\n", r.FinalQueue, r.Wasted, r.FinalQueue == fast.FinalQueue && r.Wasted == fast.Wasted && r.Failed == fast.Failed)
	fmt.Println(overload.Reference().Path)
	// Output:
	// queue at the end 71040, served for nobody 47000; the same as Run: true
	// lab/overload/reference.go
}
