package metrics

import (
	"fmt"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/table"
)

// A Stream is a Source with the name a figure shows for it.
type Stream struct {
	Name   string
	Source Source
}

// Even returns n events evenly spaced over span from t = 0: a metronome,
// whose gaps are all equal (CV 0). It returns nil when n <= 0.
func Even(n int, span time.Duration) Times {
	if n <= 0 {
		return nil
	}
	out := make(Times, n)
	for i := range out {
		out[i] = time.Duration(i) * span / time.Duration(n)
	}
	return out
}

// Poisson returns n independent (Poisson) arrivals at rate events a second
// from t = 0: exponential gaps −ln(1 − u)/rate, u drawn from r. Their CV is
// about 1. n must be at least 1 and rate positive.
func Poisson(n int, rate float64, r interface{ Float64() float64 }) (Times, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("metrics: Poisson n %d out of range: want n >= 1", n)
	case !(rate > 0) || math.IsInf(rate, 0):
		return nil, fmt.Errorf("metrics: Poisson rate %v out of range: want a finite rate > 0 events a second", rate)
	case r == nil:
		return nil, fmt.Errorf("metrics: Poisson needs a source of uniform draws, got nil")
	}
	out := make(Times, n)
	t := 0.0
	for i := range out {
		t += -math.Log(1-r.Float64()) / rate
		out[i] = time.Duration(t * float64(time.Second))
	}
	return out, nil
}

// CVTable returns one line per stream: its name and the coefficient of
// variation of its gaps (InterArrivalCV), to two decimals, or why it has
// none.
func CVTable(streams ...Stream) table.Table {
	t := table.New("arrivals", "CV of the gaps")
	for _, s := range streams {
		times, err := s.Source.Events()
		if err != nil {
			t.Add(s.Name, err.Error())
			continue
		}
		cv, err := InterArrivalCV(times)
		if err != nil {
			t.Add(s.Name, err.Error())
			continue
		}
		t.Add(s.Name, table.Num("%.2f", cv))
	}
	return t
}

// Panels draws each stream's events per slot over [0, span), one panel per
// stream, on one time ruler and one y scale, so that their bars compare by
// height. Each panel's title names the stream and its peak with the slot
// width; shade, if not empty, is shaded in every panel (an outage, say).
func Panels(streams []Stream, slot, span time.Duration, shade ...figure.Span) (figure.Stack, error) {
	s := figure.Stack{}
	for _, st := range streams {
		h, err := countOver(st.Source, slot, span)
		if err != nil {
			return figure.Stack{}, fmt.Errorf("%s: %w", st.Name, err)
		}
		s.Panels = append(s.Panels, figure.Histogram{
			Title:  fmt.Sprintf("%s: peak %d per %v", st.Name, h.Peak().Count, slot),
			YLabel: "events per " + slot.String(),
			Slot:   slot,
			Counts: figure.Float64s(h.Counts),
			Spans:  shade,
		})
	}
	if len(s.Panels) == 0 {
		return figure.Stack{}, fmt.Errorf("metrics: no streams to draw: want at least one")
	}
	return s, nil
}

// Lines draws each stream's events per slot over [0, span) as one line per
// stream, for an interactive figure whose legend shows and hides them.
func Lines(title string, streams []Stream, slot, span time.Duration) (figure.Lines, error) {
	l := figure.Lines{Title: title, XLabel: "time (s)", YLabel: "events per " + slot.String(), Step: true}
	for _, st := range streams {
		h, err := countOver(st.Source, slot, span)
		if err != nil {
			return figure.Lines{}, fmt.Errorf("%s: %w", st.Name, err)
		}
		x := make([]float64, len(h.Counts))
		for k := range x {
			x[k] = h.Start(k).Seconds()
		}
		l.Series = append(l.Series, figure.Series{Name: st.Name, X: x, Y: figure.Float64s(h.Counts)})
	}
	if len(l.Series) == 0 {
		return figure.Lines{}, fmt.Errorf("metrics: no streams to draw: want at least one")
	}
	return l, nil
}

// countOver counts a source's events in slots over [0, span): exactly
// ⌈span/slot⌉ slots, events at or after span left out.
func countOver(s Source, slot, span time.Duration) (Histogram, error) {
	if span <= 0 {
		return Histogram{}, fmt.Errorf("metrics: span %v out of range: want span > 0", span)
	}
	times, err := s.Events()
	if err != nil {
		return Histogram{}, err
	}
	h, err := NewHistogram(slot, span)
	if err != nil {
		return Histogram{}, err
	}
	n := len(h.Counts)
	for _, t := range times {
		if t < span {
			h.Add(t)
		}
	}
	h.Counts = h.Counts[:n:n]
	return h, nil
}

// MeasureTable measures each stream at the slot width (Measure) and returns
// one line per stream: its events, peak and CV.
func MeasureTable(streams []Stream, slot time.Duration) (table.Table, error) {
	t := table.New("stream", "events", "peak", "CV")
	for _, s := range streams {
		r, err := Measure(s.Source, slot)
		if err != nil {
			return table.Table{}, fmt.Errorf("%s: %w", s.Name, err)
		}
		t.Add(s.Name, r.Events, table.Num("%d in %v at %v", r.Peak.Count, r.Peak.Width, r.Peak.At()), table.Num("%s", FormatCV(r.CV)))
	}
	return t, nil
}
