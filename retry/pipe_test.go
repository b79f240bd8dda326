package retry_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/retry"
)

// The tests that measure time run in a testing/synctest bubble, whose
// clock moves only when every goroutine in it is blocked: a retry's one
// second wait takes no time, and a wait measured in the bubble is exactly
// the wait the code chose, on any machine and under any load. A goroutine
// blocked on a loopback socket does not count as blocked there (the kernel,
// outside the bubble, may wake it), so those tests talk HTTP over pipeNet,
// an in-memory network of net.Pipe connections, instead.

// pipeNet is an in-memory network with one HTTP server on it. Its dial
// function hands the server one end of a fresh net.Pipe; while refusing
// is set, dials fail as a closed port's do, with ECONNREFUSED.
type pipeNet struct {
	conns    chan net.Conn
	closed   chan struct{}
	once     sync.Once
	refusing atomic.Bool
	accepted atomic.Int64
}

func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		p.accepted.Add(1)
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

func (p *pipeNet) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

// pipeAddr is the server's address on a pipeNet.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "dependency.test:80" }

func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

func (p *pipeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if p.refusing.Load() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.closed:
		client.Close()
		server.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
}

// pipeServer is a server on a pipeNet, with the same records as server.
type pipeServer struct {
	*recorder
	net *pipeNet
	srv *http.Server
	URL string
}

// newPipeServer starts, inside the current synctest bubble, a server whose
// handler h receives the 1-based number of each request. It is closed when
// the test ends.
func newPipeServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int64)) *pipeServer {
	t.Helper()
	p := &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
	s := &pipeServer{recorder: &recorder{}, net: p, URL: "http://" + pipeAddr{}.String()}
	s.srv = &http.Server{Handler: s.handler(h)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.srv.Serve(p)
	}()
	t.Cleanup(func() {
		s.srv.Close()
		<-served
	})
	return s
}

// conns is the number of connections the server accepted.
func (s *pipeServer) conns() int64 { return s.net.accepted.Load() }

// newPipeClient returns a client whose Transport retries with cfg over
// the pipe network of s, and checks when the test ends that every
// response body was closed.
func newPipeClient(t *testing.T, s *pipeServer, cfg retry.TransportConfig) (*http.Client, *retry.Transport) {
	t.Helper()
	c, rt, _ := trackedClient(t, &http.Transport{DialContext: s.net.dial}, cfg)
	return c, rt
}

// A sanity check of the fake network and the fake clock together: a
// handler that sleeps an hour answers exactly an hour later by the
// bubble's clock (and at once by the wall clock), and a refusing network
// refuses.
func TestPipeNetKeepsTheBubblesTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newPipeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) {
			time.Sleep(time.Hour)
			w.Write([]byte("late"))
		})
		c, _ := newPipeClient(t, s, quick())
		start := time.Now()
		code, body, err := get(t, c, context.Background(), s.URL)
		if err != nil || code != 200 || body != "late" {
			t.Fatalf("GET = %d %q %v, want 200 late", code, body, err)
		}
		if took := time.Since(start); took != time.Hour {
			t.Fatalf("the answer took %v in the bubble, want exactly 1h", took)
		}
		s.net.refusing.Store(true)
		cfg := quick()
		cfg.MaxAttempts = 1
		fresh, _ := newPipeClient(t, s, cfg) // no idle connection to reuse
		if _, _, err := get(t, fresh, context.Background(), s.URL); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("GET while refusing = %v, want ECONNREFUSED", err)
		}
	})
}
