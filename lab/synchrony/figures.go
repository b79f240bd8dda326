package synchrony

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The lesson's figures. The notebook's cells and the command line's figure
// export call these functions, so both always show the same picture.

// A Stream is a Source with the name a figure shows for it.
type Stream struct {
	Name   string
	Source Source
}

// Cohorts returns c under each policy as a Stream named with the policy's
// display label, schedule.Label (c.Policy is ignored).
func Cohorts(c Cohort, policies []schedule.Named) []Stream {
	out := make([]Stream, len(policies))
	for i, p := range policies {
		c.Policy = p.Policy
		out[i] = Stream{Name: schedule.Label(p.Name), Source: c}
	}
	return out
}

// RetriesOf is Cohorts with only the retries of each run (Retries): the
// attempts the policies placed, without the first attempts that met the
// failure together whatever the policy.
func RetriesOf(c Cohort, policies []schedule.Named) []Stream {
	out := Cohorts(c, policies)
	for i := range out {
		out[i].Source = Retries{out[i].Source.(Cohort)}
	}
	return out
}

// Panels draws each stream's events per slot over [0, span), one panel per
// stream, on one time ruler and one y scale, so that their bars compare by
// height. Each panel's title names the stream and its peak with the slot
// width; shade, if not empty, is shaded in every panel (an outage, say).
func Panels(streams []Stream, slot, span time.Duration, shade ...chart.Span) (chart.Stack, error) {
	s := chart.Stack{ShareY: true}
	for _, st := range streams {
		h, err := countOver(st.Source, slot, span)
		if err != nil {
			return chart.Stack{}, fmt.Errorf("%s: %w", st.Name, err)
		}
		s.Panels = append(s.Panels, chart.Histogram{
			Title:  fmt.Sprintf("%s: peak %d per %v", st.Name, h.Peak().Count, slot),
			YLabel: "events per " + slot.String(),
			Slot:   slot,
			Counts: chart.Float64s(h.Counts),
			Spans:  shade,
		})
	}
	if len(s.Panels) == 0 {
		return chart.Stack{}, fmt.Errorf("synchrony: no streams to draw: want at least one")
	}
	return s, nil
}

// Lines draws each stream's events per slot over [0, span) as one line per
// stream, for an interactive figure whose legend shows and hides them.
func Lines(title string, streams []Stream, slot, span time.Duration) (chart.Lines, error) {
	l := chart.Lines{Title: title, XLabel: "time (s)", YLabel: "events per " + slot.String(), Step: true}
	for _, st := range streams {
		h, err := countOver(st.Source, slot, span)
		if err != nil {
			return chart.Lines{}, fmt.Errorf("%s: %w", st.Name, err)
		}
		x := make([]float64, len(h.Counts))
		for k := range x {
			x[k] = h.Start(k).Seconds()
		}
		l.Series = append(l.Series, chart.Series{Name: st.Name, X: x, Y: chart.Float64s(h.Counts)})
	}
	if len(l.Series) == 0 {
		return chart.Lines{}, fmt.Errorf("synchrony: no streams to draw: want at least one")
	}
	return l, nil
}

// countOver counts a source's events in slots over [0, span): exactly
// ⌈span/slot⌉ slots, events at or after span left out.
func countOver(s Source, slot, span time.Duration) (metrics.Histogram, error) {
	if span <= 0 {
		return metrics.Histogram{}, fmt.Errorf("synchrony: span %v out of range: want span > 0", span)
	}
	times, err := s.Events()
	if err != nil {
		return metrics.Histogram{}, err
	}
	h, err := metrics.NewHistogram(slot, span)
	if err != nil {
		return metrics.Histogram{}, err
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

// SleepsFigure draws, for each policy, the histogram of one client's first
// count waits in slots of the given width: one panel per policy, each on its
// own y scale, the waits drawn from an lcg.LCG seeded with seed (the same
// stream for every policy).
func SleepsFigure(policies []schedule.Named, count int, slot time.Duration, seed int64) (chart.Stack, error) {
	if count < 1 || count > MaxEvents {
		return chart.Stack{}, fmt.Errorf("synchrony: count %d out of range: want 1 <= count <= %d", count, MaxEvents)
	}
	if err := checkSeed(seed); err != nil {
		return chart.Stack{}, err
	}
	var s chart.Stack
	for _, p := range policies {
		waits := schedule.Delays(p.Policy, count, lcg.MustNew(seed))
		h, err := metrics.Count(waits, slot)
		if err != nil {
			return chart.Stack{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		s.Panels = append(s.Panels, chart.Histogram{
			Title:  fmt.Sprintf("%s: %d waits of one client", schedule.Label(p.Name), count),
			XLabel: "wait (s)",
			YLabel: "waits per " + slot.String(),
			Slot:   slot,
			Counts: chart.Float64s(h.Counts),
		})
	}
	if len(s.Panels) == 0 {
		return chart.Stack{}, fmt.Errorf("synchrony: no policies to draw: want at least one")
	}
	return s, nil
}

// CapFigure follows the cohort c under each policy over time: for each
// window of the given width, the most retries in one slot. A cohort in step
// keeps the same peak window after window; one that keeps spreading sees it
// fall. The y axis is logarithmic when every peak is positive.
func CapFigure(c Cohort, policies []schedule.Named, slot, window time.Duration) (chart.Lines, error) {
	l := chart.Lines{
		Title:  fmt.Sprintf("Peak retries per %v slot in each %v window", slot, window),
		XLabel: "window start (s)",
		YLabel: "retries in the fullest slot",
		Points: true,
		LogY:   true,
	}
	for _, p := range policies {
		c.Policy = p.Policy
		peaks, err := c.RetryPeaks(slot, window)
		if err != nil {
			return chart.Lines{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		s := chart.Series{Name: schedule.Label(p.Name)}
		for _, pk := range peaks {
			start := time.Duration(pk.Slot/int(window/slot)) * window
			s.X = append(s.X, start.Seconds())
			s.Y = append(s.Y, float64(pk.Count))
			if pk.Count == 0 {
				l.LogY = false
			}
		}
		if len(s.X) == 0 {
			return chart.Lines{}, fmt.Errorf("synchrony: %s: no retries to draw", p.Name)
		}
		l.Series = append(l.Series, s)
	}
	if len(l.Series) == 0 {
		return chart.Lines{}, fmt.Errorf("synchrony: no policies to draw: want at least one")
	}
	return l, nil
}

// RetryPeaks runs the cohort, counts its retries at the given slot width and
// returns the fullest slot of each window (see WindowPeaks).
func (c Cohort) RetryPeaks(slot, window time.Duration) ([]metrics.Peak, error) {
	a, err := c.Arrivals()
	if err != nil {
		return nil, err
	}
	h, err := metrics.Count(a.Retries().Times(), slot)
	if err != nil {
		return nil, err
	}
	return WindowPeaks(h, window)
}
