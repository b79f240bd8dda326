package waves

import (
	"iter"
	"math"
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
// tests hold them together), but finds an attempt's slot without a
// division, keeps the generator's state in a register, skips a stopped
// client's unused draws in one step, and keeps the per-client bookkeeping
// out of the per-attempt loop.
func (m *Model) count(r *Result) {
	c := r.Config
	counts := r.Histogram.Counts
	slot := int64(c.Slot)
	perSlot := 1 / float64(slot)
	window, outage := c.Window, c.Outage
	lo, w, last := m.lo, c.Jitter, c.Attempts-1
	nominal := m.nominal[:last+1]
	jumps := jumpTable(last)
	var cutOff, pastWindow, recovered, afterSuccess, exhausted int
	// The generator's state, stepped as lcg.LCG.Next steps it; Validate
	// checked the seed.
	state := uint32(c.Seed)
	for range c.Clients {
		const (
			failed = iota
			succeeded
			past
		)
		i, outcome := 0, failed
		for ; i <= last; i++ {
			state = (lcg.Multiplier*state + lcg.Increment) & (lcg.Modulus - 1)
			u := float64(state) / lcg.Modulus // as lcg.LCG.Float64
			t := nominal[i] * (lo + float64(w*u))
			at := saturate(t)
			if at >= window {
				outcome = past
				break
			}
			// The slot at/slot, from t by a multiplication, corrected
			// for rounding: at most one step either way.
			k := int64(t * perSlot)
			if k*slot > int64(at) {
				k--
			} else if (k+1)*slot <= int64(at) {
				k++
			}
			counts[k]++
			if at >= outage {
				outcome = succeeded
				break
			}
		}
		switch outcome {
		case failed:
			exhausted++
			continue
		case succeeded:
			recovered++
			afterSuccess += last - i
		case past:
			cutOff++
			pastWindow += last - i + 1
		}
		j := jumps[last-i] // every client takes Attempts draws, used or not
		state = (j.mul*state + j.add) & (lcg.Modulus - 1)
	}
	for _, n := range counts {
		r.Total += n
	}
	r.CutOff, r.SkippedPastWindow = cutOff, pastWindow
	r.Recovered, r.SkippedAfterSuccess, r.Exhausted = recovered, afterSuccess, exhausted
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
