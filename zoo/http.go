package zoo

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/flaky"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/retry"
)

// HTTPClient is one HTTP retrying client at one setting, for the storm over
// real loopback sockets (RunHTTP).
type HTTPClient struct {
	// Name, Module and Settings are as in Entry.
	Name, Module, Settings string
	// Fix marks a setting chosen to fix the defaults' storm behaviour.
	Fix bool
	// callers prepares one run against the server at url and returns what
	// builds client i's call around base, its own connection pool. The call
	// reports success with a nil error; the library reports each wait it
	// chooses to wait, through its own hook (a Backoff func, a retry
	// listener, an Observer, the retryer's RetryDelay).
	callers func(seed uint64, url string) func(i int, base *http.Transport, wait func(time.Duration)) func(context.Context) error
	// answer writes the server's reply, down during the outage; nil is a
	// bare 503, then "ok".
	answer func(w http.ResponseWriter, down bool)
}

// viaHTTP makes the callers of an HTTP library: wrap builds client i's
// http.Client, whose one GET must end in a 200.
func viaHTTP(wrap func(i int, seed uint64, base *http.Transport, wait func(time.Duration)) *http.Client) func(uint64, string) func(int, *http.Transport, func(time.Duration)) func(context.Context) error {
	return func(seed uint64, url string) func(int, *http.Transport, func(time.Duration)) func(context.Context) error {
		return func(i int, base *http.Transport, wait func(time.Duration)) func(context.Context) error {
			client := wrap(i, seed, base, wait)
			return func(ctx context.Context) error { return flaky.Get(ctx, client, url) }
		}
	}
}

// HTTPClients returns the HTTP clients the lesson runs over loopback: each
// library's defaults, then a setting that fixes its storm behaviour.
func HTTPClients() []HTTPClient {
	quiet := func(c *retryablehttp.Client) *retryablehttp.Client { c.Logger = nil; return c }
	clients := []HTTPClient{
		{Name: "go-retryablehttp", Module: modRHTTP, Settings: "NewClient() defaults",
			callers: viaHTTP(func(_ int, _ uint64, base *http.Transport, wait func(time.Duration)) *http.Client {
				c := quiet(retryablehttp.NewClient())
				c.HTTPClient = &http.Client{Transport: base}
				c.Backoff = observed(c.Backoff, wait)
				return c.StandardClient()
			})},
		{Name: "go-retryablehttp", Module: modRHTTP, Fix: true,
			Settings: "LinearJitterBackoff, 100 ms to 1 s, RetryMax 10",
			callers: viaHTTP(func(_ int, _ uint64, base *http.Transport, wait func(time.Duration)) *http.Client {
				c := quiet(retryablehttp.NewClient())
				c.HTTPClient = &http.Client{Transport: base}
				c.Backoff, c.RetryWaitMin, c.RetryWaitMax, c.RetryMax = observed(retryablehttp.LinearJitterBackoff, wait), 100*time.Millisecond, time.Second, 10
				return c.StandardClient()
			})},
		{Name: "failsafehttp", Module: modFailsafe, Settings: "NewRetryPolicyBuilder() defaults",
			callers: viaHTTP(func(_ int, _ uint64, base *http.Transport, wait func(time.Duration)) *http.Client {
				p := failsafehttp.NewRetryPolicyBuilder().OnRetryScheduled(scheduled(wait)).Build()
				return &http.Client{Transport: failsafehttp.NewRoundTripper(base, p)}
			})},
		{Name: "failsafehttp", Module: modFailsafe, Fix: true,
			Settings: "WithBackoff(100 ms, 1 s), WithJitterFactor(0.5), 20 retries",
			callers: viaHTTP(func(_ int, _ uint64, base *http.Transport, wait func(time.Duration)) *http.Client {
				p := failsafehttp.NewRetryPolicyBuilder().WithBackoff(100*time.Millisecond, time.Second).WithJitterFactor(0.5).WithMaxRetries(20).
					OnRetryScheduled(scheduled(wait)).Build()
				return &http.Client{Transport: failsafehttp.NewRoundTripper(base, p)}
			})},
		{Name: "backofflab retry", Module: modThis, Settings: "NewTransport defaults",
			callers: viaHTTP(func(i int, seed uint64, base *http.Transport, wait func(time.Duration)) *http.Client {
				return &http.Client{Transport: mustTransport(retry.TransportConfig{Base: base,
					Config: retry.Config{Rand: rand.New(rand.NewPCG(seed, uint64(i))), Observer: observer(wait)}})}
			})},
		{Name: "backofflab retry", Module: modThis, Fix: true,
			Settings: "full jitter 100 ms to 1 s, MaxAttempts 20, no budget, no breaker",
			callers: viaHTTP(func(i int, seed uint64, base *http.Transport, wait func(time.Duration)) *http.Client {
				return &http.Client{Transport: mustTransport(retry.TransportConfig{Base: base,
					Config: retry.Config{Rand: rand.New(rand.NewPCG(seed, uint64(i))), MaxAttempts: 20, DisableBreaker: true, DisableBudget: true,
						Observer: observer(wait),
						Policy:   schedule.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}}})}
			})},
	}
	// The AWS SDK's rows go before this repository's own.
	at := slices.IndexFunc(clients, func(c HTTPClient) bool { return c.Module == modThis })
	return slices.Insert(clients, at, AWSClients()...)
}

// observed wraps a retryablehttp Backoff so that wait sees every wait it returns.
func observed(b retryablehttp.Backoff, wait func(time.Duration)) retryablehttp.Backoff {
	return func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		d := b(min, max, n, resp)
		wait(d)
		return d
	}
}

// scheduled is a failsafe-go retry listener that reports each scheduled delay.
func scheduled(wait func(time.Duration)) func(failsafe.ExecutionScheduledEvent[*http.Response]) {
	return func(e failsafe.ExecutionScheduledEvent[*http.Response]) { wait(e.Delay) }
}

// observer is a retry.Observer that reports each retry's wait.
func observer(wait func(time.Duration)) func(retry.Event) {
	return func(e retry.Event) {
		if e.Kind == retry.EventRetry {
			wait(e.Wait)
		}
	}
}

func mustTransport(c retry.TransportConfig) *retry.Transport {
	t, err := retry.NewTransport(c)
	if err != nil {
		panic(err)
	}
	return t
}

// HTTPResult is what one HTTP client setting did over loopback.
type HTTPResult struct {
	HTTPClient
	Version string
	// Retries are the server's arrival times of every request after the
	// cohort's first ones, from the moment the clients sent those.
	Retries []time.Duration
	// Peak is the fullest Slot of retries; Served the clients that got a 200.
	Peak, Served int
	// FirstWaits holds, per client that retried, the first wait its library
	// chose, as the library reported it: free of the network's noise.
	FirstWaits []time.Duration
	// LastServed is when the last client got its answer; Outage is how long
	// the server failed every request, from the same moment.
	LastServed, Outage time.Duration
}

// Limits on RunHTTP's clients and outage: each client holds a socket open,
// and the run takes the outage and then some in real time.
const (
	MaxHTTPClients = 1000
	MaxHTTPOutage  = time.Minute
)

// RunHTTP runs clients clients of c, each with its own connection opened
// beforehand, against a local server that answers 503 for the first outage
// and 200 after; all send one GET together. It runs in real time, so its
// figures vary by a few milliseconds from run to run. In a notebook, runs
// through HTTPClients in order share one progress bar that names the
// library running now and counts the runs to the end of the list.
func RunHTTP(ctx context.Context, c HTTPClient, clients int, outage time.Duration, seed uint64) (HTTPResult, error) {
	if clients < 1 || clients > MaxHTTPClients {
		return HTTPResult{}, fmt.Errorf("zoo: RunHTTP clients = %d, want 1 to %d", clients, MaxHTTPClients)
	}
	if outage <= 0 || outage > MaxHTTPOutage {
		return HTTPResult{}, fmt.Errorf("zoo: RunHTTP outage = %v, want more than 0 and at most %v", outage, MaxHTTPOutage)
	}
	defer startHTTPRun(c)() // a notebook's progress bar over the runs (progress.go)
	var (
		mu       sync.Mutex
		start    time.Time
		running  bool
		arrivals []time.Duration
	)
	answer := c.answer
	if answer == nil {
		answer = func(w http.ResponseWriter, down bool) {
			if down {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ok")
		}
	}
	lab.NoteInMemoryNetwork()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		at, counted := time.Since(start), running
		if counted {
			arrivals = append(arrivals, at)
		}
		mu.Unlock()
		answer(w, counted && at < outage)
	}))
	defer srv.Close()
	build := c.callers(seed, srv.URL)
	calls := make([]func(context.Context) error, clients)
	waits := make([][]time.Duration, clients)
	for i := range calls {
		base := &http.Transport{MaxIdleConnsPerHost: 1}
		defer base.CloseIdleConnections()
		calls[i] = build(i, base, func(d time.Duration) {
			mu.Lock()
			waits[i] = append(waits[i], d)
			mu.Unlock()
		})
		// Open the connection first, as a running service has it open.
		resp, err := (&http.Client{Transport: base}).Get(srv.URL)
		if err != nil {
			return HTTPResult{}, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	served := make([]time.Duration, clients)
	var wg sync.WaitGroup
	mu.Lock()
	start, running = time.Now(), true
	mu.Unlock()
	for i, call := range calls {
		wg.Go(func() {
			served[i] = -1
			if call(ctx) == nil {
				served[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	res := HTTPResult{HTTPClient: c, Version: Version(c.Module), Outage: outage}
	slices.Sort(arrivals)
	if len(arrivals) > clients {
		res.Retries = slices.Clone(arrivals[clients:]) // the first requests all arrive before any retry
	}
	for _, w := range waits {
		if len(w) > 0 {
			res.FirstWaits = append(res.FirstWaits, w[0])
		}
	}
	for _, s := range served {
		if s >= 0 {
			res.Served++
			res.LastServed = max(res.LastServed, s)
		}
	}
	if len(res.Retries) > 0 {
		r := Result{Retries: res.Retries}
		h, err := r.Histogram()
		if err != nil {
			return res, err
		}
		res.Peak = h.Peak().Count
	}
	return res, nil
}
