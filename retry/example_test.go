package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/retry"
)

// An operation that fails twice, retried with full jitter drawn from a
// seeded generator: even the first retry's wait is random, and
// each lies below its window (1 ms, then 2 ms).
func ExampleRetrier_Do() {
	r, err := retry.New(retry.Config{
		Policy: retry.FullJitter{Base: time.Millisecond, Cap: time.Second},
		Rand:   seeded(1),
		Observer: func(e retry.Event) {
			switch e.Kind {
			case retry.EventAttempt:
				fmt.Println("attempt", e.Attempt)
			case retry.EventRetry:
				fmt.Printf("  failed (%v); retry in %v\n", e.Err, e.Wait.Round(time.Microsecond))
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	calls := 0
	err = r.Do(context.Background(), func(context.Context) error {
		if calls++; calls < 3 {
			return errors.New("connection reset")
		}
		return nil
	})
	fmt.Println("result:", err)
	// Output:
	// attempt 1
	//   failed (connection reset); retry in 238µs
	// attempt 2
	//   failed (connection reset); retry in 1.002ms
	// attempt 3
	// result: <nil>
}

// The deadline check: a one-second wait cannot fit in a 100 ms deadline, so
// the call gives up at once, after one attempt, instead of sleeping into it.
// The error says which wait it refused.
func ExampleRetrier_Do_deadline() {
	r, _ := retry.New(retry.Config{Policy: retry.Constant{Base: time.Second}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := r.Do(ctx, func(context.Context) error { return errors.New("unavailable") })
	var e *retry.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, retry.ErrDeadline), e.Attempts, e.Wait)
	}
	// Output:
	// true 1 1s
}

// A Transport in an http.Client: the server's first answer is a 503 with
// Retry-After: 0, the retry succeeds, and the counters show what happened.
func ExampleTransport() {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()

	var counters retry.Counters
	t, err := retry.NewTransport(retry.TransportConfig{Config: retry.Config{
		Policy:   retry.FullJitter{Base: 5 * time.Millisecond, Cap: time.Second},
		Observer: counters.Observe,
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	client := &http.Client{Transport: t}
	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	fmt.Printf("%+v\n", counters.Snapshot())
	// Output:
	// 200 hello
	// {Attempts:2 Retries:1 BudgetRefusals:0 BreakerRefusals:0 GiveUps:0 BreakerChanges:0}
}

// Both forms of Retry-After; a malformed value is an error, which the
// Transport treats as no Retry-After at all.
func ExampleParseRetryAfter() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"120", "Sun, 01 Mar 2026 12:00:30 GMT", "-5"} {
		d, err := retry.ParseRetryAfter(v, now)
		fmt.Println(d, err)
	}
	// Output:
	// 2m0s <nil>
	// 30s <nil>
	// 0s retry: Retry-After "-5" is neither delay-seconds nor an HTTP-date
}
