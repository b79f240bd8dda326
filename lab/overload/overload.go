package overload

import (
	"container/heap"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/retry/breaker"
	"github.com/backofflab/backofflab/retry/budget"
)

// Point is the state of the system over one Sample of the timeline. Rates
// are per second, averaged over the sample.
type Point struct {
	// Start is when the sample begins.
	Start time.Duration
	// Arrivals is the rate of new requests.
	Arrivals float64
	// Offered is the rate of attempts reaching the server: first attempts
	// and retries, queued or answered with Retry-After.
	Offered float64
	// Goodput is the rate of entries served while their client still
	// waited: requests that succeeded.
	Goodput float64
	// Wasted is the rate of entries served after their client had given up.
	Wasted float64
	// Refused is the rate of attempts the client side did not send because
	// the budget or the breaker refused them.
	Refused float64
	// Capacity is the server's capacity in the sample.
	Capacity float64
	// Queue is the queue length at the end of the sample.
	Queue int
	// Dip reports whether the sample overlaps the capacity dip.
	Dip bool
}

// Result is what one run measured.
type Result struct {
	// Config is the setting that was run.
	Config Config
	// Timeline has one Point per Sample.
	Timeline []Point
	// Requests is the number of requests that arrived (first attempts,
	// whether or not the breaker let them through).
	Requests int
	// Attempts is the number of attempts that reached the server.
	Attempts int
	// Amplification is Attempts / Requests over the whole run (0 if no
	// request arrived).
	Amplification float64
	// AmplificationAfterDip is the same ratio counting only from DipEnd on.
	AmplificationAfterDip float64
	// Succeeded and Failed count requests by outcome, and InFlight those
	// still waiting for an answer or a Retry-After when the run ends:
	// Requests = Succeeded + Failed + InFlight.
	Succeeded, Failed, InFlight int
	// Wasted is the number of entries served after their client gave up.
	// Every attempt that reached the server was served (Succeeded or
	// Wasted), answered with Retry-After (Paced) or is still queued
	// (FinalQueue).
	Wasted int
	// Refused is the number of attempts the budget or breaker kept back.
	Refused int
	// Paced is the number of attempts answered with Retry-After.
	Paced int
	// Recovered reports whether goodput came back after the dip: from some
	// tick at or after DipEnd on, every RecoveryWindow-long stretch that
	// fits in the run served at least RecoveryFraction of the requests that
	// arrived in it.
	Recovered bool
	// RecoveredAfter is the time from DipEnd to that tick (0 if not
	// Recovered).
	RecoveredAfter time.Duration
	// Drained reports whether the queue, at some tick at or after DipEnd,
	// held no more than one tick's worth of capacity.
	Drained bool
	// DrainedAfter is the time from DipEnd to the first such tick (0 if not
	// Drained).
	DrainedAfter time.Duration
	// FinalQueue is the queue length at the end of the run.
	FinalQueue int
	// Ticks is the number of ticks simulated.
	Ticks int
}

// Recovery criterion; see Result.Recovered.
const (
	RecoveryWindow   = time.Second
	RecoveryFraction = 0.9
)

// entry is one attempt waiting in the server's queue whose client still
// waits for it.
type entry struct {
	permit  breaker.Permit
	enq     int32 // the tick it joined the queue
	attempt uint8 // 1 for a first attempt
}

// origin is the wall-clock instant simulated time 0 maps to, for the budget
// and the breaker, whose methods take a time.Time.
var origin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Run simulates c.
func Run(c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	s := newSim(c)
	s.run()
	s.res.Config = c
	return s.res, nil
}

// sim is the state of one run.
type sim struct {
	c   Config
	g   *lcg.LCG
	bud *budget.Budget
	brk *breaker.Breaker
	// The server's queue, in order: dead entries, which waited past the
	// timeout and whose clients gave up on them (the server still serves
	// them, as wasted work, but they need no memory beyond their count),
	// then live[first:], which still have a client waiting. Entries time
	// out in queue order, so the dead ones are always a prefix. Memory
	// follows the live entries, at most the last Timeout's attempts,
	// however long the run and however long the queue.
	dead    int
	live    []entry
	first   int
	pending pacedRetries
	tick    int
	now     time.Time
	res     Result

	nTicks, timeout, perSample int
	nextArrival                float64 // seconds
	carry                      float64 // unused fraction of capacity
	cur                        Point   // the sample being filled
	rec                        recovery
}

func newSim(c Config) *sim {
	s := &sim{
		c:         c,
		g:         lcg.MustNew(c.Seed),
		nTicks:    ticks(c.Duration, c.Tick),
		timeout:   ticks(c.Timeout, c.Tick),
		perSample: int(c.Sample / c.Tick),
	}
	s.bud, s.brk = c.remedies(s.g)
	s.rec = newRecovery(c, ticks(c.DipEnd, c.Tick))
	s.res.Timeline = make([]Point, 0, (s.nTicks+s.perSample-1)/s.perSample)
	s.nextArrival = poissonGap(s.c.Rate, s.g)
	return s
}

func (s *sim) run() {
	c := s.c
	tickSec := c.Tick.Seconds()
	dipStart, dipEnd := ticks(c.DipStart, c.Tick), ticks(c.DipEnd, c.Tick)
	var requestsAfter, attemptsAfter int
	for s.tick = 0; s.tick < s.nTicks; s.tick++ {
		k := s.tick
		s.now = origin.Add(time.Duration(k) * c.Tick)
		if k%s.perSample == 0 {
			s.cur = Point{Start: time.Duration(k) * c.Tick}
		}
		req0, att0 := s.res.Requests, s.res.Attempts

		s.expire()
		for len(s.pending) > 0 && s.pending[0].due <= k {
			r := heap.Pop(&s.pending).(pacedRetry)
			s.send(uint8(r.attempt))
		}
		n := 0
		end := float64(k+1) * tickSec
		for s.nextArrival < end {
			n++
			s.nextArrival += poissonGap(c.Rate, s.g)
		}
		s.res.Requests += n
		s.cur.Arrivals += float64(n)
		if s.bud != nil {
			s.bud.RecordRequests(s.now, n)
		}
		for range n {
			s.send(1)
		}

		capacity := c.Capacity * tickSec
		if k >= dipStart && k < dipEnd {
			capacity *= c.DipCapacity
			s.cur.Dip = true
		}
		s.cur.Capacity += capacity
		good := s.serve(capacity)

		s.rec.tick(k, n, good, s.queued())
		if k >= dipEnd {
			requestsAfter += s.res.Requests - req0
			attemptsAfter += s.res.Attempts - att0
		}
		if (k+1)%s.perSample == 0 || k+1 == s.nTicks {
			s.closeSample(k%s.perSample+1, tickSec)
		}
	}
	s.res.Ticks = s.nTicks
	s.res.FinalQueue = s.queued()
	s.res.InFlight = len(s.pending) + len(s.live) - s.first
	s.res.Amplification = ratio(s.res.Attempts, s.res.Requests)
	s.res.AmplificationAfterDip = ratio(attemptsAfter, requestsAfter)
	s.rec.result(&s.res)
}

// queued returns the queue's length, dead entries included.
func (s *sim) queued() int { return s.dead + len(s.live) - s.first }

// closeSample turns the sample's counts into rates and appends it.
func (s *sim) closeSample(nTicks int, tickSec float64) {
	d := float64(nTicks) * tickSec
	p := s.cur
	p.Arrivals /= d
	p.Offered /= d
	p.Goodput /= d
	p.Wasted /= d
	p.Refused /= d
	p.Capacity /= d
	p.Queue = s.queued()
	s.res.Timeline = append(s.res.Timeline, p)
}

// expire lets every client whose attempt has waited Timeout give up on it,
// and retry if it may. Entries time out in queue order, so the ones that
// have are at the front of the live entries; they become dead.
func (s *sim) expire() {
	for s.first < len(s.live) && int(s.live[s.first].enq) <= s.tick-s.timeout {
		e := s.live[s.first]
		s.first++
		s.dead++
		e.permit.Failed(s.now)
		s.retryOrFail(e.attempt)
	}
}

// retryOrFail sends the next attempt of a request whose attempt number
// attempt failed, or counts the request as failed if it has none left.
func (s *sim) retryOrFail(attempt uint8) {
	if int(attempt) >= s.c.MaxAttempts {
		s.res.Failed++
		return
	}
	s.send(attempt + 1)
}

// send makes attempt number attempt of a request at the current tick: it
// passes the budget (a retry only) and the breaker, then reaches the
// server, which queues it or answers with Retry-After. The budget comes
// first so that every permit the breaker issues is for an attempt that is
// sent and whose outcome is reported.
func (s *sim) send(attempt uint8) {
	if attempt > 1 && s.bud != nil && !s.bud.AllowRetry(s.now) {
		s.refuse()
		return
	}
	var permit breaker.Permit
	if s.brk != nil {
		p, err := s.brk.Allow(s.now)
		if err != nil {
			s.refuse()
			return
		}
		permit = p
	}
	s.res.Attempts++
	s.cur.Offered++
	if p := s.c.Pacing; p != nil {
		backlog := time.Duration(float64(s.queued()) / s.c.Capacity * float64(time.Second))
		if backlog > p.Above {
			s.res.Paced++
			permit.Failed(s.now)
			wait := backlog + time.Duration(s.g.Float64()*float64(p.Jitter))
			if int(attempt) >= s.c.MaxAttempts {
				s.res.Failed++
				return
			}
			heap.Push(&s.pending, pacedRetry{due: s.tick + max(1, ticks(wait, s.c.Tick)), attempt: int(attempt) + 1})
			return
		}
	}
	s.live = append(s.live, entry{permit: permit, enq: int32(s.tick), attempt: attempt})
}

// refuse counts a request failed because its attempt was not sent.
func (s *sim) refuse() {
	s.res.Refused++
	s.res.Failed++
	s.cur.Refused++
}

// serve spends one tick's capacity (plus the fraction carried over) on the
// head of the queue, and returns how many of the entries served had a
// client still waiting.
func (s *sim) serve(capacity float64) int {
	avail := capacity + s.carry
	n := int(avail)
	s.carry = avail - float64(n)
	n = min(n, s.queued())
	wasted := min(n, s.dead)
	s.dead -= wasted
	good := n - wasted
	for _, e := range s.live[s.first : s.first+good] {
		e.permit.Succeeded(s.now)
	}
	s.first += good
	s.res.Succeeded += good
	s.res.Wasted += wasted
	s.cur.Goodput += float64(good)
	s.cur.Wasted += float64(wasted)
	if s.queued() == 0 {
		s.carry = 0 // an idle server cannot bank capacity
	}
	if s.first > 1024 && s.first > len(s.live)/2 {
		m := copy(s.live, s.live[s.first:])
		s.live = s.live[:m]
		s.first = 0
	}
	return good
}

// recovery measures Drained and Recovered as the run goes, from the last
// RecoveryWindow of ticks only.
type recovery struct {
	dipEnd, w       int
	perTick         float64 // the capacity of one tick, in requests
	arrivals, good  []int   // the last w ticks', by tick modulo w
	sumArr, sumGood int     // their sums
	drained, streak int     // the first drained tick and the first window of the last run of good ones, −1 if none
	tickDur         time.Duration
}

func newRecovery(c Config, dipEnd int) recovery {
	w := max(1, ticks(RecoveryWindow, c.Tick))
	return recovery{
		dipEnd: dipEnd, w: w, perTick: c.Capacity * c.Tick.Seconds(),
		arrivals: make([]int, w), good: make([]int, w),
		drained: -1, streak: -1, tickDur: c.Tick,
	}
}

// tick records tick k's arrivals, goodput and final queue length. The
// queue has drained at the first tick at or after DipEnd that ends with no
// more than one tick's capacity queued. The window of w ticks from j is
// good if its goodput reaches RecoveryFraction of its arrivals; the run
// recovered at the first window of the run of good windows that lasts to
// the end.
func (r *recovery) tick(k, arrivals, good, queue int) {
	i := k % r.w
	r.sumArr += arrivals - r.arrivals[i]
	r.sumGood += good - r.good[i]
	r.arrivals[i], r.good[i] = arrivals, good
	if k >= r.dipEnd && r.drained < 0 && float64(queue) <= r.perTick {
		r.drained = k
	}
	if j := k - r.w + 1; j >= r.dipEnd {
		switch {
		case float64(r.sumGood) < RecoveryFraction*float64(r.sumArr):
			r.streak = -1
		case r.streak < 0:
			r.streak = j
		}
	}
}

// result fills in Drained, DrainedAfter, Recovered and RecoveredAfter.
func (r *recovery) result(res *Result) {
	if r.drained >= 0 {
		res.Drained, res.DrainedAfter = true, time.Duration(r.drained-r.dipEnd)*r.tickDur
	}
	if r.streak >= 0 {
		res.Recovered, res.RecoveredAfter = true, time.Duration(r.streak-r.dipEnd)*r.tickDur
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Columns is a timeline split into one slice per quantity, ready to plot
// against T.
type Columns struct {
	T                                                     []float64 // start of each sample, in seconds
	Arrivals, Offered, Goodput, Wasted, Refused, Capacity []float64 // per second
	Queue                                                 []float64 // entries at the end of the sample
}

// Columns returns r's timeline as columns.
func (r Result) Columns() Columns {
	n := len(r.Timeline)
	c := Columns{}
	for _, s := range []*[]float64{&c.T, &c.Arrivals, &c.Offered, &c.Goodput, &c.Wasted, &c.Refused, &c.Capacity, &c.Queue} {
		*s = make([]float64, n)
	}
	for i, p := range r.Timeline {
		c.T[i] = p.Start.Seconds()
		c.Arrivals[i], c.Offered[i], c.Goodput[i] = p.Arrivals, p.Offered, p.Goodput
		c.Wasted[i], c.Refused[i], c.Capacity[i] = p.Wasted, p.Refused, p.Capacity
		c.Queue[i] = float64(p.Queue)
	}
	return c
}
