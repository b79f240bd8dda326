package overload

// This file is the whole model of the Overload lesson, written to be read:
// lesson 10's rules, tick by tick, with the queue as the lesson describes it
// (every entry, abandoned or not). Run gives exactly its results in memory
// that follows only the entries still waited for (the tests compare them).

import (
	"container/heap"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry/breaker"
)

// RunReference simulates c by the rules. Its memory grows with the queue.
func RunReference(c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	// Time advances in ticks; the budget and the breaker read a clock.
	tick, tickSec := 0, c.Tick.Seconds()
	nTicks, timeout, perSample := ticks(c.Duration, c.Tick), ticks(c.Timeout, c.Tick), int(c.Sample/c.Tick)
	dipStart, dipEnd := ticks(c.DipStart, c.Tick), ticks(c.DipEnd, c.Tick)
	now := func() time.Time { return origin.Add(time.Duration(tick) * c.Tick) }
	g := lcg.MustNew(c.Seed)  // every draw of the run; Validate checked the seed
	bud, brk := c.remedies(g) // the budget and the breaker, if c has them

	r := Result{Config: c, Ticks: nTicks}
	var p Point       // the sample being filled
	var queue []slot  // the server's FIFO queue, head first
	var abandoned int // queue[:abandoned] were given up on by their clients; the rest are waited for
	var pending pacedRetries
	var arrivals, good []int // per tick, to judge the recovery at the end

	// send makes attempt n of a request now. A retry must fit the budget and
	// every attempt pass the breaker, or its request fails unsent. A pacing
	// server with too long a backlog answers at once with a Retry-After.
	send := func(n int) {
		refused := n > 1 && bud != nil && !bud.AllowRetry(now())
		var permit breaker.Permit
		if !refused && brk != nil {
			var err error
			permit, err = brk.Allow(now())
			refused = err != nil
		}
		if refused {
			r.Refused, r.Failed, p.Refused = r.Refused+1, r.Failed+1, p.Refused+1
			return
		}
		r.Attempts++
		p.Offered++
		if c.Pacing != nil {
			backlog := time.Duration(float64(len(queue)) / c.Capacity * float64(time.Second))
			if backlog > c.Pacing.Above {
				r.Paced++
				permit.Failed(now())
				wait := backlog + time.Duration(g.Float64()*float64(c.Pacing.Jitter))
				if n >= c.MaxAttempts {
					r.Failed++
					return
				}
				heap.Push(&pending, pacedRetry{due: tick + max(1, ticks(wait, c.Tick)), attempt: n + 1})
				return
			}
		}
		queue = append(queue, slot{permit: permit, joined: tick, attempt: n})
	}

	nextArrival := poissonGap(c.Rate, g) // seconds
	carry := 0.0                         // the unused fraction of an entry of capacity
	var requestsAfter, attemptsAfter int
	for tick = 0; tick < nTicks; tick++ {
		if tick%perSample == 0 {
			p = Point{Start: time.Duration(tick) * c.Tick}
		}
		requests0, attempts0 := r.Requests, r.Attempts

		// A client waits at most Timeout for an attempt, then gives up on it
		// and sends a fresh one at once if it has attempts left. The entry
		// stays in the queue (at its head: entries age in queue order).
		for abandoned < len(queue) && queue[abandoned].joined <= tick-timeout {
			s := queue[abandoned]
			abandoned++
			s.permit.Failed(now())
			if s.attempt >= c.MaxAttempts {
				r.Failed++
			} else {
				send(s.attempt + 1)
			}
		}
		for pending.Len() > 0 && pending[0].due <= tick { // paced clients due back now
			send(heap.Pop(&pending).(pacedRetry).attempt)
		}
		// New requests arrive at random, as a Poisson process.
		n := 0
		for nextArrival < float64(tick+1)*tickSec {
			n++
			nextArrival += poissonGap(c.Rate, g)
		}
		r.Requests += n
		p.Arrivals += float64(n)
		if bud != nil {
			bud.RecordRequests(now(), n)
		}
		for range n {
			send(1)
		}

		// Each tick the server serves entries from the head, up to capacity
		// (fractions carry over): an abandoned one is served for nobody.
		capacity := c.Capacity * tickSec
		if tick >= dipStart && tick < dipEnd {
			capacity *= c.DipCapacity
			p.Dip = true
		}
		p.Capacity += capacity
		served := int(capacity + carry)
		carry = capacity + carry - float64(served)
		served = min(served, len(queue))
		wasted := min(served, abandoned)
		for _, s := range queue[wasted:served] {
			s.permit.Succeeded(now())
		}
		queue, abandoned = queue[served:], abandoned-wasted
		if len(queue) == 0 {
			carry = 0 // an idle server cannot bank capacity
		}
		r.Succeeded += served - wasted
		r.Wasted += wasted
		p.Goodput += float64(served - wasted)
		p.Wasted += float64(wasted)

		arrivals, good = append(arrivals, n), append(good, served-wasted)
		// The queue has drained at the first tick from the dip's end on
		// that ends with at most a tick's capacity queued.
		if tick >= dipEnd && !r.Drained && float64(len(queue)) <= c.Capacity*tickSec {
			r.Drained, r.DrainedAfter = true, time.Duration(tick-dipEnd)*c.Tick
		}
		if tick >= dipEnd {
			requestsAfter += r.Requests - requests0
			attemptsAfter += r.Attempts - attempts0
		}
		if (tick+1)%perSample == 0 || tick+1 == nTicks {
			d := float64(tick%perSample+1) * tickSec
			p.Arrivals, p.Offered, p.Goodput, p.Wasted, p.Refused, p.Capacity = p.Arrivals/d, p.Offered/d, p.Goodput/d, p.Wasted/d, p.Refused/d, p.Capacity/d
			p.Queue = len(queue)
			r.Timeline = append(r.Timeline, p)
		}
	}

	r.FinalQueue = len(queue)
	r.InFlight = pending.Len() + len(queue) - abandoned
	r.Amplification = ratio(r.Attempts, r.Requests)
	r.AmplificationAfterDip = ratio(attemptsAfter, requestsAfter)
	// Goodput is back from the first tick from which every RecoveryWindow
	// to the end serves RecoveryFraction of the requests arriving in it.
	w := max(1, ticks(RecoveryWindow, c.Tick))
	for j := nTicks - w; j >= dipEnd; j-- {
		var in, out int
		for k := j; k < j+w; k++ {
			in, out = in+arrivals[k], out+good[k]
		}
		if float64(out) < RecoveryFraction*float64(in) {
			break
		}
		r.Recovered, r.RecoveredAfter = true, time.Duration(j-dipEnd)*c.Tick
	}
	return r, nil
}

// A slot is one attempt in the server's queue.
type slot struct {
	permit  breaker.Permit
	joined  int // the tick it joined the queue
	attempt int // 1 for a request's first attempt
}

// poissonGap draws the time to the next arrival of a Poisson process with
// the given rate: an exponential variate, in seconds (+Inf for rate 0).
func poissonGap(rate float64, g *lcg.LCG) float64 {
	if rate == 0 {
		return math.Inf(1)
	}
	return -math.Log(1-g.Float64()) / rate
}

// pacedRetries is a min-heap (container/heap) of the attempts clients will
// send after a Retry-After, by the tick they are due; of several due at
// the same tick it hands them out in its own order, which the seed fixes.
type pacedRetries []pacedRetry

type pacedRetry struct{ due, attempt int }

func (h pacedRetries) Len() int           { return len(h) }
func (h pacedRetries) Less(i, j int) bool { return h[i].due < h[j].due }
func (h pacedRetries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pacedRetries) Push(x any)        { *h = append(*h, x.(pacedRetry)) }
func (h *pacedRetries) Pop() any          { x := (*h)[len(*h)-1]; *h = (*h)[:len(*h)-1]; return x }
