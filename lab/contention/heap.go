package contention

import "time"

// event is one message in flight: it arrives at time at. seq numbers
// messages in the order they were sent and breaks ties between messages due
// at the same instant, so the delivery order never depends on the heap's
// internal layout.
type event struct {
	at     time.Duration
	seq    uint64
	value  int64 // the version read or carried, or 1 for a committed write
	client int32
	kind   uint8
}

// before orders events by arrival time, then by sending order.
func (e *event) before(f *event) bool {
	return e.at < f.at || e.at == f.at && e.seq < f.seq
}

// eventQueue is a binary min-heap of events, written out rather than built
// on container/heap so that it neither boxes events in interfaces nor
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

// push adds e.
func (q *eventQueue) push(e event) {
	q.items = append(q.items, q.stamp(e))
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
		p := (i - 1) / 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// down restores the heap after the root was replaced. It walks the hole at
// the root down along the earlier child to a leaf, then moves the displaced
// event up from there (Floyd's variant): a new message usually belongs near
// the bottom, so this costs about one comparison per level instead of two.
func (q *eventQueue) down() {
	h := q.items
	n := len(h)
	e := h[0]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
	q.up(i)
}
