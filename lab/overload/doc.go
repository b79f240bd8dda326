// Package overload simulates a metastable failure: a server that a short
// capacity dip knocks into a state it cannot leave on its own, because the
// retries the dip provoked keep it overloaded after the dip is over.
//
// The model advances in fixed ticks. Requests arrive as a Poisson process
// and wait in one FIFO queue; each tick the server takes as many entries
// from the head as its capacity allows. A client waits at most Timeout for
// its attempt; then it gives up on it and, if it has attempts left, retries
// at once with a new entry at the tail. The abandoned entry stays in the
// queue, and the server still spends capacity on it when it reaches the
// head, because a server cannot tell that nobody is waiting for the answer.
// That is the trap: once the queue is longer than Timeout's worth of
// capacity, every entry is abandoned before it is served, every request
// sends MaxAttempts attempts, and with MaxAttempts × Rate above Capacity the
// queue grows without end even after capacity has returned.
//
// [Lesson] is a setting that shows both behaviours (10 ms ticks, 800
// requests/s against a capacity of 1000/s, a 1 s client timeout, capacity
// at zero from 10 s to 13 s, 60 s, 3 attempts per request). Without a limit
// on retries, every request sends its three attempts from the dip on, load
// is amplified ≈2.6× over the run (3× after the dip) and the server never
// recovers. Three remedies can be switched on, alone or together:
//
//   - Budget: a retry budget (package budget; the SRE book's 10 % of
//     recent requests over ten one-second buckets). Retries beyond it are
//     not sent.
//   - Breaker: a circuit breaker (package breaker) in front of all clients.
//     While open it refuses requests without sending them, so the queue
//     empties, at the price of refusing everyone until it closes again.
//   - Pacing: server-side pacing. When the server's backlog exceeds a
//     threshold it answers new attempts at once with a Retry-After that it
//     jitters itself, instead of queueing them; the clients wait that long
//     before their next attempt. The queue never grows past the threshold,
//     so nothing queued after pacing begins is abandoned.
//
// With the default seed (the numbers move little with the seed or the tick):
//
//	             amplification   goodput back   queue drained   requests failed   served for nobody
//	3 attempts   2.62 (3.0 after)    never           never            37,679             47,000
//	+ budget     1.03                15.9 s          20.2 s           14,586             16,196
//	+ breaker    0.93                 2.0 s           0.8 s            4,030                792
//	+ pacing     1.15                 0.2 s           8.7 s            1,140                501
//
// (times are counted from the end of the dip).
//
// Amplification is attempts reaching the server per request, averaged over
// the whole run; the breaker's is below 1 because refused requests never
// reach the server, and pacing's counts the Retry-After answers, which cost
// no capacity. "Recovered" means goodput is back (see Result.Recovered),
// "drained" that the queue holds at most one tick's capacity.
//
// The budget and the breaker are shared by the whole client population, as
// if every request went through one client library instance; answering
// with Retry-After is assumed to cost the server no capacity. All randomness
// (arrivals, the breaker's open times, the pacing jitter) comes from one
// seeded lcg.LCG, so a seed fixes every number.
//
// [RunReference] is the model written to be read, with the queue as the
// lesson describes it: every entry, abandoned or not. [Run] gives exactly
// its results (the tests compare the two on random configurations) in
// memory that follows only the entries someone still waits for, the last
// Timeout's attempts, however long the queue grows. [Reference] returns the
// reference's source.
package overload
