package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// A Source generates the times of a stream of events, measured from a common
// start, in any order: the models' populations (synchrony.Cohort, the
// synchronisers of lab/synchronisers, layered.Config) and Times are
// Sources.
type Source interface {
	Events() ([]time.Duration, error)
}

// Times is a Source of events whose times are already known.
type Times []time.Duration

// Events returns t itself.
func (t Times) Events() ([]time.Duration, error) { return t, nil }

// A Reading is what the two detectors say about a stream of events.
type Reading struct {
	// Events is the number of events.
	Events int
	// Peak is the fullest slot at the width Measure was given.
	Peak Peak
	// CV is the coefficient of variation of the gaps between consecutive
	// events: about 0 when they are evenly spaced, about 1 when they are
	// independent (Poisson-like), far above 1 when they come in bursts.
	// It is NaN when it is undefined: fewer than two events, or all of them
	// at one instant.
	CV float64
}

// Measure reads the events of s with both detectors: the peak at the given
// slot width, and the CV of inter-arrival times (exact, from every event,
// not from the histogram). The slot must be positive, the times must not be
// negative, and the latest must lie within MaxSlots slots.
func Measure(s Source, slot time.Duration) (Reading, error) {
	times, err := s.Events()
	if err != nil {
		return Reading{}, err
	}
	h, err := Count(times, slot)
	if err != nil {
		return Reading{}, err
	}
	if h.Total() != len(times) {
		return Reading{}, fmt.Errorf("metrics: %d of %d events beyond %d slots of %v: want a wider slot", len(times)-h.Total(), len(times), MaxSlots, slot)
	}
	cv, err := InterArrivalCV(times)
	switch {
	case errors.Is(err, ErrTooFewEvents), errors.Is(err, ErrSimultaneous):
		cv = math.NaN()
	case err != nil:
		return Reading{}, err
	}
	return Reading{Events: len(times), Peak: h.Peak(), CV: cv}, nil
}

// String reports the reading on one line, the peak with its slot width,
// e.g. "1000 events, peak 1000 in 10ms at 1s, CV 31.6".
func (r Reading) String() string {
	return fmt.Sprintf("%d events, peak %d in %v at %v, CV %s", r.Events, r.Peak.Count, r.Peak.Width, r.Peak.At(), FormatCV(r.CV))
}

// FormatCV writes a CV with two decimals, or "undefined" for NaN (fewer
// than two events, or all of them at one instant).
func FormatCV(cv float64) string {
	if math.IsNaN(cv) {
		return "undefined"
	}
	return strconv.FormatFloat(cv, 'f', 2, 64)
}

// WindowPeaks follows a histogram's peak over time: it cuts h into
// consecutive windows of the given width (the last one may be shorter) and
// returns the fullest slot of each, still at h's slot width. A population
// that stays in step keeps the same peak window after window; one that
// spreads out sees it fall. The window must be a positive whole multiple of
// h.Slot.
func WindowPeaks(h Histogram, window time.Duration) ([]Peak, error) {
	if h.Slot <= 0 {
		return nil, fmt.Errorf("metrics: histogram slot %v out of range: want slot > 0", h.Slot)
	}
	if window <= 0 || window%h.Slot != 0 {
		return nil, fmt.Errorf("metrics: window %v out of range: want a positive whole multiple of the slot %v", window, h.Slot)
	}
	per := int(window / h.Slot)
	var out []Peak
	for start := 0; start < len(h.Counts); start += per {
		p := Peak{Slot: start, Width: h.Slot}
		for k := start; k < min(start+per, len(h.Counts)); k++ {
			if h.Counts[k] > p.Count {
				p.Slot, p.Count = k, h.Counts[k]
			}
		}
		out = append(out, p)
	}
	return out, nil
}
