package layered_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/layered"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
)

// An inner layer that retries at once (three attempts, 5 ms apart) beneath
// an outer layer with full jitter: the shared failure's spike comes back in
// the retries, and the work nearly triples.
func ExampleConfig() {
	full := synchrony.Lesson().WithPolicy(schedule.FullJitter{Base: time.Second, Cap: 20 * time.Second})
	for _, inner := range []int{1, 3} {
		a, _ := layered.Config{Cohort: full, Inner: inner, Gap: 5 * time.Millisecond}.Arrivals()
		r, _ := metrics.Measure(metrics.Times(a.Retries().Times()), 10*time.Millisecond)
		fmt.Printf("inner %d: %d attempts, retries %v\n", inner, len(a), r)
	}
	// Output:
	// inner 1: 7059 attempts, retries 6059 events, peak 21 in 10ms at 710ms, CV 2.29
	// inner 3: 19177 attempts, retries 18177 events, peak 1005 in 10ms at 10ms, CV 4.03
}
