// Package contention simulates optimistic concurrency on one contended row:
// N clients each want to update the same versioned row exactly once. A client
// reads the row (learning its version), sends a write carrying that version,
// and the write succeeds only if nobody else committed in between. A client
// whose write fails backs off by its retry policy, reads again and tries
// again, until it commits.
//
// The model follows the experiment in Marc Brooker's "Exponential Backoff And
// Jitter" (AWS Architecture Blog, 2015) and its simulator: every network hop
// (client→server and server→client) takes |Normal(mean, sd)|, 10 ms and 2 ms
// in Brooker's runs; the backoff before the k-th retry is the policy's wait
// for exponent k (so the first window is 2·base with a base of 5 ms and a cap
// of 2 s); only writes are counted as calls; and the time of a run is the
// moment the last client learns that its write committed. [Lesson] returns
// that parameter set, with 100 clients under full jitter; the With methods
// change one parameter at a time.
//
// Policies are named as in package schedule; [Policies] lists the five the
// lesson compares: schedule.NameImmediate (no backoff at all: a rejected
// client reads and writes again at once, the simulator's "no backoff"
// policy) and the four of the post. [Compare] runs them all at one client
// count and returns [Means], addressed by name: ms.Of(schedule.NameFull).
//
// A second documented parameter set, [Config.WithWideSet], takes the
// network's spread from the post's text rather than from its code (the post
// speaks of a "variance of 4ms"; the simulator draws hops with a deviation
// of 2 ms), so hops get a deviation of 4 ms, and counts reads and writes
// both, as a server's request log would. With the default seed and 100 runs
// at 100 clients it gives
//
//	                    calls    time
//	full jitter         1,493   4.56 s
//	exponential         2,269   34.0 s
//
// Brooker's set, which counts writes only, gives about half those calls.
//
// The simulation is a discrete-event loop over the messages in flight,
// delivered by arrival time; two messages due at the same instant are
// delivered in the order they were sent, so a seed fixes every number. Only
// the messages to the server wait in the queue: the server's answer, what
// the client does on receiving it (back off, read or write again) and the
// client's next message depend on nothing else, so they are settled when
// the server answers. The messages wait in a calendar queue of two levels,
// fine buckets a fraction of a round trip's spread wide and coarse ones for
// the backoff waits, with a heap behind it for waits longer still. All
// randomness (hop delays by a ziggurat over the generator, jittered waits)
// comes from one seeded [lcg.LCG]. [Repeat] averages many runs drawn from one
// stream and [Sweep] repeats that over a range of client counts and policies.
//
// [RunReference] is the same model written to be read, on container/heap,
// with no queue of its own: the lesson's rules in the lesson's order, and
// exactly Run's results (the tests compare the two on random
// configurations). [Reference] returns its source.
package contention
