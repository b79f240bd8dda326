package retry

import (
	"container/list"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

// defaultRetryStatus is what DefaultRetryStatuses returns.
var defaultRetryStatus = [...]int{
	http.StatusTooManyRequests,
	http.StatusBadGateway,
	http.StatusServiceUnavailable,
	http.StatusGatewayTimeout,
}

// DefaultRetryStatuses returns the response statuses a Transport retries
// when TransportConfig.RetryStatus is nil: 429 Too Many Requests, 502 Bad
// Gateway, 503 Service Unavailable and 504 Gateway Timeout. Each call
// returns a new slice, so changing it changes nothing else.
func DefaultRetryStatuses() []int { return slices.Clone(defaultRetryStatus[:]) }

// DefaultRetryStatus is the old, mutable form of DefaultRetryStatuses.
//
// Deprecated: use DefaultRetryStatuses, or TransportConfig.RetryStatus to
// choose the statuses of one Transport. Until DefaultRetryStatus is
// removed, in the next release, a Transport made with a nil RetryStatus
// still reads it when it is made, so a program that changed it keeps its
// behaviour; but a change made while Transports run is a data race.
var DefaultRetryStatus = DefaultRetryStatuses()

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
	// nil means DefaultRetryStatuses(), and an empty non-nil slice retries only
	// connection errors. A retryable status counts as a failure for the
	// breaker; any other response counts as a success.
	RetryStatus []int
	// MaxHosts bounds the per-host breakers kept, in [0, 1e6]; 0 means
	// DefaultMaxHosts. When a new host would exceed it, the breaker of the
	// host least recently used is dropped (a few hundred bytes each); that
	// host gets a fresh, closed breaker if it comes back. Ignored with a
	// Breaker or DisableBreaker.
	MaxHosts int
}

// DefaultMaxHosts is the number of per-host breakers a Transport keeps
// when TransportConfig.MaxHosts is 0.
const DefaultMaxHosts = 1024

// MaxHostsLimit bounds TransportConfig.MaxHosts.
const MaxHostsLimit = 1_000_000

// MaxMaxHosts is the old name of MaxHostsLimit.
//
// Deprecated: use MaxHostsLimit. MaxMaxHosts will be removed in the next
// release.
const MaxMaxHosts = MaxHostsLimit

// Validate reports the first field that is out of range, naming it and the
// allowed range.
func (c TransportConfig) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if c.MaxHosts < 0 || c.MaxHosts > MaxHostsLimit {
		return fmt.Errorf("retry: max hosts %d out of range: want 1 <= max hosts <= %d (0 means the default %d)", c.MaxHosts, MaxHostsLimit, DefaultMaxHosts)
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
// Connection errors (resets, refusals, EOF, timeouts), HTTP/2 stream
// resets and the RetryStatus responses are retried; TLS certificate errors,
// TLS alerts (a client certificate required or rejected, no common
// protocol version) and unknown hosts are not. A Retry-After header on a
// retried response is a floor on the next wait. When the Transport gives
// up after a retryable response, it returns that response, body unread, as
// a plain http.Transport would have; every other response body it
// receives, it drains (at most 4 KiB, for at most 100 ms, else it drops the
// connection) and closes. When it gives up after a retryable error, the
// error is an *Error; an error not worth retrying is returned as it is.
//
// The breaker hears of every answer: a RetryStatus response or a retryable
// error is a failure, any other response a success. Attempts that never
// heard from the dependency (a request body that cannot be rewound, an
// error not worth retrying, a proxy refusing the tunnel, the caller's
// cancellation) count as neither.
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
	breakers map[string]*list.Element // per host, when perHost; values are *hostBreaker
	lru      list.List                // most recently used first
	maxHosts int
	perHost  bool
}

// hostBreaker is one host's breaker in a Transport's LRU list.
type hostBreaker struct {
	key string
	b   *breaker.Breaker
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
		t.breakers = map[string]*list.Element{}
		t.maxHosts = cfg.MaxHosts
		if t.maxHosts == 0 {
			t.maxHosts = DefaultMaxHosts
		}
	}
}

// Budget returns the Transport's retry budget, nil if disabled.
func (t *Transport) Budget() *budget.Budget {
	t.init()
	return t.r.budget
}

// Breaker returns the breaker for requests to host (as in URL.Host) over
// scheme, nil if the breaker is disabled. With per-host breakers it makes
// the host's breaker if there is none yet. Hosts are compared as a client
// would connect to them: case-insensitively, without a trailing dot, and
// with the scheme's default port, so EXAMPLE.com, example.com:80 and
// example.com. share a breaker over http.
func (t *Transport) Breaker(scheme, host string) *breaker.Breaker {
	t.init()
	if !t.perHost {
		return t.r.breaker
	}
	key := hostKey(scheme, host)
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.breakers[key]; e != nil {
		t.lru.MoveToFront(e)
		return e.Value.(*hostBreaker).b
	}
	if t.lru.Len() >= t.maxHosts {
		oldest := t.lru.Back()
		t.lru.Remove(oldest)
		delete(t.breakers, oldest.Value.(*hostBreaker).key)
	}
	b := t.r.newBreaker(key)
	t.breakers[key] = t.lru.PushFront(&hostBreaker{key: key, b: b})
	return b
}

// hostKey is the per-host breaker key "scheme://host[:port]": scheme and
// host in lower case, the host without a trailing dot or IPv6 brackets'
// variations, and the port left out when it is the scheme's default.
func hostKey(scheme, host string) string {
	scheme, host = strings.ToLower(scheme), strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil { // no port
		h, port = host, ""
	}
	h = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ".")
	switch {
	case port == "" || port == "80" && scheme == "http" || port == "443" && scheme == "https":
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		return scheme + "://" + h
	}
	return scheme + "://" + net.JoinHostPort(h, port)
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
			drain(last)
			last = nil
		}
	}
	attempt := 0
	err := t.r.run(req.Context(), c, func(ctx context.Context) error {
		attempt++
		// Each attempt has a context of its own, which lives until its
		// response body is closed (the body is part of the attempt), and
		// which drain cancels to drop a connection whose body stalls.
		var cancel context.CancelFunc
		if t.r.attemptTO > 0 {
			ctx, cancel = context.WithTimeout(ctx, t.r.attemptTO)
		} else {
			ctx, cancel = context.WithCancel(ctx)
		}
		out, err := t.prepare(req, ctx, attempt)
		if err != nil {
			cancel()
			return &abandonedError{err} // the request never left
		}
		resp, err := t.base.RoundTrip(out)
		if err != nil {
			cancel()
			if retryableError(err) {
				return err
			}
			// No answer, and none worth retrying for: it says nothing
			// about the dependency's health.
			return &abandonedError{err}
		}
		resp.Body = cancelOnClose(resp.Body, cancel)
		last = resp
		if !t.status[resp.StatusCode] {
			return nil
		}
		serr := &StatusError{Code: resp.StatusCode}
		if v := resp.Header.Get("Retry-After"); v != "" {
			if d, err := ParseRetryAfter(v, t.r.now()); err == nil {
				serr.RetryAfter = d
				return RetryAfter(serr, d)
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

// h2StreamError matches net/http's HTTP/2 stream error (a RST_STREAM from
// the server, or a stream the client reset) through its As method, which
// fills any struct with the same fields, as golang.org/x/net/http2 does.
type h2StreamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e h2StreamError) Error() string { return fmt.Sprintf("stream error: stream ID %d", e.StreamID) }

// retryableError reports whether a transport error is worth another
// attempt: the connection or the HTTP/2 stream failed, not the request.
// TLS alerts (a client certificate required or rejected, no common
// protocol version) and certificate errors are not: they fail the same way
// every time.
func retryableError(err error) bool {
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var alert tls.AlertError
	var dns *net.DNSError
	var op *net.OpError
	var stream h2StreamError
	switch {
	case errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &cert), errors.As(err, &unknown), errors.As(err, &alert):
		return false
	case errors.As(err, &op) && (op.Op == "remote error" || op.Op == "local error"):
		// crypto/tls reports an alert the peer sent, or one it sent
		// itself, as a *net.OpError with these operations.
		return false
	case errors.As(err, &dns):
		return !dns.IsNotFound
	case errors.As(err, &stream):
		// An HTTP/2 stream reset is the HTTP/2 form of a dropped
		// connection; the Transport only retries requests safe to repeat.
		return true
	case errors.Is(err, context.DeadlineExceeded), // an attempt timeout
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// Limits on draining a discarded response body.
const (
	// drainBytes is the most drain reads from a discarded body to keep its
	// connection for reuse; a body known to be longer is not read at all.
	drainBytes = 4 << 10
	// drainTime is the longest drain waits for those bytes before it drops
	// the connection.
	drainTime = 100 * time.Millisecond
)

// drain reads what is left of a discarded body, if that is little, so its
// connection can be reused, and closes it. A longer body, or one that does
// not arrive within drainTime, costs the connection instead: closing an
// unread body drops it. It never blocks for longer than drainTime.
func drain(resp *http.Response) {
	body := resp.Body
	if resp.ContentLength <= drainBytes {
		if b, ok := body.(*cancelBody); ok {
			stop := time.AfterFunc(drainTime, b.cancel)
			io.CopyN(io.Discard, body, drainBytes)
			stop.Stop()
		}
	}
	body.Close()
}

// cancelOnClose returns body wrapped so that closing it releases the
// attempt's context. A 101 Switching Protocols body stays writable, as
// net/http promises.
func cancelOnClose(body io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	if rw, ok := body.(io.ReadWriteCloser); ok {
		return &cancelRWBody{cancelBody{body, cancel}, rw}
	}
	return &cancelBody{body, cancel}
}

// cancelBody releases an attempt's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// cancelRWBody is a cancelBody that can also be written, for protocol
// upgrades.
type cancelRWBody struct {
	cancelBody
	rw io.ReadWriteCloser
}

func (b *cancelRWBody) Write(p []byte) (int, error) { return b.rw.Write(p) }
