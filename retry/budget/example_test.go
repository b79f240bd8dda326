package budget_test

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/retry/budget"
)

// A client sends 50 requests in one second against a dependency that is
// down, and wants to retry every one of them. The default budget (10 % over
// ten one-second buckets) lets 5 retries through; ten seconds later the
// requests have left the window and so has the allowance.
func Example() {
	var b budget.Budget
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	retried := 0
	for i := range 50 {
		now := start.Add(time.Duration(i) * 20 * time.Millisecond)
		b.RecordRequest(now)
		if b.AllowRetry(now) {
			retried++
		}
	}
	fmt.Println("retried:", retried)
	fmt.Printf("%+v\n", b.Counts(start.Add(9*time.Second)))
	fmt.Printf("%+v\n", b.Counts(start.Add(10*time.Second)))
	// Output:
	// retried: 5
	// {Requests:50 Retries:5}
	// {Requests:0 Retries:0}
}

// New names the parameter that is out of range, and the range.
func ExampleNew() {
	_, err := budget.New(budget.Config{Ratio: 1.5})
	fmt.Println(err)
	_, err = budget.New(budget.Config{Buckets: -2})
	fmt.Println(err)
	// Output:
	// budget: ratio 1.5 out of range: want 0 < ratio <= 1 (0 means the default 0.1)
	// budget: buckets -2 out of range: want 1 <= buckets <= 3600 (0 means the default 10)
}
