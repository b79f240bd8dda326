package contention

import (
	"math"
	"math/bits"
	"time"
)

// calendar is the simulation's queue of messages in flight: a calendar
// queue (Brown, 1988) in two levels. Fine buckets of 2^shift ns, over a
// ring of span of them, hold the messages due soon; coarse buckets, each
// half a ring wide, hold the messages due later (backoff waits, in the
// main) until the ring reaches them; a heap holds the rare messages due
// beyond the coarse ring too. The fine bucket width follows the spread of
// a round trip divided by the number of clients, so a bucket holds about
// one message and delivering one costs a few instructions instead of a
// heap's coin-flip comparisons.
//
// Messages leave in exactly the heap's order, by arrival time and then by
// sending order: a bucket is a list in sending order, which is also arrival
// order unless a message due earlier (or at the same time but sent
// earlier, after a wait in a coarse bucket) joined it after a later one;
// only then is the bucket marked unsorted and searched for its earliest
// message.
//
// With cur the fine bucket the ring starts at and C = cur/half its coarse
// bucket (half = span/2), the ring holds every message whose coarse bucket
// is at most C+1, the coarse ring those whose coarse bucket is in
// [C+2, C+2+coarse), and the heap the rest.
//
// A client has exactly one message in flight, so the lists are threaded
// through per-client arrays and nothing is allocated once warm.
type calendar struct {
	shift      uint   // fine bucket width is 2^shift ns
	logHalf    uint   // a coarse bucket is 2^logHalf fine buckets
	span       int64  // fine buckets in the ring: two coarse buckets
	cur        int64  // no message in the ring is in an earlier bucket
	n          int    // messages in the ring
	sent       uint64 // messages sent so far, for the sending order
	head, tail []int32
	occupied   []uint64 // a bit per bucket that holds messages
	unsorted   []uint64 // a bit per bucket whose list is out of order

	coarse       int64 // coarse buckets in the coarse ring, a power of two ≥ 64
	nc           int   // messages in the coarse ring
	chead, ctail []int32
	coccupied    []uint64

	// Per client: its message's arrival time and sending number, and the
	// next client in the same bucket (−1 for the last). One more entry, the
	// sentinel, stands in for an empty bucket's tail so that placing a
	// message needs no branch.
	at       []time.Duration
	seq      []uint64
	next     []int32
	sentinel int32

	far eventQueue // messages beyond the coarse ring
}

// Limits on the rings. A coarse bucket, half the ring, spans at least one
// word of the ring's bitmap, so that pop may look for the next message in
// cur's word without crossing into another coarse bucket.
const (
	minSpan   = 128
	maxSpan   = 1 << 16
	minCoarse = 64
	maxCoarse = 1 << 12
)

// reset empties q for clients clients whose messages to the server are
// due a round trip of about Normal(rtt, sd) after the one before, plus
// backoff waits of up to wait.
//
// A fine bucket is about 4·sd/clients wide (measured best among 1, 4 and
// 16), so it holds a message now and then; the ring reaches four round
// trips (with their spread), so that the first, short backoff waits land in
// it directly instead of passing through a coarse bucket.
func (q *calendar) reset(clients int, rtt, sd, wait time.Duration) {
	width := max(4*int64(sd)/int64(clients), 1)
	q.shift = uint(bits.Len64(uint64(width)) - 1)
	reach := 4 * (int64(rtt) + 4*int64(sd)) >> q.shift
	q.span = minSpan
	for q.span < reach && q.span < maxSpan {
		q.span <<= 1
	}
	q.logHalf = uint(bits.TrailingZeros64(uint64(q.span))) - 1
	reach = (int64(rtt) + 4*int64(sd) + int64(wait)) >> q.shift >> q.logHalf
	q.coarse = minCoarse
	for q.coarse < reach && q.coarse < maxCoarse {
		q.coarse <<= 1
	}
	if int64(len(q.head)) != q.span {
		q.head = make([]int32, q.span)
		q.tail = make([]int32, q.span)
		q.occupied = make([]uint64, q.span/64)
		q.unsorted = make([]uint64, q.span/64)
	} else {
		clear(q.occupied)
	}
	if int64(len(q.chead)) != q.coarse {
		q.chead = make([]int32, q.coarse)
		q.ctail = make([]int32, q.coarse)
		q.coccupied = make([]uint64, q.coarse/64)
	} else {
		clear(q.coccupied)
	}
	q.cur, q.n, q.nc, q.sent = 0, 0, 0, 0
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
	if c := int64(at)>>q.shift>>q.logHalf - q.cur>>q.logHalf; c <= 1 { // coarse buckets ahead
		q.place(client, at, seq)
	} else {
		q.later(client, at, seq, c)
	}
}

// later puts a message due c ≥ 2 coarse buckets ahead into the coarse
// ring, or into the heap if it lies beyond that too.
func (q *calendar) later(client int32, at time.Duration, seq uint64, c int64) {
	if c-2 >= q.coarse {
		q.far.insert(event{at: at, seq: seq, client: client})
		return
	}
	q.at[client], q.seq[client], q.next[client] = at, seq, -1
	s := (int64(at) >> q.shift >> q.logHalf) & (q.coarse - 1)
	w, b := s>>6, uint64(1)<<(s&63)
	if q.coccupied[w]&b == 0 {
		q.coccupied[w] |= b
		q.chead[s] = client
	} else {
		q.next[q.ctail[s]] = client
	}
	q.ctail[s] = client
	q.nc++
}

// place puts a message into its bucket, which must lie in the ring. Whether
// the bucket was empty is a coin flip, so the two cases are merged with
// masks instead of a branch: an empty bucket's tail is the sentinel.
func (q *calendar) place(client int32, at time.Duration, seq uint64) {
	// The slices in locals: a store through one cannot then make the
	// compiler load q's fields again.
	ats, seqs, next, head, tail := q.at, q.seq, q.next, q.head, q.tail
	occ, uns := q.occupied, q.unsorted
	ats[client], seqs[client], next[client] = at, seq, -1
	s := int64(at) >> q.shift & (q.span - 1)
	w, b := s>>6, uint64(1)<<(s&63)
	occupied := bit(occ[w]&b != 0)
	keep := -int32(occupied) // all ones if the bucket holds messages
	t := q.sentinel ^ (q.sentinel^tail[s])&keep
	head[s] ^= (head[s] ^ client) &^ keep
	next[t] = client
	// Only a message due before the tail's, or due with it but sent
	// earlier, breaks the order; an empty bucket's order is restored.
	_, later := bits.Sub64(seq, seqs[t], 0)
	_, later = bits.Sub64(uint64(at), uint64(ats[t]), later)
	uns[w] = uns[w]&^(b&^-occupied) | b&-(occupied&later)
	occ[w] |= b
	tail[s] = client
	q.n++
}

// pop removes the earliest message and returns its client and arrival
// time, or ok false if nothing is in flight.
func (q *calendar) pop() (client int32, at time.Duration, ok bool) {
	if q.n == 0 && !q.refill() {
		return 0, 0, false
	}
	// The first occupied bucket from cur on, most often in cur's word of
	// the bitmap; the coarse ring and the heap have nothing to give until
	// cur reaches another coarse bucket.
	s := q.cur & (q.span - 1)
	if m := q.occupied[s>>6] >> (s & 63); m != 0 {
		s += int64(bits.TrailingZeros64(m))
		q.cur += int64(bits.TrailingZeros64(m))
	} else if b := q.cur + q.ahead(); b>>q.logHalf != q.cur>>q.logHalf {
		q.advance(b)
		s = b & (q.span - 1)
	} else {
		q.cur = b
		s = b & (q.span - 1)
	}
	w, b := s>>6, uint64(1)<<(s&63)
	c := q.head[s]
	next := q.next[c]
	if q.unsorted[w]&b != 0 { // search the list for its earliest message and unlink it
		before, p := int32(-1), c
		for x := next; x >= 0; p, x = x, q.next[x] {
			if q.at[x] < q.at[c] || q.at[x] == q.at[c] && q.seq[x] < q.seq[c] {
				before, c = p, x
			}
		}
		next = q.head[s]
		if before >= 0 {
			q.next[before] = q.next[c]
			if q.tail[s] == c {
				q.tail[s] = before
			}
		} else {
			next = q.next[c]
		}
	}
	q.head[s] = next
	q.occupied[w] &^= b & -uint64(uint32(next)>>31) // emptied: head is −1
	q.n--
	return c, q.at[c], true
}

// refill moves the ring on to the earliest message beyond it, when the
// ring is empty, and reports whether there was one.
func (q *calendar) refill() bool {
	if q.nc == 0 && q.far.len() == 0 {
		return false
	}
	target := int64(math.MaxInt64) // the coarse bucket to bring into the ring
	if q.far.len() > 0 {
		target = int64(q.far.items[0].at) >> q.shift >> q.logHalf
	}
	if q.nc > 0 {
		from := q.cur>>q.logHalf + 2
		target = min(target, from+q.coarseAhead(from))
	}
	q.advance(max(q.cur, (target-1)<<q.logHalf))
	return true
}

// coarseAhead returns how many coarse buckets after from the first
// occupied one is; the coarse ring must not be empty.
func (q *calendar) coarseAhead(from int64) int64 {
	return scan(q.coccupied, from&(q.coarse-1))
}

// ahead returns how many buckets after cur the first occupied one is; the
// ring must not be empty.
func (q *calendar) ahead() int64 {
	return scan(q.occupied, q.cur&(q.span-1))
}

// scan returns how many bits after bit s of the circular bitmap m the
// first set bit is; one must be set.
func scan(m []uint64, s int64) int64 {
	w, words := s>>6, int64(len(m))
	if x := m[w] >> (s & 63); x != 0 {
		return int64(bits.TrailingZeros64(x))
	}
	d := 64 - s&63
	for i := int64(1); i <= words; i++ {
		if x := m[(w+i)&(words-1)]; x != 0 {
			return d + int64(bits.TrailingZeros64(x))
		}
		d += 64
	}
	panic("contention: calendar ring is empty") // unreachable: n > 0
}

// advance moves cur to bucket b and brings the messages of the coarse ring
// and of the heap that now fall inside the ring into their buckets, in
// order.
func (q *calendar) advance(b int64) {
	from, to := q.cur>>q.logHalf+2, b>>q.logHalf+1 // coarse buckets that join the ring
	q.cur = b
	if q.nc > 0 {
		for c := from; c <= to && c < from+q.coarse; c++ {
			s := c & (q.coarse - 1)
			w, b := s>>6, uint64(1)<<(s&63)
			if q.coccupied[w]&b == 0 {
				continue
			}
			q.coccupied[w] &^= b
			for x := q.chead[s]; x >= 0; {
				next := q.next[x]
				q.place(x, q.at[x], q.seq[x])
				q.nc--
				x = next
			}
		}
	}
	for q.far.len() > 0 {
		e := &q.far.items[0]
		if int64(e.at)>>q.shift>>q.logHalf > to {
			break
		}
		q.place(e.client, e.at, e.seq)
		q.far.dropMin()
	}
}
