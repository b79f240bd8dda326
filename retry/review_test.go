package retry_test

// Regression tests for the findings of issue 26's adversarial review of
// package retry. Each failed before its fix.

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// A dependency that hangs until each caller's deadline passes is failing:
// with the defaults, five such calls in a row open the breaker, and the
// next call is refused at once instead of waiting out its own deadline.
func TestDoDeadlineDuringAnAttemptCountsAsAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r retry.Retrier // every default: the breaker opens on 5 failures
		hang := func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}
		for i := range 5 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := r.Do(ctx, hang)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("call %d = %v, want the deadline", i+1, err)
			}
		}
		if st := r.Breaker().State(time.Now()); st != breaker.Open {
			t.Fatalf("breaker %v after 5 calls that hung until their deadline, want open", st)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		if err := r.Do(ctx, hang); !errors.Is(err, retry.ErrBreakerOpen) || time.Since(start) != 0 {
			t.Fatalf("sixth call = %v after %v, want ErrBreakerOpen at once", err, time.Since(start))
		}
	})
}

// The same through a Transport: a server that never answers opens the
// host's breaker after five requests whose deadline passed waiting for it.
// A caller's cancellation still counts as nothing.
func TestTransportDeadlineWhileWaitingCountsAsAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { <-r.Context().Done() })
		cfg := quick()
		cfg.DisableBreaker = false
		c, rt := newPipeClient(t, s, cfg)
		br := rt.Breaker("http", "dependency.test")
		for i := range 4 {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Second, cancel)
			if _, _, err := get(t, c, ctx, s.URL); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled call %d = %v, want context.Canceled", i+1, err)
			}
		}
		if st := br.State(time.Now()); st != breaker.Closed {
			t.Fatalf("breaker %v after 4 cancelled calls, want closed", st)
		}
		for i := range 5 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, _, err := get(t, c, ctx, s.URL)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("call %d = %v, want the deadline", i+1, err)
			}
		}
		if st := br.State(time.Now()); st != breaker.Open {
			t.Fatalf("breaker %v after 5 calls whose deadline passed waiting, want open", st)
		}
	})
}

// brokenBody is a request body whose reader fails after a few bytes, as a
// caller's upload from a broken source does.
type brokenBody struct {
	sent   int
	closed *atomic.Int64
}

func (b *brokenBody) Read(p []byte) (int, error) {
	if b.sent >= 3 {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, "abc"[b.sent:])
	b.sent += n
	return n, nil
}

func (b *brokenBody) Close() error { b.closed.Add(1); return nil }

// The caller's own upload failing to read is not the dependency's failure:
// it is not retried (GetBody would fail the same way), the breaker of a
// healthy host does not hear of it, and the call returns the body's error.
func TestTransportCallersBrokenBodyIsNotTheDependencysFailure(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { io.WriteString(w, "ok") })
	var counters retry.Counters
	cfg := quick()
	cfg.DisableBreaker, cfg.Observer = false, counters.Observe
	c, rt, _ := newClient(t, cfg)
	var closed atomic.Int64
	for i := range 6 {
		req, _ := http.NewRequest(http.MethodPut, s.URL, nil)
		req.Body = &brokenBody{closed: &closed}
		req.ContentLength = 100
		req.GetBody = func() (io.ReadCloser, error) { return &brokenBody{closed: &closed}, nil }
		_, _, err := send(c, req)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("PUT %d with a broken body = %v, want the body's io.ErrUnexpectedEOF", i+1, err)
		}
		var re *retry.Error
		if errors.As(err, &re) {
			t.Fatalf("PUT %d = %v: want the body's error as it is, not a give-up after retries", i+1, err)
		}
	}
	st := counters.Snapshot()
	if st.Attempts != 6 || st.Retries != 0 || st.GiveUps != 6 {
		t.Fatalf("%+v: want 6 attempts, no retry, 6 give-ups", st)
	}
	u := strings.TrimPrefix(s.URL, "http://")
	if b := rt.Breaker("http", u).State(time.Now()); b != breaker.Closed {
		t.Fatalf("the healthy host's breaker is %v after 6 broken uploads, want closed", b)
	}
	if closed.Load() != 6 {
		t.Fatalf("%d bodies closed, want the 6 sent", closed.Load())
	}
	if code, body, err := get(t, c, context.Background(), s.URL); err != nil || code != 200 || body != "ok" {
		t.Fatalf("GET after the broken uploads = %d %q %v, want 200 ok", code, body, err)
	}
}

// h2Server is a minimal HTTP/2 server without TLS (prior knowledge, as
// Go's client speaks it with Protocols.SetUnencryptedHTTP2), written frame
// by frame so that it can misbehave exactly: on each connection whose
// number goaway says, it answers the first request with GOAWAY and closes
// the connection; on the others it answers 200 with no body.
type h2Server struct {
	ln     net.Listener
	conns  atomic.Int64
	goaway func(conn int64) bool
	wg     sync.WaitGroup
}

func newH2Server(t *testing.T, goaway func(conn int64) bool) *h2Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &h2Server{ln: ln, goaway: goaway}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := s.conns.Add(1)
			s.wg.Go(func() { s.serve(c, n) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

// frame encodes one HTTP/2 frame (RFC 9113, section 4.1).
func frame(typ, flags byte, stream uint32, payload []byte) []byte {
	b := make([]byte, 9, 9+len(payload))
	b[0], b[1], b[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	b[3], b[4] = typ, flags
	binary.BigEndian.PutUint32(b[5:], stream)
	return append(b, payload...)
}

func (s *h2Server) serve(c net.Conn, n int64) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) // never hang the test run
	r := bufio.NewReader(c)
	if _, err := io.ReadFull(r, make([]byte, 24)); err != nil { // the client's preface
		return
	}
	c.Write(frame(0x4, 0, 0, nil)) // SETTINGS, none
	for {
		var h [9]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return
		}
		payload := make([]byte, int(h[0])<<16|int(h[1])<<8|int(h[2]))
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		typ, flags, stream := h[3], h[4], binary.BigEndian.Uint32(h[5:])&0x7fffffff
		switch {
		case typ == 0x4 && flags&0x1 == 0: // the client's SETTINGS: acknowledge
			c.Write(frame(0x4, 0x1, 0, nil))
		case typ == 0x1 && s.goaway(n): // HEADERS: GOAWAY naming this stream, then close
			p := binary.BigEndian.AppendUint32(nil, stream)
			p = binary.BigEndian.AppendUint32(p, 0) // NO_ERROR
			c.Write(frame(0x7, 0, 0, p))
			return
		case typ == 0x1: // HEADERS: ":status: 200" (HPACK static index 8), end of stream
			c.Write(frame(0x1, 0x4|0x1, stream, []byte{0x88}))
		}
	}
}

// h2Client returns a Transport with cfg over HTTP/2 without TLS.
func h2Client(t *testing.T, cfg retry.TransportConfig) *retry.Transport {
	t.Helper()
	base := &http.Transport{Protocols: new(http.Protocols)}
	base.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(base.CloseIdleConnections)
	cfg.Base = base
	rt, err := retry.NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// A server that sends GOAWAY and closes the connection with an idempotent
// GET on it is going away: the GET is retried on a new connection, and a
// server that always does it gives a *retry.Error and failures for the
// breaker.
func TestTransportRetriesHTTP2GoAway(t *testing.T) {
	t.Run("once", func(t *testing.T) {
		s := newH2Server(t, func(conn int64) bool { return conn == 1 })
		rt := h2Client(t, quick())
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.ln.Addr().String()+"/", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("GET after a GOAWAY = %v, want the 200 of the retry", err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.StatusCode != 200 || s.conns.Load() != 2 {
			t.Fatalf("GET = %s %d over %d connections, want HTTP/2 200 over 2", resp.Proto, resp.StatusCode, s.conns.Load())
		}
	})
	t.Run("always", func(t *testing.T) {
		s := newH2Server(t, func(int64) bool { return true })
		cfg := quick()
		cfg.DisableBreaker, cfg.MaxAttempts = false, 5
		rt := h2Client(t, cfg)
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.ln.Addr().String()+"/", nil)
		_, err := rt.RoundTrip(req)
		var re *retry.Error
		if !errors.As(err, &re) || !errors.Is(err, retry.ErrAttemptsExhausted) || re.Attempts != 5 {
			t.Fatalf("GET to a server that always goes away = %v, want a *retry.Error after 5 attempts", err)
		}
		if !strings.Contains(err.Error(), "GOAWAY") {
			t.Fatalf("error %q does not carry the GOAWAY", err)
		}
		if st := rt.Breaker("http", s.ln.Addr().String()).State(time.Now()); st != breaker.Open {
			t.Fatalf("breaker %v after 5 GOAWAYs, want open", st)
		}
	})
}

// A custom base RoundTripper may return a nil Body, which http.Client
// accepts; the Transport must neither panic on it, when it returns the
// response or when it discards one to retry, nor hand it on nil.
func TestTransportNilBodyFromTheBase(t *testing.T) {
	var n int
	base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		n++
		status := http.StatusServiceUnavailable
		if n == 3 {
			status = http.StatusOK
		}
		return &http.Response{StatusCode: status, Header: http.Header{}, Request: req}, nil
	})
	cfg := quick()
	cfg.Base = base
	rt, err := retry.NewTransport(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: rt}).Get("http://example.com/")
	if err != nil || resp.StatusCode != 200 || n != 3 {
		t.Fatalf("GET = %v, %v after %d attempts: want 200 after 2 retries", resp, err, n)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != 0 {
		t.Fatalf("body = %q, %v: want empty", b, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
}

// An Observer that panics on an attempt event must not take the half-open
// breaker's probe slot with it: the next call may probe.
func TestPanickingObserverFreesTheProbeSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := mustBreaker(t, breaker.Config{Failures: 1, OpenTimeout: time.Millisecond, MaxOpenTimeout: time.Millisecond})
		var panicky atomic.Bool
		cfg := fast()
		cfg.DisableBreaker, cfg.Breaker, cfg.MaxAttempts = false, br, 1
		cfg.Observer = func(e retry.Event) {
			if e.Kind == retry.EventAttempt && panicky.Load() {
				panic("observer bug")
			}
		}
		r := mustNew(t, cfg)
		r.Do(context.Background(), func(context.Context) error { return errFlaky }) // opens
		time.Sleep(2 * time.Millisecond)                                            // half-open
		panicky.Store(true)
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("the observer's panic did not reach the caller")
				}
			}()
			r.Do(context.Background(), func(context.Context) error { return nil })
		}()
		panicky.Store(false)
		if err := r.Do(context.Background(), func(context.Context) error { return nil }); err != nil {
			t.Fatalf("Do after the observer panicked = %v, want the probe let through", err)
		}
		if st := br.State(time.Now()); st != breaker.Closed {
			t.Fatalf("breaker %v after a successful probe, want closed", st)
		}
	})
}

// Every event of a call, and its breaker's changes, name the host the
// same way, whatever spelling the request used.
func TestTransportEventsNameTheHostOneWay(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) { unavailable(w, "") })
	var mu sync.Mutex
	hosts := map[string]map[string]bool{} // kind → hosts
	cfg := quick()
	cfg.DisableBreaker, cfg.MaxAttempts = false, 5
	cfg.Observer = func(e retry.Event) {
		mu.Lock()
		defer mu.Unlock()
		if hosts[e.Kind.String()] == nil {
			hosts[e.Kind.String()] = map[string]bool{}
		}
		hosts[e.Kind.String()][e.Host] = true
	}
	c, _, _ := newClient(t, cfg)
	port := s.Listener.Addr().(*net.TCPAddr).Port
	get(t, c, context.Background(), fmt.Sprintf("http://LOCALHOST:%d/", port))   // opens the breaker
	get(t, c, context.Background(), fmt.Sprintf("http://localhost.:0%d/", port)) // refused
	want := fmt.Sprintf("http://localhost:%d", port)
	mu.Lock()
	defer mu.Unlock()
	for _, kind := range []string{"attempt", "retry", "breaker-change", "breaker-refused", "give-up"} {
		if len(hosts[kind]) != 1 || !hosts[kind][want] {
			t.Errorf("%s events name the host %v, want only %q", kind, hosts[kind], want)
		}
	}
}

// A call that stops on an error not worth retrying gives up too: the
// observer hears it (Counters count it), with ErrPermanent as the reason.
func TestStopsOnPermanentErrorsAreGiveUps(t *testing.T) {
	denied := errors.New("denied")
	t.Run("Permanent", func(t *testing.T) {
		var counters retry.Counters
		var reason error
		cfg := fast()
		cfg.Observer = func(e retry.Event) {
			counters.Observe(e)
			if e.Kind == retry.EventGiveUp {
				reason = e.Reason
			}
		}
		err := mustNew(t, cfg).Do(context.Background(), func(context.Context) error { return retry.Permanent(denied) })
		if err != denied {
			t.Fatalf("Do = %v, want the permanent error itself", err)
		}
		if st := counters.Snapshot(); st.GiveUps != 1 || st.Attempts != 1 || reason != retry.ErrPermanent {
			t.Fatalf("%+v, reason %v: want 1 attempt and 1 give-up with reason ErrPermanent", st, reason)
		}
	})
	t.Run("Transport error not worth retrying", func(t *testing.T) {
		var counters retry.Counters
		cfg := quick()
		cfg.Observer = counters.Observe
		cfg.Base = roundTripFunc(func(*http.Request) (*http.Response, error) {
			return nil, &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}
		})
		rt, err := retry.NewTransport(cfg)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://x.invalid/", nil)
		if _, err := rt.RoundTrip(req); err == nil {
			t.Fatal("GET to an unknown host succeeded")
		}
		if st := counters.Snapshot(); st.GiveUps != 1 || st.Attempts != 1 {
			t.Fatalf("%+v: want 1 attempt and 1 give-up", st)
		}
	})
}

// Spellings of one host that a client dials the same way share a breaker:
// a port with leading zeros, and an internationalised name in Unicode or
// in Punycode.
func TestTransportHostSpellingsShareABreaker(t *testing.T) {
	rt, err := retry.NewTransport(retry.TransportConfig{})
	if err != nil {
		t.Fatal(err)
	}
	checkShared(t, rt, true, [][2][2]string{
		{{"http", "example.com:80"}, {"http", "example.com:080"}},
		{{"http", "example.com:8080"}, {"http", "example.com:0008080"}},
		{{"https", "example.com"}, {"https", "example.com:0443"}},
		{{"http", "bücher.example"}, {"http", "xn--bcher-kva.example"}},
		{{"http", "BÜCHER.example:80"}, {"http", "xn--bcher-kva.example"}},
		{{"https", "münchen.de"}, {"https", "xn--mnchen-3ya.de"}},
		{{"https", "例え.テスト"}, {"https", "xn--r8jz45g.xn--zckzah"}},
		{{"https", "例え。テスト"}, {"https", "xn--r8jz45g.xn--zckzah"}},
	})
	checkShared(t, rt, false, [][2][2]string{
		{{"http", "example.com:80"}, {"http", "example.com:800"}},
		{{"http", "example.com:8"}, {"http", "example.com:80"}},
		{{"http", "bücher.example"}, {"http", "bucher.example"}},
	})
}

// Making room for a new host drops a host whose breaker is closed before
// one whose breaker is open, however long ago that one was used: the open
// breaker is what protects its failing host.
func TestTransportKeepsOpenBreakersOverClosedOnes(t *testing.T) {
	rt, err := retry.NewTransport(retry.TransportConfig{MaxHosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	down := rt.Breaker("http", "down.example")
	for range breaker.DefaultFailures {
		p, _ := down.Allow(now)
		p.Failed(now)
	}
	if down.State(now) != breaker.Open {
		t.Fatal("breaker not open after its failures")
	}
	up := rt.Breaker("http", "up.example") // now the most recently used
	rt.Breaker("http", "new.example")      // a third host: one must go
	if rt.Breaker("http", "down.example") != down {
		t.Fatal("the open breaker was dropped for a new host while a closed one was kept")
	}
	if rt.Breaker("http", "up.example") == up {
		t.Fatal("the closed breaker was kept, want it dropped to make room")
	}
}

// With every breaker open, the table still stays within MaxHosts: the
// least recently used open one goes.
func TestTransportBoundsHostsWhenAllBreakersAreOpen(t *testing.T) {
	rt, err := retry.NewTransport(retry.TransportConfig{MaxHosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	open := func(host string) *breaker.Breaker {
		b := rt.Breaker("http", host)
		for range breaker.DefaultFailures {
			p, _ := b.Allow(now)
			p.Failed(now)
		}
		return b
	}
	a, b := open("a.example"), open("b.example")
	rt.Breaker("http", "a.example") // a is the most recently used
	open("c.example")
	if rt.Breaker("http", "a.example") != a {
		t.Error("the most recently used open breaker was dropped")
	}
	if rt.Breaker("http", "b.example") == b {
		t.Error("three open breakers kept with MaxHosts 2")
	}
}

// AttemptTimeout bounds the wait for the response headers, not the
// reading of a body the caller got: a 200 that streams for ten times the
// attempt timeout is read to its end.
func TestTransportAttemptTimeoutDoesNotCutAStreamingBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			for i := range 10 {
				fmt.Fprintf(w, "chunk %d\n", i)
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		})
		cfg := quick()
		cfg.AttemptTimeout = 100 * time.Millisecond
		c, _ := newPipeClient(t, s, cfg)
		start := time.Now()
		code, body, err := get(t, c, context.Background(), s.URL)
		if err != nil || code != 200 || strings.Count(body, "chunk") != 10 {
			t.Fatalf("GET = %d %q %v, want all 10 chunks of the 200", code, body, err)
		}
		if took := time.Since(start); took != time.Second {
			t.Fatalf("reading took %v, want the stream's 1s", took)
		}
	})
}

// The attempt timeout still cuts an attempt whose headers do not come, and
// the retry gets the answer.
func TestTransportAttemptTimeoutCutsSlowHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			if n == 1 {
				<-r.Context().Done()
				return
			}
			io.WriteString(w, "ok")
		})
		var errs []error
		cfg := quick()
		cfg.AttemptTimeout, cfg.Policy = 100*time.Millisecond, retry.Constant{}
		cfg.Observer = func(e retry.Event) {
			if e.Kind == retry.EventRetry {
				errs = append(errs, e.Err)
			}
		}
		c, _ := newPipeClient(t, s, cfg)
		start := time.Now()
		code, body, err := get(t, c, context.Background(), s.URL)
		if err != nil || code != 200 || body != "ok" {
			t.Fatalf("GET = %d %q %v, want 200 ok from the retry", code, body, err)
		}
		if took := time.Since(start); took != 100*time.Millisecond {
			t.Fatalf("took %v, want the first attempt's 100ms timeout and an immediate retry", took)
		}
		if len(errs) != 1 || !errors.Is(errs[0], context.DeadlineExceeded) || !strings.Contains(errs[0].Error(), "attempt timeout of 100ms") {
			t.Fatalf("retried after %v, want one attempt timeout (a DeadlineExceeded naming the timeout)", errs)
		}
	})
}
