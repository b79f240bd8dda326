package retry_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

// recorder counts the requests a test server handles and records when
// each arrived and what body it carried.
type recorder struct {
	hits atomic.Int64

	mu       sync.Mutex
	arrivals []time.Time
	bodies   []string
}

// handler records each request, then passes it to h with its 1-based
// number.
func (s *recorder) handler(h func(w http.ResponseWriter, r *http.Request, n int64)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		h(w, r, s.hits.Add(1))
	})
}

// arrival returns when request i (from 0) arrived.
func (s *recorder) arrival(i int) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.arrivals[i]
}

// server is a real TCP test server that counts the connections it accepts
// and records the requests it handles.
type server struct {
	*httptest.Server
	*recorder
	conns atomic.Int64
}

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// newServer starts a server whose handler h receives the 1-based number of
// each request. It is closed when the test ends.
func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int64)) *server {
	t.Helper()
	s := &server{recorder: &recorder{}}
	s.Server = httptest.NewUnstartedServer(s.handler(h))
	s.Listener = countingListener{Listener: s.Listener, n: &s.conns}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// reset aborts the connection under w with a TCP RST.
func reset(w http.ResponseWriter) {
	c, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
}

// hangUp closes the connection under w without a response (the client
// reads EOF).
func hangUp(w http.ResponseWriter) {
	c, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	c.Close()
}

// unavailable answers 503 with an optional Retry-After.
func unavailable(w http.ResponseWriter, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, "unavailable")
}

// tracker is a base RoundTripper that counts the response bodies it hands
// out and how many of them were closed.
type tracker struct {
	base           *http.Transport
	opened, closed atomic.Int64
}

type trackedBody struct {
	io.ReadCloser
	t    *tracker
	once sync.Once
}

func (b *trackedBody) Close() error {
	b.once.Do(func() { b.t.closed.Add(1) })
	return b.ReadCloser.Close()
}

func (t *tracker) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		t.opened.Add(1)
		resp.Body = &trackedBody{ReadCloser: resp.Body, t: t}
	}
	return resp, err
}

// newClient returns a client whose Transport retries with cfg over a fresh
// connection pool, and checks when the test ends that every response body
// was closed.
func newClient(t *testing.T, cfg retry.TransportConfig) (*http.Client, *retry.Transport, *tracker) {
	t.Helper()
	return trackedClient(t, http.DefaultTransport.(*http.Transport).Clone(), cfg)
}

// trackedClient returns a client whose Transport retries with cfg over
// base, and checks when the test ends that every response body was closed.
func trackedClient(t *testing.T, base *http.Transport, cfg retry.TransportConfig) (*http.Client, *retry.Transport, *tracker) {
	t.Helper()
	tr := &tracker{base: base}
	cfg.Base = tr
	rt, err := retry.NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tr.base.CloseIdleConnections()
		if o, c := tr.opened.Load(), tr.closed.Load(); o != c {
			t.Errorf("body leak: %d response bodies received, %d closed", o, c)
		}
	})
	return &http.Client{Transport: rt}, rt, tr
}

// quick is a transport configuration with 1–5 ms waits and no shared state,
// for tests that are about something else.
func quick() retry.TransportConfig {
	return retry.TransportConfig{Config: retry.Config{
		Policy:        retry.FullJitter{Base: time.Millisecond, Cap: 5 * time.Millisecond},
		DisableBudget: true, DisableBreaker: true,
	}}
}

// get sends a GET and returns the status and body; the body is closed.
func get(t *testing.T, c *http.Client, ctx context.Context, url string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return send(c, req)
}

func send(c *http.Client, req *http.Request) (int, string, error) {
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// The dependency's port is closed for its first 100 ms: connections are
// refused, the Transport retries, and the first attempt after the server
// is up succeeds.
func TestTransportServerDownThenHealthy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { io.WriteString(w, "up") })
		s.net.refusing.Store(true)
		start := time.Now()
		time.AfterFunc(100*time.Millisecond, func() { s.net.refusing.Store(false) })
		var refused atomic.Int64
		cfg := quick()
		cfg.MaxAttempts = 50
		cfg.Policy = retry.FullJitter{Base: 5 * time.Millisecond, Cap: 40 * time.Millisecond}
		cfg.Rand = seeded(3)
		cfg.Observer = func(e retry.Event) {
			if e.Kind == retry.EventRetry && errors.Is(e.Err, syscall.ECONNREFUSED) {
				refused.Add(1)
			}
		}
		c, _ := newPipeClient(t, s, cfg)
		code, body, err := get(t, c, context.Background(), s.URL)
		if err != nil || code != 200 || body != "up" {
			t.Fatalf("GET = %d %q %v, want 200 up", code, body, err)
		}
		if at := s.arrival(0).Sub(start); at < 100*time.Millisecond || at >= 140*time.Millisecond {
			t.Fatalf("the request arrived %v after the call began, want after the 100ms outage and within one 40ms wait of its end", at)
		}
		if refused.Load() < 2 || s.hits.Load() != 1 {
			t.Fatalf("%d retries after refused connections and %d requests served, want >= 2 and 1", refused.Load(), s.hits.Load())
		}
	})
}

func TestTransportRetriesConnectionFailures(t *testing.T) {
	for name, fault := range map[string]func(http.ResponseWriter){"reset": reset, "hang-up": hangUp} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
				if n <= 2 {
					fault(w)
					return
				}
				io.WriteString(w, "ok")
			})
			c, _, _ := newClient(t, quick())
			code, body, err := get(t, c, context.Background(), s.URL)
			if err != nil || code != 200 || body != "ok" {
				t.Fatalf("GET = %d %q %v, want 200 ok on the third attempt", code, body, err)
			}
			if s.hits.Load() != 3 || s.conns.Load() != 3 {
				t.Fatalf("%d requests over %d connections, want 3 over 3", s.hits.Load(), s.conns.Load())
			}
		})
	}
}

// A Retry-After is a floor: the retry comes no sooner than it asks, and at
// most the policy's 10 ms window later, whether it gives seconds or an
// HTTP-date (the bubble's clock starts on a whole second).
func TestTransportRetryAfterIsAFloor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value func(now time.Time) string
		floor time.Duration // after the 503
	}{
		{"seconds", func(time.Time) string { return "1" }, time.Second},
		{"HTTP-date", func(now time.Time) string { return now.Add(2 * time.Second).UTC().Format(http.TimeFormat) }, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
					if n == 1 {
						unavailable(w, tc.value(time.Now()))
						return
					}
					io.WriteString(w, "ok")
				})
				cfg := quick()
				cfg.Policy = retry.FullJitter{Base: 10 * time.Millisecond}
				c, _ := newPipeClient(t, s, cfg)
				code, _, err := get(t, c, context.Background(), s.URL)
				if err != nil || code != 200 {
					t.Fatalf("GET = %d %v, want 200", code, err)
				}
				if gap := s.arrival(1).Sub(s.arrival(0)); gap < tc.floor || gap >= tc.floor+10*time.Millisecond {
					t.Fatalf("retry %v after the 503, want in [%v, %v)", gap, tc.floor, tc.floor+10*time.Millisecond)
				}
			})
		})
	}
}

// Absurd Retry-After values: malformed ones are ignored (ordinary backoff,
// quick retries); a wait longer than MaxRetryAfter makes the client give up
// at once and hand back the 503.
func TestTransportAbsurdRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		value  string
		hits   int64
		reason error
	}{
		{"-5", 3, retry.ErrAttemptsExhausted},
		{"soon", 3, retry.ErrAttemptsExhausted},
		{"1.5", 3, retry.ErrAttemptsExhausted},
		{"0", 3, retry.ErrAttemptsExhausted},
		{"Sun, 06 Nov 1994 08:49:37 GMT", 3, retry.ErrAttemptsExhausted}, // in the past (the bubble's clock starts in 2000): no floor
		{"86400", 1, retry.ErrRetryAfterTooLong},
		{"99999999999999999999999", 1, retry.ErrRetryAfterTooLong},
		{"Fri, 31 Dec 9999 23:59:59 GMT", 1, retry.ErrRetryAfterTooLong},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, tc.value) })
				var reason atomic.Value
				var waited time.Duration
				cfg := quick()
				cfg.Observer = func(e retry.Event) {
					switch e.Kind {
					case retry.EventRetry:
						waited += e.Wait
					case retry.EventGiveUp:
						reason.Store(e.Err)
					}
				}
				c, _ := newPipeClient(t, s, cfg)
				start := time.Now()
				code, body, err := get(t, c, context.Background(), s.URL)
				if err != nil || code != 503 || body != "unavailable" {
					t.Fatalf("GET = %d %q %v, want the last 503 with its body", code, body, err)
				}
				if took := time.Since(start); took != waited || took >= 10*time.Millisecond {
					t.Fatalf("took %v, waits %v: want only the policy's waits, under 5ms each", took, waited)
				}
				if s.hits.Load() != tc.hits {
					t.Fatalf("%d attempts, want %d", s.hits.Load(), tc.hits)
				}
				if got, _ := reason.Load().(error); !errors.Is(got, tc.reason) {
					t.Fatalf("gave up with %v, want %v", got, tc.reason)
				}
			})
		})
	}
}

// slow answers after two seconds, or when the client goes away.
func slow(w http.ResponseWriter, r *http.Request, n int64) {
	select {
	case <-time.After(2 * time.Second):
		io.WriteString(w, "late")
	case <-r.Context().Done():
	}
}

func TestTransportSlowServerBeyondTheDeadline(t *testing.T) {
	t.Run("no attempt timeout", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			s := newPipeServer(t, slow)
			c, _ := newPipeClient(t, s, quick())
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, _, err := get(t, c, ctx, s.URL)
			if !errors.Is(err, context.DeadlineExceeded) || s.hits.Load() != 1 {
				t.Fatalf("GET = %v after %d attempts, want the deadline after 1", err, s.hits.Load())
			}
			if took := time.Since(start); took != 150*time.Millisecond {
				t.Fatalf("took %v for a 150 ms deadline, want exactly that", took)
			}
		})
	})
	// Every retry must fit wait + a worst-case (timed-out) attempt before
	// the deadline, and the call must end before the deadline, with
	// ErrDeadline: 50 ms attempts and waits under 5 ms make 9 or 10
	// attempts in 500 ms.
	t.Run("attempt timeout", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			s := newPipeServer(t, slow)
			const attemptTimeout = 50 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			deadline, _ := ctx.Deadline()
			var late []string
			cfg := quick()
			cfg.AttemptTimeout, cfg.MaxAttempts, cfg.Rand = attemptTimeout, 100, seeded(11)
			cfg.Observer = func(e retry.Event) {
				if e.Kind == retry.EventRetry && e.At.Add(e.Wait+attemptTimeout).After(deadline) {
					late = append(late, fmt.Sprintf("retry %d at %v + %v", e.Attempt, e.At.Sub(deadline), e.Wait))
				}
			}
			c, _ := newPipeClient(t, s, cfg)
			_, _, err := get(t, c, ctx, s.URL)
			if !errors.Is(err, retry.ErrDeadline) {
				t.Fatalf("GET = %v, want ErrDeadline", err)
			}
			if !time.Now().Before(deadline) {
				t.Fatalf("returned %v after the deadline", time.Since(deadline))
			}
			if n := s.hits.Load(); n < 9 || n > 10 {
				t.Fatalf("%d attempts of 50 ms in 500 ms, want 9 or 10", n)
			}
			if len(late) > 0 {
				t.Fatalf("retries scheduled past the deadline: %v", late)
			}
		})
	})
}

// requestBody is a request body that counts how often it is closed.
type requestBody struct {
	io.Reader
	closed *atomic.Int64
}

func (b requestBody) Close() error { b.closed.Add(1); return nil }

func TestTransportRetriesOnlyWhatIsSafeToRepeat(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		key    string
		replay bool // GetBody set
		hits   int64
	}{
		{"POST without key", http.MethodPost, "", true, 1},
		{"PATCH without key", http.MethodPatch, "", true, 1},
		{"POST with key", http.MethodPost, "k-1", true, 3},
		{"POST with key, body not replayable", http.MethodPost, "k-2", false, 1},
		{"PUT", http.MethodPut, "", true, 3},
		{"PUT, body not replayable", http.MethodPut, "", false, 1},
		{"DELETE", http.MethodDelete, "", true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, "") })
			c, _, _ := newClient(t, quick())
			req, err := http.NewRequest(tc.method, s.URL, strings.NewReader("payload"))
			if err != nil {
				t.Fatal(err)
			}
			var closed atomic.Int64
			if !tc.replay {
				req.Body, req.GetBody = requestBody{Reader: strings.NewReader("payload"), closed: &closed}, nil
			}
			if tc.key != "" {
				req.Header.Set(retry.IdempotencyKeyHeader, tc.key)
			}
			code, _, err := send(c, req)
			if err != nil || code != 503 {
				t.Fatalf("%s = %d %v, want the 503", tc.method, code, err)
			}
			if s.hits.Load() != tc.hits {
				t.Fatalf("%d attempts, want %d", s.hits.Load(), tc.hits)
			}
			for i, b := range s.bodies {
				if b != "payload" {
					t.Fatalf("attempt %d sent body %q, want the replayed payload", i+1, b)
				}
			}
			if !tc.replay && closed.Load() == 0 {
				t.Fatal("the request body was never closed")
			}
		})
	}
}

// A POST without a key is not retried after a connection failure either,
// and the error says why.
func TestTransportDoesNotRetryPostAfterReset(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { reset(w) })
	c, _, _ := newClient(t, quick())
	resp, err := c.Post(s.URL, "text/plain", strings.NewReader("pay 10 €"))
	if err == nil {
		resp.Body.Close()
		t.Fatal("POST to a resetting server succeeded")
	}
	if !errors.Is(err, retry.ErrNotRetryable) || !errors.Is(err, syscall.ECONNRESET) || s.hits.Load() != 1 {
		t.Fatalf("POST = %v after %d attempts, want ErrNotRetryable wrapping the reset after 1", err, s.hits.Load())
	}
}

func TestTransportRefusesBodyItCannotRewind(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, "") })
	c, _, _ := newClient(t, quick())
	req, _ := http.NewRequest(http.MethodPut, s.URL, bytes.NewReader([]byte("x")))
	broken := errors.New("body source gone")
	req.GetBody = func() (io.ReadCloser, error) { return nil, broken }
	_, _, err := send(c, req)
	if !errors.Is(err, broken) || s.hits.Load() != 1 {
		t.Fatalf("PUT = %v after %d attempts, want the GetBody error after 1", err, s.hits.Load())
	}
}

// Once the breaker is open, requests fail at once (in zero time, by the
// bubble's clock): no new connection, no request, and the request body is
// still closed.
func TestTransportOpenBreakerRefusesWithoutConnecting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { hangUp(w) })
		br, err := breaker.New(breaker.Config{Failures: 3, OpenTimeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		var counters retry.Counters
		cfg := quick()
		cfg.DisableBreaker, cfg.Breaker, cfg.Observer = false, br, counters.Observe
		c, _ := newPipeClient(t, s, cfg)
		if _, _, err := get(t, c, context.Background(), s.URL); !errors.Is(err, retry.ErrAttemptsExhausted) || s.hits.Load() != 3 {
			t.Fatalf("first GET = %v after %d attempts, want ErrAttemptsExhausted after 3 hang-ups", err, s.hits.Load())
		}
		if br.State(time.Now()) != breaker.Open {
			t.Fatal("breaker not open after 3 hang-ups")
		}
		conns, hits := s.conns(), s.hits.Load()
		for range 20 {
			var closed atomic.Int64
			req, _ := http.NewRequest(http.MethodPut, s.URL, requestBody{Reader: strings.NewReader("x"), closed: &closed})
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
			start := time.Now()
			_, _, err := send(c, req)
			if !errors.Is(err, retry.ErrBreakerOpen) {
				t.Fatalf("PUT with the breaker open = %v, want ErrBreakerOpen", err)
			}
			if took := time.Since(start); took != 0 {
				t.Fatalf("refusal took %v, want at once", took)
			}
			if closed.Load() != 1 {
				t.Fatalf("refused request's body closed %d times, want 1", closed.Load())
			}
		}
		if s.conns() != conns || s.hits.Load() != hits {
			t.Fatalf("connections %d → %d, requests %d → %d while open: want no change", conns, s.conns(), hits, s.hits.Load())
		}
		if st := counters.Snapshot(); st.BreakerRefusals != 20 {
			t.Fatalf("%d breaker refusals counted, want 20", st.BreakerRefusals)
		}
	})
}

// The default breakers are per host: one failing host opens its own
// breaker and leaves another host reachable.
func TestTransportDefaultBreakersArePerHost(t *testing.T) {
	bad := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, "") })
	good := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { io.WriteString(w, "ok") })
	var changes []string
	var mu sync.Mutex
	cfg := quick()
	cfg.DisableBreaker, cfg.MaxAttempts = false, 5
	cfg.Observer = func(e retry.Event) {
		if e.Kind == retry.EventBreakerChange {
			mu.Lock()
			changes = append(changes, fmt.Sprintf("%s %v→%v", e.Host, e.From, e.To))
			mu.Unlock()
		}
	}
	c, rt, _ := newClient(t, cfg)
	get(t, c, context.Background(), bad.URL) // 5 × 503: the default breaker opens
	if _, _, err := get(t, c, context.Background(), bad.URL); !errors.Is(err, retry.ErrBreakerOpen) {
		t.Fatalf("GET to the failing host = %v, want ErrBreakerOpen", err)
	}
	if code, _, err := get(t, c, context.Background(), good.URL); err != nil || code != 200 {
		t.Fatalf("GET to the healthy host = %d %v, want 200", code, err)
	}
	badHost := strings.TrimPrefix(bad.URL, "http://")
	if st := rt.Breaker("http", badHost).State(time.Now()); st != breaker.Open {
		t.Fatalf("failing host's breaker is %v, want open", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changes) != 1 || changes[0] != "http://"+badHost+" closed→open" {
		t.Fatalf("breaker changes %q, want one closed→open for the failing host", changes)
	}
}

// Under a sustained outage, 500 requests with 3 attempts each would send
// 1500; a 10 % budget lets at most 550 through.
func TestTransportBudgetCapsRetriesUnderSustainedOutage(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, "") })
	b, err := budget.New(budget.Config{Ratio: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := quick()
	cfg.DisableBudget, cfg.Budget = false, b
	c, _, _ := newClient(t, cfg)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for range 25 {
				if code, _, err := get(t, c, context.Background(), s.URL); err != nil || code != 503 {
					t.Errorf("GET = %d %v, want 503", code, err)
				}
			}
		})
	}
	wg.Wait()
	if n := s.hits.Load(); n > 550 || n < 540 {
		t.Fatalf("%d attempts for 500 requests, want 540..550 (retries at the 10 %% budget)", n)
	}
}

// Hundreds of concurrent requests through one Transport, with its default
// budget and breaker, against a server that fails half of its requests in
// various ways. Every request ends with a success, a retryable response or
// an error saying why it gave up; the counters agree with the server; no body
// leaks (newClient checks). Run with -race.
func TestTransportConcurrentRequests(t *testing.T) {
	t.Parallel()
	var served atomic.Int64 // "ok" answers the server wrote
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		switch n % 6 {
		case 1:
			unavailable(w, "0")
		case 3:
			reset(w)
		case 5:
			w.WriteHeader(http.StatusBadGateway)
		default:
			if _, err := io.WriteString(w, "ok"); err == nil {
				served.Add(1)
			}
		}
	})
	var counters retry.Counters
	cfg := quick()
	cfg.DisableBudget, cfg.DisableBreaker, cfg.MaxAttempts = false, false, 10
	cfg.Observer = counters.Observe
	cfg.Rand = seeded(5) // shared by all goroutines: the Retrier serialises it
	c, _, _ := newClient(t, cfg)
	var wg sync.WaitGroup
	var ok, failed atomic.Int64
	for range 300 {
		wg.Go(func() {
			code, body, err := get(t, c, context.Background(), s.URL)
			switch {
			case err == nil && code == 200 && body == "ok":
				ok.Add(1)
			case err == nil && (code == 502 || code == 503),
				errors.Is(err, retry.ErrBudgetExhausted), errors.Is(err, retry.ErrBreakerOpen),
				errors.Is(err, retry.ErrAttemptsExhausted):
				failed.Add(1)
			default:
				t.Errorf("unexpected outcome: %d %q %v", code, body, err)
			}
		})
	}
	wg.Wait()
	st := counters.Snapshot()
	if ok.Load()+failed.Load() != 300 || st.GiveUps != failed.Load() {
		t.Fatalf("%d ok + %d failed of 300, %d give-ups counted", ok.Load(), failed.Load(), st.GiveUps)
	}
	// http.Transport itself resends an idempotent request once when a
	// reused keep-alive connection turns out to be dead, so the server may
	// see more requests than the attempts counted here, never fewer.
	if n := s.hits.Load(); st.Attempts > n || n > 2*st.Attempts {
		t.Fatalf("%d attempts counted, %d requests served", st.Attempts, n)
	}
	// How many succeed depends on how the goroutines interleave (the shared breaker opens after
	// five failures in a row from any of them), but every "ok" the server wrote reached its
	// caller as a success, and only those did.
	if ok.Load() != served.Load() || ok.Load() == 0 {
		t.Fatalf("%d requests succeeded, the server answered ok %d times (%+v)", ok.Load(), served.Load(), st)
	}
}

// After a batch of requests of every kind, the goroutine count returns to
// where it was: no timer, connection or body goroutine is left behind.
func TestTransportLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			switch n % 4 {
			case 0:
				unavailable(w, "0")
			case 1:
				reset(w)
			case 2:
				slow(w, r, n)
			default:
				io.WriteString(w, "ok")
			}
		})
		defer s.Close()
		tr := &tracker{base: &http.Transport{}}
		rt, err := retry.NewTransport(retry.TransportConfig{Base: tr, Config: retry.Config{
			Policy: retry.FullJitter{Base: time.Millisecond}, AttemptTimeout: 30 * time.Millisecond, MaxAttempts: 4,
		}})
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Transport: rt}
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				get(t, c, ctx, s.URL)
			})
		}
		wg.Wait()
		tr.base.CloseIdleConnections()
		if o, c := tr.opened.Load(), tr.closed.Load(); o != c {
			t.Errorf("body leak: %d response bodies received, %d closed", o, c)
		}
	}()
	var after int
	for range 100 {
		if after = runtime.NumGoroutine(); after <= before {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("%d goroutines before, %d two seconds after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
}

func TestTransportConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		cfg  retry.TransportConfig
		want string
	}{
		{retry.TransportConfig{RetryStatus: []int{503, 200}}, "retry: retry status 200 out of range: want 400 <= status <= 599"},
		{retry.TransportConfig{RetryStatus: []int{600}}, "retry: retry status 600 out of range"},
		{retry.TransportConfig{Config: retry.Config{MaxAttempts: -2}}, "retry: max attempts -2 out of range"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := retry.NewTransport(tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("NewTransport(%+v) error = %v, want prefix %q", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestRetryStatusIsConfigurable(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if n == 1 {
			w.WriteHeader(http.StatusConflict)
			return
		}
		unavailable(w, "")
	})
	cfg := quick()
	cfg.RetryStatus = []int{http.StatusConflict}
	c, _, _ := newClient(t, cfg)
	if code, _, err := get(t, c, context.Background(), s.URL); err != nil || code != 503 || s.hits.Load() != 2 {
		t.Fatalf("GET = %d %v after %d attempts: want 409 retried, then the 503 returned (not retried)", code, err, s.hits.Load())
	}
}

func TestRepeatable(t *testing.T) {
	for _, tc := range []struct {
		method, key string
		body        bool
		want        bool
	}{
		{"", "", false, true}, {"GET", "", false, true}, {"HEAD", "", false, true}, {"OPTIONS", "", false, true},
		{"TRACE", "", false, true}, {"PUT", "", true, true}, {"DELETE", "", false, true},
		{"POST", "", true, false}, {"PATCH", "", true, false}, {"CONNECT", "", false, false},
		{"POST", "abc", true, true}, {"PATCH", "abc", false, true},
	} {
		t.Run(fmt.Sprintf("method=%q,key=%q,body=%v", tc.method, tc.key, tc.body), func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, "http://example.com", nil)
			if tc.body {
				req, _ = http.NewRequest(tc.method, "http://example.com", strings.NewReader("b"))
			}
			req.Method = tc.method
			if tc.key != "" {
				req.Header.Set("Idempotency-Key", tc.key)
			}
			if got := retry.Repeatable(req); got != tc.want {
				t.Errorf("Repeatable(%q, key %q) = %v, want %v", tc.method, tc.key, got, tc.want)
			}
		})
	}
}

// stub is a RoundTripper that answers from memory, for benchmarks.
type stub struct{}

func (stub) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
}

func BenchmarkTransportOverhead(b *testing.B) {
	rt, err := retry.NewTransport(retry.TransportConfig{Base: stub{}})
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://example.com/", nil)
	for b.Loop() {
		resp, _ := rt.RoundTrip(req)
		resp.Body.Close()
	}
}

func TestZeroTransportWorks(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if n == 1 {
			unavailable(w, "0")
			return
		}
		io.WriteString(w, "ok")
	})
	rt := &retry.Transport{}
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	code, body, err := get(t, &http.Client{Transport: rt}, context.Background(), s.URL)
	if err != nil || code != 200 || body != "ok" || s.hits.Load() != 2 {
		t.Fatalf("zero Transport GET = %d %q %v after %d attempts, want 200 ok after 2", code, body, err, s.hits.Load())
	}
	if rt.BudgetFor("http", "x") == nil || rt.Breaker("http", "x") == nil {
		t.Fatal("zero Transport has no budget or breaker")
	}
}
