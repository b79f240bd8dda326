// Package overload is the Waves lesson's 2000-client exercise. A service
// with 2000 clients comes back from a 30 s outage able to serve 1200
// requests a second while it recovers (less than in steady state: its
// caches are cold). How tall is the first wave with full-width jitter, and
// how does it compare with that capacity?
//
// Write the three functions below, then run the check:
//
//	go test -tags exercise ./exercises/waves/overload
package overload

import (
	"time"

	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/waves"
)

// The exercise's numbers.
const (
	// Clients is the number of clients that fail together.
	Clients = 2000
	// Outage is how long the dependency is down.
	Outage = 30 * time.Second
	// Capacity is what the recovering service can serve, per second.
	Capacity = 1200.0
)

// Scenario returns the exercise's run: the lesson's configuration
// (waves.Lesson) with Clients clients, an outage of Outage and full-width
// jitter (w = 1).
func Scenario() waves.Config {
	// BEGIN SOLUTION
	return waves.Lesson().WithClients(Clients).WithOutage(Outage).WithJitter(1)
	// END SOLUTION
}

// Peak runs c and returns its peak, measured at c's slot width. An invalid
// c is an error, not a panic.
func Peak(c waves.Config) (metrics.Peak, error) {
	// BEGIN SOLUTION
	r, err := waves.Run(c)
	if err != nil {
		return metrics.Peak{}, err
	}
	return r.Peak(), nil
	// END SOLUTION
}

// TimesCapacity returns how many times capacity (requests per second) the
// peak's rate is: 1 means the peak just fits.
func TimesCapacity(p metrics.Peak, capacity float64) float64 {
	// BEGIN SOLUTION
	return p.PerSecond() / capacity
	// END SOLUTION
}
