package retry_test

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

var errFlaky = errors.New("flaky")

// failing returns an op that fails n times, then succeeds, and counts calls.
func failing(n int64, calls *atomic.Int64) func(context.Context) error {
	return func(context.Context) error {
		if calls.Add(1) <= n {
			return errFlaky
		}
		return nil
	}
}

// mustNew builds a Retrier or stops the test.
func mustNew(t testing.TB, cfg retry.Config) *retry.Retrier {
	t.Helper()
	r, err := retry.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fast is a Config that retries after 1 ms and has no shared state.
func fast() retry.Config {
	return retry.Config{Policy: retry.Constant{Base: time.Millisecond}, DisableBudget: true, DisableBreaker: true}
}

func TestDoRetriesUntilSuccess(t *testing.T) {
	var calls atomic.Int64
	if err := mustNew(t, fast()).Do(context.Background(), failing(2, &calls)); err != nil {
		t.Fatalf("Do = %v, want nil after two failures and a success", err)
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("op called %d times, want 3", got)
	}
}

func TestDoStopsAtTheAttemptLimit(t *testing.T) {
	var calls atomic.Int64
	err := mustNew(t, fast()).Do(context.Background(), failing(100, &calls))
	var e *retry.Error
	if !errors.As(err, &e) || e.Attempts != 3 || !errors.Is(err, retry.ErrAttemptsExhausted) || !errors.Is(err, errFlaky) {
		t.Fatalf("Do = %v, want *Error after 3 attempts wrapping ErrAttemptsExhausted and the last error", err)
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("op called %d times, want the default 3", got)
	}
	if want := "retry: gave up after 3 attempts: attempt limit reached: last error: flaky"; err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}

func TestDoReturnsPermanentErrorsAtOnce(t *testing.T) {
	var calls atomic.Int64
	denied := errors.New("denied")
	err := mustNew(t, fast()).Do(context.Background(), func(context.Context) error {
		calls.Add(1)
		return retry.Permanent(denied)
	})
	if err != denied || calls.Load() != 1 {
		t.Fatalf("Do = %v after %d calls, want the unwrapped permanent error after 1", err, calls.Load())
	}
	if retry.Permanent(nil) != nil || retry.RetryAfter(nil, time.Second) != nil {
		t.Fatal("Permanent(nil) or RetryAfter(nil, d) is not nil")
	}
}

// The first retry is jittered too: with a seeded generator the waits are
// exactly full jitter's draws, u·min(cap, base·2ⁿ), starting at n = 0.
func TestWaitsAreFullJitterFromTheFirstRetry(t *testing.T) {
	var waits []time.Duration
	r := mustNew(t, retry.Config{
		MaxAttempts: 6, DisableBudget: true, DisableBreaker: true,
		Policy: retry.FullJitter{Base: time.Millisecond, Cap: 4 * time.Millisecond},
		Rand:   seeded(42),
		Observer: func(e retry.Event) {
			if e.Kind == retry.EventRetry {
				waits = append(waits, e.Wait)
			}
		},
	})
	var calls atomic.Int64
	r.Do(context.Background(), failing(100, &calls))
	g := seeded(42)
	var want []time.Duration
	for n, c := range []time.Duration{1, 2, 4, 4, 4} { // the window, capped at 4 ms
		want = append(want, retry.FullJitter{Base: time.Millisecond, Cap: 4 * time.Millisecond}.Delay(n, 0, g))
		if w := want[n]; w < 0 || w >= c*time.Millisecond {
			t.Fatalf("reference wait %v outside [0, %v)", w, c*time.Millisecond)
		}
	}
	if len(waits) != 5 {
		t.Fatalf("%d retries, want 5", len(waits))
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want the seeded full-jitter draws %v", waits, want)
		}
	}
}

func TestDefaultPolicyIsFullJitter(t *testing.T) {
	p, ok := retry.DefaultPolicy.(retry.FullJitter)
	if !ok || p.Base != 100*time.Millisecond || p.Cap != 10*time.Second {
		t.Fatalf("DefaultPolicy = %#v, want full jitter, base 100ms, cap 10s", retry.DefaultPolicy)
	}
}

// The deadline check gives up before sleeping when the wait alone would
// pass the deadline, and says so. In a synctest bubble the clock moves only
// when the call sleeps, so "at once" is exactly zero time.
func TestDeadlineCheckGivesUpInsteadOfSleeping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		cfg := fast()
		cfg.Policy = retry.Constant{Base: time.Second}
		var calls atomic.Int64
		start := time.Now()
		err := mustNew(t, cfg).Do(ctx, failing(100, &calls))
		if took := time.Since(start); took != 0 {
			t.Fatalf("Do took %v: it slept instead of giving up", took)
		}
		var e *retry.Error
		if !errors.As(err, &e) || !errors.Is(err, retry.ErrDeadline) || e.Attempts != 1 || e.Wait != time.Second {
			t.Fatalf("Do = %#v, want ErrDeadline after 1 attempt with Wait 1s", err)
		}
		if want := "no time left before the deadline for another attempt (wait 1s + worst-case attempt 0s > 300ms left)"; !strings.Contains(err.Error(), want) {
			t.Fatalf("message %q does not say why: want it to contain %q", err, want)
		}
	})
}

// The worst-case attempt counts too: with an attempt timeout of 200 ms, a
// retry after 1 ms does not fit in a 150 ms deadline.
func TestDeadlineCheckCountsTheWorstCaseAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		cfg := fast()
		cfg.AttemptTimeout = 200 * time.Millisecond
		var calls atomic.Int64
		err := mustNew(t, cfg).Do(ctx, failing(100, &calls))
		if !errors.Is(err, retry.ErrDeadline) || calls.Load() != 1 {
			t.Fatalf("Do = %v after %d calls, want ErrDeadline after 1", err, calls.Load())
		}
		if !strings.Contains(err.Error(), "worst-case attempt 200ms") {
			t.Fatalf("message %q does not name the worst case", err)
		}
	})
}

// Without an attempt timeout, the worst case is the longest attempt seen.
// Attempts of 40 ms with 10 ms waits against a 200 ms deadline: attempts
// start at 0, 50, 100 and 150 ms; after the fourth, at 190 ms, a 10 ms wait
// and a 40 ms attempt do not fit in the 10 ms left, so the call stops there
// with ErrDeadline, never running into the deadline.
func TestDeadlineCheckLearnsTheAttemptDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		cfg := fast()
		cfg.MaxAttempts = 100
		cfg.Policy = retry.Constant{Base: 10 * time.Millisecond}
		var calls atomic.Int64
		start := time.Now()
		err := mustNew(t, cfg).Do(ctx, func(ctx context.Context) error {
			calls.Add(1)
			select {
			case <-time.After(40 * time.Millisecond):
				return errFlaky
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if !errors.Is(err, retry.ErrDeadline) {
			t.Fatalf("Do = %v, want ErrDeadline (not the context's deadline)", err)
		}
		if took := time.Since(start); took != 190*time.Millisecond || ctx.Err() != nil {
			t.Fatalf("Do returned after %v (context error %v), want at 190ms, before the deadline", took, ctx.Err())
		}
		if n := calls.Load(); n != 4 {
			t.Fatalf("%d attempts of 40 ms + 10 ms waits in 200 ms, want 4", n)
		}
	})
}

func TestCancelStopsTheWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := fast()
	cfg.Policy = retry.Constant{Base: time.Hour}
	cfg.Observer = func(e retry.Event) {
		if e.Kind == retry.EventRetry {
			cancel()
		}
	}
	var calls atomic.Int64
	err := mustNew(t, cfg).Do(ctx, failing(100, &calls))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errFlaky) {
		t.Fatalf("Do = %v, want context.Canceled with the last error", err)
	}
}

func TestRetryAfterFloorTooLongGivesUp(t *testing.T) {
	var calls atomic.Int64
	err := mustNew(t, fast()).Do(context.Background(), func(context.Context) error {
		calls.Add(1)
		return retry.RetryAfter(errFlaky, time.Hour)
	})
	if !errors.Is(err, retry.ErrRetryAfterTooLong) || calls.Load() != 1 {
		t.Fatalf("Do = %v after %d calls, want ErrRetryAfterTooLong after 1", err, calls.Load())
	}
	if !strings.Contains(err.Error(), "asked for 1h0m0s, max 30s") {
		t.Fatalf("message %q does not give the numbers", err)
	}
}

func TestRetryAfterFloorIsRespectedWithJitterAbove(t *testing.T) {
	var waits []time.Duration
	cfg := fast()
	cfg.Policy = retry.FullJitter{Base: 10 * time.Millisecond}
	cfg.Rand = seeded(7)
	cfg.Observer = func(e retry.Event) {
		if e.Kind == retry.EventRetry {
			waits = append(waits, e.Wait)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int64
		start := time.Now()
		mustNew(t, cfg).Do(context.Background(), func(context.Context) error {
			calls.Add(1)
			return retry.RetryAfter(errFlaky, 30*time.Millisecond)
		})
		took := time.Since(start)
		g := seeded(7)
		var sum time.Duration
		for n, w := range waits {
			want := 30*time.Millisecond + retry.FullJitter{Base: 10 * time.Millisecond}.Delay(n, 0, g)
			if w != want {
				t.Fatalf("wait %d = %v, want floor 30ms + jitter = %v", n, w, want)
			}
			sum += w
		}
		if len(waits) != 2 || took != sum {
			t.Fatalf("%d retries took %v, want 2 taking exactly their waits %v", len(waits), took, waits)
		}
	})
}

// A shared budget under a sustained outage: 1000 calls of up to 3 attempts
// against an op that always fails make at most 10 % extra attempts.
func TestBudgetCapsRetriesUnderSustainedOutage(t *testing.T) {
	b, err := budget.New(budget.Config{Ratio: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	var counters retry.Counters
	r := mustNew(t, retry.Config{Policy: retry.Constant{Base: 0}, Budget: b, DisableBreaker: true, Observer: counters.Observe})
	var calls atomic.Int64
	var refused int
	for range 1000 {
		if errors.Is(r.Do(context.Background(), failing(math.MaxInt64, &calls)), retry.ErrBudgetExhausted) {
			refused++
		}
	}
	s := counters.Snapshot()
	if s.Attempts != calls.Load() || s.Retries != s.Attempts-1000 || s.BudgetRefusals != int64(refused) || s.GiveUps != 1000 {
		t.Fatalf("counters %+v disagree with %d calls and %d refusals", s, calls.Load(), refused)
	}
	if s.Retries > 100 || s.Retries < 90 {
		t.Fatalf("%d retries for 1000 requests, want 90..100 (10 %%)", s.Retries)
	}
}

func TestBreakerRefusesWithoutCallingTheOp(t *testing.T) {
	br, err := breaker.New(breaker.Config{Failures: 3, OpenTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var counters retry.Counters
	cfg := fast()
	cfg.DisableBreaker, cfg.Breaker, cfg.Observer = false, br, counters.Observe
	r := mustNew(t, cfg)
	var calls atomic.Int64
	r.Do(context.Background(), failing(100, &calls)) // 3 failures: opens
	if calls.Load() != 3 || br.State(time.Now()) != breaker.Open {
		t.Fatalf("after %d failures the breaker is %v, want 3 and open", calls.Load(), br.State(time.Now()))
	}
	for range 10 {
		err := r.Do(context.Background(), failing(100, &calls))
		var e *retry.Error
		if !errors.As(err, &e) || !errors.Is(err, retry.ErrBreakerOpen) || e.Attempts != 0 {
			t.Fatalf("Do with an open breaker = %v, want ErrBreakerOpen after 0 attempts", err)
		}
	}
	if calls.Load() != 3 {
		t.Fatalf("op called %d times, want no calls while open", calls.Load())
	}
	if s := counters.Snapshot(); s.BreakerRefusals != 10 {
		t.Fatalf("counted %d breaker refusals, want 10", s.BreakerRefusals)
	}
}

func TestDefaultBreakerReportsChanges(t *testing.T) {
	var counters retry.Counters
	r := mustNew(t, retry.Config{Policy: retry.Constant{Base: 0}, MaxAttempts: 5, DisableBudget: true, Observer: counters.Observe})
	var calls atomic.Int64
	r.Do(context.Background(), failing(100, &calls))
	if got := r.Breaker().State(time.Now()); got != breaker.Open {
		t.Fatalf("default breaker after 5 failures is %v, want open", got)
	}
	if s := counters.Snapshot(); s.BreakerChanges != 1 {
		t.Fatalf("counted %d breaker changes, want 1 (closed → open)", s.BreakerChanges)
	}
}

// Three calls that fail every attempt: a shared default breaker would open
// after the fifth failure in a row, and a shared 10 % budget would refuse
// the retries. The package-level Do has neither.
func TestPackageDoHasNoSharedState(t *testing.T) {
	for i := range 3 {
		var calls atomic.Int64
		err := retry.Do(context.Background(), failing(100, &calls))
		if !errors.Is(err, retry.ErrAttemptsExhausted) || calls.Load() != 3 {
			t.Fatalf("call %d: package Do = %v after %d attempts, want ErrAttemptsExhausted after 3", i, err, calls.Load())
		}
	}
}

func TestConcurrentDoWithSeededRand(t *testing.T) {
	cfg := retry.Config{Policy: retry.FullJitter{Base: time.Millisecond}, Rand: seeded(1), MaxAttempts: 4, DisableBudget: true, DisableBreaker: true}
	var counters retry.Counters
	cfg.Observer = counters.Observe
	r := mustNew(t, cfg)
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			var calls atomic.Int64
			r.Do(context.Background(), failing(1, &calls))
		})
	}
	wg.Wait()
	if s := counters.Snapshot(); s.Attempts != 400 || s.Retries != 200 {
		t.Fatalf("%+v: want 400 attempts, 200 retries", s)
	}
}

func TestValidateNamesTheParameterAndRange(t *testing.T) {
	b, _ := budget.New(budget.Config{})
	br, _ := breaker.New(breaker.Config{})
	for _, tc := range []struct {
		cfg  retry.Config
		want string
	}{
		{retry.Config{MaxAttempts: -1}, "retry: max attempts -1 out of range: want 1 <= max attempts <= 1000"},
		{retry.Config{MaxAttempts: 1001}, "retry: max attempts 1001 out of range"},
		{retry.Config{AttemptTimeout: -time.Second}, "retry: attempt timeout -1s out of range: want 0 <= attempt timeout <= 24h0m0s"},
		{retry.Config{MaxRetryAfter: 48 * time.Hour}, "retry: max retry-after 48h0m0s out of range: want 0 <= max retry-after <= 24h0m0s"},
		{retry.Config{Budget: b, DisableBudget: true}, "retry: both Budget and DisableBudget set"},
		{retry.Config{Breaker: br, DisableBreaker: true}, "retry: both Breaker and DisableBreaker set"},
		{retry.Config{Policy: retry.FullJitter{}}, "retry: policy full(base=0s cap=none mult=2): base 0s out of range: want base > 0"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := retry.New(tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("New(%+v) error = %v, want prefix %q", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestEventKindNames(t *testing.T) {
	for k, want := range map[retry.EventKind]string{
		retry.EventAttempt: "attempt", retry.EventRetry: "retry", retry.EventBudgetRefused: "budget-refused",
		retry.EventBreakerRefused: "breaker-refused", retry.EventGiveUp: "give-up", retry.EventBreakerChange: "breaker-change",
		0: "EventKind(0)",
	} {
		if k.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(k), k, want)
		}
	}
}

func BenchmarkDoFirstAttemptSucceeds(b *testing.B) {
	r := mustNew(b, retry.Config{})
	ctx := context.Background()
	op := func(context.Context) error { return nil }
	for b.Loop() {
		r.Do(ctx, op)
	}
}

func BenchmarkDoOneRetry(b *testing.B) {
	r := mustNew(b, retry.Config{Policy: retry.Constant{Base: 0}, DisableBudget: true})
	ctx := context.Background()
	fail := true
	op := func(context.Context) error {
		fail = !fail
		if !fail {
			return io.EOF
		}
		return nil
	}
	for b.Loop() {
		r.Do(ctx, op)
	}
}

func TestZeroRetrierUsesTheDefaults(t *testing.T) {
	var r retry.Retrier
	if r.Budget() == nil || r.Breaker() == nil {
		t.Fatal("zero Retrier has no budget or no breaker")
	}
	if got := r.Budget().Config(); got.Ratio != 0.1 || got.MinRetries != retry.DefaultBudgetMinRetries {
		t.Fatalf("zero Retrier's budget %+v, want 10 %% plus %d", got, retry.DefaultBudgetMinRetries)
	}
	var calls atomic.Int64
	if err := r.Do(context.Background(), failing(1, &calls)); err != nil || calls.Load() != 2 {
		t.Fatalf("zero Retrier Do = %v after %d calls, want success on the second", err, calls.Load())
	}
}

// BenchmarkPackageDoFirstAttemptSucceeds is the cheapest call: the
// package-level Do (no budget, breaker or observer) with a context without
// deadline, whose first attempt succeeds. Nothing needs the time, so it
// reads no clock, and it allocates nothing.
func BenchmarkPackageDoFirstAttemptSucceeds(b *testing.B) {
	ctx := context.Background()
	op := func(context.Context) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		retry.Do(ctx, op)
	}
}

// A caller that cancels during the wait with a reason gets that reason
// back, not a bare context.Canceled.
func TestCancelDuringWaitKeepsTheCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stop := errors.New("shutting down")
		ctx, cancel := context.WithCancelCause(context.Background())
		cfg := fast()
		cfg.Policy = retry.Constant{Base: time.Hour}
		r := mustNew(t, cfg)
		start := time.Now()
		err := r.Do(ctx, func(context.Context) error {
			time.AfterFunc(10*time.Millisecond, func() { cancel(stop) })
			return errFlaky
		})
		var e *retry.Error
		if !errors.As(err, &e) || !errors.Is(e.Reason, stop) || e.Wait != time.Hour {
			t.Fatalf("Do = %v, want an *Error whose Reason is the cause %q, after choosing a 1h wait", err, stop)
		}
		if took := time.Since(start); took != 10*time.Millisecond {
			t.Fatalf("Do returned %v after the call, want 10ms, when the caller cancelled", took)
		}
	})
}
