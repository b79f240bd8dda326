// Package retry retries operations and HTTP requests the way the Backoff Lab
// lessons recommend, by default:
//
//   - Full jitter. Each wait is drawn uniformly from [0, min(cap, base·2ⁿ)),
//     on the first retry as well as at the cap, so clients that failed
//     together do not retry together (DefaultPolicy: base 100 ms, cap 10 s).
//     The package has the other policies the Backoff Lab lessons compare
//     too (Exponential, EqualJitter, UniformJitter, Decorrelated, Constant,
//     Immediate), and any Policy of your own can replace it.
//   - An attempt limit: three attempts per call, the SRE book's figure.
//   - A deadline check before every sleep. When the wait plus a worst-case
//     attempt would end after the context's deadline, the call gives up at
//     once with ErrDeadline instead of sleeping into a deadline nobody can
//     meet.
//   - A retry budget (retry/budget) shared by every call through one Retrier
//     or Transport: retries stay under 10 % of recent requests, so a
//     dependency that is down sees at most about 1.1 times its normal load
//     from this client, not three times.
//   - A circuit breaker (retry/breaker) that opens after consecutive failures
//     and then refuses at once, without touching the network, for a jittered
//     open time, so a fleet does not probe the dependency in step. The call
//     whose failure opens it gives up at once too, instead of sleeping only
//     to be refused. A call still waiting when its deadline passes is a
//     failure (a dependency that hangs is failing its callers); the
//     caller's cancellations, panics and failures that never reached the
//     dependency count neither way.
//   - Server pacing as a floor. A Retry-After header (or an error wrapped by
//     RetryAfter) sets the least the next wait may be; the policy's
//     jittered wait is added on top, so clients told the same number do not
//     return on the same millisecond. A request to wait longer than
//     MaxRetryAfter, or past the deadline, makes the call give up instead.
//
// Retrier.Do retries any func(context.Context) error, and DoValue any
// func(context.Context) (T, error), returning the value. Config.Retryable
// says which errors are worth another attempt; Permanent marks one that is
// not. Transport is an http.RoundTripper that retries only what is safe to
// repeat: the idempotent methods of RFC 9110 (GET, HEAD, OPTIONS, TRACE,
// PUT, DELETE) and requests carrying an Idempotency-Key header, and only
// when the body can be replayed (no body, or Request.GetBody set). By
// default it retries connection errors, HTTP/2 stream resets and GOAWAYs
// and the statuses 429, 502, 503 and 504; TransportConfig.Classify decides
// otherwise (retry, stop, fail or ignore, for the breaker as well), and
// TransportConfig.PrepareAttempt re-signs or refreshes each attempt's
// request. It closes every response body it discards (draining it within
// a byte and time limit), and keeps a breaker and a budget per host, for up
// to MaxHosts hosts.
//
// Observer receives an Event for every attempt, retry, refusal, give-up
// and breaker change. Counters is a ready-made Observer that counts them,
// LogEvents one that logs them to a *slog.Logger, and an Event is a
// slog.LogValuer. An inner RoundTripper under a Transport (an
// OpenTelemetry-instrumented one, say) reads each attempt's number with
// AttemptFromContext.
//
// The package, with its breaker and budget, is a module of its own that
// needs only the standard library: importing it adds nothing else to a
// service's build list. The policies live in package backoff, which this
// package names too (retry.FullJitter is backoff.FullJitter) and which
// links no net/http; the lessons' schedule package is built on them: a
// lesson's figure and a service's retries run the same code.
//
// Budgets and breakers are shared state: they work because many calls see
// the same one, and they couple whatever they are shared by. Make one
// Retrier per dependency and keep it, or name each call's dependency with
// Retrier.For; a Transport keeps them per host by itself, and a Budget or
// Breaker you pass in the Config is shared by every host or name on
// purpose. The package-level Do and DoValue with a nil Retrier are
// stateless, so they have neither.
package retry
