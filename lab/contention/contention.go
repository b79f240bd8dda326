package contention

import (
	"fmt"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// Counting says which server calls a run counts as "calls".
type Counting int

const (
	// Writes counts write attempts only, as Brooker's simulator does.
	Writes Counting = iota
	// ReadsAndWrites counts every read and every write the server handles.
	ReadsAndWrites
)

// String returns "writes" or "reads+writes".
func (c Counting) String() string {
	switch c {
	case Writes:
		return "writes"
	case ReadsAndWrites:
		return "reads+writes"
	}
	return fmt.Sprintf("Counting(%d)", int(c))
}

// Policies returns the names of the five policies the lesson compares, in
// the order its tables and charts list them: retrying at once, then the
// four policies of Brooker's post. A contention run names its policy
// (Config.Policy) and takes its parameters from the Config (Base, Cap,
// FirstExponent), as Brooker's simulator does, so its lineup is names, not
// schedule.Named values.
func Policies() []string {
	return []string{schedule.NameImmediate, schedule.NameExponential, schedule.NameFull, schedule.NameEqual, schedule.NameDecorrelated}
}

// Limits on a Config. They keep every run finite and quick: a run makes at
// most Clients² writes, and simulated time cannot overflow.
const (
	MaxClients = 5000
	MaxBase    = time.Minute
	MaxCap     = time.Hour
	MaxNet     = time.Second
	MaxFirst   = 16
	MaxRuns    = 100000
)

// Config describes one experiment. Start from [Lesson] and change what you
// study with the With methods; Run checks every field.
type Config struct {
	// Clients is how many clients each update the row once, in [1, MaxClients].
	Clients int
	// Policy names the backoff: one of schedule.Names, such as
	// schedule.NameFull, or schedule.NameImmediate to retry at once.
	Policy string
	// Base is the policy's base wait, in (0, MaxBase].
	Base time.Duration
	// Cap bounds every wait, in [Base, MaxCap].
	Cap time.Duration
	// FirstExponent is the exponent n the policy gets for a client's first
	// retry, in [0, MaxFirst]; the k-th retry gets FirstExponent+k−1.
	// Brooker's simulator uses 1 (the first window is 2·base); package
	// schedule's own convention is 0 (the first window is base).
	FirstExponent int
	// Net is the mean one-way network delay, in [0, MaxNet].
	Net time.Duration
	// NetSD is the standard deviation of the network delay, in [0, MaxNet].
	// Each hop takes |Normal(Net, NetSD)|.
	NetSD time.Duration
	// Count selects what Result.Calls counts.
	Count Counting
	// Seed seeds the run's generator, in [0, 2³¹).
	Seed int64
}

// Lesson returns the parameters of Brooker's 2015 simulator with 100
// clients under full jitter: base 5 ms, cap 2 s, first window 2·base, hops
// of |Normal(10 ms, 2 ms)|, writes counted, and the lessons' default seed.
// Change what you study with the With methods.
func Lesson() Config {
	return Config{
		Clients:       100,
		Policy:        schedule.NameFull,
		Base:          5 * time.Millisecond,
		Cap:           2 * time.Second,
		FirstExponent: 1,
		Net:           10 * time.Millisecond,
		NetSD:         2 * time.Millisecond,
		Count:         Writes,
		Seed:          lcg.DefaultSeed,
	}
}

// WithClients returns c with n clients.
func (c Config) WithClients(n int) Config { c.Clients = n; return c }

// WithPolicy returns c with the named policy, one of schedule.Names.
func (c Config) WithPolicy(name string) Config { c.Policy = name; return c }

// WithSeed returns c with the given seed.
func (c Config) WithSeed(seed int64) Config { c.Seed = seed; return c }

// WithCap returns c with every wait capped at d.
func (c Config) WithCap(d time.Duration) Config { c.Cap = d; return c }

// WithNetSD returns c with hops whose standard deviation is sd.
func (c Config) WithNetSD(sd time.Duration) Config { c.NetSD = sd; return c }

// WithCount returns c counting k as its calls.
func (c Config) WithCount(k Counting) Config { c.Count = k; return c }

// WithWideSet returns c changed to the second documented parameter set: hops
// with a standard deviation of 4 ms rather than 2 ms (Brooker's post
// describes the network's spread as a "variance of 4ms"; his simulator uses
// a deviation of 2 ms), and reads and writes both counted as calls, as a
// server's request log would count them. The package documentation
// tabulates what it gives at 100 clients.
func (c Config) WithWideSet() Config {
	return c.WithNetSD(4 * time.Millisecond).WithCount(ReadsAndWrites)
}

// Validate reports the first parameter outside its range, naming it and the
// range allowed; nil means the Config can run.
func (c Config) Validate() error {
	_, err := c.policy()
	return err
}

// policy validates c and returns its backoff policy.
func (c Config) policy() (schedule.Policy, error) {
	switch {
	case c.Clients < 1 || c.Clients > MaxClients:
		return nil, fmt.Errorf("contention: Clients %d out of range: want 1 <= Clients <= %d", c.Clients, MaxClients)
	case c.Base <= 0 || c.Base > MaxBase:
		return nil, fmt.Errorf("contention: Base %v out of range: want 0 < Base <= %v", c.Base, MaxBase)
	case c.Cap < c.Base || c.Cap > MaxCap:
		return nil, fmt.Errorf("contention: Cap %v out of range: want Base (%v) <= Cap <= %v", c.Cap, c.Base, MaxCap)
	case c.FirstExponent < 0 || c.FirstExponent > MaxFirst:
		return nil, fmt.Errorf("contention: FirstExponent %d out of range: want 0 <= FirstExponent <= %d", c.FirstExponent, MaxFirst)
	case c.Net < 0 || c.Net > MaxNet:
		return nil, fmt.Errorf("contention: Net %v out of range: want 0 <= Net <= %v", c.Net, MaxNet)
	case c.NetSD < 0 || c.NetSD > MaxNet:
		return nil, fmt.Errorf("contention: NetSD %v out of range: want 0 <= NetSD <= %v", c.NetSD, MaxNet)
	case c.Count != Writes && c.Count != ReadsAndWrites:
		return nil, fmt.Errorf("contention: Count %d out of range: want Writes (0) or ReadsAndWrites (1)", int(c.Count))
	case c.Seed < 0 || c.Seed >= lcg.Modulus:
		return nil, fmt.Errorf("contention: Seed %d out of range: want 0 <= Seed < 2^31", c.Seed)
	}
	if err := schedule.CheckName(c.Policy); err != nil {
		return nil, fmt.Errorf("contention: Policy: %w", err)
	}
	p, err := schedule.New(schedule.Config{Name: c.Policy, Base: c.Base, Cap: c.Cap})
	if err != nil {
		return nil, fmt.Errorf("contention: Policy %s: %w", c.Policy, err)
	}
	return p, nil
}

// Result is what one run measured.
type Result struct {
	// Writes is how many writes the server handled, successful or not.
	Writes int
	// Reads is how many reads the server handled.
	Reads int
	// Calls is Writes, or Reads+Writes, as the Config's Count says.
	Calls int
	// Time is when the last client learned that its write had committed.
	Time time.Duration
	// Events is how many messages the simulation delivered.
	Events int
}

// Run simulates one experiment with a generator seeded with c.Seed.
func Run(c Config) (Result, error) {
	p, err := c.policy()
	if err != nil {
		return Result{}, err
	}
	var s sim
	return s.run(c, p, lcg.MustNew(c.Seed)), nil
}

// What a client's message in flight is. Only messages to the server are
// queued: the server's answer travels back in one hop, and what the client
// then does depends on nothing but its own state and the answer, so the
// simulation delivers the answer and sends the client's next message as
// soon as the server answers (the answer's arrival time is still the hop
// later, and still counts as a delivered message).
const (
	readAtServer  uint8 = iota // a client's read request arrives
	writeAtServer              // a conditional write arrives
)

// client is one client's retry state and its message in flight.
type client struct {
	failures int           // failed writes so far
	prev     time.Duration // the previous backoff wait
	version  int64         // the version read, which the write carries
	kind     uint8         // what the message in flight is
}

// sim holds the buffers of a simulation so repeated runs reuse them.
type sim struct {
	queue   calendar
	clients []client
	net     normal
}

// run simulates c with policy p, drawing from g.
func (s *sim) run(c Config, p schedule.Policy, g *lcg.LCG) Result {
	// A message to the server is due a round trip after the one before it
	// (plus any backoff): two hops.
	s.queue.reset(c.Clients, 2*c.Net, c.NetSD*3/2, c.Cap)
	s.clients = append(s.clients[:0], make([]client, c.Clients)...)
	s.net = normal{g: g, mean: float64(c.Net), sd: float64(c.NetSD)}
	hop := func() time.Duration { return time.Duration(math.Abs(s.net.draw())) }

	for i := range c.Clients {
		s.queue.push(int32(i), hop()) // readAtServer
	}
	var (
		r       Result
		version int64
	)
	for {
		id, at, ok := s.queue.pop()
		if !ok {
			break
		}
		r.Events += 2 // the message and the server's answer
		cl := &s.clients[id]
		back := at + hop() // when the answer reaches the client
		if cl.kind == readAtServer {
			r.Reads++
			cl.kind, cl.version = writeAtServer, version
			s.queue.push(id, back+hop())
			continue
		}
		r.Writes++
		if cl.version == version { // committed: this client is done
			version++
			r.Time = max(r.Time, back)
			continue
		}
		// The write failed: back off, then read again.
		cl.prev = p.Delay(c.FirstExponent+cl.failures, cl.prev, g)
		back += cl.prev
		cl.failures++
		cl.kind = readAtServer
		s.queue.push(id, back+hop())
	}
	r.Calls = r.Writes
	if c.Count == ReadsAndWrites {
		r.Calls += r.Reads
	}
	return r
}
