package waves

import (
	"iter"
	"math"
	"math/bits"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
)

// Result is what one run of the model measured.
//
// Every planned attempt (Clients × Attempts) is either counted (Total),
// skipped because its client had already succeeded (SkippedAfterSuccess),
// or skipped because it, or an earlier attempt of its client, fell at or
// after the end of the window (SkippedPastWindow). Every client either
// Recovered, was CutOff by the window, or Exhausted its attempts during the
// outage.
type Result struct {
	// Config is the configuration that was run.
	Config Config
	// Histogram counts the counted attempts in slots of Config.Slot over
	// [0, Window).
	Histogram metrics.Histogram
	// Total is the number of attempts counted.
	Total int
	// SkippedAfterSuccess is the number of planned attempts never made
	// because the client had already succeeded: jitter moved one of its
	// attempts past the end of the outage earlier than the schedule did.
	SkippedAfterSuccess int
	// SkippedPastWindow is the number of planned attempts not counted
	// because they, or an earlier attempt of the same client, came at or
	// after the end of the window.
	SkippedPastWindow int
	// Recovered is the number of clients whose last attempt succeeded.
	Recovered int
	// CutOff is the number of clients stopped by the window before they
	// succeeded or ran out of attempts.
	CutOff int
	// Exhausted is the number of clients that made all their attempts
	// during the outage.
	Exhausted int
}

// Planned returns Clients × Attempts, the number of attempts the schedule
// would make if no client ever stopped early.
func (r Result) Planned() int { return r.Config.Clients * r.Config.Attempts }

// Peak returns the fullest slot of the histogram, with its slot width.
func (r Result) Peak() metrics.Peak { return r.Histogram.Peak() }

// Run validates c and runs its model.
func Run(c Config) (Result, error) {
	m, err := New(c)
	if err != nil {
		return Result{}, err
	}
	return m.Run(), nil
}

// Run simulates every client and returns the counts, with the histogram at
// the configured slot. Its memory is the histogram's, whatever the number of
// clients.
func (m *Model) Run() Result {
	r, _ := m.run(m.cfg.Slot) // New validated the slot
	return r
}

// Histogram runs the model again and counts the attempts at another slot
// width, which must be positive and give at most metrics.MaxSlots slots over
// the window. To measure many widths, count once at a fine slot and use
// metrics.PeakSweep or Histogram.Rebin instead.
func (m *Model) Histogram(slot time.Duration) (metrics.Histogram, error) {
	r, err := m.run(slot)
	return r.Histogram, err
}

func (m *Model) run(slot time.Duration) (Result, error) {
	c := m.cfg
	c.Slot = slot
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	h, err := metrics.NewHistogram(c.Slot, c.Window)
	if err != nil {
		return Result{}, err
	}
	r := Result{Config: c, Histogram: h}
	m.count(&r)
	return r, nil
}

// count is Attempts and the tally of run in one loop, written for speed:
// it makes the same draws and reaches the same outcomes as Attempts (the
// tests hold them together), but
//
//   - computes each of a client's draws from the client's first state by a
//     jump ahead (every client takes Attempts draws, used or not), so the
//     draws do not wait for one another: the only chain through the
//     generator is one step per client, not one per draw;
//   - goes through every planned attempt of a client without a branch on
//     its outcome (a coin flip at the outage's end that a branch predictor
//     cannot learn): an attempt counts while its client goes on, and the
//     client's outcome follows from how many attempts it made;
//   - skips even that bookkeeping for the first attempts, those that fail
//     inside the window whatever the draw, and the test of the window for
//     the attempts that fall inside it whatever the draw;
//   - finds an attempt's slot by a multiplication instead of a division.
func (m *Model) count(r *Result) {
	c := r.Config
	attempts := c.Attempts
	k := counter{
		counts: r.Histogram.Counts,
		div:    newDivider(uint64(c.Slot)),
		lo:     m.lo,
		w:      c.Jitter / lcg.Modulus,
		stay:   uint64(min(c.Window, c.Outage)),
		window: uint64(c.Window),
	}
	sure := 0 // t grows with the draw: the largest draw gives the latest time
	for sure < attempts && k.time(m.plan[sure].nominal, lcg.Modulus-1) < k.stay {
		sure++
	}
	inside := sure
	for inside < attempts && k.time(m.plan[inside].nominal, lcg.Modulus-1) < k.window {
		inside++
	}
	k.sure, k.in, k.rest = m.plan[:sure], m.plan[sure:inside], m.plan[inside:]
	next := m.next
	var stopped, past, left, pastLeft int
	// The generator's state before the client's first draw, stepped as
	// lcg.LCG.Next steps it; Validate checked the seed.
	state := uint32(c.Seed)
	for range c.Clients {
		went, isPast := k.client(state)
		stop := bit(went < attempts)
		unused := stop * (attempts - went - 1) // draws after the last attempt
		stopped += stop
		past += isPast
		left += unused
		pastLeft += isPast * unused
		state = (next.mul*state + next.add) & (lcg.Modulus - 1)
	}
	for _, n := range r.Histogram.Counts {
		r.Total += n
	}
	r.Exhausted = c.Clients - stopped
	r.CutOff = past
	r.Recovered = stopped - past
	// A client past the window also skips the attempt that fell there.
	r.SkippedPastWindow, r.SkippedAfterSuccess = pastLeft+past, left-pastLeft
}

// step is one of a client's attempts: the jump from the client's first
// state to the attempt's draw, and the attempt's nominal time.
type step struct {
	jump
	nominal float64
}

// counter counts one client's attempts at a time into a histogram.
type counter struct {
	counts []int
	// The attempts that always fail in the window; then those that are
	// always in the window; then the others.
	sure, in, rest []step
	div            divider
	lo, w          float64 // the jitter band: lo + w·u, w scaled by 2⁻³¹ (see time)
	// An attempt at a time before stay fails inside the window; one before
	// window is counted.
	stay, window uint64
}

// at returns the time of attempt p of the client whose first state is
// state: Model.at's, except that a time beyond the largest Duration is
// 2⁶³ or more instead of the largest Duration (on every platform Go
// converts such a float to an integer beyond every window).
func (k *counter) at(p step, state uint32) uint64 {
	return k.time(p.nominal, (p.mul*state+p.add)&(lcg.Modulus-1))
}

// time returns the time of an attempt with nominal time nominal and draw
// s (the generator's state), as at does. Model.at multiplies the jitter by
// u = s/2³¹; time multiplies the jitter scaled by 2⁻³¹ by s instead, which
// is the same product, rounded the same way (scaling by a power of two is
// exact).
func (k *counter) time(nominal float64, s uint32) uint64 {
	return uint64(int64(nominal * (k.lo + float64(k.w*float64(s)))))
}

// client counts the attempts of the client whose first state is state. It
// returns how many attempts the client made and went on after (failed in
// the window), and 1 if it stopped because an attempt fell past the
// window, 0 if not.
func (k *counter) client(state uint32) (went, past int) {
	counts, div := k.counts, k.div
	for _, p := range k.sure {
		counts[div.quo(k.at(p, state))]++
	}
	went = len(k.sure)
	stay, window := k.stay, k.window
	live := 1 // the client goes on
	for _, p := range k.in {
		at := k.at(p, state)
		counts[div.quo(at)] += live
		live &= bit(at < stay)
		went += live
	}
	for _, p := range k.rest {
		at := k.at(p, state)
		in := bit(at < window)
		counts[div.quo(at)&-uint64(in)] += live & in // slot 0 if not in: adds 0
		past += live &^ in
		live &= bit(at < stay)
		went += live
	}
	return went, past
}

// divider divides numbers below 2⁶³ by a constant d ≥ 1 with a
// multiplication and shifts (Granlund and Montgomery, "Division by
// Invariant Integers using Multiplication", 1994): with l = ⌈log₂ d⌉ and
// m = ⌈2⁶³⁺ˡ/d⌉ < 2⁶⁴, ⌊n·m/2⁶³⁺ˡ⌋ = ⌊n/d⌋ for every n < 2⁶³, because
// m exceeds 2⁶³⁺ˡ/d by less than 1 and n·1/2⁶³⁺ˡ < 2⁻ˡ ≤ 1/d.
type divider struct {
	m uint64
	l uint
}

// newDivider returns the divider by d ≥ 1.
func newDivider(d uint64) divider {
	l := uint(bits.Len64(d - 1)) // ⌈log₂ d⌉
	hi, lo := uint64(0), uint64(1)<<63
	if l > 0 {
		hi, lo = uint64(1)<<(l-1), 0
	}
	q, r := bits.Div64(hi, lo, d) // 2⁶³⁺ˡ/d; hi < d since 2ˡ⁻¹ < d
	if r != 0 {
		q++
	}
	return divider{q, l}
}

// quo returns ⌊n/d⌋ for n < 2⁶³ (and something for larger n).
func (v divider) quo(n uint64) uint64 {
	hi, lo := bits.Mul64(n, v.m)          // n·m < 2¹²⁷, so hi < 2⁶³
	return (hi<<1 | lo>>63) >> (v.l & 63) // l < 64: the mask only spares a check
}

// inverse is the multiplicative inverse of lcg.Multiplier mod 2³¹, so that
// (s − add)·inverse undoes a jump whose multiplier is Multiplierᵏ... only
// for k = 1; see largestState.
// bit returns 1 for true and 0 for false, without a branch.
func bit(b bool) int {
	n := 0
	if b {
		n = 1
	}
	return n
}

// jump is k steps of the generator at once: s ← mul·s + add mod 2³¹.
type jump struct{ mul, add uint32 }

// jumpTable returns the jumps of 0 to n steps.
func jumpTable(n int) []jump {
	js := make([]jump, n+1)
	js[0] = jump{1, 0}
	for k := 1; k <= n; k++ {
		p := js[k-1]
		js[k] = jump{(lcg.Multiplier * p.mul) & (lcg.Modulus - 1), (lcg.Multiplier*p.add + lcg.Increment) & (lcg.Modulus - 1)}
	}
	return js
}

// Times returns the times of the counted attempts, in client-major order
// (not sorted). Unlike Run, its memory grows with the number of attempts;
// it is meant for exact statistics of lesson-sized runs, such as
// metrics.InterArrivalCV(m.Times()).
func (m *Model) Times() []time.Duration {
	var ts []time.Duration
	for a := range m.Attempts() {
		if a.Outcome.Counted() {
			ts = append(ts, a.At)
		}
	}
	return ts
}

// Wave returns the histogram, at the configured slot, of wave i alone: the
// counted attempts that were their client's attempt i (1-based), in the same
// run as Run. Without jitter it is one slot holding every client still
// trying; with jitter of width w it is that spike spread over a band
// w·dᵢ wide, so its peak is about the spike's count divided by the band's
// width in slots. For i outside [1, Attempts] the histogram is empty.
func (m *Model) Wave(i int) metrics.Histogram {
	h, err := metrics.NewHistogram(m.cfg.Slot, m.cfg.Window)
	if err != nil {
		return metrics.Histogram{Slot: m.cfg.Slot} // unreachable: New validated the slot and window
	}
	if i < 1 || i > m.cfg.Attempts {
		return h
	}
	for a := range m.Attempts() {
		if a.N == i && a.Outcome.Counted() {
			h.Add(a.At)
		}
	}
	return h
}

// CVSlot is the slot width InterArrivalCV counts at, unless the window is
// too long for it.
const CVSlot = time.Millisecond

// InterArrivalCV estimates the coefficient of variation of the gaps between
// counted attempts (all clients together, in time order) without keeping
// the attempts: it counts them in slots of CVSlot, or the narrowest width
// that fits metrics.MaxSlots over the window, and applies
// metrics.Histogram.InterArrivalCV. For the lesson's runs the estimate is
// within 0.01 of metrics.InterArrivalCV(m.Times()).
//
// Without jitter the attempts arrive in bursts of the whole population with
// silence between them, and the CV is far above 1 (about 36 for the
// lesson's 600 clients); jitter brings it down towards the value of
// independent arrivals, 1, which it reaches within one wave. Over the whole
// run it stays above 1 (about 2.3 at full width), because the waves still
// thin out as the delays double.
func (m *Model) InterArrivalCV() (float64, error) {
	slot := max(CVSlot, (m.cfg.Window-1)/metrics.MaxSlots+1)
	h, err := m.Histogram(slot)
	if err != nil {
		return 0, err
	}
	return h.InterArrivalCV()
}

// RunCV returns Run and InterArrivalCV from one pass over the clients: it
// counts the attempts once at the CV's slot and rebins them to the
// configured slot, when that is a whole multiple of it (otherwise it runs
// the model a second time at the configured slot). The Result is exactly
// Run's; the error is InterArrivalCV's.
func (m *Model) RunCV() (Result, float64, error) {
	slot := max(CVSlot, (m.cfg.Window-1)/metrics.MaxSlots+1)
	fine, err := m.run(slot)
	if err != nil { // unreachable: the slot fits the window
		return m.Run(), 0, err
	}
	cv, cvErr := fine.Histogram.InterArrivalCV()
	r := fine
	r.Config = m.cfg
	if h, err := fine.Histogram.Rebin(m.cfg.Slot); err == nil {
		r.Histogram = h
	} else {
		r = m.Run()
	}
	return r, cv, cvErr
}

// Attempts returns every attempt the clients make, in client-major order:
// client 0's attempts in order, then client 1's, and so on. A client's
// sequence ends at its first Succeeded or PastWindow attempt, or after its
// last attempt. Each pass replays the same run from the seed.
func (m *Model) Attempts() iter.Seq[Attempt] {
	return func(yield func(Attempt) bool) {
		c := m.cfg
		g := lcg.MustNew(c.Seed) // Validate checked the seed
		for client := range c.Clients {
			i := 0
			for ; i < c.Attempts; i++ {
				a := Attempt{Client: client, N: i + 1, At: saturate(m.at(m.nominal[i], g.Float64()))}
				switch {
				case a.At >= c.Window:
					a.Outcome = PastWindow
				case a.At >= c.Outage:
					a.Outcome = Succeeded
				}
				if !yield(a) {
					return
				}
				if a.Outcome != Failed {
					i++
					break
				}
			}
			for ; i < c.Attempts; i++ {
				g.Next() // every client takes B draws, used or not
			}
		}
	}
}

// saturate converts t nanoseconds (t ≥ 0) to a Duration, capping at the
// largest one instead of overflowing.
func saturate(t float64) time.Duration {
	if t >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(t)
}
