package contention

import (
	"math/bits"
	"time"
)

// event is one message in flight: it arrives at time at, for client. seq
// numbers messages in the order they were sent and breaks ties between
// messages due at the same instant, so the delivery order never depends on
// the heap's internal layout. What the message is and carries is the
// client's state: a client has exactly one message in flight at a time.
type event struct {
	at     time.Duration
	seq    uint64
	client int32
}

// before orders events by arrival time, then by sending order.
func (e *event) before(f *event) bool { return earlier(e, f) == 1 }

// earlier returns 1 if e is due before f (by arrival time, then sending
// order) and 0 if not, without a branch: (at, seq) compared as one 128-bit
// number, the borrow of the subtraction is the answer. A heap's comparisons
// are coin flips that a branch predictor cannot learn; this way they cost
// no mispredictions. Times are never negative.
func earlier(e, f *event) int {
	_, borrow := bits.Sub64(e.seq, f.seq, 0)
	_, borrow = bits.Sub64(uint64(e.at), uint64(f.at), borrow)
	return int(borrow)
}

// arity is the number of children of a node of the heap: four children of
// 24 bytes share one or two cache lines, and the heap is half as deep as a
// binary one.
const arity = 4

// eventQueue is a 4-ary min-heap of events, written out rather than built on
// container/heap so that it neither boxes events in interfaces nor
// allocates once warm. Nearly every delivery sends one new message, so the
// loop uses replaceMin (one sift instead of a pop and a push).
type eventQueue struct {
	items []event
	sent  uint64
}

func (q *eventQueue) reset()     { q.items, q.sent = q.items[:0], 0 }
func (q *eventQueue) len() int   { return len(q.items) }
func (q *eventQueue) min() event { return q.items[0] }

// stamp gives e the next sequence number.
func (q *eventQueue) stamp(e event) event {
	e.seq = q.sent
	q.sent++
	return e
}

// push adds e with the next sequence number.
func (q *eventQueue) push(e event) { q.insert(q.stamp(e)) }

// insert adds e as it is, sequence number included.
func (q *eventQueue) insert(e event) {
	q.items = append(q.items, e)
	q.up(len(q.items) - 1)
}

// replaceMin removes the earliest event and adds e. The queue must not be
// empty.
func (q *eventQueue) replaceMin(e event) {
	q.items[0] = q.stamp(e)
	q.down()
}

// dropMin removes the earliest event. The queue must not be empty.
func (q *eventQueue) dropMin() {
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items = q.items[:last]
	if last > 0 {
		q.down()
	}
}

// up moves the event at i towards the root until its parent is earlier.
func (q *eventQueue) up(i int) {
	h := q.items
	e := h[i]
	for i > 0 {
		p := (i - 1) / arity
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// down restores the heap after the root was replaced. It walks the hole at
// the root down along the earliest child to a leaf, then moves the displaced
// event up from there (Floyd's variant): a new message usually belongs near
// the bottom, so this saves comparing it on the way down. The earliest of
// four children is picked without branches.
func (q *eventQueue) down() {
	h := q.items
	n := len(h)
	e := h[0]
	i := 0
	for {
		c := arity*i + 1
		if c+arity > n {
			break
		}
		a := c + earlier(&h[c+1], &h[c])
		b := c + 2 + earlier(&h[c+3], &h[c+2])
		m := a + (b-a)*earlier(&h[b], &h[a])
		h[i] = h[m]
		i = m
	}
	if c := arity*i + 1; c < n { // a last, partial family
		m := c
		for k := c + 1; k < n; k++ {
			m += (k - m) * earlier(&h[k], &h[m])
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
	q.up(i)
}
