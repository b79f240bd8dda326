package zoo

import (
	"context"
	"errors"
	mathrand "math/rand"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	rican "github.com/Rican7/retry"
	ricanbackoff "github.com/Rican7/retry/backoff"
	ricanjitter "github.com/Rican7/retry/jitter"
	ricanstrategy "github.com/Rican7/retry/strategy"
	avast "github.com/avast/retry-go/v4"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"
	"github.com/eapache/go-resiliency/retrier"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	gax "github.com/googleapis/gax-go/v2"
	"github.com/hashicorp/go-retryablehttp"
	sethvargo "github.com/sethvargo/go-retry"
	"github.com/sony/gobreaker/v2"
	"k8s.io/apimachinery/pkg/util/wait"
	k8sretry "k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"

	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/zoo/internal/bubble"
)

// Entry is one library at one setting.
type Entry struct {
	// Name names the library, such as "cenkalti/backoff v5".
	Name string
	// Module is the module path its code comes from.
	Module string
	// Settings names what was configured, briefly: "defaults", or the
	// option that matters; Details spells it out.
	Settings, Details string
	// Family groups entries for the lesson's charts.
	Family string
	// Seeded reports whether the library's randomness was seeded here (or
	// it draws none), so that a run repeats exactly.
	Seeded bool
	// Fix marks a setting chosen to fix the defaults' storm behaviour.
	Fix bool
	// IgnoresRetryAfter marks a library that does not read the Retry-After
	// header: its waits are its own, shorter than the server asked or not.
	// Where its draws are unseeded (LinearJitterBackoff seeds from the
	// clock), one run may happen to draw no wait below the header's, so the
	// lesson's table says what the library does from this and not from the
	// run (TestIgnoresRetryAfterIsWhatTheLibraryDoes checks it against runs).
	IgnoresRetryAfter bool

	steppers func(Storm) []stepper               // in-process delay functions
	loop     func(Storm) looper                  // the library's own loop, per client
	whole    func(s Storm, send func(int) error) // the library's own loops, all clients at once
}

// The families the lesson draws one chart for each.
const (
	FamilyBackoff = "backoff packages"
	FamilyClients = "HTTP and SDK retryers"
	FamilyLoops   = "retry loops, breakers and queues"
)

// SeedGlobalV1 seeds math/rand's (v1) global generator, which several
// libraries draw from. Since Go 1.24 rand.Seed does nothing unless the
// setting randseednop=0 is in GODEBUG; SeedGlobalV1 adds it for this process.
func SeedGlobalV1(seed uint64) {
	if v := os.Getenv("GODEBUG"); !strings.Contains(v, "randseednop=0") {
		os.Setenv("GODEBUG", strings.TrimPrefix(v+",randseednop=0", ","))
	}
	mathrand.Seed(int64(seed)) //lint:ignore SA1019 seeding is the point: libraries draw from the global generator
}

// each builds one stepper per client.
func each(f func(i int) stepper) func(Storm) []stepper {
	return func(s Storm) []stepper {
		out := make([]stepper, s.Clients)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
}

// seededEach is each after seeding math/rand's global generator.
func seededEach(f func(i int) stepper) func(Storm) []stepper {
	return func(s Storm) []stepper {
		SeedGlobalV1(s.Seed)
		return each(f)(s)
	}
}

// maxAttempts gives up once n attempts have failed.
func maxAttempts(n int, next func(k int, err error) time.Duration) func(int, error) (time.Duration, bool) {
	return func(k int, err error) (time.Duration, bool) {
		if k >= n {
			return 0, false
		}
		return next(k, err), true
	}
}

// responseFor is the 503 response carrying err, with its Retry-After header
// if err is a RetryAfterError, as an HTTP retryer sees it.
func responseFor(err error) *http.Response {
	h := http.Header{}
	var ra RetryAfterError
	if errors.As(err, &ra) {
		h.Set("Retry-After", ra.Header())
	}
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: h, Body: http.NoBody}
}

const (
	modV5        = "github.com/cenkalti/backoff/v5"
	modV4        = "github.com/cenkalti/backoff/v4"
	modRHTTP     = "github.com/hashicorp/go-retryablehttp"
	modFailsafe  = "github.com/failsafe-go/failsafe-go"
	modAWS       = "github.com/aws/aws-sdk-go-v2"
	modBreaker   = "github.com/sony/gobreaker/v2"
	modAvast     = "github.com/avast/retry-go/v4"
	modSethvargo = "github.com/sethvargo/go-retry"
	modRican     = "github.com/Rican7/retry"
	modEapache   = "github.com/eapache/go-resiliency"
	modWait      = "k8s.io/apimachinery"
	modClientGo  = "k8s.io/client-go"
	modGax       = "github.com/googleapis/gax-go/v2"
	modAPI       = "google.golang.org/api"
	modThis      = "github.com/backofflab/backofflab"
)

// Entries returns every library setting the lesson compares, in table order:
// each library at its defaults (or its README's example where the default
// does not retry), then the settings that fix its storm behaviour.
func Entries() []Entry {
	entries := []Entry{
		{Name: "cenkalti/backoff v5", Module: modV5, Family: FamilyBackoff,
			Settings: "Retry defaults", Details: "Retry: ExponentialBackOff from 500 ms, ×1.5, ±50 %, max 60 s; gives up after 15 min",
			loop: func(Storm) looper {
				return func(ctx context.Context, _ int, send func() error) {
					backoffv5.Retry(ctx, func() (struct{}, error) {
						err := send()
						var ra RetryAfterError
						if errors.As(err, &ra) {
							return struct{}{}, backoffv5.RetryAfter(int(ra.Wait / time.Second))
						}
						return struct{}{}, err
					})
				}
			}},
		{Name: "cenkalti/backoff v4", Module: modV4, Family: FamilyBackoff, Seeded: true,
			Settings: "NewExponentialBackOff defaults", Details: "from 500 ms, ×1.5, ±50 %, max 60 s; Stop after 15 min",
			steppers: seededEach(func(int) stepper {
				b := backoffv4.NewExponentialBackOff()
				return backoffClient(func(int, error) (time.Duration, bool) {
					d := b.NextBackOff()
					return d, d != backoffv4.Stop
				})
			})},
		{Name: "sethvargo/go-retry", Module: modSethvargo, Family: FamilyBackoff, Seeded: true,
			Settings: "README example", Details: "WithMaxRetries(4, NewFibonacci(1 s)): waits 1, 2, 3, 5 s, no jitter",
			steppers: each(func(int) stepper {
				b := sethvargo.WithMaxRetries(4, sethvargo.NewFibonacci(time.Second))
				return backoffClient(func(int, error) (time.Duration, bool) {
					d, stop := b.Next()
					return d, !stop
				})
			})},
		{Name: "Rican7/retry", Module: modRican, Family: FamilyBackoff, Seeded: true,
			Settings: "README example", Details: "Limit(5), BinaryExponential(10 ms), jitter.Deviation(random, 0.5)",
			loop: func(s Storm) looper {
				return func(_ context.Context, i int, send func() error) {
					random := mathrand.New(mathrand.NewSource(int64(s.Seed) + int64(i)))
					rican.Retry(func(uint) error { return send() },
						ricanstrategy.Limit(5),
						ricanstrategy.BackoffWithJitter(ricanbackoff.BinaryExponential(10*time.Millisecond), ricanjitter.Deviation(random, 0.5)))
				}
			}},
		{Name: "eapache/go-resiliency retrier", Module: modEapache, Family: FamilyBackoff, Seeded: true,
			Settings: "README example", Details: "New(ConstantBackoff(3, 100 ms), nil): three waits of 100 ms, no jitter",
			loop: func(Storm) looper {
				return func(ctx context.Context, _ int, send func() error) {
					retrier.New(retrier.ConstantBackoff(3, 100*time.Millisecond), nil).RunCtx(ctx, func(context.Context) error { return send() })
				}
			}},
		{Name: "gax-go v2 Backoff", Module: modGax, Family: FamilyBackoff, Seeded: true,
			Settings: "Backoff{} defaults", Details: "Pause: full jitter under a window from 1 s, ×2, max 30 s; no attempt limit. cloud.google.com/go/storage's default retry is this zero gax.Backoff{} (invoke.go, v1.70.0)",
			steppers: seededEach(func(int) stepper {
				var b gax.Backoff
				return backoffClient(func(int, error) (time.Duration, bool) { return b.Pause(), true })
			})},
		{Name: "google.golang.org/api", Module: modAPI, Family: FamilyBackoff, Seeded: true,
			Settings: "gensupport's gax.Backoff{Initial: 100 ms}",
			Details:  "internal/gensupport/retry.go:31: gax.Backoff{Initial: 100 ms} (max 30 s, ×2); send.go retries until the caller's context ends",
			steppers: seededEach(func(int) stepper {
				b := gax.Backoff{Initial: 100 * time.Millisecond}
				return backoffClient(func(int, error) (time.Duration, bool) { return b.Pause(), true })
			})},
		{Name: "k8s wait DefaultRetry", Module: modClientGo, Family: FamilyBackoff, Seeded: true,
			Settings: "retry.DefaultRetry", Details: "5 attempts, waits of 10 ms, Jitter 0.1",
			steppers: seededEach(func(int) stepper { return waitClient(k8sretry.DefaultRetry) })},
		{Name: "k8s wait DefaultBackoff", Module: modClientGo, Family: FamilyBackoff, Seeded: true,
			Settings: "retry.DefaultBackoff", Details: "4 attempts, waits from 10 ms, ×5, Jitter 0.1",
			steppers: seededEach(func(int) stepper { return waitClient(k8sretry.DefaultBackoff) })},

		{Name: "go-retryablehttp", Module: modRHTTP, Family: FamilyClients, Seeded: true,
			Settings: "defaults", Details: "DefaultBackoff from RetryWaitMin 1 s, ×2, max 30 s; RetryMax 4; honours Retry-After",
			steppers: each(func(int) stepper {
				return backoffClient(maxAttempts(5, func(k int, err error) time.Duration {
					return retryablehttp.DefaultBackoff(time.Second, 30*time.Second, k-1, responseFor(err))
				}))
			})},
		{Name: "go-retryablehttp", Module: modRHTTP, Family: FamilyClients, IgnoresRetryAfter: true,
			Settings: "LinearJitterBackoff", Details: "wait n is n × uniform(1 s, 30 s); seeds from the clock's nanoseconds on every call",
			steppers: each(func(int) stepper { return linearJitterClient(4) })},
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Family: FamilyClients,
			Settings: "NewStandard() defaults", Details: "3 attempts, full jitter under 50 ms × 2^n, max 20 s; one retry quota of 500 tokens for all, 14 per retry",
			steppers: awsClients(nil, false)},
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Family: FamilyClients,
			Settings: "defaults, throttling errors", Details: "as above, but throttling errors: waits from a 1 s base, 5 tokens per retry",
			steppers: awsClients(nil, true)},

		{Name: "failsafehttp", Module: modFailsafe, Family: FamilyClients, Seeded: true,
			Settings: "NewRetryPolicyBuilder() defaults", Details: "2 retries; waits what Retry-After says, otherwise no delay",
			loop: func(Storm) looper {
				return func(ctx context.Context, _ int, send func() error) {
					policy := failsafehttp.NewRetryPolicyBuilder().Build()
					failsafe.With(policy).WithContext(ctx).Get(func() (*http.Response, error) {
						if err := send(); err != nil {
							return responseFor(err), nil
						}
						return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody}, nil
					})
				}
			}},
		{Name: "failsafe-go retrypolicy", Module: modFailsafe, Family: FamilyLoops, Seeded: true,
			Settings: "NewWithDefaults", Details: "2 retries, no delay",
			loop: failsafeLoop(func() retrypolicy.Builder[any] { return retrypolicy.NewBuilder[any]() })},
		{Name: "failsafe-go retrypolicy", Module: modFailsafe, Family: FamilyLoops, Seeded: true,
			Settings: "WithBackoff(1 s, 30 s)", Details: "WithBackoff(1 s, 30 s), WithMaxRetries(10): waits 1, 2, 4 … s, no jitter",
			loop: failsafeLoop(func() retrypolicy.Builder[any] {
				return retrypolicy.NewBuilder[any]().WithBackoff(time.Second, 30*time.Second).WithMaxRetries(10)
			})},
		{Name: "avast/retry-go v4", Module: modAvast, Family: FamilyLoops, Seeded: true,
			Settings: "Do defaults", Details: "10 attempts, waits 100 ms × 2^n plus uniform up to 100 ms",
			loop: func(s Storm) looper {
				SeedGlobalV1(s.Seed)
				return func(ctx context.Context, _ int, send func() error) {
					avast.Do(send, avast.Context(ctx))
				}
			}},
		{Name: "sony/gobreaker v2", Module: modBreaker, Family: FamilyLoops, Seeded: true,
			Settings: "Settings{}, caller every 1 s", Details: "opens after 6 failures in a row, for 60 s; the caller tries once a second",
			steppers: each(func(int) stepper {
				return breakerClient(gobreaker.Settings{}, func() time.Duration { return time.Second })
			})},
		{Name: "client-go workqueue", Module: modClientGo, Family: FamilyLoops, Seeded: true,
			Settings: "DefaultTypedControllerRateLimiter", Details: "per item 5 ms × 2^n up to 1000 s, and one bucket of 10 per second (burst 100) for all items",
			steppers: workqueueClients},
		{Name: "backofflab retry", Module: modThis, Family: FamilyLoops, Seeded: true,
			Settings: "Retrier defaults", Details: "full jitter from 100 ms up to 10 s, 3 attempts, retry budget, circuit breaker",
			loop: func(s Storm) looper {
				return func(ctx context.Context, i int, send func() error) {
					r, err := retry.New(retry.Config{Rand: rand.New(rand.NewPCG(s.Seed, uint64(i)))})
					if err != nil {
						panic(err)
					}
					r.Do(ctx, func(context.Context) error {
						err := send()
						var ra RetryAfterError
						if errors.As(err, &ra) {
							return retry.RetryAfter(err, ra.Wait)
						}
						return err
					})
				}
			}},
	}
	// grpc-go's rows go with the HTTP and SDK retryers, before failsafehttp.
	at := slices.IndexFunc(entries, func(e Entry) bool { return e.Name == "failsafehttp" })
	return slices.Insert(entries, at, GRPCEntries()...)
}

// RetryAfterEntries returns the entries the lesson tells "Retry-After: 2"
// (Storm.RetryAfter): the HTTP-aware ones that read the header, and two that
// cannot see it.
func RetryAfterEntries() []Entry {
	var out []Entry
	for _, e := range Entries() {
		switch {
		case e.Name == "go-retryablehttp", e.Name == "failsafehttp", e.Name == "cenkalti/backoff v5",
			e.Name == "backofflab retry", e.Name == "gax-go v2 Backoff",
			e.Name == "aws-sdk-go-v2 retry" && !strings.Contains(e.Settings, "throttling"):
			out = append(out, e)
		}
	}
	return out
}

// Fixes returns, for the libraries whose defaults give up during the storm or
// keep the cohort in step, the two or three settings that fix that, run
// through the same storm.
func Fixes() []Entry {
	return []Entry{
		{Name: "sethvargo/go-retry", Module: modSethvargo, Family: FamilyBackoff, Fix: true,
			Settings: "full jitter, 100 ms to 10 s", Details: "WithMaxDuration(60 s, WithCappedDuration(10 s, WithFullJitter(NewExponential(100 ms))))",
			steppers: each(func(int) stepper {
				b := sethvargo.WithMaxDuration(time.Minute, sethvargo.WithCappedDuration(10*time.Second,
					sethvargo.WithFullJitter(sethvargo.NewExponential(100*time.Millisecond))))
				return backoffClient(func(int, error) (time.Duration, bool) {
					d, stop := b.Next()
					return d, !stop
				})
			})},
		{Name: "eapache/go-resiliency retrier", Module: modEapache, Family: FamilyBackoff, Fix: true,
			Settings: "100 ms ×2 to 10 s, SetJitter(0.5)", Details: "LimitedExponentialBackoff(20, 100 ms, 10 s), SetJitter(0.5); made on the real clock",
			loop: func(Storm) looper {
				return func(ctx context.Context, _ int, send func() error) {
					var r *retrier.Retrier
					// New seeds its generator from time.Now: make it on the real clock.
					bubble.Outside(func() {
						r = retrier.New(retrier.LimitedExponentialBackoff(20, 100*time.Millisecond, 10*time.Second), nil)
					})
					r.SetJitter(0.5)
					r.RunCtx(ctx, func(context.Context) error { return send() })
				}
			}},
		{Name: "k8s wait Backoff", Module: modWait, Family: FamilyBackoff, Seeded: true, Fix: true,
			Settings: "Jitter 1, 100 ms ×2 to 10 s", Details: "Backoff{Duration: 100 ms, Factor: 2, Jitter: 1, Steps: 20, Cap: 10 s}",
			steppers: seededEach(func(int) stepper {
				return waitClient(wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 1, Steps: 20, Cap: 10 * time.Second})
			})},
		{Name: "go-retryablehttp", Module: modRHTTP, Family: FamilyClients, Fix: true,
			Settings: "LinearJitterBackoff, RetryMax 10", Details: "LinearJitterBackoff, RetryMax 10",
			steppers: each(func(int) stepper { return linearJitterClient(10) })},
		{Name: "aws-sdk-go-v2 retry", Module: modAWS, Family: FamilyClients, Fix: true,
			Settings: "20 attempts, no quota", Details: "MaxAttempts 20, MaxBackoff 5 s, RateLimiter: ratelimit.None",
			steppers: awsClients(func(o *awsretry.StandardOptions) {
				o.MaxAttempts, o.MaxBackoff, o.RateLimiter = 20, 5*time.Second, ratelimit.None
			}, false)},
		{Name: "failsafe-go retrypolicy", Module: modFailsafe, Family: FamilyLoops, Fix: true,
			Settings: "WithJitterFactor(0.5)", Details: "WithBackoff(1 s, 30 s), WithJitterFactor(0.5), WithMaxRetries(10)",
			loop: failsafeLoop(func() retrypolicy.Builder[any] {
				return retrypolicy.NewBuilder[any]().WithBackoff(time.Second, 30*time.Second).WithJitterFactor(0.5).WithMaxRetries(10)
			})},
		grpcRetryFixes()[0],
		{Name: "sony/gobreaker v2", Module: modBreaker, Family: FamilyLoops, Seeded: true, Fix: true,
			Settings: "jittered Timeout and caller", Details: "Timeout drawn per client from 5 s to 10 s; the caller waits 0.5 s to 1.5 s (seeded)",
			steppers: func(s Storm) []stepper {
				r := rand.New(rand.NewPCG(s.Seed, 0))
				between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int64N(int64(hi-lo))) }
				return each(func(int) stepper {
					return breakerClient(gobreaker.Settings{Timeout: between(5*time.Second, 10*time.Second)},
						func() time.Duration { return between(500*time.Millisecond, 1500*time.Millisecond) })
				})(s)
			}},
	}
}

// linearJitterClient is a go-retryablehttp client with Backoff set to
// LinearJitterBackoff (RetryWaitMin 1 s, RetryWaitMax 30 s) and RetryMax
// retries. LinearJitterBackoff seeds a generator from time.Now on every call,
// so it is called on the real clock: in the bubble every client would read the
// same fake instant and draw the same wait.
func linearJitterClient(retryMax int) stepper {
	return backoffClient(maxAttempts(retryMax+1, func(k int, err error) (d time.Duration) {
		bubble.Outside(func() {
			d = retryablehttp.LinearJitterBackoff(time.Second, 30*time.Second, k-1, responseFor(err))
		})
		return d
	}))
}

// waitClient retries as client-go's retry.OnError does: wait.Backoff's
// Steps is the number of attempts, and each wait is b.Step().
func waitClient(b wait.Backoff) stepper {
	steps := b.Steps
	return backoffClient(maxAttempts(steps, func(int, error) time.Duration { return b.Step() }))
}

// awsClients shares one standard retryer, and so one retry quota, among all
// clients, as one SDK client config does. throttle makes every failure a
// throttling error.
func awsClients(opts func(*awsretry.StandardOptions), throttle bool) func(Storm) []stepper {
	return func(s Storm) []stepper {
		var fns []func(*awsretry.StandardOptions)
		if opts != nil {
			fns = append(fns, opts)
		}
		r := awsretry.NewStandard(fns...)
		return each(func(int) stepper {
			var release func(error) error
			return func(n int, send func() error) (time.Duration, bool) {
				err := send()
				if throttle && err != nil {
					err = throttled{}
				}
				if release != nil {
					release(err)
					release = nil
				}
				if err == nil {
					return 0, false
				}
				attempt := n + 1
				if attempt >= r.MaxAttempts() || !r.IsErrorRetryable(err) {
					return 0, false
				}
				rel, qerr := r.GetRetryToken(context.Background(), err)
				if qerr != nil {
					return 0, false
				}
				release = rel
				d, derr := r.RetryDelay(attempt, err)
				return d, derr == nil
			}
		})(s)
	}
}

// throttled is a throttling error as the AWS SDK classifies them.
type throttled struct{ down }

func (throttled) ErrorCode() string { return "ThrottlingException" }

// breakerClient calls through its own gobreaker until served, waiting
// every() between calls; a call the open breaker refuses never reaches the
// dependency.
func breakerClient(st gobreaker.Settings, every func() time.Duration) stepper {
	cb := gobreaker.NewCircuitBreaker[struct{}](st)
	return func(_ int, send func() error) (time.Duration, bool) {
		_, err := cb.Execute(func() (struct{}, error) { return struct{}{}, send() })
		return every(), err != nil
	}
}

// workqueueClients puts every client's item through one workqueue rate
// limiter: each failure is requeued after When(item), a success forgets it.
func workqueueClients(s Storm) []stepper {
	q := workqueue.DefaultTypedControllerRateLimiter[int]()
	return each(func(i int) stepper {
		return func(_ int, send func() error) (time.Duration, bool) {
			if send() == nil {
				q.Forget(i)
				return 0, false
			}
			return q.When(i), true
		}
	})(s)
}

// failsafeLoop runs failsafe-go's own executor with the built policy.
func failsafeLoop(build func() retrypolicy.Builder[any]) func(Storm) looper {
	return func(Storm) looper {
		return func(ctx context.Context, _ int, send func() error) {
			failsafe.With[any](build().Build()).WithContext(ctx).Run(send)
		}
	}
}
