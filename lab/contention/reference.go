package contention

// This file is the whole model of the Contention lesson, written to be
// read: its rules in the order lesson 09 states them, after the simulator in
// Marc Brooker's "Exponential Backoff And Jitter" (AWS Architecture Blog,
// 2015). Run, Repeat and Sweep give exactly its results, much faster (the
// package's tests compare the two on random configurations).

import (
	"container/heap"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/schedule"
)

// RunReference simulates one experiment by the rules, with a generator
// seeded with c.Seed. It is slower than Run, and meant to be read.
func RunReference(c Config) (Result, error) {
	p, err := c.policy() // Validate, and the backoff policy c names
	if err != nil {
		return Result{}, err
	}
	return reference(c, p, lcg.MustNew(c.Seed)), nil
}

// A message is on its way to the server: a client's read or its write.
type message struct {
	at      time.Duration // when it reaches the server
	sent    int           // the order it was sent in: of two messages due at once, the first sent arrives first
	client  int
	write   bool  // a write carrying version; otherwise a read
	version int64 // the version the client read
}

// reference runs c with policy p, drawing from g.
func reference(c Config, p schedule.Policy, g *lcg.LCG) Result {
	// Every crossing of the network, either way, takes |Normal(Net, NetSD)|.
	net := normal{g: g, mean: float64(c.Net), sd: float64(c.NetSD)}
	hop := func() time.Duration { return time.Duration(math.Abs(net.draw())) }

	// The messages in flight, delivered by arrival time.
	var inFlight queue
	send := func(m message) {
		m.sent = inFlight.sent
		inFlight.sent++
		heap.Push(&inFlight, m)
	}
	failures := make([]int, c.Clients)           // each client's failed writes so far
	lastWait := make([]time.Duration, c.Clients) // each client's last backoff

	// One row holds a value and a version. Each of N clients wants to
	// update it exactly once: it starts by reading it.
	var r Result
	version := int64(0)
	for i := range c.Clients {
		send(message{at: hop(), client: i})
	}
	for inFlight.Len() > 0 {
		m := heap.Pop(&inFlight).(message)
		// The server answers; the answer crosses the network back. What
		// the client then does depends only on the answer, so it is
		// settled here: the draws are the answer's hop, the backoff if
		// any, then the hop of the client's next message.
		answered := m.at + hop() // when the answer reaches the client
		r.Events += 2            // two messages delivered: this one and its answer
		switch {
		case !m.write:
			// 1. A read tells the client the current version; 2. it
			// writes the new value, tagged with that version.
			r.Reads++
			send(message{at: answered + hop(), client: m.client, write: true, version: version})
		case m.version == version:
			// The write is accepted: nobody committed since the read.
			// The client is done once it learns so.
			r.Writes++
			version++
			r.Time = max(r.Time, answered)
		default:
			// 3. The write is rejected: the client backs off by its
			// policy (the k-th retry gets exponent FirstExponent+k−1),
			// then starts again at step 1.
			r.Writes++
			i := m.client
			lastWait[i] = p.Delay(c.FirstExponent+failures[i], lastWait[i], g)
			failures[i]++
			send(message{at: answered + lastWait[i] + hop(), client: i})
		}
	}
	// Brooker counts writes only as calls.
	r.Calls = r.Writes
	if c.Count == ReadsAndWrites {
		r.Calls += r.Reads
	}
	return r
}

// queue is a min-heap of messages by arrival, then sending order
// (container/heap's interface).
type queue struct {
	items []message
	sent  int
}

func (q queue) Len() int { return len(q.items) }
func (q queue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	return a.at < b.at || a.at == b.at && a.sent < b.sent
}
func (q queue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *queue) Push(x any)   { q.items = append(q.items, x.(message)) }
func (q *queue) Pop() any {
	m := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return m
}
