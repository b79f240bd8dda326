package crashloop_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/crashloop"
	"github.com/backofflab/backofflab/lab/schedule"
)

// An instance restarted into a thousand clients with full jitter: without a
// readiness gate it is knocked over while it warms, again and again; behind
// one it warms undisturbed and then serves every client.
func ExampleRun() {
	full := schedule.FullJitter{Base: time.Second, Cap: 20 * time.Second}
	for _, gate := range []bool{false, true} {
		r, _ := crashloop.Run(crashloop.Lesson(full, gate))
		fmt.Printf("gate %v: %d restarts, %d served\n", gate, r.Restarts, r.Served)
	}
	// Output:
	// gate false: 47 restarts, 685 served
	// gate true: 0 restarts, 1000 served
}
