package contention

import (
	"math"
	"math/bits"
	"time"
)

// calendar is the simulation's queue of messages in flight: a calendar
// queue (Brown, 1988) of buckets of 2^shift ns over a sliding span of
// buckets, with a heap for the messages due beyond it (backoff waits, in
// the main). The bucket width follows the hops' spread divided by the
// number of clients, so a bucket holds about one message and delivering one
// costs a few instructions instead of a heap's coin-flip comparisons.
//
// Messages leave in exactly the heap's order, by arrival time and then by
// sending order: a bucket is a list in sending order, which is also arrival
// order unless a message due earlier joined it after a later one; only then
// is the bucket marked unsorted and searched for its earliest message.
//
// A client has exactly one message in flight, so the lists are threaded
// through per-client arrays and nothing is allocated once warm.
type calendar struct {
	shift      uint   // bucket width is 2^shift ns
	span       int64  // buckets in the ring, a power of two ≥ 64
	cur        int64  // no message in the ring is in an earlier bucket
	n          int    // messages in the ring
	sent       uint64 // messages sent so far, for the sending order
	head, tail []int32
	occupied   []uint64 // a bit per bucket that holds messages
	unsorted   []uint64 // a bit per bucket whose list is out of order

	// Per client: its message's arrival time and sending number, and the
	// next client in the same bucket (−1 for the last). One more entry, the
	// sentinel, stands in for an empty bucket's tail so that placing a
	// message needs no branch.
	at       []time.Duration
	seq      []uint64
	next     []int32
	sentinel int32

	far eventQueue // messages in buckets cur+span and later
}

// Limits on the ring: its span covers the hops' mean plus four deviations
// where it can, within maxSpan buckets.
const (
	minSpan = 64
	maxSpan = 1 << 16
)

// reset empties q for clients clients whose hops take |Normal(net, sd)|.
func (q *calendar) reset(clients int, net, sd time.Duration) {
	width := max(int64(sd)/int64(clients), 1)
	q.shift = uint(bits.Len64(uint64(width)) - 1)
	reach := (int64(net) + 4*int64(sd)) >> q.shift
	q.span = minSpan
	for q.span < reach && q.span < maxSpan {
		q.span <<= 1
	}
	if int64(len(q.head)) != q.span {
		q.head = make([]int32, q.span)
		q.tail = make([]int32, q.span)
		q.occupied = make([]uint64, q.span/64)
		q.unsorted = make([]uint64, q.span/64)
	} else {
		clear(q.occupied)
	}
	q.cur, q.n, q.sent = 0, 0, 0
	q.far.reset()
	q.at = grow(q.at, clients+1)
	q.seq = grow(q.seq, clients+1)
	q.next = grow(q.next, clients+1)
	q.sentinel = int32(clients)
	q.at[clients] = math.MinInt64 // no message is due before it
}

// bit returns 1 for true and 0 for false, without a branch.
func bit(b bool) uint64 {
	var n uint64
	if b {
		n = 1
	}
	return n
}

// grow returns s resized to n elements, reusing its array when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// push sends client's next message, due at at (not before the message last
// delivered).
func (q *calendar) push(client int32, at time.Duration) {
	seq := q.sent
	q.sent++
	if int64(at)>>q.shift-q.cur >= q.span {
		q.far.insert(event{at: at, seq: seq, client: client})
		return
	}
	q.place(client, at, seq)
}

// place puts a message into its bucket, which must lie in the ring. Whether
// the bucket was empty is a coin flip, so the two cases are merged with
// masks instead of a branch: an empty bucket's tail is the sentinel.
func (q *calendar) place(client int32, at time.Duration, seq uint64) {
	q.at[client], q.seq[client], q.next[client] = at, seq, -1
	s := int64(at) >> q.shift & (q.span - 1)
	w, b := s>>6, uint64(1)<<(s&63)
	occupied := bit(q.occupied[w]&b != 0)
	keep := -int32(occupied) // all ones if the bucket holds messages
	t := q.sentinel ^ (q.sentinel^q.tail[s])&keep
	q.head[s] ^= (q.head[s] ^ client) &^ keep
	q.next[t] = client
	// seq is the larger: only an earlier time breaks the order; an empty
	// bucket's order is restored.
	later := bit(at < q.at[t])
	q.unsorted[w] = q.unsorted[w]&^(b&^-occupied) | b&-(occupied&later)
	q.occupied[w] |= b
	q.tail[s] = client
	q.n++
}

// pop removes the earliest message and returns its client and arrival
// time, or ok false if nothing is in flight.
func (q *calendar) pop() (client int32, at time.Duration, ok bool) {
	if q.n == 0 {
		if q.far.len() == 0 {
			return 0, 0, false
		}
		q.advance(int64(q.far.items[0].at) >> q.shift)
	}
	if b := q.cur + q.ahead(); b != q.cur {
		q.advance(b)
	}
	s := q.cur & (q.span - 1)
	w, b := s>>6, uint64(1)<<(s&63)
	c := q.head[s]
	if q.unsorted[w]&b == 0 {
		q.head[s] = q.next[c]
	} else { // search the list for its earliest message and unlink it
		before, p := int32(-1), c
		for x := q.next[c]; x >= 0; p, x = x, q.next[x] {
			if q.at[x] < q.at[c] || q.at[x] == q.at[c] && q.seq[x] < q.seq[c] {
				before, c = p, x
			}
		}
		if before < 0 {
			q.head[s] = q.next[c]
		} else {
			q.next[before] = q.next[c]
			if q.tail[s] == c {
				q.tail[s] = before
			}
		}
	}
	q.occupied[w] &^= b & -uint64(uint32(q.head[s])>>31) // emptied: head is −1
	q.n--
	return c, q.at[c], true
}

// ahead returns how many buckets after cur the first occupied one is; the
// ring must not be empty.
func (q *calendar) ahead() int64 {
	s := q.cur & (q.span - 1)
	w, words := s>>6, q.span/64
	if m := q.occupied[w] >> (s & 63); m != 0 {
		return int64(bits.TrailingZeros64(m))
	}
	d := 64 - s&63
	for i := int64(1); i <= words; i++ {
		if m := q.occupied[(w+i)&(words-1)]; m != 0 {
			return d + int64(bits.TrailingZeros64(m))
		}
		d += 64
	}
	panic("contention: calendar ring is empty") // unreachable: n > 0
}

// advance moves cur to bucket b and brings the messages of the heap that
// now fall inside the ring into their buckets, in order.
func (q *calendar) advance(b int64) {
	q.cur = b
	for q.far.len() > 0 {
		e := &q.far.items[0]
		if int64(e.at)>>q.shift-b >= q.span {
			break
		}
		q.place(e.client, e.at, e.seq)
		q.far.dropMin()
	}
}
