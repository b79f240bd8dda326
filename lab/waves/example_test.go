package waves_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/waves"
)

// The lesson's table: the same 600 clients and seed, three jitter widths.
// The peak falls with the width; the total barely moves.
func Example() {
	c := waves.Lesson()
	for _, w := range []float64{0, 0.5, 1} {
		c.Jitter = w
		r, err := waves.Run(c)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("jitter %3.0f%%: %4d attempts, peak %v\n", 100*w, r.Total, r.Peak())
	}
	// Output:
	// jitter   0%: 3600 attempts, peak 3000/s (600 in 200ms at 1s)
	// jitter  50%: 3600 attempts, peak 1240/s (248 in 200ms at 800ms)
	// jitter 100%: 3323 attempts, peak 925/s (185 in 200ms at 1.2s)
}

// Why the full-width total is below 3600: some clients succeed one attempt
// early, and some sixth attempts fall past the 40 s window.
func ExampleResult() {
	c := waves.Lesson()
	c.Jitter = 1
	r, _ := waves.Run(c)
	fmt.Println("planned:              ", r.Planned())
	fmt.Println("after early successes:", r.Planned()-r.SkippedAfterSuccess)
	fmt.Println("after the window:     ", r.Planned()-r.SkippedAfterSuccess-r.SkippedPastWindow)
	// Output:
	// planned:               3600
	// after early successes: 3437
	// after the window:      3323
}

// Count once at 1 ms, then read the peak at any wider slot: without jitter
// the spike is 600 attempts in one millisecond, and every wider slot
// understates it.
func ExampleModel_Histogram() {
	m, _ := waves.New(waves.Lesson())
	fine, _ := m.Histogram(time.Millisecond)
	widths := []time.Duration{time.Millisecond, 10 * time.Millisecond, 200 * time.Millisecond, time.Second}
	peaks, _ := metrics.PeakSweep(fine, widths)
	for _, p := range peaks {
		fmt.Println(p)
	}
	// Output:
	// 600000/s (600 in 1ms at 1s)
	// 60000/s (600 in 10ms at 1s)
	// 3000/s (600 in 200ms at 1s)
	// 600/s (600 in 1s at 1s)
}

// Each attempt, in client-major order, with what became of it. At full
// width neighbouring bands overlap ([0.5d, 1.5d) and [d, 3d)), so a
// client's attempt can come before its previous one: the model places
// each attempt relative to the shared failure, not to the previous one.
func ExampleModel_Attempts() {
	c := waves.Lesson()
	c.Jitter = 1
	m, _ := waves.New(c)
	for a := range m.Attempts() {
		if a.Client > 0 {
			break
		}
		fmt.Printf("client %d attempt %d at %v: %v\n", a.Client, a.N, a.At.Round(time.Millisecond), a.Outcome)
	}
	// Output:
	// client 0 attempt 1 at 1.072s: failed
	// client 0 attempt 2 at 2.266s: failed
	// client 0 attempt 3 at 5.61s: failed
	// client 0 attempt 4 at 5.311s: failed
	// client 0 attempt 5 at 9.423s: failed
	// client 0 attempt 6 at 25.479s: succeeded
}
