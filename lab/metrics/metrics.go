// Package metrics measures streams of event times the way the lessons
// report them: counted into equal slots from t = 0, with the fullest slot
// turned into a peak rate that always carries the slot width it was measured
// at, a sweep of that peak over slot widths, and the coefficient of variation
// of the gaps between events.
//
// The slot width is part of every peak. The same events give a higher peak
// in narrow slots than in wide ones, because a wide slot averages a spike
// with the quiet around it; [Peak] therefore keeps the width beside the
// count, and [Peak.String] prints both.
//
// Two small tools go with them: [Histogram.Clip] splits counts at a
// per-slot limit (what a server of that capacity serves and what it must
// refuse), and [Spread] summarises a measurement repeated over many seeds.
//
// Nothing here knows about retries: the waves, cohort and strategies
// lessons all feed it plain time.Duration offsets.
package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Histogram counts events in equal slots starting at t = 0: Counts[k] is
// the number of events at times in [k·Slot, (k+1)·Slot).
//
// A Histogram needs a positive Slot; its Counts grow as events arrive, so
// its memory follows the latest event time, not the number of events.
type Histogram struct {
	// Slot is the width of every slot.
	Slot time.Duration
	// Counts holds one count per slot, slot 0 starting at t = 0.
	Counts []int
}

// NewHistogram returns an empty histogram with the given slot width and
// enough slots to cover [0, span) without growing. The slot must be
// positive and span must not be negative.
func NewHistogram(slot, span time.Duration) (Histogram, error) {
	if slot <= 0 {
		return Histogram{}, fmt.Errorf("metrics: slot %v out of range: want slot > 0", slot)
	}
	if span < 0 {
		return Histogram{}, fmt.Errorf("metrics: span %v out of range: want span >= 0", span)
	}
	n := span / slot
	if span%slot != 0 {
		n++
	}
	if n > MaxSlots {
		return Histogram{}, fmt.Errorf("metrics: span %v at slot %v needs %d slots, more than %d: widen the slot or shorten the span", span, slot, n, MaxSlots)
	}
	return Histogram{Slot: slot, Counts: make([]int, n)}, nil
}

// MaxSlots is the most slots a histogram may hold (40 s at 10 µs, or a day
// at 20 ms), which bounds its memory at 32 MiB.
const MaxSlots = 1 << 22

// Count builds the histogram of times at the given slot width. Times may
// come in any order; they must not be negative, and the slot must be
// positive.
func Count(times []time.Duration, slot time.Duration) (Histogram, error) {
	h, err := NewHistogram(slot, 0)
	if err != nil {
		return Histogram{}, err
	}
	for i, t := range times {
		if t < 0 {
			return Histogram{}, fmt.Errorf("metrics: times[%d] = %v out of range: want t >= 0", i, t)
		}
		if t/slot >= MaxSlots {
			return Histogram{}, fmt.Errorf("metrics: times[%d] = %v at slot %v needs more than %d slots: widen the slot", i, t, slot, MaxSlots)
		}
		h.Add(t)
	}
	return h, nil
}

// Add counts one event at time t and reports whether it was counted. An
// event before t = 0, beyond MaxSlots slots, or in a histogram without a
// positive Slot is not counted.
func (h *Histogram) Add(t time.Duration) bool {
	if h.Slot <= 0 || t < 0 {
		return false
	}
	k := t / h.Slot
	if k >= MaxSlots {
		return false
	}
	if int(k) >= len(h.Counts) {
		h.Counts = append(h.Counts, make([]int, int(k)+1-len(h.Counts))...)
	}
	h.Counts[k]++
	return true
}

// Total returns the number of events counted.
func (h Histogram) Total() int {
	n := 0
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Start returns the time at which slot k begins.
func (h Histogram) Start(k int) time.Duration { return time.Duration(k) * h.Slot }

// Peak returns the fullest slot (the earliest, on a tie). An empty
// histogram has a zero peak at slot 0, still carrying the slot width.
func (h Histogram) Peak() Peak {
	p := Peak{Width: h.Slot}
	for k, c := range h.Counts {
		if c > p.Count {
			p.Slot, p.Count = k, c
		}
	}
	return p
}

// PeakFrom returns the fullest slot among those that start at or after t
// (the earliest, on a tie): the peak a service meets once it is back at t,
// rather than the peak of the whole run. A negative t counts as 0. When no
// slot starts at or after t, or all of them are empty, the peak has a zero
// Count at the first slot that starts at or after t.
func (h Histogram) PeakFrom(t time.Duration) Peak {
	p := Peak{Width: h.Slot}
	if h.Slot <= 0 {
		return p
	}
	first := 0
	if t > 0 {
		first = int((t + h.Slot - 1) / h.Slot)
	}
	p.Slot = first
	for k := first; k < len(h.Counts); k++ {
		if h.Counts[k] > p.Count {
			p.Slot, p.Count = k, h.Counts[k]
		}
	}
	return p
}

// Rebin returns the histogram at a wider slot, which must be a whole
// multiple of h.Slot: each new slot sums the old slots it covers. Because
// slots start at t = 0 on both sides, the result equals counting the same
// events at the wider slot directly.
func (h Histogram) Rebin(slot time.Duration) (Histogram, error) {
	if h.Slot <= 0 {
		return Histogram{}, fmt.Errorf("metrics: histogram slot %v out of range: want slot > 0", h.Slot)
	}
	if slot <= 0 || slot%h.Slot != 0 {
		return Histogram{}, fmt.Errorf("metrics: slot %v out of range: want a positive whole multiple of %v", slot, h.Slot)
	}
	f := int(slot / h.Slot)
	n := len(h.Counts) / f
	if len(h.Counts)%f != 0 {
		n++
	}
	out := Histogram{Slot: slot, Counts: make([]int, n)}
	for k, c := range h.Counts {
		out.Counts[k/f] += c
	}
	return out, nil
}

// Clip splits the histogram at a per-slot limit: kept holds min(count,
// limit) of every slot and excess the rest, so the two add up to h slot by
// slot. It answers what a server that takes at most limit events per slot
// serves and what it has to turn away. The limit must not be negative.
func (h Histogram) Clip(limit int) (kept, excess Histogram, err error) {
	if limit < 0 {
		return Histogram{}, Histogram{}, fmt.Errorf("metrics: limit %d out of range: want limit >= 0", limit)
	}
	kept = Histogram{Slot: h.Slot, Counts: make([]int, len(h.Counts))}
	excess = Histogram{Slot: h.Slot, Counts: make([]int, len(h.Counts))}
	for k, c := range h.Counts {
		kept.Counts[k] = min(c, limit)
		excess.Counts[k] = c - kept.Counts[k]
	}
	return kept, excess, nil
}

// Peak is the fullest slot of a histogram: the count in it and the slot
// width it was counted at. A peak rate means nothing without its width.
type Peak struct {
	// Slot is the index of the fullest slot; it starts at Slot·Width.
	Slot int
	// Count is the number of events in that slot.
	Count int
	// Width is the slot width the peak was measured at.
	Width time.Duration
}

// PerSecond returns the peak as a rate: Count divided by the slot width in
// seconds. It is 0 for a peak without a positive width.
func (p Peak) PerSecond() float64 {
	if p.Width <= 0 {
		return 0
	}
	return float64(p.Count) * float64(time.Second) / float64(p.Width)
}

// At returns the time at which the peak's slot begins.
func (p Peak) At() time.Duration { return time.Duration(p.Slot) * p.Width }

// String reports the rate together with the slot width and the count it
// came from, e.g. "3000/s (600 in 200ms at 1s)".
func (p Peak) String() string {
	return fmt.Sprintf("%s/s (%d in %v at %v)", formatRate(p.PerSecond()), p.Count, p.Width, p.At())
}

func formatRate(r float64) string {
	if r == math.Trunc(r) && math.Abs(r) < 1e15 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.4g", r)
}

// PeakSweep measures the peak of the same events at each slot width, from a
// histogram counted at a fine slot (1 ms, say). Every width must be a whole
// multiple of h.Slot; the result has one Peak per width, in order. Reported
// peak rates can only fall as the width grows by whole multiples, which is
// the point of the sweep: a wide slot understates a spike.
func PeakSweep(h Histogram, widths []time.Duration) ([]Peak, error) {
	out := make([]Peak, 0, len(widths))
	for _, w := range widths {
		r, err := h.Rebin(w)
		if err != nil {
			return nil, err
		}
		out = append(out, r.Peak())
	}
	return out, nil
}

// ErrTooFewEvents is returned by the coefficient-of-variation functions
// when there are fewer than two events, so no gap to measure.
var ErrTooFewEvents = errors.New("metrics: need at least 2 events for inter-arrival times")

// ErrSimultaneous is returned by the coefficient-of-variation functions
// when every event happens at the same instant: the mean gap is zero and
// the ratio is undefined.
var ErrSimultaneous = errors.New("metrics: all events at one instant: mean inter-arrival time is 0, coefficient of variation undefined")

// InterArrivalCV returns the coefficient of variation (standard deviation
// over mean) of the gaps between consecutive events, after sorting a copy
// of times. It is 0 for perfectly even spacing, about 1 for independent
// (Poisson) arrivals and far above 1 when events bunch into bursts with
// quiet gaps between them, as clients retrying in phase do.
func InterArrivalCV(times []time.Duration) (float64, error) {
	if len(times) < 2 {
		return 0, ErrTooFewEvents
	}
	s := slices.Clone(times)
	slices.Sort(s)
	var g gaps
	for i := 1; i < len(s); i++ {
		g.add(float64(s[i]-s[i-1]), 1)
	}
	return g.cv()
}

// InterArrivalCV estimates the coefficient of variation of the gaps between
// the counted events from the histogram alone, placing the c events of a
// slot evenly inside it (at the middles of c equal parts). The estimate is
// exact for evenly spread events and close whenever the slot is narrow
// compared with the typical gap; for a burst that arrives within one slot
// it reports tiny gaps instead of zero ones, which still gives a CV far
// above 1. Its cost follows the number of slots, not of events.
func (h Histogram) InterArrivalCV() (float64, error) {
	if h.Slot <= 0 {
		return 0, fmt.Errorf("metrics: histogram slot %v out of range: want slot > 0", h.Slot)
	}
	var g gaps
	slot := float64(h.Slot)
	last, seen := 0.0, 0
	for k, c := range h.Counts {
		if c == 0 {
			continue
		}
		step := slot / float64(c)
		first := float64(k)*slot + step/2
		if seen > 0 {
			g.add(first-last, 1)
		}
		if c > 1 {
			g.add(step, c-1)
		}
		last = first + step*float64(c-1)
		seen += c
	}
	if seen < 2 {
		return 0, ErrTooFewEvents
	}
	return g.cv()
}

// gaps accumulates the mean and variance of gap lengths (Welford's method,
// with weights for runs of equal gaps).
type gaps struct {
	n    float64
	mean float64
	m2   float64
}

func (g *gaps) add(x float64, times int) {
	w := float64(times)
	n := g.n + w
	d := x - g.mean
	g.mean += d * w / n
	g.m2 += d * (x - g.mean) * w
	g.n = n
}

func (g *gaps) cv() (float64, error) {
	if g.mean == 0 {
		return 0, ErrSimultaneous
	}
	return math.Sqrt(g.m2/g.n) / g.mean, nil
}
