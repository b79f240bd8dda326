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
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// DisableBreaker) gives the Transport a default breaker per host, and
	// a nil Budget (without DisableBudget) a default budget per host, made
	// on first use: one failing host neither cuts off the others nor spends
	// their retries. A Breaker or a Budget you pass is shared by every
	// host (to bound the retries to a fleet of replicas together, say).
	// Config.Retryable must be nil: a Transport's hook is Classify.
	Config
	// Base sends each attempt; nil means http.DefaultTransport.
	Base http.RoundTripper
	// RetryStatus lists the response statuses to retry, each in [400, 599];
	// nil means DefaultRetryStatuses(), and an empty non-nil slice retries
	// only connection errors. A retryable status counts as a failure for
	// the breaker; any other response counts as a success. It must not be
	// set with Classify, which decides statuses itself.
	RetryStatus []int
	// Classify, if not nil, decides what each attempt's outcome means:
	// given the response (and a nil error), or the error (and a nil
	// response) of the base RoundTripper, it returns Retry, Stop, Fail or
	// Ignore (see Verdict). nil means DefaultClassify with RetryStatus's
	// statuses. Some rules come first and it never sees their cases: a
	// request that is not safe to repeat gets one attempt whatever Classify
	// says; the caller's cancellation and deadline, the caller's own request
	// body failing to read, a failing GetBody and a failing PrepareAttempt
	// end the call without asking it. A response's Retry-After is a floor
	// on the wait of any attempt it says to Retry. It must not read or
	// close the response body (the Transport drains and closes the bodies
	// it does not return) and it must be safe for concurrent use.
	Classify func(resp *http.Response, err error) Verdict
	// PrepareAttempt, if not nil, is called with every attempt's request,
	// the first included, just before it is sent, with the attempt's
	// number (from 1). It may change the request's header and URL query:
	// re-sign a request whose signature carries a timestamp (AWS SigV4),
	// refresh a short-lived token. It gets a copy of the caller's request,
	// which it may change freely (the caller's is never changed), carrying
	// the attempt's context and, for a retry, a fresh body from GetBody; to
	// hash the body, read another copy from GetBody, not the Body. The body
	// replay rules are the Transport's: a request whose body cannot be
	// replayed still gets one attempt, and PrepareAttempt must not replace
	// the Body (the attempt fails if it does). An error from it ends the
	// call with that error, and the breaker counts nothing: the request
	// never left.
	PrepareAttempt func(req *http.Request, attempt int) error
	// MaxHosts bounds the hosts whose breaker and budget the Transport
	// keeps, in [0, 1e6]; 0 means DefaultMaxHosts. When a new host would
	// exceed it, the state of the host least recently used is dropped (a
	// few hundred bytes each), a host whose breaker is closed before one
	// whose breaker is open or half-open; that host starts afresh if it
	// comes back. Ignored when the Transport makes neither breakers nor
	// budgets (both given or disabled).
	MaxHosts int
}

// DefaultMaxHosts is the number of hosts a Transport keeps a breaker and a
// budget for when TransportConfig.MaxHosts is 0.
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
	switch {
	case c.MaxHosts < 0 || c.MaxHosts > MaxHostsLimit:
		return fmt.Errorf("retry: max hosts %d out of range: want 1 <= max hosts <= %d (0 means the default %d)", c.MaxHosts, MaxHostsLimit, DefaultMaxHosts)
	case c.Retryable != nil:
		return errors.New("retry: Retryable is set on a TransportConfig: a Transport classifies its attempts with Classify, which sees the response as well as the error")
	case c.Classify != nil && c.RetryStatus != nil:
		return errors.New("retry: both RetryStatus and Classify set: want at most one (Classify decides the statuses too)")
	}
	for _, s := range c.RetryStatus {
		if s < 400 || s > 599 {
			return fmt.Errorf("retry: retry status %d out of range: want 400 <= status <= 599", s)
		}
	}
	return nil
}

// Verdict is what a Transport makes of an attempt's outcome: whether to
// retry, and what its breaker hears. TransportConfig.Classify returns it.
type Verdict int

const (
	// Stop: the dependency answered, and the answer stands. The call ends
	// with it (the response, or the error as it is), and the breaker
	// counts a success. The zero Verdict.
	Stop Verdict = iota
	// Retry: the dependency failed, and another attempt may succeed. The
	// breaker counts a failure, and the Transport retries if the request is
	// safe to repeat and its limits allow; else the call ends with the
	// outcome (a response as it is, an error inside an *Error).
	Retry
	// Fail: the dependency failed, and another attempt will not help. The
	// call ends with the outcome as it is, and the breaker counts a
	// failure.
	Fail
	// Ignore: the outcome says nothing about the dependency's health (it
	// never heard the request, or the request was at fault). The call ends
	// with the outcome as it is, and the breaker counts nothing.
	Ignore
)

// String returns "stop", "retry", "fail" or "ignore".
func (v Verdict) String() string {
	switch v {
	case Stop:
		return "stop"
	case Retry:
		return "retry"
	case Fail:
		return "fail"
	case Ignore:
		return "ignore"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// DefaultClassify is the Transport's default rule, the one it follows when
// Classify and RetryStatus are nil. A response is Retry if its status is
// one of DefaultRetryStatuses() (429, 502, 503, 504), else Stop: a 500 is a
// bug in the dependency more often than an overload, and a 4xx is the
// dependency's answer. An error is Retry if the connection or the HTTP/2
// stream failed (a reset, a refusal, an EOF, a timeout, an HTTP/2 stream
// reset or GOAWAY, a temporary DNS failure), else Ignore: a TLS
// certificate error or alert, an unknown host or a proxy refusing the
// tunnel fails the same way every time without telling anything of the
// dependency.
//
// A Classify of your own can build on it:
//
//	Classify: func(resp *http.Response, err error) retry.Verdict {
//		if resp != nil && resp.StatusCode == http.StatusInternalServerError {
//			return retry.Fail // count 500s against the breaker, without retrying them
//		}
//		return retry.DefaultClassify(resp, err)
//	}
func DefaultClassify(resp *http.Response, err error) Verdict {
	if err != nil {
		return classifyError(err)
	}
	if slices.Contains(defaultRetryStatus[:], resp.StatusCode) {
		return Retry
	}
	return Stop
}

// classifyError is the default rule for an error.
func classifyError(err error) Verdict {
	if retryableError(err) {
		return Retry
	}
	return Ignore
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
// What is retried is Classify's to say; by default (DefaultClassify)
// connection errors (resets, refusals, EOF, timeouts), HTTP/2 stream resets
// and GOAWAYs and the RetryStatus responses are, TLS certificate errors,
// TLS alerts and unknown hosts are not. A Retry-After header on a retried
// response is a floor on the next wait. When the Transport gives up after
// a response, it returns that response, body unread, as a plain
// http.Transport would have; every other response body it receives, it
// drains (at most 4 KiB, for at most 100 ms, else it drops the connection)
// and closes. When it gives up after a retryable error, the error is an
// *Error; an error not worth retrying is returned as it is.
//
// The breaker hears of every answer as Classify says: by default a
// RetryStatus response or a retryable error is a failure, any other
// response a success. Attempts that never heard from the dependency (a
// request body that cannot be rewound, the caller's own body failing to
// read, an error not worth retrying, a proxy refusing the tunnel, the
// caller's cancellation) count as neither; an attempt still waiting for
// its response when the caller's deadline passes counts as a failure.
//
// Each attempt runs under a context of its own, derived from the
// request's, which carries the attempt's number for an instrumented inner
// RoundTripper to read with AttemptFromContext. With an AttemptTimeout,
// an attempt that has no response headers after that long is cancelled
// and counts as a timeout; the response it returns has a body read under
// the request's context alone, so a long download is not cut at
// AttemptTimeout (give the request a deadline for that). The attempt's
// context therefore has no deadline of its own for the inner RoundTripper
// to see.
//
// A Transport is safe for concurrent use. The zero Transport is ready to use
// and behaves as NewTransport(TransportConfig{}) would; it must not be
// copied after first use.
type Transport struct {
	once     sync.Once
	r        *Retrier // its breaker and budget are the ones all hosts share, if any
	base     http.RoundTripper
	classify func(*http.Response, error) Verdict
	prepareF func(*http.Request, int) error
	hosts    *table // per host, when the Transport makes breakers or budgets
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
	t.r = &Retrier{settings: newSettings(cfg.Config), breaker: cfg.Breaker, budget: cfg.Budget}
	t.r.once.Do(func() {})
	t.base, t.classify, t.prepareF = cfg.Base, cfg.Classify, cfg.PrepareAttempt
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	if t.classify == nil {
		codes := cfg.RetryStatus
		if codes == nil {
			codes = DefaultRetryStatus // deprecated, but still honoured: see there
		}
		t.classify = statusClassifier(codes)
	}
	if t.r.ownBreaker || t.r.ownBudget {
		max := cfg.MaxHosts
		if max == 0 {
			max = DefaultMaxHosts
		}
		t.hosts = newTable(max, t.r.ownBreaker, t.r.ownBudget, &t.r.settings)
	}
}

// statusClassifier returns DefaultClassify's rule with codes for the
// retryable statuses.
func statusClassifier(codes []int) func(*http.Response, error) Verdict {
	if slices.Equal(codes, defaultRetryStatus[:]) {
		return DefaultClassify
	}
	retry := map[int]bool{}
	for _, c := range codes {
		retry[c] = true
	}
	return func(resp *http.Response, err error) Verdict {
		if err != nil {
			return classifyError(err)
		}
		if retry[resp.StatusCode] {
			return Retry
		}
		return Stop
	}
}

// host returns the breaker and the budget for requests to key.
func (t *Transport) host(key string) (*breaker.Breaker, *budget.Budget) {
	br, bu := t.r.breaker, t.r.budget
	if t.hosts != nil {
		e := t.hosts.get(key, nil)
		if e.breaker != nil {
			br = e.breaker
		}
		if e.budget != nil {
			bu = e.budget
		}
	}
	return br, bu
}

// Breaker returns the breaker for requests to host (as in URL.Host) over
// scheme, nil if the breaker is disabled. With per-host breakers it makes
// the host's breaker if there is none yet. Hosts are compared as a client
// connects to them: case-insensitively, without a trailing dot, with the
// scheme's default port, a port's leading zeros and internationalised
// names in their ASCII (Punycode) form, so EXAMPLE.com, example.com:80,
// example.com:080 and example.com. share a breaker over http, and so do
// bücher.example and xn--bcher-kva.example.
func (t *Transport) Breaker(scheme, host string) *breaker.Breaker {
	t.init()
	br, _ := t.host(hostKey(scheme, host))
	return br
}

// BudgetFor returns the retry budget for requests to host over scheme,
// compared as Breaker compares them, nil if the budget is disabled. With
// per-host budgets it makes the host's budget if there is none yet.
func (t *Transport) BudgetFor(scheme, host string) *budget.Budget {
	t.init()
	_, bu := t.host(hostKey(scheme, host))
	return bu
}

// Budget returns the retry budget every host shares: the Config's Budget.
// It is nil when the budget is disabled and, since budgets became per host,
// when the Transport keeps one per host.
//
// Deprecated: use BudgetFor, which answers for a host in every case.
// Budget will be removed in the next release.
func (t *Transport) Budget() *budget.Budget {
	t.init()
	return t.r.budget
}

// attemptKey is the context key of the attempt number.
type attemptKey struct{}

// AttemptFromContext returns the number of the Transport's attempt whose
// request carries ctx, from 1, or 0 if ctx is not an attempt's. An inner
// RoundTripper (an instrumented one, say) reads it to tell the attempts of
// one call apart: OpenTelemetry's HTTP conventions record
// http.request.resend_count, which is the attempt number less one.
func AttemptFromContext(ctx context.Context) int {
	n, _ := ctx.Value(attemptKey{}).(int)
	return n
}

// RoundTrip sends req, retrying as the Transport's configuration allows.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.init()
	key := hostKey(req.URL.Scheme, req.URL.Host)
	c := call{host: key, limit: t.r.maxAttempts}
	c.breaker, c.budget = t.host(key)
	if !Repeatable(req) {
		c.limit, c.limitReason = 1, ErrNotRetryable
	}
	var st roundTrip
	c.discard = func() {
		if st.last != nil {
			drain(st.last)
			st.last = nil
		}
	}
	err := t.r.run(req.Context(), c, func(ctx context.Context) error {
		st.attempts++
		return t.attempt(ctx, req, st.attempts, &st)
	})
	if st.last != nil {
		return st.last, nil // success, or a response we stopped on
	}
	if req.Body != nil && !st.sent {
		req.Body.Close() // a RoundTripper closes the body, even when it sends nothing
	}
	return nil, err
}

// roundTrip is the state of one RoundTrip call.
type roundTrip struct {
	attempts int            // attempts begun
	sent     bool           // the base RoundTripper has had a request
	last     *http.Response // the last response kept, until discarded
}

// attempt sends attempt number n of req under ctx, keeping a response it
// may return in st.last, and returns what the retry loop makes of it.
func (t *Transport) attempt(ctx context.Context, req *http.Request, n int, st *roundTrip) error {
	// Each attempt has a context of its own, which lives until its
	// response body is closed (the body is part of the attempt), and which
	// drain cancels to drop a connection whose body stalls. The attempt
	// timeout cancels it too, until the response headers arrive.
	ctx, cancel := context.WithCancelCause(ctx)
	ctx = context.WithValue(ctx, attemptKey{}, n)
	var timer *time.Timer
	if t.r.attemptTO > 0 {
		timer = time.AfterFunc(t.r.attemptTO, func() { cancel(errAttemptTimeout) })
	}
	out, body, err := t.prepare(req, ctx, n)
	if err != nil {
		stopTimer(timer)
		cancel(nil)
		return &abandonedError{err} // the request never left
	}
	st.sent = true
	resp, err := t.base.RoundTrip(out)
	timedOut := stopTimer(timer)
	if err == nil && timedOut { // the timeout fired as the headers arrived
		closeBody(resp)
		resp, err = nil, errAttemptTimeout
	}
	if err != nil {
		cancel(nil)
		if timedOut {
			err = &attemptTimeoutError{t.r.attemptTO}
		}
		if body != nil && body.failed() != nil {
			// The caller's own body failed to read: the dependency did
			// nothing wrong, and another attempt would read it again.
			return &abandonedError{err}
		}
		return t.judgeError(err)
	}
	if resp.Body == nil { // some RoundTrippers leave it nil; http.Client accepts that
		resp.Body = http.NoBody
	}
	resp.Body = cancelOnClose(resp.Body, cancel)
	st.last = resp
	v := t.classify(resp, nil)
	switch v {
	case Stop:
		return nil
	case Retry:
		serr := &StatusError{Code: resp.StatusCode}
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			if d, err := ParseRetryAfter(ra, t.r.now()); err == nil {
				serr.RetryAfter = d
				return RetryAfter(serr, d)
			}
		}
		return serr
	case Fail:
		return &failedError{&StatusError{Code: resp.StatusCode}}
	case Ignore:
		return &abandonedError{&StatusError{Code: resp.StatusCode}}
	}
	st.last = nil
	drain(resp)
	return &abandonedError{fmt.Errorf("retry: Classify returned %v for a response with status %d: want Stop, Retry, Fail or Ignore", v, resp.StatusCode)}
}

// judgeError returns what the retry loop makes of an attempt's error,
// as Classify says.
func (t *Transport) judgeError(err error) error {
	switch v := t.classify(nil, err); v {
	case Stop:
		return &permanentError{err}
	case Retry:
		return err
	case Fail:
		return &failedError{err}
	case Ignore:
		return &abandonedError{err}
	default:
		return &abandonedError{fmt.Errorf("retry: Classify returned %v for the error %w: want Stop, Retry, Fail or Ignore", v, err)}
	}
}

// stopTimer stops t, if not nil, and reports whether it had fired.
func stopTimer(t *time.Timer) bool { return t != nil && !t.Stop() }

// closeBody closes resp's body, if any.
func closeBody(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
}

// errAttemptTimeout is the cause an attempt's context is cancelled with
// when its AttemptTimeout passes.
var errAttemptTimeout = errors.New("retry: attempt timeout")

// attemptTimeoutError is the error of an attempt that had no response
// headers within AttemptTimeout. It is a context.DeadlineExceeded and a
// net.Error whose Timeout is true, so Classify rules for timeouts apply.
type attemptTimeoutError struct{ d time.Duration }

func (e *attemptTimeoutError) Error() string {
	return fmt.Sprintf("retry: no response headers within the attempt timeout of %v", e.d)
}
func (e *attemptTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
func (e *attemptTimeoutError) Timeout() bool        { return true }
func (e *attemptTimeoutError) Temporary() bool      { return true }

// prepare returns the request for attempt n: a shallow copy of req with
// ctx for the first (a deep one, when PrepareAttempt may change it), a
// copy with a fresh body from GetBody after that, prepared by
// PrepareAttempt if set. Its body, if any, is watched for read errors.
func (t *Transport) prepare(req *http.Request, ctx context.Context, n int) (*http.Request, *bodyWatch, error) {
	var out *http.Request
	if n == 1 && t.prepareF == nil {
		out = req.WithContext(ctx)
	} else {
		out = req.Clone(ctx)
	}
	if n > 1 && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, nil, fmt.Errorf("retry: rewinding the request body for attempt %d: %w", n, err)
		}
		out.Body = body
	}
	if t.prepareF != nil {
		body := out.Body
		err := t.prepareF(out, n)
		if out.Body != body {
			if out.Body != nil {
				out.Body.Close()
			}
			if err == nil {
				err = errors.New("it replaced the body: the Transport replays the body itself, from GetBody")
			}
		}
		if err != nil {
			if n > 1 && body != nil {
				body.Close() // the copy from GetBody; the caller's own, RoundTrip closes
			}
			return nil, nil, fmt.Errorf("retry: preparing attempt %d: %w", n, err)
		}
	}
	if out.Body == nil || out.Body == http.NoBody {
		return out, nil, nil
	}
	w := &bodyWatch{ReadCloser: out.Body, failure: &atomic.Pointer[error]{}}
	out.Body = w
	if getBody := out.GetBody; getBody != nil {
		// net/http itself may rewind the body through GetBody, to resend
		// on a dead keep-alive connection: watch that copy too.
		out.GetBody = func() (io.ReadCloser, error) {
			b, err := getBody()
			if err != nil {
				return nil, err
			}
			return &bodyWatch{ReadCloser: b, failure: w.failure}, nil
		}
	}
	return out, w, nil
}

// bodyWatch passes a request body through and remembers the first error,
// other than io.EOF, that a read from it returned.
type bodyWatch struct {
	io.ReadCloser
	failure *atomic.Pointer[error]
}

func (b *bodyWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.failure.CompareAndSwap(nil, &err)
	}
	return n, err
}

// failed returns the first read error, nil if none.
func (b *bodyWatch) failed() error {
	if e := b.failure.Load(); e != nil {
		return *e
	}
	return nil
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

// goAway reports whether err is, or wraps, HTTP/2's GoAwayError: the
// server sent GOAWAY and closed the connection with the request on it.
// net/http's bundled HTTP/2 (http.http2GoAwayError) and
// golang.org/x/net/http2 (http2.GoAwayError) each have their own type,
// neither with an As method, so it is known by its name and its
// LastStreamID field.
func goAway(err error) bool {
	for err != nil {
		t := reflect.TypeOf(err)
		if t.Kind() == reflect.Struct && strings.HasSuffix(t.Name(), "GoAwayError") {
			if f, ok := t.FieldByName("LastStreamID"); ok && f.Type.Kind() == reflect.Uint32 {
				return true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if goAway(e) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

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
	var timeout *attemptTimeoutError
	switch {
	case errors.As(err, &timeout):
		return true
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
	case errors.As(err, &stream), goAway(err):
		// An HTTP/2 stream reset is the HTTP/2 form of a dropped
		// connection, and a GOAWAY followed by a closed connection the
		// form of a server going away; the Transport only retries requests
		// safe to repeat.
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
			stop := time.AfterFunc(drainTime, func() { b.cancel(errDrainTimeout) })
			io.CopyN(io.Discard, body, drainBytes)
			stop.Stop()
		}
	}
	body.Close()
}

// errDrainTimeout is the cause a discarded body's context is cancelled
// with when it does not drain in time.
var errDrainTimeout = errors.New("retry: draining a discarded response body took too long")

// cancelOnClose returns body wrapped so that closing it releases the
// attempt's context. A 101 Switching Protocols body stays writable, as
// net/http promises.
func cancelOnClose(body io.ReadCloser, cancel context.CancelCauseFunc) io.ReadCloser {
	if rw, ok := body.(io.ReadWriteCloser); ok {
		return &cancelRWBody{cancelBody{body, cancel}, rw}
	}
	return &cancelBody{body, cancel}
}

// cancelBody releases an attempt's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// cancelRWBody is a cancelBody that can also be written, for protocol
// upgrades.
type cancelRWBody struct {
	cancelBody
	rw io.ReadWriteCloser
}

func (b *cancelRWBody) Write(p []byte) (int, error) { return b.rw.Write(p) }
