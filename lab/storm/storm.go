// Package storm replays the retry storm of the Backoff Lab lessons over
// real sockets: a local HTTP server fails every request for an outage (503),
// then answers normally, while a cohort of independent clients, each with
// its own http.Client and retry.Transport, tries to get one answer each.
// The server records when every request arrived, so the arrival histogram at
// 10 ms resolution shows what the clients' retry policy did to it. A server
// with a Capacity per slot also sheds what a synchronised wave brings beyond
// it, as a server still warming up after a restart would.
//
// All clients send their first request together: the outage is the shared
// failure that synchronises them, whatever their policy. Peaks are therefore
// measured over the later arrivals only (the retries), which are the part a
// policy controls. Each client opens its connection before the run, with a
// request the server does not record, as a running service has its
// connections open when an outage begins; so the first requests fail
// together instead of queueing behind hundreds of TCP handshakes.
//
// Each client's draws come from generators seeded with Config.Seed and the
// client's number, so two runs with the same Config make the same draws.
// Their timing still differs by the few milliseconds the network and the
// scheduler add, so arrival times, peaks and recovery times vary a little
// from run to run.
//
// Everything runs in real time: a run lasts as long as its slowest client.
package storm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// RetryDefaults names the run whose clients use package retry's defaults
// (full jitter, a 10 % retry budget, a per-host breaker), with the attempt
// limit raised to Config.Attempts so that a client can outlast the outage.
// When the breaker refuses, the client waits until the breaker's jittered
// open time ends before asking again. (The failure that opens the breaker
// ends the call at once, and the client waits from there.) Every other
// policy a Config names is a lab/schedule name, run alone: that schedule's
// waits, without budget or breaker.
const RetryDefaults = "retry-defaults"

// Policies returns the names of the policies of lesson 11's storm, in its
// order: exponential backoff without jitter (what go-retryablehttp does by
// default), full jitter alone, and package retry's defaults. A storm names
// its policy (Config.Policy) and takes the schedule's parameters from its
// Config, so its lineup is names, not schedule.Named values.
func Policies() []string {
	return []string{schedule.NameExponential, schedule.NameFull, RetryDefaults}
}

// CheckPolicy reports whether Config.Policy accepts name: RetryDefaults or
// one of schedule.Names(). Its error lists them.
func CheckPolicy(name string) error {
	if name == RetryDefaults || schedule.CheckName(name) == nil {
		return nil
	}
	return fmt.Errorf("storm: unknown policy %q: want one of %s, %s", name, strings.Join(schedule.Names(), ", "), RetryDefaults)
}

// The lesson's parameters (Lesson), and the limits Validate applies.
const (
	DefaultClients  = 200
	DefaultOutage   = 3 * time.Second
	DefaultAttempts = 20
	DefaultDeadline = 15 * time.Second
	DefaultSlot     = 10 * time.Millisecond

	MaxClients  = 5000
	MaxOutage   = time.Minute
	MaxAttempts = 1000
	MaxDeadline = 10 * time.Minute
)

// Uncapped, as Config.Cap, leaves a schedule policy without a cap: the
// zero Cap, as in package retry.
const Uncapped time.Duration = 0

// Config describes one run. Start from Lesson, which sets every field, and
// change one with a With method: as in every model of the lab, a zero field
// means zero, none or off, never a default, and Validate names a field out
// of its range.
type Config struct {
	// Policy is RetryDefaults or one of schedule.Names() (see CheckPolicy).
	Policy string
	// Clients is the size of the cohort, in [1, MaxClients].
	Clients int
	// Outage is how long the server fails every request, from the moment
	// the clients send their first requests, in (0, MaxOutage].
	Outage time.Duration
	// Attempts is each call's attempt limit, in [1, MaxAttempts].
	Attempts int
	// Deadline is each client's deadline for its answer, in
	// (0, MaxDeadline].
	Deadline time.Duration
	// Base and Cap are the parameters of a schedule policy: Base > 0, and
	// Cap 0 (Uncapped) or at least Base. RetryDefaults ignores them but
	// checks them as full jitter's.
	Base, Cap time.Duration
	// Slot is the histogram resolution, in (0, 1s].
	Slot time.Duration
	// Capacity, if positive, is the most requests the server answers per
	// Slot-wide slot after the outage, like a server still warming up; the
	// rest of a slot's requests get 503 too. 0 means unlimited. In
	// [0, 1e6].
	Capacity int
	// Seed seeds every client's generators (client i draws its waits from
	// a PCG seeded with Seed and i, and its breaker's open times from
	// another), so no two clients share a sequence and a run's draws
	// repeat. It is in [0, 2³¹), as every model's seed.
	Seed int64
	// Backoff, if not nil, replaces RetryDefaults' wait schedule,
	// retry.DefaultPolicy, for a run that tunes the package instead of
	// taking its defaults. The other policies ignore it.
	Backoff retry.Policy
	// Breaker sets RetryDefaults' per-client circuit breaker; the
	// zero Config is package retry's default breaker (5 consecutive
	// failures open it for 5 to 7.5 s). A nil Rand is replaced by the
	// client's own seeded generator; OnStateChange is kept. The other
	// policies have no breaker and ignore it.
	Breaker breaker.Config
}

// Validate reports the first field of c that is out of range, naming it
// and the allowed range; nil means c can run.
func (c Config) Validate() error {
	if err := CheckPolicy(c.Policy); err != nil {
		return err
	}
	switch {
	case c.Clients < 1 || c.Clients > MaxClients:
		return fmt.Errorf("storm: clients %d out of range: want 1 <= clients <= %d", c.Clients, MaxClients)
	case c.Outage <= 0 || c.Outage > MaxOutage:
		return fmt.Errorf("storm: outage %v out of range: want 0 < outage <= %v", c.Outage, MaxOutage)
	case c.Attempts < 1 || c.Attempts > MaxAttempts:
		return fmt.Errorf("storm: attempts %d out of range: want 1 <= attempts <= %d", c.Attempts, MaxAttempts)
	case c.Deadline <= 0 || c.Deadline > MaxDeadline:
		return fmt.Errorf("storm: deadline %v out of range: want 0 < deadline <= %v", c.Deadline, MaxDeadline)
	case c.Slot <= 0 || c.Slot > time.Second:
		return fmt.Errorf("storm: slot %v out of range: want 0 < slot <= 1s", c.Slot)
	case c.Capacity < 0 || c.Capacity > 1e6:
		return fmt.Errorf("storm: capacity %d out of range: want 0 <= capacity <= 1000000 (0 means unlimited)", c.Capacity)
	case c.Seed < 0 || c.Seed >= lcg.Modulus:
		return fmt.Errorf("storm: seed %d out of range: want 0 <= seed < 2^31", c.Seed)
	}
	if _, err := c.schedule(); err != nil {
		return fmt.Errorf("storm: %w", err)
	}
	if v, ok := c.Backoff.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("storm: backoff: %w", err)
		}
	}
	if err := c.Breaker.Validate(); err != nil {
		return fmt.Errorf("storm: %w", err)
	}
	return nil
}

// schedule returns the schedule policy c.Policy names, with Base and Cap;
// for RetryDefaults, which ignores them, it checks them as full jitter's.
func (c Config) schedule() (schedule.Policy, error) {
	name := c.Policy
	if name == RetryDefaults {
		name = schedule.NameFull
	}
	return schedule.New(schedule.Config{Name: name, Base: c.Base, Cap: c.Cap})
}

// Result is what one run measured. Times are offsets from the moment the
// clients sent their first requests.
type Result struct {
	// Config is the run's configuration.
	Config Config
	// Arrivals is when each request reached the server, in arrival order.
	Arrivals []time.Duration
	// Retries is when each request after a client's first arrived.
	Retries []time.Duration
	// Peak is the fullest Slot-wide slot of Retries.
	Peak metrics.Peak
	// CV is the coefficient of variation of the gaps between retries: near 0
	// (or far above 1, in bursts) when clients retry in phase, near 1 when
	// they are spread out. It is 0 when there are fewer than two retries.
	CV float64
	// Succeeded and GaveUp count the clients that got their answer and
	// those that did not before their deadline or their policy's limits.
	Succeeded, GaveUp int
	// Done is when the last client finished, successfully or not.
	Done time.Duration
	// Recovered reports whether every client got its answer, and
	// RecoveredAt when the last one did.
	Recovered   bool
	RecoveredAt time.Duration
}

// Histogram counts every arrival (first attempts included) in Slot-wide
// slots from the start of the run.
func (r Result) Histogram() metrics.Histogram {
	h, _ := metrics.Count(r.Arrivals, r.Config.Slot)
	return h
}

// clientHeader names the client on each request, so the server can tell a
// client's first request from its retries.
const clientHeader = "X-Storm-Client"

// Run runs one storm and returns what it measured. It stops early if ctx
// ends, and returns context.Cause(ctx).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if err := CheckDescriptors(cfg.Clients); err != nil {
		return Result{}, err
	}
	var (
		mu       sync.Mutex
		start    time.Time
		arrivals []time.Duration
		retries  []time.Duration
		seen     = make([]bool, cfg.Clients)
		load     = map[time.Duration]int{} // requests per slot after the outage
	)
	ln, dial, err := listen(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("storm: starting the server: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == warmPath {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		mu.Lock()
		t := time.Since(start)
		arrivals = append(arrivals, t)
		if i, err := strconv.Atoi(r.Header.Get(clientHeader)); err == nil && i >= 0 && i < len(seen) {
			if seen[i] {
				retries = append(retries, t)
			}
			seen[i] = true
		}
		shed := false
		if t >= cfg.Outage && cfg.Capacity > 0 {
			load[t/cfg.Slot]++
			shed = load[t/cfg.Slot] > cfg.Capacity
		}
		mu.Unlock()
		if t < cfg.Outage || shed {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()

	clients := make([]*client, cfg.Clients)
	for i := range clients {
		if clients[i], err = newClient(cfg, i, url); err != nil {
			return Result{}, err
		}
		clients[i].base.DialContext = dial
		defer clients[i].base.CloseIdleConnections()
	}
	if err := warm(ctx, clients, url+warmPath, warmTimeout(cfg.Clients)); err != nil {
		return Result{}, err
	}
	// Every client is built and waiting; start them together.
	mu.Lock()
	start = time.Now()
	mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.run(ctx, start) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return Result{}, context.Cause(ctx)
	}

	mu.Lock()
	defer mu.Unlock()
	res := Result{Config: cfg, Arrivals: arrivals, Retries: retries, Recovered: true}
	for _, c := range clients {
		res.Done = max(res.Done, c.done)
		if c.ok {
			res.Succeeded++
			res.RecoveredAt = max(res.RecoveredAt, c.done)
		} else {
			res.GaveUp++
			res.Recovered = false
		}
	}
	if !res.Recovered {
		res.RecoveredAt = 0
	}
	h, err := metrics.Count(retries, cfg.Slot)
	if err != nil {
		return Result{}, err
	}
	res.Peak = h.Peak()
	if cv, err := metrics.InterArrivalCV(retries); err == nil {
		res.CV = cv
	}
	return res, nil
}

// listen returns the listener a run's server accepts on and the dial function its clients
// connect with (nil: the default dialer): loopback TCP. The package's tests pass a context
// that carries an in-memory network instead (see export_test.go), so that a storm runs in
// testing/synctest's virtual time, where every wait is exact and takes no real time.
func listen(ctx context.Context) (net.Listener, func(ctx context.Context, network, addr string) (net.Conn, error), error) {
	if n, ok := ctx.Value(networkKey{}).(network); ok {
		return n()
	}
	lab.NoteInMemoryNetwork()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	return ln, nil, err
}

// A network makes a listener and the dial function that reaches it.
type network func() (net.Listener, func(ctx context.Context, network, addr string) (net.Conn, error), error)

// networkKey is the context key of a run's network.
type networkKey struct{}

// client is one member of the cohort.
type client struct {
	id       int
	url      string
	deadline time.Duration
	http     *http.Client
	t        *retry.Transport
	base     *http.Transport
	waitOpen bool // wait out an open breaker and ask again
	ok       bool
	done     time.Duration
}

func newClient(cfg Config, i int, url string) (*client, error) {
	base := &http.Transport{}
	rc := retry.Config{MaxAttempts: cfg.Attempts, Rand: rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(i)))}
	if cfg.Policy != RetryDefaults {
		p, err := cfg.schedule()
		if err != nil {
			return nil, err
		}
		rc.Policy = p
		rc.DisableBudget, rc.DisableBreaker = true, true
	} else {
		rc.Policy = cfg.Backoff // nil: retry.DefaultPolicy
		// One breaker per client, as a default Transport would make for
		// its one host, but drawing its open times from a seeded stream of
		// the client's own, so that a run's draws repeat.
		bc := cfg.Breaker
		if bc.Rand == nil {
			bc.Rand = rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(i)|breakerStream))
		}
		b, err := breaker.New(bc)
		if err != nil {
			return nil, err
		}
		rc.Breaker = b
	}
	t, err := retry.NewTransport(retry.TransportConfig{Config: rc, Base: base})
	if err != nil {
		return nil, err
	}
	return &client{id: i, url: url, deadline: cfg.Deadline, http: &http.Client{Transport: t}, t: t, base: base,
		waitOpen: cfg.Policy == RetryDefaults}, nil
}

// warmPath is the path of the request that opens each client's connection
// before the run; the server answers it without recording it.
const warmPath = "/warm"

// warmTimeout bounds the warm-up of n clients' connections: generous for
// a loaded machine, but a run whose connections cannot open (a descriptor
// limit CheckDescriptors could not see, a firewall) fails instead of
// hanging.
func warmTimeout(n int) time.Duration { return 10*time.Second + time.Duration(n)*2*time.Millisecond }

// warm opens every client's connection to the server, concurrently and
// below the retry layer, as a running service would have its connections
// open when an outage begins. Without it the first requests would queue
// behind 200 TCP handshakes, which blurs the moment they fail together.
// It gives up after timeout, saying how many connections it opened.
func warm(parent context.Context, clients []*client, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	errs := make([]error, len(clients))
	var opened atomic.Int64
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				errs[i] = err
				return
			}
			resp, err := c.base.RoundTrip(req)
			if err != nil {
				errs[i] = err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			opened.Add(1)
		})
	}
	wg.Wait()
	if i := slices.IndexFunc(errs, func(e error) bool { return e != nil }); i >= 0 {
		first := fmt.Errorf("client %d: %w", i, errs[i])
		if parent.Err() != nil {
			return context.Cause(parent)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("storm: warm-up: opened %d of %d client connections within %v (open-file limit %s): %w",
				opened.Load(), len(clients), timeout, describeLimit(), first)
		}
		return fmt.Errorf("storm: warm-up: opened %d of %d client connections: %w", opened.Load(), len(clients), first)
	}
	return nil
}

// breakerStream sets the top bit of a client's index to give its breaker a
// PCG stream apart from the one its waits come from.
const breakerStream = 1 << 63

// run asks for the client's answer until it gets it, its deadline passes
// or its policy gives up, and records the outcome.
func (c *client) run(ctx context.Context, start time.Time) {
	ctx, cancel := context.WithDeadline(ctx, start.Add(c.deadline))
	defer cancel()
	defer func() { c.done = time.Since(start) }()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
		if err != nil {
			return
		}
		req.Header.Set(clientHeader, strconv.Itoa(c.id))
		resp, err := c.http.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			c.ok = resp.StatusCode == http.StatusOK
			if c.ok || !c.waitOpen {
				return
			}
		}
		// The call gave up because the breaker is open: it refused the
		// first attempt (an ErrBreakerOpen error), or the last failure
		// opened it (the Transport returns that failed response). Come back
		// when its jittered open time ends, if that is before the deadline.
		b := c.t.Breaker(req.URL.Scheme, req.URL.Host)
		if !c.waitOpen || err != nil && !errors.Is(err, retry.ErrBreakerOpen) || b.State(time.Now()) != breaker.Open {
			return
		}
		until := b.OpenUntil()
		dl, _ := ctx.Deadline()
		if !until.Before(dl) {
			return
		}
		timer := time.NewTimer(time.Until(until))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return
		}
	}
}
