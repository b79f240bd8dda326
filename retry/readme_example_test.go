package retry_test

// The examples of README.md, which a test holds to these (readme_test.go).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/budget"
)

// User and ErrNoSuchUser stand for a dependency's types in the README's
// first example; getUser fails twice, then answers.
type User struct{ Name string }

var ErrNoSuchUser = errors.New("no such user")

var getUserCalls atomic.Int64

func getUser(ctx context.Context, id int) (User, error) {
	if getUserCalls.Add(1) <= 2 {
		return User{}, errors.New("connection reset")
	}
	if id != 7 {
		return User{}, ErrNoSuchUser
	}
	return User{Name: "Ada"}, nil
}

// A client: a Retrier for one dependency, made once and kept, and a call
// with a deadline that returns a value.
func Example_client() {
	users, err := retry.New(retry.Config{
		AttemptTimeout: 2 * time.Second,
		Retryable:      func(err error) bool { return !errors.Is(err, ErrNoSuchUser) },
	})
	if err != nil {
		panic(err) // a Config out of range: the error names the field
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	user, err := retry.DoValue(ctx, users, func(ctx context.Context) (User, error) {
		return getUser(ctx, 7)
	})
	fmt.Println(user.Name, err)
	// Output:
	// Ada <nil>
}

// A Transport: an http.Client for one dependency that retries what is
// safe to repeat, logs what it does and counts it for metrics. (The orders
// service here is a stand-in that answers 503 once.)
func Example_transport() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: noTime}))

	var stats retry.Counters
	t, err := retry.NewTransport(retry.TransportConfig{
		Base: ordersService(1),
		Config: retry.Config{
			AttemptTimeout: 2 * time.Second,
			Policy:         retry.Constant{Base: 10 * time.Millisecond}, // leave it out: full jitter from 100 ms
			Observer: func(e retry.Event) {
				stats.Observe(e)
				retry.LogEvents(logger)(e)
			},
		},
	})
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: t}

	resp, err := client.Get("https://orders.internal/v1/orders/7")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body), stats.Snapshot().Retries, "retry")
	// Output:
	// level=INFO msg="retry retry" kind=retry host=https://orders.internal attempt=1 wait=10ms err="HTTP 503 Service Unavailable"
	// 200 order 7 1 retry
}

// A budget across a fleet: one budget bounds the retries to every replica
// of a service together, while each replica keeps a breaker of its own.
// Here orders-1 is down and orders-2 up.
func Example_fleet() {
	fleet, err := budget.New(budget.Config{Ratio: 0.1, MinRetries: retry.DefaultBudgetMinRetries})
	if err != nil {
		panic(err)
	}
	t, err := retry.NewTransport(retry.TransportConfig{
		Base:   ordersFleet(),
		Config: retry.Config{Budget: fleet, Policy: retry.Constant{}},
	})
	if err != nil {
		panic(err)
	}
	orders := &http.Client{Transport: t}

	for i := range 40 {
		resp, err := orders.Get(fmt.Sprintf("https://orders-%d.internal/v1/orders/7", 1+i%2))
		if err == nil {
			resp.Body.Close()
		}
	}
	now := time.Now()
	fmt.Println("orders-1:", t.Breaker("https", "orders-1.internal").State(now))
	fmt.Println("orders-2:", t.Breaker("https", "orders-2.internal").State(now))
	fmt.Printf("the fleet's budget: %+v\n", fleet.Counts(now)) // both replicas' requests
	// Output:
	// orders-1: open
	// orders-2: closed
	// the fleet's budget: {Requests:40 Retries:3}
}

// ordersService answers 503 to its first failures requests, then 200
// "order 7".
func ordersService(failures int64) http.RoundTripper {
	var n atomic.Int64
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if n.Add(1) <= failures {
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("order 7")), Request: req}, nil
	})
}

// ordersFleet answers 503 from orders-1 and 200 from the others.
func ordersFleet() http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		status := http.StatusOK
		if req.URL.Host == "orders-1.internal" {
			status = http.StatusServiceUnavailable
		}
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	})
}

// noTime drops a log record's time, to keep an Example's output fixed.
func noTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.Attr{}
	}
	return a
}
