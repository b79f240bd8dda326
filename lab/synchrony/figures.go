package synchrony

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The lesson's figures. The notebook's cells and the command line's figure
// export call these functions, so both always show the same picture.

// Cohorts returns c under each policy as a metrics.Stream named with the policy's
// display label, schedule.Label (c.Policy is ignored).
func Cohorts(c Cohort, policies []schedule.Named) []metrics.Stream {
	out := make([]metrics.Stream, len(policies))
	for i, p := range policies {
		c.Policy = p.Policy
		out[i] = metrics.Stream{Name: schedule.Label(p.Name), Source: c}
	}
	return out
}

// RetriesOf is Cohorts with only the retries of each run (Retries): the
// attempts the policies placed, without the first attempts that met the
// failure together whatever the policy.
func RetriesOf(c Cohort, policies []schedule.Named) []metrics.Stream {
	out := Cohorts(c, policies)
	for i := range out {
		out[i].Source = Retries{out[i].Source.(Cohort)}
	}
	return out
}

// SleepsFigure draws, for each policy, the histogram of one client's first
// count waits in slots of the given width: one panel per policy, each on its
// own y scale, the waits drawn from an lcg.LCG seeded with seed (the same
// stream for every policy).
func SleepsFigure(policies []schedule.Named, count int, slot time.Duration, seed int64) (figure.Stack, error) {
	if count < 1 || count > MaxEvents {
		return figure.Stack{}, fmt.Errorf("synchrony: count %d out of range: want 1 <= count <= %d", count, MaxEvents)
	}
	if err := checkSeed(seed); err != nil {
		return figure.Stack{}, err
	}
	var s figure.Stack
	for _, p := range policies {
		waits := schedule.Delays(p.Policy, count, lcg.MustNew(seed))
		h, err := metrics.Count(waits, slot)
		if err != nil {
			return figure.Stack{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		s.Panels = append(s.Panels, figure.Histogram{
			Title:  fmt.Sprintf("%s: %d waits of one client", schedule.Label(p.Name), count),
			XLabel: "wait (s)",
			YLabel: "waits per " + slot.String(),
			Slot:   slot,
			Counts: figure.Float64s(h.Counts),
		})
	}
	if len(s.Panels) == 0 {
		return figure.Stack{}, fmt.Errorf("synchrony: no policies to draw: want at least one")
	}
	return s, nil
}

// CapFigure follows the cohort c under each policy over time: for each
// window of the given width, the most retries in one slot. A cohort in step
// keeps the same peak window after window; one that keeps spreading sees it
// fall. The y axis is logarithmic when every peak is positive.
func CapFigure(c Cohort, policies []schedule.Named, slot, window time.Duration) (figure.Lines, error) {
	l := figure.Lines{
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
			return figure.Lines{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		s := figure.Series{Name: schedule.Label(p.Name)}
		for _, pk := range peaks {
			start := time.Duration(pk.Slot/int(window/slot)) * window
			s.X = append(s.X, start.Seconds())
			s.Y = append(s.Y, float64(pk.Count))
			if pk.Count == 0 {
				l.LogY = false
			}
		}
		if len(s.X) == 0 {
			return figure.Lines{}, fmt.Errorf("synchrony: %s: no retries to draw", p.Name)
		}
		l.Series = append(l.Series, s)
	}
	if len(l.Series) == 0 {
		return figure.Lines{}, fmt.Errorf("synchrony: no policies to draw: want at least one")
	}
	return l, nil
}

// RetryPeaks runs the cohort, counts its retries at the given slot width and
// returns the fullest slot of each window (see metrics.WindowPeaks).
func (c Cohort) RetryPeaks(slot, window time.Duration) ([]metrics.Peak, error) {
	a, err := c.Arrivals()
	if err != nil {
		return nil, err
	}
	h, err := metrics.Count(a.Retries().Times(), slot)
	if err != nil {
		return nil, err
	}
	return metrics.WindowPeaks(h, window)
}
