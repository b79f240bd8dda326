package synchrony_test

import (
	"fmt"
	"os"
	"time"

	"github.com/backofflab/backofflab/lab"
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
	if err := synchrony.WriteRows(os.Stdout, rows); err != nil {
		fmt.Println(err)
	}
	// Output:
	// policy        attempts  retries  first attempts  retry peak           CV     recovered  last success
	// exponential   6000      5000     1000 in 10ms    1000 in 10ms at 1s   43.45  1000       31s
	// full          7059      6059     1000 in 10ms    21 in 10ms at 710ms  2.29   1000       39.433s
	// equal         6111      5111     1000 in 10ms    32 in 10ms at 580ms  6.45   1000       39.347s
	// decorrelated  6223      5223     1000 in 10ms    14 in 10ms at 2.85s  1.90   1000       39.991s
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

// The CV's three regimes on one job: every instance on the minute (bursts,
// far above 1), each at a random offset within the minute (about 1, like
// independent arrivals), offsets handed out evenly (0).
func ExampleCron() {
	c := synchrony.Cron{Instances: 500, Period: time.Minute, Runs: 10, Seed: 1513241}
	for _, v := range []struct {
		name   string
		offset float64
		even   bool
	}{{"on the minute", 0, false}, {"random offset", 1, false}, {"even offsets", 1, true}} {
		c.Offset, c.Even = v.offset, v.even
		r, _ := synchrony.Measure(c, time.Second)
		fmt.Printf("%-14s %v\n", v.name, r)
	}
	// Output:
	// on the minute  5000 events, peak 500 in 1s at 0s, CV 23.55
	// random offset  5000 events, peak 14 in 1s at 5s, CV 1.00
	// even offsets   5000 events, peak 9 in 1s at 0s, CV 0.00
}

// A cohort in step stays in step at the cap: the same peak every window.
// With full jitter at the cap the peak falls after the first window and
// stays low.
func ExampleWindowPeaks() {
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

// The lesson's other synchronisers, each without an offset, with a token
// one (1 % of the interval), with 20 % and with the whole interval. Only an
// offset comparable to the interval brings the CV near 1; a rolling
// restart's pools stay bursts whatever the offset, because an offset per
// instance cannot spread one instance's own connections.
func ExampleSyncTable() {
	rows, err := synchrony.SyncTable(synchrony.Synchronisers(), synchrony.LessonOffsets)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := synchrony.WriteSyncRows(os.Stdout, rows); err != nil {
		fmt.Println(err)
	}
	// Output:
	// source   offset  events  peak          CV
	// cron     0%      5000    500 in 1s     23.55
	// cron     1%      5000    500 in 1s     23.29
	// cron     20%     5000    54 in 1s      18.43
	// cron     100%    5000    14 in 1s      1.00
	// ttl      0%      5500    500 in 1s     23.43
	// ttl      1%      5500    175 in 1s     22.47
	// ttl      20%     5138    16 in 1s      9.06
	// ttl      100%    3751    6 in 1s       1.14
	// restart  0%      2000    200 in 10ms   14.87
	// restart  1%      2000    60 in 10ms    14.74
	// restart  20%     2000    40 in 10ms    12.27
	// restart  100%    2000    40 in 10ms    5.99
	// heal     0%      1000    1000 in 10ms  undefined
	// heal     1%      1000    223 in 10ms   2.94
	// heal     20%     1000    21 in 10ms    1.20
	// heal     100%    1000    16 in 10ms    1.38
}

// An inner layer that retries at once (three attempts, 5 ms apart) beneath
// an outer layer with full jitter: the shared failure's spike comes back in
// the retries, and the work nearly triples.
func ExampleLayered() {
	full := synchrony.Lesson().WithPolicy(schedule.FullJitter{Base: time.Second, Cap: 20 * time.Second})
	for _, inner := range []int{1, 3} {
		a, _ := synchrony.Layered{Cohort: full, Inner: inner, Gap: 5 * time.Millisecond}.Arrivals()
		r, _ := synchrony.Measure(synchrony.Times(a.Retries().Times()), 10*time.Millisecond)
		fmt.Printf("inner %d: %d attempts, retries %v\n", inner, len(a), r)
	}
	// Output:
	// inner 1: 7059 attempts, retries 6059 events, peak 21 in 10ms at 710ms, CV 2.29
	// inner 3: 19177 attempts, retries 18177 events, peak 1005 in 10ms at 10ms, CV 4.03
}

// An instance restarted into a thousand clients with full jitter: without a
// readiness gate it is knocked over while it warms, again and again; behind
// one it warms undisturbed and then serves every client.
func ExampleWarmup() {
	full := schedule.FullJitter{Base: time.Second, Cap: 20 * time.Second}
	for _, gate := range []bool{false, true} {
		r, _ := synchrony.WarmupLesson(full, gate).Run()
		fmt.Printf("gate %v: %d restarts, %d served\n", gate, r.Restarts, r.Served)
	}
	// Output:
	// gate false: 47 restarts, 685 served
	// gate true: 0 restarts, 1000 served
}

// A policy's wait for a draw you pick, checked by hand: the window before
// retry 3 is 8 s, and full jitter waits u times it.
func ExampleFixedDraw() {
	p := schedule.FullJitter{Base: time.Second, Cap: 20 * time.Second}
	fmt.Println(p.Delay(3, 0, synchrony.FixedDraw(0.25)))
	// Output: 2s
}

// Each of the package's models is one short file; a lesson prints one with
// fmt.Print(synchrony.Reference()) or one of its siblings.
func ExampleReference() {
	for _, src := range []lab.Source{synchrony.Reference(), synchrony.LayeredReference(), synchrony.WarmupReference(), synchrony.SynchronisersReference()} {
		fmt.Println(src.Path, src.Lines() <= 200)
	}
	// Output:
	// lab/synchrony/reference.go true
	// lab/synchrony/reference_layered.go true
	// lab/synchrony/reference_warmup.go true
	// lab/synchrony/reference_synchronisers.go true
}
