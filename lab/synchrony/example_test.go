package synchrony_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
)

// The lesson's main table: a thousand clients fail together, the dependency
// is down for 20 s, and each policy places the retries. Jitter cuts the
// retry peak from the whole cohort in one 10 ms slot to a few dozen; the
// first attempts are in step under every policy.
func Example() {
	rows, err := synchrony.LessonTable()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(rows.Table())
	// Output:
	// policy        attempts  retries  first attempts  retry peak              CV  recovered  last success
	// exponential       6000     5000    1000 in 10ms  1000 in 10ms at 1s   43.45       1000           31s
	// full              7059     6059    1000 in 10ms  21 in 10ms at 710ms   2.29       1000       39.433s
	// equal             6111     5111    1000 in 10ms  32 in 10ms at 580ms   6.45       1000       39.347s
	// decorrelated      6223     5223    1000 in 10ms  14 in 10ms at 2.85s   1.90       1000       39.991s
}

// One client's attempts without jitter: the running sums of the doubling
// waits, until the first attempt after the outage succeeds.
func ExampleCohort_Arrivals() {
	c := synchrony.Lesson().WithPolicy(schedule.Exponential{Base: time.Second})
	c.Clients = 1
	a, _ := c.Arrivals()
	for _, x := range a {
		fmt.Println(x.Attempt, x.At, x.Succeeded)
	}
	// Output:
	// 0 0s false
	// 1 1s false
	// 2 3s false
	// 3 7s false
	// 4 15s false
	// 5 31s true
}

// A policy's wait for a draw you pick, checked by hand: the window before
// retry 3 is 8 s, and full jitter waits u times it.
func ExampleFixedDraw() {
	p := schedule.FullJitter{Base: time.Second, Cap: 20 * time.Second}
	fmt.Println(p.Delay(3, 0, synchrony.FixedDraw(0.25)))
	// Output: 2s
}

// The package's model is one short file; a lesson prints it with
// fmt.Print(synchrony.Reference()).
func ExampleReference() {
	src := synchrony.Reference()
	fmt.Println(src.Path, src.Lines() <= 200)
	// Output: lab/synchrony/reference.go true
}

// The peak of each 5 s window of retries: exponential backoff stays in step
// at the cap, full jitter spreads at once.
func ExampleCohort_RetryPeaks() {
	for _, p := range []schedule.Policy{
		schedule.Exponential{Base: 100 * time.Millisecond, Cap: time.Second},
		schedule.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second},
	} {
		c := synchrony.Lesson().WithPolicy(p)
		c.Outage, c.Horizon = 30*time.Second, 30*time.Second
		peaks, _ := c.RetryPeaks(10*time.Millisecond, 5*time.Second)
		fmt.Print(p, ":")
		for _, pk := range peaks {
			fmt.Print(" ", pk.Count)
		}
		fmt.Println()
	}
	// Output:
	// exponential(base=100ms cap=1s mult=2): 1000 1000 1000 1000 1000 1000
	// full(base=100ms cap=1s mult=2): 175 35 36 35 37 33
}
