// Package synchrony is the open-loop model of a cohort that fails together:
// the attempt times of clients that share a clock start, and how much in
// step they stay.
//
// A shared failure is the lessons' main example. Every client of a dependency
// that fails sees the failure at the same moment, so its first attempts are
// in step whatever retry policy it uses; from then on each client's attempts
// are at the running sums of the waits its policy returns. A Cohort generates
// those attempt times. Without jitter every client computes the same waits and
// the population stays in step, retry after retry and at the cap; with
// jitter each client draws its own waits and the population spreads out.
// Table runs a cohort under each policy of a Lineup and measures it with
// the two detectors of package metrics (metrics.Measure): the peak at a
// stated slot width, and the coefficient of variation (CV) of the gaps
// between attempts.
//
// The models built on a cohort have packages of their own: lab/layered (an
// inner layer that retries at once beneath the cohort's policy),
// lab/crashloop (an instance restarted into the cohort's retries, and the
// readiness gate) and lab/synchronisers (cron jobs, TTLs, rolling restarts
// and healing partitions, and the random offset they share).
//
// # Randomness
//
// A cohort draws from one lcg.LCG seeded with its Seed, client by client
// (client 0's draws first, in the order it needs them, then client 1's, and
// so on), so the same value always gives the same attempts. A Cohort with
// SameSeed restarts the generator from Seed for every client instead: the
// fleet that seeds every process from the same constant, whose "random"
// waits are identical everywhere.
//
// # Relation to the other lessons' models
//
// Package waves places attempt i at a jittered offset of Base·2ⁱ⁻¹ from the
// shared failure, and package cohort runs a closed loop against a dependency
// with a concurrency limit and whole-millisecond waits. A Cohort here is the
// open-loop picture between them: waits from any schedule.Policy, summed,
// in nanoseconds, against a dependency that refuses everything until Outage
// and answers everything after it. With whole-millisecond waits (plain
// exponential backoff from a whole-millisecond base, say) its attempts are
// exactly those of package cohort with an unlimited dependency.
//
// # The model's source
//
// The model is one short file, written to be read, and the only engine
// there is: reference.go. [Reference] returns it for a lesson to print.
package synchrony
