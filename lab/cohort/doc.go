// Package cohort simulates a cohort of clients that all need one answer from
// a dependency with a concurrency limit, each retrying by the same policy:
// the model of the "In Phase" lesson.
//
// # The model
//
// Time is a whole number of milliseconds. Each of Clients clients needs one
// admitted call. Every client makes its first attempt at t = 0, or, when
// Spread is positive, at a whole-millisecond offset drawn uniformly from
// [0, Spread).
//
// The dependency refuses every call while t < Outage. From then on it admits
// a call if and only if fewer than Limit calls are in flight; an admitted
// call holds its slot for Service and always succeeds, which finishes the
// client. A refusal is free (it holds no slot) and immediate. Within one
// millisecond, calls that complete free their slots before any new call
// arrives, and calls arriving in the same millisecond are taken in client
// order (client 0 first).
//
// A refused client asks its [schedule.Policy] for the next wait, with n the
// number of refusals before this one (0 after the first refusal) and prev the
// wait the policy returned last time, before flooring (0 before the first
// retry; decorrelated jitter grows from it), floors the wait to
// whole milliseconds, and tries again then. A wait shorter than 1 ms waits
// 1 ms: a client cannot try twice in the same millisecond (the answer could
// not change). Nothing happens at or after Horizon: a client without an
// admitted call by then is unfinished.
//
// # Randomness
//
// Each run draws from one [lcg.LCG] seeded with Config.Seed, in this order:
// first, if Spread is positive, one draw per client for its first attempt
// (client 0 first); then one Delay call per refusal, in the order the
// refusals happen (by time, then client). Jittered policies take exactly one
// draw per Delay, the others none. The same Config therefore always gives
// the same Result.
//
// # Measures
//
// A [Result] counts calls (during the outage and after it), the finish time
// (the last completion, or Horizon if some client is unfinished), the idle
// time (milliseconds from the end of the outage to the finish with nothing in
// flight, while some client still waits for its answer), and the worst
// bursts: the most calls in one [Bucket] (100 ms) and in one millisecond
// after the outage. [RunTraced] also returns every attempt, from which
// [Trace] derives the series the lesson's figures draw.
//
// The simulator is event-driven: it keeps the clients' next attempts in a
// calendar queue, one bucket per millisecond handed out in client order, and
// the in-flight completions in a ring, so a call costs the same however many
// clients share its millisecond, its cost grows with the number of attempts,
// not with Horizon × Clients, and its memory does not grow with Horizon. Its
// results are identical to those of [RunReference], a loop over every
// millisecond that applies the rules above and nothing else, written to be
// read; [Reference] returns its source, and the package's tests compare the
// two on hundreds of random configurations.
package cohort
