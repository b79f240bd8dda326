package retry_test

import (
	"math/rand/v2"
	"net/http"
)

// seeded returns a generator with a fixed seed, so that jittered waits are
// the same on every run.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// countStatus returns a base RoundTripper that answers every request from
// memory with status, counting the requests in *n.
func countStatus(n *int, status int) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		*n++
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	})
}

// roundTripFunc is a RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
