package synchronisers_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/synchronisers"
)

// The CV's three regimes on one job: every instance on the minute (bursts,
// far above 1), each at a random offset within the minute (about 1, like
// independent arrivals), offsets handed out evenly (0).
func ExampleCron() {
	c := synchronisers.Cron{Instances: 500, Period: time.Minute, Runs: 10, Seed: 1513241}
	for _, v := range []struct {
		name   string
		offset float64
		even   bool
	}{{"on the minute", 0, false}, {"random offset", 1, false}, {"even offsets", 1, true}} {
		c.Offset, c.Even = v.offset, v.even
		r, _ := metrics.Measure(c, time.Second)
		fmt.Printf("%-14s %v\n", v.name, r)
	}
	// Output:
	// on the minute  5000 events, peak 500 in 1s at 0s, CV 23.55
	// random offset  5000 events, peak 14 in 1s at 5s, CV 1.00
	// even offsets   5000 events, peak 9 in 1s at 0s, CV 0.00
}

// The lesson's other synchronisers, each without an offset, with a token
// one (1 % of the interval), with 20 % and with the whole interval. Only an
// offset comparable to the interval brings the CV near 1; a rolling
// restart's pools stay bursts whatever the offset, because an offset per
// instance cannot spread one instance's own connections.
func ExampleTable() {
	rows, err := synchronisers.Table(synchronisers.Synchronisers(), synchronisers.LessonOffsets)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(rows.Table())
	// Output:
	// source   offset  events          peak         CV
	// cron         0%    5000     500 in 1s      23.55
	// cron         1%    5000     500 in 1s      23.29
	// cron        20%    5000      54 in 1s      18.43
	// cron       100%    5000      14 in 1s       1.00
	// ttl          0%    5500     500 in 1s      23.43
	// ttl          1%    5500     175 in 1s      22.47
	// ttl         20%    5138      16 in 1s       9.06
	// ttl        100%    3751       6 in 1s       1.14
	// restart      0%    2000   200 in 10ms      14.87
	// restart      1%    2000    60 in 10ms      14.74
	// restart     20%    2000    40 in 10ms      12.27
	// restart    100%    2000    40 in 10ms       5.99
	// heal         0%    1000  1000 in 10ms  undefined
	// heal         1%    1000   223 in 10ms       2.94
	// heal        20%    1000    21 in 10ms       1.20
	// heal       100%    1000    16 in 10ms       1.38
}
