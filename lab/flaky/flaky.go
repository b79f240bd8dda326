// Package flaky runs local HTTP servers that misbehave in one simple way,
// for lessons that drive a retrying client over real sockets: a Server that
// fails its first requests, and a Retry-After cohort (RetryAfterCohort), in
// which every client is told to come back after the same second.
package flaky

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// Server is a local HTTP server that answers 503 to its first Fail
// requests and 200 ("ok") to every later one, counting the requests it
// received and the TCP connections it accepted. Close it when done.
type Server struct {
	*httptest.Server
	fail            int64
	requests, conns atomic.Int64
}

// Always is a Fail count for a server that never answers 200.
const Always = int64(^uint64(0) >> 1)

// New starts a Server that fails its first fail requests (Always: every
// request; 0 or less: none).
func New(fail int64) *Server {
	s := &Server{fail: fail}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.requests.Add(1) <= s.fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	return s
}

// Requests returns the number of requests the server has received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Conns returns the number of TCP connections the server has accepted.
func (s *Server) Conns() int64 { return s.conns.Load() }
