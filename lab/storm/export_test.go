package storm

import (
	"context"
	"net"
	"sync"
)

// InMemory returns ctx carrying an in-memory network for Run and RunEach: the server accepts
// connections made with net.Pipe, which block on channels only. Inside a testing/synctest
// bubble a storm then runs in the bubble's virtual time: a request takes no time at all, each
// wait lasts exactly what the policy drew, and a run takes no real time for its outage.
func InMemory(ctx context.Context) context.Context {
	return context.WithValue(ctx, networkKey{}, network(func() (net.Listener, func(context.Context, string, string) (net.Conn, error), error) {
		l := &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
		return l, l.dial, nil
	}))
}

// pipeListener hands the server end of each dialled net.Pipe to Accept.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr is the in-memory server's address, as its URL names it.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "storm.invalid:80" }
