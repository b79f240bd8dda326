package retry_test

// Regression tests for the defects of issue 16 (adversarial testing of
// package retry). Each failed before its fix.

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// stallUntilCleanup returns a channel that is closed when the test ends,
// before its servers close, for handlers that stall until then.
func stallUntilCleanup(t *testing.T) <-chan struct{} {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	return done
}

// mustBreaker builds a breaker or stops the test.
func mustBreaker(t *testing.T, cfg breaker.Config) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Item 1: a failed response whose body stalls must not hang the call;
// draining is bounded and the retry goes ahead.
func TestTransportDrainOfAStalledBodyIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		length string        // Content-Length, "" for chunked
		took   time.Duration // the drain's time
	}{
		{"content-length", "1000000", 0}, // too long to drain: closed at once
		{"chunked", "", 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var stall <-chan struct{}
				s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
					if n > 1 {
						io.WriteString(w, "ok")
						return
					}
					if tc.length != "" {
						w.Header().Set("Content-Length", tc.length)
					}
					w.WriteHeader(http.StatusServiceUnavailable)
					io.WriteString(w, "0123456789")
					w.(http.Flusher).Flush()
					<-stall
				})
				stall = stallUntilCleanup(t)
				cfg := quick()
				cfg.Policy = retry.Constant{Base: 0}
				c, _ := newPipeClient(t, s, cfg)
				// Background, as in the report: only the drain's own
				// bound can end the stall (a regression deadlocks the
				// bubble, which fails the test).
				start := time.Now()
				code, body, err := get(t, c, context.Background(), s.URL)
				if err != nil || code != 200 || body != "ok" || s.hits.Load() != 2 {
					t.Fatalf("GET = %d %q %v after %d attempts, want 200 ok after 2 (the drain of the stalled 503 must give up)", code, body, err, s.hits.Load())
				}
				if took := time.Since(start); took != tc.took {
					t.Fatalf("the call took %v, want %v (the drain gives up within 100ms)", took, tc.took)
				}
			})
		})
	}
}

// Item 3: a caller's cancellation is neither a success nor a failure for
// the breaker, and the call returns a *retry.Error with the context's error.
func TestTransportCancellationIsAbandoned(t *testing.T) {
	started := make(chan struct{}, 1)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		if r.Header.Get("X-Hang") != "" {
			started <- struct{}{}
			<-r.Context().Done()
			return
		}
		unavailable(w, "")
	})
	br := mustBreaker(t, breaker.Config{Failures: 3, OpenTimeout: time.Hour})
	cfg := quick()
	cfg.DisableBreaker, cfg.Breaker, cfg.MaxAttempts = false, br, 1
	c, _, _ := newClient(t, cfg)
	open := func() bool { return br.State(time.Now()) == breaker.Open }
	for i := 0; i < 10 && !open(); i++ {
		for j := 0; j < 2 && !open(); j++ {
			code, _, err := get(t, c, context.Background(), s.URL)
			if err != nil || code != 503 {
				t.Fatalf("GET = %d %v, want the 503", code, err)
			}
		}
		if open() {
			break
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
		req.Header.Set("X-Hang", "1")
		_, _, err := send(c, req)
		var re *retry.Error
		if !errors.As(err, &re) || !errors.Is(re.Reason, context.Canceled) {
			t.Fatalf("cancelled GET = %v, want a *retry.Error whose Reason is context.Canceled", err)
		}
	}
	if st := br.State(time.Now()); st != breaker.Open {
		t.Fatalf("breaker %v after 10 rounds of 503, 503, cancel with Failures 3: cancellations counted as successes", st)
	}
}

// halfOpen returns a Retrier (one attempt a call) whose breaker has
// opened on one failure and, 1 ms later, is half-open. It sleeps 2 ms: call
// it in a synctest bubble.
func halfOpen(t *testing.T) (*retry.Retrier, *breaker.Breaker) {
	t.Helper()
	br := mustBreaker(t, breaker.Config{Failures: 1, OpenTimeout: time.Millisecond, MaxOpenTimeout: time.Millisecond})
	cfg := fast()
	cfg.DisableBreaker, cfg.Breaker, cfg.MaxAttempts = false, br, 1
	r := mustNew(t, cfg)
	r.Do(context.Background(), func(context.Context) error { return errFlaky })
	time.Sleep(2 * time.Millisecond)
	return r, br
}

// Item 3, in Retrier.Do: a half-open probe cancelled by its caller leaves
// the breaker half-open, and the error carries context.Cause.
func TestDoCancelledProbeDoesNotCloseTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, br := halfOpen(t)
		cause := errors.New("caller went away")
		ctx, cancel := context.WithCancelCause(context.Background())
		err := r.Do(ctx, func(context.Context) error {
			cancel(cause)
			return retry.Permanent(ctx.Err())
		})
		var re *retry.Error
		if !errors.As(err, &re) || re.Reason != cause {
			t.Fatalf("cancelled probe = %v, want a *retry.Error whose Reason is the cause", err)
		}
		if st := br.State(time.Now()); st != breaker.HalfOpen {
			t.Fatalf("breaker %v after a cancelled probe, want still half-open", st)
		}
	})
}

// Item 4: an HTTP/2 stream reset is retried like an HTTP/1 dropped
// connection, and counts as a failure for the breaker.
func TestTransportRetriesHTTP2StreamReset(t *testing.T) {
	var hits atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if hits.Add(1) == 1 || r.URL.Path == "/always" {
			panic(http.ErrAbortHandler) // RST_STREAM
		}
		io.WriteString(w, "ok")
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	cfg := quick()
	cfg.Base = s.Client().Transport
	cfg.DisableBreaker = false
	cfg.MaxAttempts = 5
	rt, err := retry.NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rt}
	req, _ := http.NewRequest(http.MethodPut, s.URL, strings.NewReader("body"))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("PUT over HTTP/2 = %v after %d attempts, want a 200 after the stream reset", err, hits.Load())
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 || hits.Load() != 2 {
		t.Fatalf("PUT = %s %d after %d attempts, want HTTP/2 200 after 2", resp.Proto, resp.StatusCode, hits.Load())
	}
	u, _ := url.Parse(s.URL)
	for range 2 {
		req, _ := http.NewRequest(http.MethodPut, s.URL+"/always", strings.NewReader("body"))
		if _, err := c.Do(req); err == nil {
			t.Fatal("PUT to a handler that always aborts succeeded")
		}
	}
	if st := rt.Breaker(u.Scheme, u.Host).State(time.Now()); st != breaker.Open {
		t.Fatalf("breaker %v after 10 stream resets, want open", st)
	}
}

// Item 4: a GetBody error and a proxy's 503 to CONNECT never reached the
// server: they leave the breaker's failure count alone.
func TestTransportClientSideFailuresAreAbandoned(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, "") })
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable) // to CONNECT, or anything
	}))
	t.Cleanup(proxy.Close)
	proxyURL, _ := url.Parse(proxy.URL)
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = func(r *http.Request) (*url.URL, error) {
		if r.URL.Scheme == "https" {
			return proxyURL, nil
		}
		return nil, nil
	}
	t.Cleanup(base.CloseIdleConnections)
	br := mustBreaker(t, breaker.Config{Failures: 3, OpenTimeout: time.Hour})
	cfg := quick()
	cfg.Base, cfg.DisableBreaker, cfg.Breaker = base, false, br
	cfg.MaxAttempts = 2
	rt, err := retry.NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rt}

	// 503, then GetBody fails: one failure, then an abandoned attempt.
	req, _ := http.NewRequest(http.MethodPut, s.URL, strings.NewReader("x"))
	req.GetBody = func() (io.ReadCloser, error) { return nil, errors.New("cannot rewind") }
	if _, err := c.Do(req); err == nil {
		t.Fatal("PUT whose GetBody fails succeeded")
	}
	// A proxy refuses the tunnel: never reached the server.
	req, _ = http.NewRequest(http.MethodGet, "https://backend.invalid/", nil)
	if _, err := c.Do(req); err == nil {
		t.Fatal("GET through a proxy answering 503 to CONNECT succeeded")
	}
	// Two more 503s: with nothing counted as a success in between, that is
	// three consecutive failures.
	req, _ = http.NewRequest(http.MethodPost, s.URL, nil) // one attempt
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
	}
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
	}
	if st := br.State(time.Now()); st != breaker.Open {
		t.Fatalf("breaker %v after 503, GetBody error, proxy 503, 503, 503 with Failures 3: a client-side failure counted as a success", st)
	}
}

// Item 5: a probe whose op panics gives its slot back before the panic
// goes on.
func TestDoPanickingProbeFreesItsSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := halfOpen(t)
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("the op's panic did not reach the caller")
				}
			}()
			r.Do(context.Background(), func(context.Context) error { panic("boom") })
		}()
		if err := r.Do(context.Background(), func(context.Context) error { return nil }); err != nil {
			t.Fatalf("Do after a panicking probe = %v, want the next probe let through", err)
		}
	})
}

// selfSigned returns a TLS certificate for a client that no server trusts.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// Item 6: TLS handshake alerts fail the same way every time: one attempt,
// and the breaker does not count them.
func TestTransportDoesNotRetryTLSAlerts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server func(*tls.Config)
		client func(*tls.Config)
	}{
		{"client certificate required", func(c *tls.Config) { c.ClientAuth = tls.RequireAnyClientCert }, func(*tls.Config) {}},
		{"client certificate rejected", func(c *tls.Config) { c.ClientAuth = tls.RequireAndVerifyClientCert },
			func(c *tls.Config) { c.Certificates = []tls.Certificate{selfSigned(t)} }},
		{"protocol version", func(c *tls.Config) { c.MinVersion = tls.VersionTLS13 }, func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
			s.TLS = &tls.Config{}
			tc.server(s.TLS)
			s.Config.ErrorLog = discardLog()
			s.StartTLS()
			t.Cleanup(s.Close)
			base := s.Client().Transport.(*http.Transport).Clone()
			tc.client(base.TLSClientConfig)
			t.Cleanup(base.CloseIdleConnections)
			var counters retry.Counters
			cfg := quick()
			cfg.Base, cfg.DisableBreaker, cfg.Observer = base, false, counters.Observe
			rt, err := retry.NewTransport(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = get(t, &http.Client{Transport: rt}, context.Background(), s.URL)
			if err == nil {
				t.Fatal("GET succeeded despite the TLS mismatch")
			}
			if n := counters.Snapshot().Attempts; n != 1 {
				t.Fatalf("GET = %v after %d attempts, want 1", err, n)
			}
		})
	}
}

// Item 7: with an AttemptTimeout, a 101 Switching Protocols body is still
// the io.ReadWriteCloser net/http promises.
func TestTransportAttemptTimeoutKeepsUpgradesWritable(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		brw.Flush()
		line, _ := brw.ReadString('\n')
		brw.WriteString(line)
		brw.Flush()
	})
	cfg := quick()
	cfg.AttemptTimeout = 5 * time.Second
	base := http.DefaultTransport.(*http.Transport).Clone() // no body tracker: it would hide Write
	t.Cleanup(base.CloseIdleConnections)
	cfg.Base = base
	rt, err := retry.NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rt}
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "echo")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d, want 101", resp.StatusCode)
	}
	rw, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		t.Fatalf("101 body is a %T, not an io.ReadWriteCloser", resp.Body)
	}
	if _, err := io.WriteString(rw, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(rw).ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("echo = %q %v, want ping", line, err)
	}
}

// negative is a custom policy that returns a negative wait.
type negative struct{}

func (negative) Delay(int, time.Duration, retry.Uniform) time.Duration {
	return -150 * time.Millisecond
}

// Item 8: a negative wait from a custom policy does not eat into the
// Retry-After floor.
func TestNegativePolicyWaitKeepsTheFloor(t *testing.T) {
	var waits []time.Duration
	cfg := fast()
	cfg.Policy = negative{}
	cfg.MaxAttempts = 2
	cfg.Observer = func(e retry.Event) {
		if e.Kind == retry.EventRetry {
			waits = append(waits, e.Wait)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int64
		var second time.Duration
		start := time.Now()
		err := mustNew(t, cfg).Do(context.Background(), func(context.Context) error {
			if calls.Add(1) == 1 {
				return retry.RetryAfter(errFlaky, 200*time.Millisecond)
			}
			second = time.Since(start)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(waits) != 1 || waits[0] != 200*time.Millisecond {
			t.Fatalf("waits %v, want one of exactly the 200ms floor (the negative wait counts as 0)", waits)
		}
		if second != 200*time.Millisecond {
			t.Fatalf("retried after %v, want after the 200ms floor", second)
		}
	})
}

// Item 11: hosts that a client connects to the same way share a breaker,
// and the number of per-host breakers is bounded.
func TestTransportHostKeysAreNormalisedAndBounded(t *testing.T) {
	rt, err := retry.NewTransport(retry.TransportConfig{MaxHosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkShared(t, rt, true, [][2][2]string{
		{{"http", "example.com"}, {"http", "EXAMPLE.com"}},
		{{"http", "example.com"}, {"http", "example.com:80"}},
		{{"http", "example.com"}, {"http", "example.com."}},
		{{"http", "example.com"}, {"HTTP", "Example.COM.:80"}},
		{{"https", "example.com"}, {"https", "example.com:443"}},
		{{"http", "[::1]"}, {"http", "[::1]:80"}},
	})
	checkShared(t, rt, false, [][2][2]string{
		{{"http", "example.com"}, {"https", "example.com"}},
		{{"http", "example.com"}, {"http", "example.com:8080"}},
		{{"https", "example.com"}, {"https", "example.com:80"}},
	})
	// With room for two: a, b, a, c drops b (least recently used), keeps a.
	a := rt.Breaker("http", "a.example")
	b := rt.Breaker("http", "b.example")
	rt.Breaker("http", "a.example")
	rt.Breaker("http", "c.example")
	if rt.Breaker("http", "a.example") != a {
		t.Error("the recently used host's breaker was dropped")
	}
	if rt.Breaker("http", "b.example") == b {
		t.Error("a third host kept the least recently used breaker, want it dropped (MaxHosts 2)")
	}
	if err := (retry.TransportConfig{MaxHosts: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "max hosts") {
		t.Errorf("MaxHosts -1: %v, want an error naming max hosts", err)
	}
}

// The failure that opens the breaker ends the call at once: no wait drawn
// into a sleep, no budget token, no refusal on waking.
func TestDoGivesUpAtOnceWhenItsFailureOpensTheBreaker(t *testing.T) {
	br := mustBreaker(t, breaker.Config{Failures: 2, OpenTimeout: time.Hour})
	var mu sync.Mutex
	var kinds []string
	cfg := retry.Config{Policy: retry.Constant{Base: 50 * time.Millisecond}, Breaker: br, MaxAttempts: 5,
		Observer: func(e retry.Event) {
			mu.Lock()
			kinds = append(kinds, e.Kind.String())
			mu.Unlock()
		}}
	synctest.Test(t, func(t *testing.T) {
		r := mustNew(t, cfg)
		start := time.Now()
		err := r.Do(context.Background(), func(context.Context) error { return errFlaky })
		var re *retry.Error
		if !errors.As(err, &re) || !errors.Is(err, retry.ErrBreakerOpen) || re.Attempts != 2 {
			t.Fatalf("Do = %v, want ErrBreakerOpen after 2 attempts", err)
		}
		if took := time.Since(start); took != 50*time.Millisecond {
			t.Errorf("Do took %v, want the one 50ms wait and no sleep after the breaker opened", took)
		}
		if c := r.Budget().Counts(time.Now()); c.Retries != 1 {
			t.Errorf("budget spent %d retries, want 1 (none after the breaker opened)", c.Retries)
		}
		want := "attempt retry attempt breaker-refused give-up"
		if got := strings.Join(kinds, " "); got != want {
			t.Fatalf("events %q, want %q: no retry scheduled after the failure that opened the breaker", got, want)
		}
	})
}

// checkShared checks that each pair of (scheme, host) has one breaker
// (shared) or one each (!shared) in rt.
func checkShared(t *testing.T, rt *retry.Transport, shared bool, pairs [][2][2]string) {
	t.Helper()
	for _, p := range pairs {
		if same := rt.Breaker(p[0][0], p[0][1]) == rt.Breaker(p[1][0], p[1][1]); same != shared {
			want := "one breaker"
			if !shared {
				want = "one breaker each"
			}
			t.Errorf("%v and %v: shared %v, want %s", p[0], p[1], same, want)
		}
	}
}

// discardLog is a server error log that drops everything (TLS handshake
// errors are expected here).
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
