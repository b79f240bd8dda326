package zoo

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

const modGRPC = "google.golang.org/grpc"

// grpcRetryConfig is the service config of grpc-go's retry example
// (examples/features/retry): up to 4 attempts on UNAVAILABLE, waits from
// 100 ms, ×2, max 1 s.
const grpcRetryConfig = `{"methodConfig": [{"name": [{"service": "grpc.health.v1.Health"}],
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s",
    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`

// grpcRetryFix allows the most attempts gRPC permits (5) and waits long
// enough between them to outlast a 10 s outage.
const grpcRetryFix = `{"methodConfig": [{"name": [{"service": "grpc.health.v1.Health"}],
  "retryPolicy": {"maxAttempts": 5, "initialBackoff": "1s", "maxBackoff": "10s",
    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`

// GRPCEntries returns grpc-go's two retry mechanisms, run over in-memory
// connections (net.Pipe) inside the bubble: the RPC retry policy of a service
// config, with 1000 concurrent RPCs on one channel as a service makes them,
// and the connection backoff, with one channel per client redialling a
// server that refuses connections during the outage. Both draw their jitter
// from math/rand/v2's global generator: not seeded.
func GRPCEntries() []Entry {
	return []Entry{
		{Name: "grpc-go retry policy", Module: modGRPC, Family: FamilyClients,
			Settings: "service config of its retry example",
			Details:  "maxAttempts 4 on UNAVAILABLE, initialBackoff 0.1 s, ×2, maxBackoff 1 s; each wait × uniform(0.8, 1.2); one channel for all",
			whole:    grpcRetryStorm(grpcRetryConfig)},
		{Name: "grpc-go connection backoff", Module: modGRPC, Family: FamilyClients,
			Settings: "backoff.DefaultConfig",
			Details:  "redials from 1 s, ×1.6, jitter ±0.2, max 120 s; one channel per client",
			whole:    grpcConnectStorm},
	}
}

// pipeListener is a net.Listener of in-memory connections. Made inside a
// bubble, its channels let the bubble's clock advance while the server waits.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial connects to the listener, or fails if it is closed.
func (l *pipeListener) dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// healthServer fails Check with UNAVAILABLE while send fails. The client's
// number travels in the request's Service field.
type healthServer struct {
	grpc_health_v1.UnimplementedHealthServer
	send func(i int) error
}

func (h healthServer) Check(_ context.Context, req *grpc_health_v1.HealthCheckRequest) (*grpc_health_v1.HealthCheckResponse, error) {
	i, err := strconv.Atoi(req.GetService())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, "service must be a client number")
	}
	if err := h.send(i); err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return &grpc_health_v1.HealthCheckResponse{Status: grpc_health_v1.HealthCheckResponse_SERVING}, nil
}

// grpcRetryFixes is the retry policy with settings that ride out the storm.
func grpcRetryFixes() []Entry {
	return []Entry{{Name: "grpc-go retry policy", Module: modGRPC, Family: FamilyClients, Fix: true,
		Settings: "maxAttempts 5, initialBackoff 1 s, maxBackoff 10 s",
		Details:  "the most attempts gRPC allows, with waits from 1 s, ×2, max 10 s, × uniform(0.8, 1.2)",
		whole:    grpcRetryStorm(grpcRetryFix)}}
}

// grpcRetryStorm sends one Check per client, all together, on one channel
// whose service config retries UNAVAILABLE.
func grpcRetryStorm(config string) func(Storm, func(int) error) {
	return func(s Storm, send func(int) error) { grpcRetry(s, send, config) }
}

func grpcRetry(s Storm, send func(i int) error, config string) {
	lis := newPipeListener()
	srv := grpc.NewServer()
	grpc_health_v1.RegisterHealthServer(srv, healthServer{send: send})
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient("passthrough:///zoo",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.dial(ctx) }),
		grpc.WithDefaultServiceConfig(config))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	client := grpc_health_v1.NewHealthClient(conn)
	// Connect first, as a running service has its channel open.
	conn.Connect()
	for st := conn.GetState(); st != connectivity.Ready; st = conn.GetState() {
		conn.WaitForStateChange(context.Background(), st)
	}
	var wg sync.WaitGroup
	for i := range s.Clients {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), Horizon)
			defer cancel()
			client.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: strconv.Itoa(i)})
		})
	}
	wg.Wait()
}

// grpcConnectStorm gives every client its own channel to a server that
// refuses connections during the outage: each refused dial counts as a
// request, and the channel's connection backoff decides when it redials.
func grpcConnectStorm(s Storm, send func(i int) error) {
	lis := newPipeListener()
	srv := grpc.NewServer()
	grpc_health_v1.RegisterHealthServer(srv, healthServer{send: func(int) error { return nil }})
	go srv.Serve(lis)
	defer srv.Stop()
	var wg sync.WaitGroup
	for i := range s.Clients {
		conn, err := grpc.NewClient("passthrough:///zoo",
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
				if err := send(i); err != nil {
					return nil, errors.New("connection refused")
				}
				return lis.dial(ctx)
			}))
		if err != nil {
			panic(err)
		}
		wg.Go(func() {
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), Horizon)
			defer cancel()
			conn.Connect()
			for st := conn.GetState(); st != connectivity.Ready; st = conn.GetState() {
				if !conn.WaitForStateChange(ctx, st) {
					return
				}
			}
		})
	}
	wg.Wait()
}
