package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// scripted is a base RoundTripper that answers every attempt the same way:
// with an error from transportErrors, or with a response of the given
// status and Retry-After. It counts the attempts and the bodies it hands
// out and sees closed.
type scripted struct {
	err            error
	status         int
	retryAfter     string
	attempts       int
	opened, closed int
}

type countedBody struct {
	io.Reader
	s      *scripted
	closed bool
}

func (b *countedBody) Close() error {
	if !b.closed {
		b.closed = true
		b.s.closed++
	}
	return nil
}

func (s *scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	s.attempts++
	if req.Body != nil {
		req.Body.Close()
	}
	if s.err != nil {
		return nil, s.err
	}
	s.opened++
	h := http.Header{}
	if s.retryAfter != "" {
		h.Set("Retry-After", s.retryAfter)
	}
	return &http.Response{StatusCode: s.status, Header: h, ContentLength: -1, Request: req,
		Body: &countedBody{Reader: strings.NewReader("body"), s: s}}, nil
}

// transportErrors are errors a base RoundTripper may return, each with
// whether the Transport should retry it.
var transportErrors = []struct {
	err   error
	retry bool
}{
	{nil, false},
	{io.EOF, true},
	{io.ErrUnexpectedEOF, true},
	{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
	{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
	{fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", &net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")}), false},
	{&net.OpError{Op: "local error", Err: errors.New("tls: protocol version")}, false},
	{&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, false},
	{&net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}, true},
	{context.Canceled, false},
	{errors.New("Service Unavailable"), false}, // a proxy's answer to CONNECT
}

// FuzzTransportClassification checks, for any answer a dependency can
// give, the Transport's promises: at most MaxAttempts attempts, one for a
// request not safe to repeat or an error not worth retrying, every body it
// does not return closed, a response or an error but not both, and a
// breaker that counts only answers and retryable failures.
func FuzzTransportClassification(f *testing.F) {
	for i := range transportErrors {
		f.Add(uint8(i), 503, "", "GET", false)
	}
	f.Add(uint8(0), 200, "", "POST", false)
	f.Add(uint8(0), 429, "1", "POST", true)
	f.Add(uint8(0), 503, "0", "PUT", false)
	f.Add(uint8(0), 503, "Wed, 21 Oct 2015 07:28:00 GMT", "DELETE", false)
	f.Add(uint8(0), 502, "99999999999999999999", "GET", false)
	f.Add(uint8(0), 404, "", "PATCH", false)
	f.Fuzz(func(t *testing.T, kind uint8, status int, retryAfter, method string, key bool) {
		if status < 100 || status > 999 || !utf8.ValidString(retryAfter) || strings.ContainsAny(retryAfter, "\r\n\x00") {
			return
		}
		if method == "" || strings.ContainsAny(method, " \t\r\n()<>@,;:\\\"/[]?={}") || !utf8.ValidString(method) {
			return
		}
		te := transportErrors[int(kind)%len(transportErrors)]
		s := &scripted{err: te.err, status: status, retryAfter: retryAfter}
		// One failure recorded before the call: with Failures 2, the next
		// failure opens the breaker unless something reset the count.
		br, _ := breaker.New(breaker.Config{Failures: 2, OpenTimeout: time.Hour})
		p, _ := br.Allow(time.Now())
		p.Failed(time.Now())
		cfg := quick()
		cfg.Base, cfg.DisableBreaker, cfg.Breaker, cfg.MaxRetryAfter = s, false, br, 1
		rt, err := retry.NewTransport(cfg)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(method, "http://example.com/", strings.NewReader("x"))
		if err != nil {
			return
		}
		if key {
			req.Header.Set(retry.IdempotencyKeyHeader, "k")
		}
		resp, err := rt.RoundTrip(req)
		if (resp == nil) == (err == nil) {
			t.Fatalf("RoundTrip = %v, %v: want a response or an error", resp, err)
		}
		limit := 3
		if !retry.Repeatable(req) || te.err != nil && !te.retry {
			limit = 1
		}
		if s.attempts < 1 || s.attempts > limit {
			t.Fatalf("%d attempts, want 1..%d (error %v, status %d, %s)", s.attempts, limit, te.err, status, method)
		}
		discarded := s.opened
		if resp != nil {
			discarded--
		}
		if s.closed != discarded {
			t.Fatalf("%d bodies received and not returned, %d closed", discarded, s.closed)
		}
		if resp != nil {
			resp.Body.Close()
		}
		// An error not worth retrying never heard from the dependency: it
		// must neither reset the failure count nor add to it.
		if te.err != nil && !te.retry {
			if st := br.State(time.Now()); st != breaker.Closed {
				t.Fatalf("breaker %v after %v, want closed", st, te.err)
			}
			p, _ := br.Allow(time.Now())
			p.Failed(time.Now())
			if st := br.State(time.Now()); st != breaker.Open {
				t.Fatalf("breaker %v after %v and a failure, want open: the error reset the count", st, te.err)
			}
		}
	})
}

// FuzzBreakerKey checks that per-host breaker keys never panic and ignore
// the case of the host.
func FuzzBreakerKey(f *testing.F) {
	for _, h := range []string{"example.com", "EXAMPLE.com:80", "example.com.", "[::1]:443", "[::1", ":", "", "a:b:c", "ExAmPlE.CoM:8080"} {
		f.Add("http", h)
		f.Add("HTTPS", h)
	}
	f.Fuzz(func(t *testing.T, scheme, host string) {
		rt, err := retry.NewTransport(retry.TransportConfig{MaxHosts: 4})
		if err != nil {
			t.Fatal(err)
		}
		b := rt.Breaker(scheme, host)
		if b == nil {
			t.Fatal("nil breaker")
		}
		if rt.Breaker(strings.ToUpper(scheme), strings.ToUpper(host)) != b && isASCII(scheme+host) {
			t.Fatalf("Breaker(%q, %q) differs from its upper-case form", scheme, host)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
