// Package layered models retries in two layers: an outer layer that backs
// off (a synchrony.Cohort and its policy) above an inner one (a client
// library, a sidecar, a load balancer) that retries at once. The inner
// layer's immediate retries of the shared failure bring the spike back
// whatever the outer jitter.
//
// A Config is a metrics.Source; its Arrivals are every attempt the
// dependency sees. The model is one short file, written to be read:
// reference.go, which [Reference] returns for a lesson to print.
package layered
