package waves

import (
	"fmt"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
)

// The lesson's figures. Each notebook cell that draws one, and the
// backofflab figures command that writes it to files, call these
// functions, so the two always show the same picture.

// Figure returns the run's histogram as a chart: one bar per slot, the
// outage shaded, and a title naming the run with its total and its peak
// rate (at the histogram's slot width, which the y axis names).
func (r Result) Figure() figure.Histogram {
	c := r.Config
	h := figure.Histogram{
		Title:  fmt.Sprintf("%s: %d attempts, peak %s/s", c.Label(), r.Total, rate(r.Peak().PerSecond())),
		YLabel: fmt.Sprintf("attempts per %v", c.Slot),
		Slot:   r.Histogram.Slot,
		Counts: figure.Float64s(r.Histogram.Counts),
	}
	if c.Outage > 0 {
		h.Spans = []figure.Span{{From: 0, To: min(c.Outage, c.Window).Seconds(), Label: "outage"}}
	}
	return h
}

// rate formats a rate per second without needless decimals.
func rate(perSecond float64) string { return strconv.FormatFloat(perSecond, 'f', -1, 64) }

// CompareFigure stacks the runs' histograms above each other on one time
// axis and one y scale, so that their bars compare by height.
func CompareFigure(rs ...Result) figure.Stack {
	s := figure.Stack{}
	for _, r := range rs {
		s.Panels = append(s.Panels, r.Figure())
	}
	return s
}

// CapacityFigure returns the run's histogram against a capacity in
// requests per second: each bar split into the part a server with that
// capacity can serve in the slot and the part over it (what it would have
// to refuse), under a dashed line at the capacity. The capacity must be
// positive.
func (r Result) CapacityFigure(capacity float64) (figure.Histogram, error) {
	if !(capacity > 0) {
		return figure.Histogram{}, fmt.Errorf("waves: capacity %v out of range: want capacity > 0 requests per second", capacity)
	}
	slot := r.Histogram.Slot
	perSlot := capacity * float64(slot) / float64(time.Second)
	served, over, err := r.Histogram.Clip(int(perSlot))
	if err != nil {
		return figure.Histogram{}, err
	}
	h := r.Figure()
	h.Counts = nil
	h.Layers = []figure.Layer{
		{Name: "within capacity", Counts: figure.Float64s(served.Counts)},
		{Name: "over capacity", Counts: figure.Float64s(over.Counts)},
	}
	h.HLines = []figure.HLine{{Y: perSlot, Label: fmt.Sprintf("capacity %g/s (%g per %v)", capacity, perSlot, slot)}}
	return h, nil
}

// OverlayFigure draws the runs' histograms as step lines on one plot, one
// series per run named by its Label: in its interactive form (HTML) the
// legend switches runs on and off.
func OverlayFigure(title string, rs ...Result) figure.Lines {
	l := figure.Lines{Title: title, XLabel: "time (s)", Step: true}
	for _, r := range rs {
		h := r.Histogram
		s := figure.Series{Name: r.Config.Label(), X: make([]float64, len(h.Counts)), Y: figure.Float64s(h.Counts)}
		for k := range h.Counts {
			s.X[k] = h.Start(k).Seconds()
		}
		l.Series = append(l.Series, s)
		l.YLabel = fmt.Sprintf("attempts per %v", h.Slot)
	}
	return l
}

// SlotFigure draws each sweep's reported peak rate against the slot width
// it was measured at, both axes logarithmic. A spike narrower than every
// slot shows as a straight line falling by a factor of ten per decade of
// width (the same count divided by a wider slot); attempts spread over
// time show as a curve that flattens.
func SlotFigure(sweeps ...SlotSweep) figure.Lines {
	l := figure.Lines{
		Title:  "Reported peak vs slot width",
		XLabel: "slot width (ms)",
		YLabel: "reported peak (attempts/s)",
		LogX:   true, LogY: true, Points: true,
	}
	for _, s := range sweeps {
		se := figure.Series{Name: s.Config.Label()}
		for _, p := range s.Peaks {
			se.X = append(se.X, float64(p.Width)/float64(time.Millisecond))
			se.Y = append(se.Y, p.PerSecond())
		}
		l.Series = append(l.Series, se)
	}
	return l
}

// JitterFigure draws the peak rate of each run against its jitter width in
// per cent.
func JitterFigure(rs []Result) figure.Lines {
	return peakFigure("Peak vs jitter width", "jitter width w (%)", rs, func(c Config) float64 { return 100 * c.Jitter })
}

// BaseFigure draws the peak rate of each run against its base delay in
// seconds, with a dashed line at the capacity (requests per second; none
// when it is not positive).
func BaseFigure(rs []Result, capacity float64) figure.Lines {
	l := peakFigure("Peak vs base delay", "base (s)", rs, func(c Config) float64 { return c.Base.Seconds() })
	if capacity > 0 {
		l.HLines = []figure.HLine{{Y: capacity, Label: fmt.Sprintf("capacity %g/s", capacity)}}
	}
	return l
}

// peakFigure draws the runs' peak rates against the setting x reads from
// each run's configuration, as one series.
func peakFigure(title, xLabel string, rs []Result, x func(Config) float64) figure.Lines {
	var s figure.Series // one unnamed series: no legend
	slot := time.Duration(0)
	for _, r := range rs {
		s.X = append(s.X, x(r.Config))
		s.Y = append(s.Y, r.Peak().PerSecond())
		slot = r.Histogram.Slot
	}
	return figure.Lines{
		Title:  title,
		XLabel: xLabel,
		YLabel: fmt.Sprintf("peak (attempts/s, %v slots)", slot),
		Series: []figure.Series{s},
		Points: true,
	}
}
