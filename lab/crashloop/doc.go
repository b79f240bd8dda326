// Package crashloop models one instance of a dependency restarted into a
// cohort's retries: a cold instance knocked over by them restarts cold
// again (a crash loop), unless a readiness gate keeps it out of traffic
// until it is warm.
//
// Lesson returns the lesson's setting under a policy, with or without the
// gate, and Run runs it. The model is one short file, written to be read:
// reference.go, which [Reference] returns for a lesson to print.
package crashloop
