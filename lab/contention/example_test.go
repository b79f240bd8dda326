package contention_test

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/backofflab/backofflab/lab/contention"
	"github.com/backofflab/backofflab/lab/schedule"
)

// One run of Brooker's experiment with 20 clients and full jitter.
func ExampleRun() {
	r, err := contention.Run(contention.Lesson().WithClients(20))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d writes, everyone committed after %.0f ms\n", r.Writes, r.Time.Seconds()*1000)
	// Output:
	// 99 writes, everyone committed after 797 ms
}

// The reference, which a lesson prints to show the model, gives exactly
// what Run gives.
func ExampleRunReference() {
	r, err := contention.RunReference(contention.Lesson().WithClients(20))
	if err != nil {
		fmt.Println(err)
		return
	}
	fast, _ := contention.Run(contention.Lesson().WithClients(20))
	fmt.Printf("%d writes, everyone committed after %.0f ms; the same as Run: %v\n", r.Writes, r.Time.Seconds()*1000, r == fast)
	fmt.Println(contention.Reference().Path)
	// Output:
	// 99 writes, everyone committed after 797 ms; the same as Run: true
	// lab/contention/reference.go
}

// The five policies at 50 clients, ten runs each: exponential backoff
// without jitter makes many calls and is by far the slowest.
func ExampleCompare() {
	ms, err := contention.Compare(contention.Lesson().WithClients(50), 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "policy\twrites\tms")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\n", schedule.Label(m.Config.Policy), m.Calls, m.TimeMS())
	}
	tw.Flush()
	full, exp := ms.Of(schedule.NameFull), ms.Of(schedule.NameExponential)
	fmt.Printf("full jitter: %.2f× the writes of exponential\n", full.Calls/exp.Calls)
	// Output:
	// policy                   writes  ms
	// immediate (no wait)      698     1154
	// exponential (no jitter)  627     36997
	// full jitter              335     3039
	// equal jitter             345     4527
	// decorrelated jitter      382     1991
	// full jitter: 0.53× the writes of exponential
}

// A bad parameter is reported by name, with the range allowed.
func ExampleConfig_Validate() {
	c := contention.Lesson()
	c = c.WithCap(c.Base / 2)
	fmt.Println(c.Validate())
	// Output:
	// contention: Cap 2.5ms out of range: want Base (5ms) <= Cap <= 1h0m0s
}

// Curves turns a sweep into one line per policy for a chart of calls (or
// time) against the number of clients.
func ExampleMeans_Curves() {
	ms, err := contention.Sweep(contention.Lesson(), []int{10, 20, 30}, []string{schedule.NameExponential, schedule.NameFull}, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	cs := ms.Curves()
	for _, c := range cs {
		fmt.Println(c.Policy, "x =", c.Clients, "calls =", c.Calls)
	}
	fmt.Println("full jitter at 30 clients:", cs.Of(schedule.NameFull).Calls[2], "calls")
	// Output:
	// exponential x = [10 20 30] calls = [50.2 143.4 285]
	// full x = [10 20 30] calls = [37.4 100 174.2]
	// full jitter at 30 clients: 174.2 calls
}

// CallsLines and TimeLines draw a sweep as the lesson's two charts, one line
// per policy; in a notebook, pass them to static.Show or interactive.Show.
func ExampleCallsLines() {
	ms, err := contention.Sweep(contention.Lesson(), []int{10, 20}, []string{schedule.NameImmediate, schedule.NameFull}, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	calls, times := contention.CallsLines(ms), contention.TimeLines(ms)
	fmt.Println(calls.Title)
	for i, s := range calls.Series {
		fmt.Printf("%s: clients %v, %s %.0f, seconds %.2f\n", s.Name, s.X, calls.YLabel, s.Y, times.Series[i].Y)
	}
	// Output:
	// Calls until every client has committed (mean of 5 runs)
	// immediate (no wait): clients [10 20], writes per run [53 151], seconds [0.40 0.60]
	// full jitter: clients [10 20], writes per run [37 100], seconds [0.39 1.07]
}
