package cohort

import (
	"math/bits"
	"slices"
	"sync"
	"time"
)

// window is how many milliseconds ahead the calendar keeps in its buckets:
// every wait of the lesson's policies (at most the 3.2 s cap) fits, so the
// heap behind it only ever holds the rare longer waits.
const window = 1 << 12

// calendar is the simulator's event queue, made for schedules in whole
// milliseconds in which many clients call in the same millisecond: one
// bucket per millisecond over a sliding window [now, now+window), each a
// list of clients in client order (every client has at most one pending
// attempt), and a binary heap for the attempts further ahead. A bucket is
// handed out whole, in client order, as the millisecond loop would meet its
// clients, so a call costs O(1) however many clients share its millisecond.
// Clients added to a bucket from one earlier millisecond arrive in client
// order already and go at the list's end; a client that arrives out of
// order (from another millisecond) is put in its place by a walk from the
// list's head, and such buckets are small.
type calendar struct {
	now      int64               // no pending attempt is earlier
	buckets  [window]bucket      // valid only where occupied
	occupied [window / 64]uint64 // one bit per bucket
	pending  int                 // occupied buckets
	next     []int32             // the client after each client in its bucket, up to its tail
	far      queue               // attempts at or after now+window, as (time, client)

	// The run's other buffers, kept with the calendar for the next run.
	retries []int
	prev    []time.Duration
	ring    []int64
}

// bucket is a millisecond's list of clients, threaded through next: its
// first and its last client, side by side in one cache line.
type bucket struct{ head, tail int32 }

// calendars keeps a few calendars for reuse, so that a run allocates none
// once warm. (Not a sync.Pool, which a collection may empty: a run's
// allocations would then depend on when the collector ran.)
var calendars struct {
	sync.Mutex
	free []*calendar
}

// keptCalendars is how many calendars calendars keeps at most.
const keptCalendars = 8

// newCalendar returns an empty calendar for clients clients.
func newCalendar(clients int) *calendar {
	calendars.Lock()
	var q *calendar
	if n := len(calendars.free); n > 0 {
		q, calendars.free = calendars.free[n-1], calendars.free[:n-1]
	}
	calendars.Unlock()
	if q == nil {
		q = new(calendar)
	}
	clear(q.occupied[:])
	q.now, q.pending, q.far = 0, 0, q.far[:0]
	q.next = slices.Grow(q.next[:0], clients)[:clients]
	q.retries = zeroed(q.retries, clients)
	q.prev = zeroed(q.prev, clients)
	return q
}

// zeroed returns s resized to n zeros, reusing its array when it can.
func zeroed[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// free gives q back for reuse.
func (q *calendar) free() {
	calendars.Lock()
	if len(calendars.free) < keptCalendars {
		calendars.free = append(calendars.free, q)
	}
	calendars.Unlock()
}

// add schedules client's next attempt at t ≥ now.
func (q *calendar) add(t int64, client int32) {
	if t-q.now >= window {
		q.addFar(t, client)
		return
	}
	if !q.addNear(t, client) {
		q.insert(t, client)
	}
}

// addNear schedules client's next attempt at t in [now, now+window) and
// reports true, unless client comes before the last client of t's bucket:
// then it reports false, and insert must schedule it. It is small enough to
// be inlined into the simulator's loop.
func (q *calendar) addNear(t int64, client int32) bool {
	s := t & (window - 1)
	w, bit := s>>6, uint64(1)<<(s&63)
	b := &q.buckets[s]
	if q.occupied[w]&bit == 0 {
		q.occupied[w] |= bit
		b.head, b.tail = client, client
		q.pending++
		return true
	}
	if client < b.tail {
		return false
	}
	q.next[b.tail], b.tail = client, client
	return true
}

// insert schedules client's next attempt at t in [now, now+window) where t's
// bucket holds a client after it: in its place in the list, found by a walk
// from the list's head.
func (q *calendar) insert(t int64, client int32) {
	b := &q.buckets[t&(window-1)]
	if client < b.head {
		q.next[client], b.head = b.head, client
		return
	}
	c := b.head
	for q.next[c] < client { // stops before the tail, which comes after client
		c = q.next[c]
	}
	q.next[client], q.next[c] = q.next[c], client
}

// addFar schedules an attempt beyond the window, in the heap.
func (q *calendar) addFar(t int64, client int32) {
	q.far = append(q.far, event{t, client})
	q.far.up(len(q.far) - 1)
}

// take removes the earliest bucket before end and returns its time and the
// first and the last of its clients (the list is in client order), or ok false if no
// attempt is due before end. The client after c is q.next[c] (read it
// before adding c again), up to last.
func (q *calendar) take(end int64) (t int64, first, last int32, ok bool) {
	if q.pending == 0 {
		if len(q.far) == 0 || q.far[0].at >= end {
			return 0, 0, 0, false
		}
		q.advance(q.far[0].at)
	}
	// The next occupied bucket, most often in now's word of the bitmap.
	if s := q.now & (window - 1); q.occupied[s>>6]>>(s&63) != 0 {
		t = q.now + int64(bits.TrailingZeros64(q.occupied[s>>6]>>(s&63)))
	} else {
		t = q.now + q.ahead()
	}
	if t >= end {
		return 0, 0, 0, false
	}
	if len(q.far) > 0 {
		q.advance(t)
	} else {
		q.now = t
	}
	s := t & (window - 1)
	w, bit := s>>6, uint64(1)<<(s&63)
	q.occupied[w] &^= bit
	q.pending--
	first, last = q.buckets[s].head, q.buckets[s].tail
	return t, first, last, true
}

// ahead returns how far after now the first occupied bucket is; there must
// be one.
func (q *calendar) ahead() int64 {
	s := q.now & (window - 1)
	w := s >> 6
	if m := q.occupied[w] >> (s & 63); m != 0 {
		return int64(bits.TrailingZeros64(m))
	}
	d := 64 - s&63
	for i := int64(1); i <= window/64; i++ {
		if m := q.occupied[(w+i)&(window/64-1)]; m != 0 {
			return d + int64(bits.TrailingZeros64(m))
		}
		d += 64
	}
	panic("cohort: calendar has no occupied bucket") // unreachable: pending > 0
}

// advance moves now to t and brings the attempts from the heap that now
// fall inside the window into their buckets.
func (q *calendar) advance(t int64) {
	q.now = t
	for len(q.far) > 0 && q.far[0].at-t < window {
		e := q.far[0]
		q.far.pop()
		q.add(e.at, e.client)
	}
}
