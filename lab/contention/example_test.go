package contention_test

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/contention"
)

// One run of Brooker's experiment with 20 clients and full jitter.
func ExampleRun() {
	r, err := contention.Run(contention.Brooker(20, "full"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d writes, everyone committed after %.0f ms\n", r.Writes, r.Time.Seconds()*1000)
	// Output:
	// 99 writes, everyone committed after 797 ms
}

// The five policies at 50 clients, ten runs each: exponential backoff
// without jitter makes many calls and is by far the slowest.
func ExampleSweep() {
	ms, err := contention.Sweep(contention.Brooker(0, ""), []int{50}, contention.Policies(), 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms {
		fmt.Printf("%-12s %5.0f writes %6.0f ms\n", m.Config.Policy, m.Calls, m.TimeMS())
	}
	// Output:
	// none           698 writes   1154 ms
	// exponential    627 writes  36997 ms
	// full           335 writes   3039 ms
	// equal          345 writes   4527 ms
	// decorrelated   382 writes   1991 ms
}

// A bad parameter is reported by name, with the range allowed.
func ExampleConfig_Validate() {
	c := contention.Brooker(100, "full")
	c.Cap = c.Base / 2
	fmt.Println(c.Validate())
	// Output:
	// contention: Cap 2.5ms out of range: want Base (5ms) <= Cap <= 1h0m0s
}

// Curves turns a sweep into one line per policy for a chart of calls (or
// time) against the number of clients.
func ExampleCurves() {
	ms, err := contention.Sweep(contention.Brooker(0, ""), []int{10, 20, 30}, []string{"exponential", "full"}, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range contention.Curves(ms) {
		fmt.Printf("%-11s x=%v calls=%.0f\n", c.Policy, c.Clients, c.Calls)
	}
	// Output:
	// exponential x=[10 20 30] calls=[50 143 285]
	// full        x=[10 20 30] calls=[37 100 174]
}

// CallsLines and TimeLines draw a sweep as the lesson's two charts, one line
// per policy; in a notebook, pass them to chart.Show.
func ExampleCallsLines() {
	ms, err := contention.Sweep(contention.Brooker(0, ""), []int{10, 20}, []string{"none", "full"}, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	calls, times := contention.CallsLines(ms), contention.TimeLines(ms)
	fmt.Println(calls.Title)
	for i, s := range calls.Series {
		fmt.Printf("%-20s clients %v  %s %.0f  seconds %.2f\n", s.Name, s.X, calls.YLabel, s.Y, times.Series[i].Y)
	}
	// Output:
	// Calls until every client has committed (mean of 5 runs)
	// none (retry at once) clients [10 20]  writes per run [53 151]  seconds [0.40 0.60]
	// full                 clients [10 20]  writes per run [37 100]  seconds [0.39 1.07]
}
