package retry_test

// Tests of the hooks a service team reaches for: Retryable, Classify,
// PrepareAttempt, DoValue, the attempt number in the context, logging,
// Retrier.For and per-host budgets.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

var errNotFound = errors.New("not found")

// Retryable stops the call on the errors it refuses, returns them as they
// are, and the breaker counts them as answers; the others are retried.
func TestConfigRetryable(t *testing.T) {
	var seen []error
	cfg := fast()
	cfg.DisableBreaker = false
	cfg.Retryable = func(err error) bool {
		seen = append(seen, err)
		return !errors.Is(err, errNotFound)
	}
	r := mustNew(t, cfg)
	calls := 0
	err := r.Do(context.Background(), func(context.Context) error {
		if calls++; calls == 1 {
			return errFlaky
		}
		return fmt.Errorf("user 7: %w", errNotFound)
	})
	if !errors.Is(err, errNotFound) || calls != 2 {
		t.Fatalf("Do = %v after %d attempts, want the not-found error, as it is, after 2", err, calls)
	}
	var re *retry.Error
	if errors.As(err, &re) {
		t.Fatalf("Do = %v: a refused error is returned as it is, not in an *Error", err)
	}
	if len(seen) != 2 || seen[0] != errFlaky {
		t.Fatalf("Retryable saw %v, want the two failures", seen)
	}
	// The breaker heard a failure, then an answer: its failure count is
	// back to 0, so four more failures leave it closed.
	br := r.Breaker()
	for range breaker.DefaultFailures - 1 {
		p, _ := br.Allow(time.Now())
		p.Failed(time.Now())
	}
	if st := br.State(time.Now()); st != breaker.Closed {
		t.Fatalf("breaker %v: the refused error did not count as an answer", st)
	}
	// Permanent errors never reach Retryable.
	seen = nil
	r.Do(context.Background(), func(context.Context) error { return retry.Permanent(errFlaky) })
	if len(seen) != 0 {
		t.Fatalf("Retryable saw the Permanent error %v", seen)
	}
}

func TestTransportConfigRefusesRetryableAndBothClassifiers(t *testing.T) {
	for _, tc := range []struct {
		cfg  retry.TransportConfig
		want string
	}{
		{retry.TransportConfig{Config: retry.Config{Retryable: func(error) bool { return true }}}, "retry: Retryable is set on a TransportConfig: a Transport classifies its attempts with Classify"},
		{retry.TransportConfig{RetryStatus: []int{503}, Classify: retry.DefaultClassify}, "retry: both RetryStatus and Classify set"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if _, err := retry.NewTransport(tc.cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("NewTransport = %v, want an error starting %q", err, tc.want)
			}
		})
	}
}

// statuses is a base RoundTripper that answers the attempts with the given
// statuses in turn (the last one from then on), counting them.
type statuses struct {
	codes []int
	n     atomic.Int64
}

func (s *statuses) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close() // as a RoundTripper must
	}
	i := int(s.n.Add(1)) - 1
	code := s.codes[min(i, len(s.codes)-1)]
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(http.StatusText(code))), Request: req}, nil
}

// Classify decides each verdict: Retry retries (and counts a failure),
// Fail counts a failure without retrying, Stop is an answer, Ignore counts
// nothing.
func TestTransportClassify(t *testing.T) {
	classify := func(resp *http.Response, err error) retry.Verdict {
		if err != nil {
			return retry.DefaultClassify(resp, err)
		}
		switch resp.StatusCode {
		case http.StatusConflict:
			return retry.Retry
		case http.StatusInternalServerError:
			return retry.Fail
		case http.StatusTeapot:
			return retry.Ignore
		case http.StatusServiceUnavailable:
			return retry.Stop
		}
		return retry.DefaultClassify(resp, err)
	}
	// The breaker opens on 3 failures in a row, and one is recorded before
	// each call: a call that counts a failure and no success leaves it one
	// failure from opening, one that counts a success three.
	for _, tc := range []struct {
		name     string
		codes    []int
		want     int   // the status returned
		attempts int64 // attempts made
		failures int   // consecutive failures after the call
	}{
		{"409 retried", []int{409, 200}, 200, 2, 0},
		{"500 fails without a retry", []int{500, 200}, 500, 1, 2},
		{"418 ignored", []int{418, 200}, 418, 1, 1},
		{"503 stops", []int{503, 200}, 503, 1, 0},
		{"429 by the default rule", []int{429, 200}, 200, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := mustBreaker(t, breaker.Config{Failures: 3, OpenTimeout: time.Hour})
			fail := func() {
				p, _ := br.Allow(time.Now())
				p.Failed(time.Now())
			}
			fail()
			base := &statuses{codes: tc.codes}
			cfg := quick()
			cfg.Base, cfg.Classify, cfg.DisableBreaker, cfg.Breaker = base, classify, false, br
			rt, err := retry.NewTransport(cfg)
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodGet, "http://example.com/", nil)
			resp, err := rt.RoundTrip(req)
			if err != nil || resp.StatusCode != tc.want || base.n.Load() != tc.attempts {
				t.Fatalf("GET = %v, %v after %d attempts, want %d after %d", resp, err, base.n.Load(), tc.want, tc.attempts)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != http.StatusText(tc.want) {
				t.Fatalf("body %q, want the returned response's own", body)
			}
			for i := tc.failures; i < 2; i++ {
				if st := br.State(time.Now()); st != breaker.Closed {
					t.Fatalf("breaker %v after %d more failures: want %d consecutive failures after the call", st, i-tc.failures, tc.failures)
				}
				fail()
			}
			if st := br.State(time.Now()); st != breaker.Closed {
				t.Fatalf("breaker %v: want %d consecutive failures after the call, not more", st, tc.failures)
			}
			fail()
			if st := br.State(time.Now()); st != breaker.Open {
				t.Fatalf("breaker %v: want %d consecutive failures after the call, not fewer", st, tc.failures)
			}
		})
	}
}

// Classify sees errors too: one it says to Stop is returned as it is.
func TestTransportClassifyErrors(t *testing.T) {
	var n int
	cfg := quick()
	cfg.Base = roundTripFunc(func(*http.Request) (*http.Response, error) { n++; return nil, io.ErrUnexpectedEOF })
	cfg.Classify = func(resp *http.Response, err error) retry.Verdict {
		if resp != nil || err == nil {
			t.Errorf("Classify(%v, %v): want exactly one of them", resp, err)
		}
		return retry.Stop
	}
	rt, _ := retry.NewTransport(cfg)
	req, _ := http.NewRequest(http.MethodGet, "http://example.com/", nil)
	if _, err := rt.RoundTrip(req); err != io.ErrUnexpectedEOF || n != 1 {
		t.Fatalf("RoundTrip = %v after %d attempts, want io.ErrUnexpectedEOF itself after 1", err, n)
	}
	// A verdict that is none of the four is an error, not a silent default.
	cfg.Classify = func(*http.Response, error) retry.Verdict { return retry.Verdict(9) }
	cfg.Base = &statuses{codes: []int{200}}
	rt, _ = retry.NewTransport(cfg)
	if resp, err := rt.RoundTrip(req); resp != nil || err == nil || !strings.Contains(err.Error(), "Classify returned Verdict(9) for a response with status 200") {
		t.Fatalf("RoundTrip = %v, %v: want an error naming the bad verdict", resp, err)
	}
}

// PrepareAttempt re-signs every attempt: each carries its own signature,
// the body is replayed, and the caller's request is left as it was.
func TestTransportPrepareAttempt(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
		w.Header().Set("X-Got", r.Header.Get("X-Signature"))
		if n < 3 {
			unavailable(w, "0")
			return
		}
		io.WriteString(w, "ok")
	})
	var signed []string
	var mu sync.Mutex
	cfg := quick()
	cfg.PrepareAttempt = func(req *http.Request, attempt int) error {
		body, err := req.GetBody() // hash a copy, never req.Body
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(body)
		sig := fmt.Sprintf("attempt=%d body=%s ctx=%d", attempt, b, retry.AttemptFromContext(req.Context()))
		req.Header.Set("X-Signature", sig)
		mu.Lock()
		signed = append(signed, sig)
		mu.Unlock()
		return nil
	}
	c, _, _ := newClient(t, cfg)
	req, _ := http.NewRequest(http.MethodPut, s.URL, strings.NewReader("payload"))
	req.Header.Set("X-Signature", "caller's")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := []string{"attempt=1 body=payload ctx=1", "attempt=2 body=payload ctx=2", "attempt=3 body=payload ctx=3"}
	if !slices.Equal(signed, want) || resp.Header.Get("X-Got") != want[2] {
		t.Fatalf("signed %q, the server saw %q last: want %q", signed, resp.Header.Get("X-Got"), want)
	}
	if !slices.Equal(s.bodies, []string{"payload", "payload", "payload"}) {
		t.Fatalf("bodies %q, want the payload three times", s.bodies)
	}
	if got := req.Header.Get("X-Signature"); got != "caller's" {
		t.Fatalf("the caller's request now has X-Signature %q: the hook changed it", got)
	}
}

// An error from PrepareAttempt ends the call with it, before anything is
// sent, and the breaker counts nothing; so does a hook that replaces the
// body, which the Transport replays itself.
func TestTransportPrepareAttemptErrors(t *testing.T) {
	expired := errors.New("token source: refresh failed")
	for _, tc := range []struct {
		name    string
		hook    func(*http.Request, int) error
		want    string
		reached int
	}{
		{"error on the retry", func(req *http.Request, n int) error {
			if n == 2 {
				return expired
			}
			return nil
		}, "retry: preparing attempt 2: token source: refresh failed", 1},
		{"error on the first attempt", func(*http.Request, int) error { return expired }, "retry: preparing attempt 1: token source: refresh failed", 0},
		{"body replaced", func(req *http.Request, n int) error {
			req.Body = io.NopCloser(strings.NewReader("other"))
			return nil
		}, "retry: preparing attempt 1: it replaced the body", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := &statuses{codes: []int{503}}
			br := mustBreaker(t, breaker.Config{Failures: 2, OpenTimeout: time.Hour})
			cfg := quick()
			cfg.Base, cfg.PrepareAttempt, cfg.DisableBreaker, cfg.Breaker = base, tc.hook, false, br
			rt, _ := retry.NewTransport(cfg)
			var closed atomic.Int64
			req, _ := http.NewRequest(http.MethodPut, "http://example.com/", nil)
			req.Body = requestBody{Reader: strings.NewReader("x"), closed: &closed}
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
			resp, err := rt.RoundTrip(req)
			if resp != nil || err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.Is(err, expired) && tc.name != "body replaced" {
				t.Fatalf("RoundTrip = %v, %v: want the error %q", resp, err, tc.want)
			}
			if base.n.Load() != int64(tc.reached) {
				t.Fatalf("%d attempts sent, want %d", base.n.Load(), tc.reached)
			}
			if closed.Load() != 1 {
				t.Fatalf("the caller's body was closed %d times, want once", closed.Load())
			}
			if tc.reached == 1 {
				// one 503, counted; the hook's error is not: one more
				// failure opens the breaker (Failures 2)
				p, _ := br.Allow(time.Now())
				p.Failed(time.Now())
				if br.State(time.Now()) != breaker.Open {
					t.Fatal("the breaker did not count the 503 alone")
				}
			}
		})
	}
}

// DoValue returns the value of the attempt that succeeded, and the zero
// value with any error.
func TestDoValue(t *testing.T) {
	r := mustNew(t, fast())
	calls := 0
	v, err := retry.DoValue(context.Background(), r, func(context.Context) (string, error) {
		if calls++; calls < 3 {
			return fmt.Sprintf("partial %d", calls), errFlaky
		}
		return "user 7", nil
	})
	if v != "user 7" || err != nil {
		t.Fatalf("DoValue = %q, %v, want the third attempt's value", v, err)
	}
	v, err = retry.DoValue(context.Background(), r, func(context.Context) (string, error) { return "partial", errFlaky })
	if v != "" || !errors.Is(err, retry.ErrAttemptsExhausted) {
		t.Fatalf("DoValue = %q, %v, want the zero value and the give-up", v, err)
	}
	n, err := retry.DoValue(context.Background(), nil, func(context.Context) (int, error) { return 42, nil })
	if n != 42 || err != nil {
		t.Fatalf("DoValue with a nil Retrier = %d, %v, want 42", n, err)
	}
}

// DoValue costs nothing more than Do when the first attempt succeeds.
func BenchmarkDoValueFirstAttemptSucceeds(b *testing.B) {
	ctx := context.Background()
	op := func(context.Context) (int, error) { return 1, nil }
	b.ReportAllocs()
	for b.Loop() {
		retry.DoValue(ctx, nil, op)
	}
}

// An inner RoundTripper reads each attempt's number from its request's
// context.
func TestAttemptFromContext(t *testing.T) {
	var seen []int
	var n int
	cfg := quick()
	cfg.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		seen = append(seen, retry.AttemptFromContext(req.Context()))
		if n++; n < 3 {
			return nil, io.ErrUnexpectedEOF
		}
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	})
	rt, _ := retry.NewTransport(cfg)
	req, _ := http.NewRequest(http.MethodGet, "http://example.com/", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !slices.Equal(seen, []int{1, 2, 3}) {
		t.Fatalf("attempt numbers seen %v, want [1 2 3]", seen)
	}
	if n := retry.AttemptFromContext(context.Background()); n != 0 {
		t.Fatalf("AttemptFromContext(Background) = %d, want 0", n)
	}
}

// logLines runs the events through LogEvents into a text handler at level
// and returns its lines, without their times.
func logLines(level slog.Level, events ...retry.Event) []string {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}}))
	log := retry.LogEvents(l)
	for _, e := range events {
		log(e)
	}
	return strings.Split(strings.TrimSpace(buf.String()), "\n")
}

func TestLogEvents(t *testing.T) {
	gaveUp := &retry.Error{Attempts: 3, Reason: retry.ErrAttemptsExhausted, Last: errFlaky}
	events := []retry.Event{
		{Kind: retry.EventAttempt, Host: "https://api.example", Attempt: 1},
		{Kind: retry.EventRetry, Host: "https://api.example", Attempt: 1, Wait: 72 * time.Millisecond, Err: errFlaky},
		{Kind: retry.EventBreakerChange, Host: "https://api.example", From: breaker.Closed, To: breaker.Open},
		{Kind: retry.EventGiveUp, Attempt: 3, Err: gaveUp, Reason: gaveUp.Reason},
		{Kind: retry.EventBudgetRefused, Attempt: 2, Err: errFlaky},
		{Kind: retry.EventBreakerChange, From: breaker.Open, To: breaker.HalfOpen},
	}
	got := logLines(slog.LevelDebug, events...)
	want := []string{
		`level=DEBUG msg="retry attempt" kind=attempt host=https://api.example attempt=1`,
		`level=INFO msg="retry retry" kind=retry host=https://api.example attempt=1 wait=72ms err=flaky`,
		`level=WARN msg="retry breaker-change" kind=breaker-change host=https://api.example from=closed to=open`,
		`level=WARN msg="retry give-up" kind=give-up attempts=3 reason="attempt limit reached" err="retry: gave up after 3 attempts: attempt limit reached: last error: flaky"`,
		`level=WARN msg="retry budget-refused" kind=budget-refused attempt=2 err=flaky`,
		`level=INFO msg="retry breaker-change" kind=breaker-change from=open to=half-open`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A nil logger is slog.Default().
	var buf bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	retry.LogEvents(nil)(events[1])
	if !strings.Contains(buf.String(), `msg="retry retry"`) {
		t.Fatalf("LogEvents(nil) logged %q to the default logger, want the retry", buf.String())
	}
	// At the default Info level, attempts are not logged.
	if got := logLines(slog.LevelInfo, events[:2]...); len(got) != 1 || !strings.Contains(got[0], "retry retry") {
		t.Fatalf("at Info: %q, want only the retry", got)
	}
}

// An Event logged as an attribute is a group.
func TestEventLogValue(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}}))
	l.Info("retrying", "event", retry.Event{Kind: retry.EventRetry, Attempt: 2, Wait: time.Second, Err: errFlaky})
	if want := "level=INFO msg=retrying event.kind=retry event.attempt=2 event.wait=1s event.err=flaky\n"; buf.String() != want {
		t.Fatalf("logged %q, want %q", buf.String(), want)
	}
}

// For keeps a breaker and a budget per name: a failing dependency opens
// its own breaker and leaves the others' alone.
func TestRetrierFor(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	cfg := fast()
	cfg.DisableBreaker, cfg.DisableBudget, cfg.MaxAttempts = false, false, 5
	cfg.Observer = func(e retry.Event) {
		if e.Kind == retry.EventBreakerChange {
			mu.Lock()
			hosts = append(hosts, e.Host+" "+e.To.String())
			mu.Unlock()
		}
	}
	r := mustNew(t, cfg)
	orders, users := r.For("orders"), r.For("users")
	if r.For("orders") != orders || orders == users || orders.For("users") != users {
		t.Fatal("For with the same name returned different Retriers, or with different names the same")
	}
	if orders.Breaker() == users.Breaker() || orders.Breaker() == r.Breaker() || orders.Budget() == users.Budget() {
		t.Fatal("two names share a breaker or a budget")
	}
	err := orders.Do(context.Background(), func(context.Context) error { return errFlaky })
	if !errors.Is(err, retry.ErrAttemptsExhausted) || orders.Breaker().State(time.Now()) != breaker.Open {
		t.Fatalf("orders: %v, breaker %v: want 5 failures and an open breaker", err, orders.Breaker().State(time.Now()))
	}
	if err := users.Do(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Fatalf("users with orders' breaker open = %v, want success", err)
	}
	if !slices.Equal(hosts, []string{"orders open"}) {
		t.Fatalf("breaker changes %q, want orders' opening, named", hosts)
	}
	// A breaker given in the Config is every name's.
	br := mustBreaker(t, breaker.Config{})
	shared := mustNew(t, retry.Config{Breaker: br, DisableBudget: true})
	if shared.For("a").Breaker() != br || shared.For("b").Breaker() != br || shared.For("a").Budget() != nil {
		t.Fatal("For keyed a breaker given in the Config, or made a disabled budget")
	}
}

// A Transport keeps a budget per host: a host in a long outage spends its
// own retries, not another host's.
func TestTransportBudgetsArePerHost(t *testing.T) {
	cfg := quick()
	cfg.DisableBudget = false
	var n atomic.Int64
	cfg.Base = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		n.Add(1)
		if req.URL.Host == "down.example" || n.Load()%2 == 1 {
			return &http.Response{StatusCode: 503, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
		}
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	})
	rt, _ := retry.NewTransport(cfg)
	for range 100 {
		req, _ := http.NewRequest(http.MethodGet, "http://down.example/", nil)
		resp, _ := rt.RoundTrip(req)
		resp.Body.Close()
	}
	down := rt.BudgetFor("http", "down.example")
	if c := down.Counts(time.Now()); c.Requests != 100 || c.Retries > 20 {
		t.Fatalf("down's budget %+v: want 100 requests and at most 10 %% + 10 retries", c)
	}
	// The other host's first failure is retried: its budget is untouched.
	n.Store(0)
	req, _ := http.NewRequest(http.MethodGet, "http://up.example/", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("up: %v, %v: want its 503 retried into a 200 (its own budget)", resp, err)
	}
	if rt.BudgetFor("http", "up.example") == down {
		t.Fatal("two hosts share a budget")
	}
}
