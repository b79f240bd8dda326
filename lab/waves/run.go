package waves

import (
	"math"
	"time"

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

// Histogram runs the model again and counts the attempts at another slot
// width, which must be positive and give at most metrics.MaxSlots slots over
// the window. To measure many widths, count once at a fine slot and use
// metrics.PeakSweep or Histogram.Rebin instead.
func (m *Model) Histogram(slot time.Duration) (metrics.Histogram, error) {
	r, err := m.run(slot)
	return r.Histogram, err
}

// run runs the model at another slot width.
func (m *Model) run(slot time.Duration) (Result, error) {
	at, err := New(m.cfg.WithSlot(slot))
	if err != nil {
		return Result{}, err
	}
	return at.Run(), nil
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

// saturate converts t nanoseconds (t ≥ 0) to a Duration, capping at the
// largest one instead of overflowing.
func saturate(t float64) time.Duration {
	if t >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(t)
}
