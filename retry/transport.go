package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/backofflab/backofflab/lab/breaker"
	"github.com/backofflab/backofflab/lab/budget"
)

// DefaultRetryStatus lists the response statuses Transport retries when
// TransportConfig.RetryStatus is nil: 429 Too Many Requests, 502 Bad
// Gateway, 503 Service Unavailable and 504 Gateway Timeout.
var DefaultRetryStatus = []int{
	http.StatusTooManyRequests,
	http.StatusBadGateway,
	http.StatusServiceUnavailable,
	http.StatusGatewayTimeout,
}

// IdempotencyKeyHeader is the request header that marks a request as safe
// to repeat whatever its method.
const IdempotencyKeyHeader = "Idempotency-Key"

// TransportConfig sets a Transport's parameters.
type TransportConfig struct {
	// Config is the retry configuration. A nil Breaker (without
	// DisableBreaker) gives the Transport one default breaker per host
	// (scheme and host:port), made on first use, so one failing host does
	// not cut off the others.
	Config
	// Base sends each attempt; nil means http.DefaultTransport.
	Base http.RoundTripper
	// RetryStatus lists the response statuses to retry, each in [400, 599];
	// nil means DefaultRetryStatus, and an empty non-nil slice retries only
	// connection errors. A retryable status counts as a failure for the
	// breaker; any other response counts as a success.
	RetryStatus []int
}

// Validate reports the first field that is out of range, naming it and the
// allowed range.
func (c TransportConfig) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	for _, s := range c.RetryStatus {
		if s < 400 || s > 599 {
			return fmt.Errorf("retry: retry status %d out of range: want 400 <= status <= 599", s)
		}
	}
	return nil
}

// Transport is an http.RoundTripper that retries requests that are safe to
// repeat, following its Config. Put it in an http.Client:
//
//	t, err := retry.NewTransport(retry.TransportConfig{})
//	client := &http.Client{Transport: t}
//
// A request is retried only if its method is idempotent under RFC 9110
// (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) or it has an Idempotency-Key
// header, and its body can be replayed: no body, http.NoBody, or GetBody set
// (http.NewRequest sets it for the common in-memory bodies). Other requests
// get one attempt, still under the breaker.
//
// Connection errors (resets, refusals, EOF, timeouts) and the RetryStatus
// responses are retried; TLS certificate errors and unknown hosts are not.
// A Retry-After header on a retried response is a floor on the next wait.
// When the Transport gives up after a retryable response, it returns that
// response, body unread, as a plain http.Transport would have; every other
// response body it receives, it drains a little and closes. When it gives up
// after an error, the error is an *Error.
//
// A Transport is safe for concurrent use. The zero Transport is ready to use
// and behaves as NewTransport(TransportConfig{}) would; it must not be
// copied after first use.
type Transport struct {
	once   sync.Once
	r      *Retrier
	base   http.RoundTripper
	status map[int]bool

	mu       sync.Mutex
	breakers map[string]*breaker.Breaker // per host, when perHost
	perHost  bool
}

// NewTransport returns a Transport with the given configuration, or an error
// naming the first parameter that is out of range.
func NewTransport(cfg TransportConfig) (*Transport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Transport{}
	t.once.Do(func() { t.setup(cfg) })
	return t, nil
}

// init sets up a zero Transport as NewTransport(TransportConfig{}) would.
func (t *Transport) init() {
	t.once.Do(func() { t.setup(TransportConfig{}) })
}

// setup fills in t from a valid cfg.
func (t *Transport) setup(cfg TransportConfig) {
	t.r, _ = newRetrier(cfg.Config)
	t.base, t.status = cfg.Base, map[int]bool{}
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	codes := cfg.RetryStatus
	if codes == nil {
		codes = DefaultRetryStatus
	}
	for _, s := range codes {
		t.status[s] = true
	}
	if cfg.Breaker == nil && !cfg.DisableBreaker {
		t.perHost = true
		t.breakers = map[string]*breaker.Breaker{}
	}
}

// Budget returns the Transport's retry budget, nil if disabled.
func (t *Transport) Budget() *budget.Budget {
	t.init()
	return t.r.budget
}

// Breaker returns the breaker for requests to host (as in URL.Host) over
// scheme, nil if the breaker is disabled. With per-host breakers it makes
// the host's breaker if there is none yet.
func (t *Transport) Breaker(scheme, host string) *breaker.Breaker {
	t.init()
	if !t.perHost {
		return t.r.breaker
	}
	key := scheme + "://" + host
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.breakers[key]
	if b == nil {
		b = t.r.newBreaker(key)
		t.breakers[key] = b
	}
	return b
}

// RoundTrip sends req, retrying as the Transport's configuration allows.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := call{
		breaker: t.Breaker(req.URL.Scheme, req.URL.Host),
		host:    req.URL.Host,
		limit:   t.r.maxAttempts,
	}
	if !Repeatable(req) {
		c.limit, c.limitReason = 1, ErrNotRetryable
	}
	var last *http.Response // the last retryable response, until discarded
	c.discard = func() {
		if last != nil {
			drain(last.Body)
			last = nil
		}
	}
	attempt := 0
	err := t.r.run(req.Context(), c, func(ctx context.Context) error {
		attempt++
		out, err := t.prepare(req, ctx, attempt)
		if err != nil {
			return Permanent(err)
		}
		// With an attempt timeout, the attempt's context lives until its
		// response body is closed: the body is part of the attempt.
		var timed *cancelOnClose
		if t.r.attemptTO > 0 {
			timed = &cancelOnClose{}
			ctx, timed.cancel = context.WithTimeout(ctx, t.r.attemptTO)
			out = out.WithContext(ctx)
		}
		resp, err := t.base.RoundTrip(out)
		if err != nil {
			if timed != nil {
				timed.cancel()
			}
			if retryableError(err) {
				return err
			}
			return Permanent(err)
		}
		if timed != nil {
			timed.ReadCloser = resp.Body
			resp.Body = timed
		}
		last = resp
		if !t.status[resp.StatusCode] {
			return nil
		}
		serr := &StatusError{Code: resp.StatusCode}
		if v := resp.Header.Get("Retry-After"); v != "" {
			if d, err := ParseRetryAfter(v, t.r.now()); err == nil {
				serr.RetryAfter = d
				return After(serr, d)
			}
		}
		return serr
	})
	if last != nil {
		return last, nil // success, or a retryable response we stopped retrying
	}
	if req.Body != nil && attempt == 0 {
		req.Body.Close() // a RoundTripper closes the body, even when it sends nothing
	}
	return nil, err
}

// prepare returns the request for the given attempt: req itself (with
// ctx) for the first, a copy with a fresh body from GetBody after that.
func (t *Transport) prepare(req *http.Request, ctx context.Context, attempt int) (*http.Request, error) {
	if attempt == 1 {
		return req.WithContext(ctx), nil
	}
	out := req.Clone(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("retry: rewinding the request body for attempt %d: %w", attempt, err)
		}
		out.Body = body
	}
	return out, nil
}

// StatusError is the error a Transport's attempt reports for a retryable
// response status, as seen by an Observer.
type StatusError struct {
	// Code is the response's status code.
	Code int
	// RetryAfter is the wait its Retry-After header asked for, 0 if none.
	RetryAfter time.Duration
}

// Error returns "HTTP 503 Service Unavailable", with the Retry-After if any.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Code, http.StatusText(e.Code))
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (Retry-After %v)", e.RetryAfter)
	}
	return s
}

// Repeatable reports whether req is safe to send more than once: its method
// is idempotent under RFC 9110 §9.2.2 or it carries an Idempotency-Key, and
// its body, if any, can be replayed through GetBody.
func Repeatable(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
	default:
		if req.Header.Get(IdempotencyKeyHeader) == "" {
			return false
		}
	}
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// retryableError reports whether a transport error is worth another
// attempt: the connection failed, not the request.
func retryableError(err error) bool {
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &cert), errors.As(err, &unknown):
		return false
	case errors.As(err, &dns):
		return !dns.IsNotFound
	case errors.Is(err, context.DeadlineExceeded), // an attempt timeout
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// drain reads a little of a discarded body, so its connection can be
// reused, and closes it.
func drain(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}

// cancelOnClose releases an attempt's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
