// Package synchrony generates the event times of populations that share a
// clock start, and measures how much in step those events stay.
//
// A shared failure is the lessons' main example. Every client of a dependency
// that fails sees the failure at the same moment, so its first attempts are
// in step whatever retry policy it uses; from then on each client's attempts
// are at the running sums of the waits its policy returns. A Cohort generates
// those attempt times. Without jitter every client computes the same waits and
// the population stays in step, retry after retry and at the cap; with
// jitter each client draws its own waits and the population spreads out.
//
// Retries are not the only thing that lines clients up. Cron, TTL,
// RollingRestart and PartitionHeal generate the events of four other
// synchronisers — jobs started on the minute, cache keys written together,
// instances restarted in batches, nodes reconnecting when a partition
// heals — each with an optional random offset of a fraction of its natural
// interval, the remedy they share.
//
// Every generator is a Source, and Measure reads any Source with the same
// two detectors:
//
//   - the peak: the most events in one slot of a stated width (a peak without
//     its width means nothing; see package metrics);
//   - the coefficient of variation (CV) of the gaps between consecutive
//     events: about 0 for evenly spaced events, about 1 for independent
//     (Poisson-like) ones, and far above 1 for bursts separated by silence,
//     which is what a population in step produces.
//
// WindowPeaks follows the peak over time, one window after another, to show
// whether a population keeps spreading or stays in step.
//
// Two failure modes that backoff alone does not prevent have their own small
// models. Layered puts an inner layer that retries at once beneath a
// cohort's policy: its immediate retries of the shared failure bring the
// spike back whatever the outer jitter. Warmup restarts one instance into a
// cohort's retries: a cold instance knocked over by them restarts cold again
// (a crash loop), unless a readiness gate keeps it out of traffic until it
// is warm.
//
// # Randomness
//
// Every generator draws from one lcg.LCG seeded with its Seed, participant by
// participant (participant 0's draws first, in the order it needs them,
// then participant 1's, and so on), so the same value always gives the same
// events. A Cohort with SameSeed restarts the generator from Seed for every
// client instead: the fleet that seeds every process from the same constant,
// whose "random" waits are identical everywhere.
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
// # The models' sources
//
// Each model is one short file, written to be read, and the only engine
// there is: reference.go (the Cohort), reference_layered.go,
// reference_warmup.go and reference_synchronisers.go. [Reference],
// [LayeredReference], [WarmupReference] and [SynchronisersReference] return
// them for a lesson to print.
package synchrony
