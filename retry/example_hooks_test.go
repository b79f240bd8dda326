package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/budget"
)

// flakyServer fails its first n requests with status, then answers "ok".
func flakyServer(n int64, status int) *httptest.Server {
	var hits atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) <= n {
			w.WriteHeader(status)
			return
		}
		io.WriteString(w, "ok")
	}))
}

// Retryable tells the errors worth another attempt from the answers: here
// a lookup that finds nothing is an answer, returned at once.
func ExampleConfig_retryable() {
	errNotFound := errors.New("not found")
	r, _ := retry.New(retry.Config{
		Policy:    retry.Constant{Base: time.Millisecond},
		Retryable: func(err error) bool { return !errors.Is(err, errNotFound) },
	})
	attempts := 0
	err := r.Do(context.Background(), func(context.Context) error {
		attempts++
		if attempts == 1 {
			return errors.New("connection reset")
		}
		return fmt.Errorf("user 7: %w", errNotFound)
	})
	fmt.Println(attempts, err)
	// Output:
	// 2 user 7: not found
}

// Classify decides what an attempt's outcome means. This one counts a 500
// as a failure for the breaker without retrying it, and leaves the rest to
// the default rule, which retries a 503.
func ExampleTransportConfig_classify() {
	var counters retry.Counters
	t, err := retry.NewTransport(retry.TransportConfig{
		Config: retry.Config{Policy: retry.Constant{Base: time.Millisecond}, Observer: counters.Observe},
		Classify: func(resp *http.Response, err error) retry.Verdict {
			if resp != nil && resp.StatusCode == http.StatusInternalServerError {
				return retry.Fail
			}
			return retry.DefaultClassify(resp, err)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	client := &http.Client{Transport: t}
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError} {
		srv := flakyServer(1, status) // fails once with status, then answers
		before := counters.Snapshot().Attempts
		resp, err := client.Get(srv.URL)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		srv.Close()
		fmt.Printf("first answer %d: got %d after %d attempts\n", status, resp.StatusCode, counters.Snapshot().Attempts-before)
	}
	// Output:
	// first answer 503: got 200 after 2 attempts
	// first answer 500: got 500 after 1 attempts
}

// PrepareAttempt signs every attempt afresh, as a request signed with a
// timestamp (AWS SigV4, say) or carrying a short-lived token must be. The
// server rejects a signature it has seen before.
func ExampleTransportConfig_prepareAttempt() {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sig := r.Header.Get("X-Signature")
		seen = append(seen, sig)
		if len(seen) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the first attempt fails
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	t, _ := retry.NewTransport(retry.TransportConfig{
		Config: retry.Config{Policy: retry.Constant{Base: time.Millisecond}},
		PrepareAttempt: func(req *http.Request, attempt int) error {
			req.Header.Set("X-Signature", fmt.Sprintf("sig-%d", attempt)) // sign(req, time.Now()) in a real client
			return nil
		},
	})
	resp, err := (&http.Client{Transport: t}).Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, seen)
	// Output:
	// 200 [sig-1 sig-2]
}

// DoValue returns the result of the attempt that succeeded.
func ExampleDoValue() {
	r, _ := retry.New(retry.Config{Policy: retry.Constant{Base: time.Millisecond}})
	attempts := 0
	name, err := retry.DoValue(context.Background(), r, func(context.Context) (string, error) {
		if attempts++; attempts < 3 {
			return "", errors.New("connection reset")
		}
		return "Ada", nil
	})
	fmt.Println(name, err, attempts)
	// Output:
	// Ada <nil> 3
}

// LogEvents logs every event to a *slog.Logger, here at Debug level so
// that the attempts show too (the time is left out to keep the output
// fixed).
func ExampleLogEvents() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
	r, _ := retry.New(retry.Config{Policy: retry.Constant{Base: 5 * time.Millisecond}, MaxAttempts: 2, Observer: retry.LogEvents(logger)})
	r.Do(context.Background(), func(context.Context) error { return errors.New("connection reset") })
	// Output:
	// level=DEBUG msg="retry attempt" kind=attempt attempt=1
	// level=INFO msg="retry retry" kind=retry attempt=1 wait=5ms err="connection reset"
	// level=DEBUG msg="retry attempt" kind=attempt attempt=2
	// level=WARN msg="retry give-up" kind=give-up attempts=2 reason="attempt limit reached" err="retry: gave up after 2 attempts: attempt limit reached: last error: connection reset"
}

// An inner RoundTripper reads the attempt's number from the request's
// context: an instrumented transport records it (OpenTelemetry's
// http.request.resend_count is the number less one). The zoo module has an
// Example with OpenTelemetry's own otelhttp.
func ExampleAttemptFromContext() {
	srv := flakyServer(2, http.StatusBadGateway)
	defer srv.Close()
	inner := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		fmt.Println("sending attempt", retry.AttemptFromContext(req.Context()))
		return http.DefaultTransport.RoundTrip(req)
	})
	t, _ := retry.NewTransport(retry.TransportConfig{Base: inner, Config: retry.Config{Policy: retry.Constant{Base: time.Millisecond}}})
	resp, err := (&http.Client{Transport: t}).Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// sending attempt 1
	// sending attempt 2
	// sending attempt 3
	// 200
}

// One Retrier, two dependencies: For gives each its own breaker and
// budget, so the one that is down does not cut off the other.
func ExampleRetrier_For() {
	var r retry.Retrier // every default: a breaker opens after 5 failures in a row
	orders, users := r.For("orders"), r.For("users")
	down := func(context.Context) error { return errors.New("connection refused") }
	for range 2 {
		orders.Do(context.Background(), down) // 3 attempts each: 6 failures
	}
	fmt.Println("orders:", orders.Breaker().State(time.Now()))
	fmt.Println("users:", users.Do(context.Background(), func(context.Context) error { return nil }), users.Breaker().State(time.Now()))
	// Output:
	// orders: open
	// users: <nil> closed
}

// A budget across a fleet: the Transport keeps a breaker per replica, but
// one budget bounds the retries to all of them together, as one
// dependency, to 10 % of the requests.
func ExampleTransportConfig_budget() {
	fleet, _ := budget.New(budget.Config{Ratio: 0.1})
	t, err := retry.NewTransport(retry.TransportConfig{Config: retry.Config{Budget: fleet}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.BudgetFor("https", "replica-1.internal") == t.BudgetFor("https", "replica-2.internal"))
	fmt.Println(t.Breaker("https", "replica-1.internal") == t.Breaker("https", "replica-2.internal"))
	// Output:
	// true
	// false
}

// An Event is a slog.LogValuer: logged as one attribute, it is a group of
// the fields its kind sets.
func ExampleEvent_LogValue() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{} // no time, to keep the output fixed
			}
			return a
		},
	}))
	e := retry.Event{Kind: retry.EventRetry, Host: "https://api.example.com", Attempt: 1, Wait: 72 * time.Millisecond,
		Err: &retry.StatusError{Code: http.StatusServiceUnavailable}}
	logger.Info("retrying", "event", e)
	// Output:
	// level=INFO msg=retrying event.kind=retry event.host=https://api.example.com event.attempt=1 event.wait=72ms event.err="HTTP 503 Service Unavailable"
}
