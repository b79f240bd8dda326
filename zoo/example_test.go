package zoo_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/zoo"
)

// go-retryablehttp's defaults wait exactly 1 s, 2 s, 4 s and 8 s: every
// client of a cohort that failed together retries at the same instants.
func ExampleRun() {
	for _, e := range zoo.Entries() {
		if e.Name != "go-retryablehttp" || e.Settings != "defaults" {
			continue
		}
		r, err := zoo.Run(e, zoo.Storm{Clients: 100, Outage: 10 * time.Second})
		if err != nil {
			panic(err)
		}
		fmt.Println("client 0 sent at:", r.Attempts[0])
		fmt.Println("fullest 10 ms of retries:", r.Peak, "of", r.Served, "clients")
	}
	// Output:
	// client 0 sent at: [0s 1s 3s 7s 15s]
	// fullest 10 ms of retries: 100 of 100 clients
}
