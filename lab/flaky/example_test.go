package flaky_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/backofflab/backofflab/lab/flaky"
	"github.com/backofflab/backofflab/retry"
)

// A server that fails its first two requests, asked three times.
func ExampleNew() {
	s := flaky.New(2)
	defer s.Close()
	for range 3 {
		resp, err := http.Get(s.URL)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	fmt.Println("requests received:", s.Requests())
	// Output:
	// 503 Service Unavailable
	// 503 Service Unavailable
	// 200 OK
	// requests received: 3
}

// How package retry reads two Retry-After values.
func ExampleRetryAfterTable() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	fmt.Print(flaky.RetryAfterTable(now, "120", "soon"))
	// Output:
	// Retry-After  the client
	// "120"        wait at least 2m0s
	// "soon"       ignored: retry: Retry-After "soon" is neither delay-seconds nor an HTTP-date
}

// A client's counters after one call that took three attempts.
func ExampleStatsTable() {
	fmt.Print(flaky.StatsTable(retry.Stats{Attempts: 3, Retries: 2}))
	// Output:
	// attempts  retries  budget refusals  breaker refusals  give-ups  breaker changes
	//        3        2                0                 0         0                0
}
