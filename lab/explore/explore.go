// Package explore builds the lessons' explorables: for each "what if" a
// lesson asks, the family of runs its control spans, computed once by the
// lab's models and drawn as a [figure.Explorable] (by lab/interactive), whose controls switch
// between the precomputed figures in the page. No kernel is involved once
// the cell has run, so a control works in a saved notebook and in the
// static HTML edition, and no cell ever waits for a person.
//
// Every frame is the lab's own figure for its setting (waves.Result.Figure,
// CapacityFigure, synchrony's retry histograms), so the numbers a control
// shows are the numbers the lab and the backofflab command print for the
// same parameters.
package explore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/waves"
)

// JitterPercents returns the widths the jitter control spans: 0 to 100 %
// in steps of 5.
func JitterPercents() []int {
	out := make([]int, 0, 21)
	for p := 0; p <= 100; p += 5 {
		out = append(out, p)
	}
	return out
}

// JitterWidth returns the jitter-width explorable of the Waves lessons:
// the lesson's 600 clients (waves.Lesson) at every width of
// [JitterPercents], each frame the run's histogram on the 600-attempt scale
// above the peak-against-width curve with the current width marked.
func JitterWidth() (figure.Explorable, error) {
	percents := JitterPercents()
	c := waves.Lesson()
	widths := make([]float64, len(percents))
	values := make([]string, len(percents))
	for i, p := range percents {
		widths[i] = float64(p) / 100
		values[i] = strconv.Itoa(p) + "%"
	}
	rs, err := waves.RunEach(c.EachJitter(widths...))
	if err != nil {
		return figure.Explorable{}, err
	}
	curve := waves.JitterFigure(rs)
	curve.Size = figure.Size{Height: 240} // shorter than the histogram
	e := figure.Explorable{Controls: []figure.Control{{Label: "jitter width", Values: values, Start: 10}}}
	for i, r := range rs {
		h := r.Figure()
		h.YMax = float64(c.Clients)
		marked := curve
		marked.Series = append(marked.Series[:1:1], figure.Series{Name: "width " + values[i],
			X: []float64{curve.Series[0].X[i]}, Y: []float64{curve.Series[0].Y[i]}})
		e.Frames = append(e.Frames, figure.Frame{
			Panels:  []figure.Figure{h, marked},
			Readout: fmt.Sprintf("jitter width %s: %d attempts, peak %s/s (%d in one %v slot)", values[i], r.Total, rate(r.Peak().PerSecond()), r.Peak().Count, c.Slot),
		})
	}
	return e, nil
}

// rate formats a rate per second without needless decimals.
func rate(perSecond float64) string { return strconv.FormatFloat(perSecond, 'f', -1, 64) }

// durations formats each duration as the page prints it ("1ms", "1.5s").
func durations(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// SlotView is how much of the run the slot-width explorable draws: its
// first seconds, where the first wave is.
const SlotView = 2 * time.Second

// SlotWidth returns the slot-width explorable of the Bucket Width lesson:
// the lesson's run at full width (waves.Lesson with jitter 1) measured at
// every width of waves.SlotWidths, 1 ms to 1 s. Each frame shows the
// histogram at that width over the run's first [SlotView] (its title gives
// the whole run's reported peak) above the reported peak against the slot
// width of that run and of the run without jitter (waves.SlotFigure), the
// current width marked on both.
func SlotWidth() (figure.Explorable, error) {
	widths := waves.SlotWidths()
	sweeps, err := waves.SweepEach(waves.Lesson().EachJitter(0, 1), widths)
	if err != nil {
		return figure.Explorable{}, err
	}
	curve := waves.SlotFigure(sweeps...)
	curve.Size = figure.Size{Height: 240}
	e := figure.Explorable{Controls: []figure.Control{{Label: "slot width", Values: durations(widths), Start: 7}}}
	for i, w := range widths {
		c := waves.Lesson().WithJitter(1).WithSlot(w)
		r, err := waves.Run(c)
		if err != nil {
			return figure.Explorable{}, err
		}
		h := r.Figure()
		h.Counts = h.Counts[:int(SlotView/w)]
		h.XLabel = fmt.Sprintf("slot start (s), the first %v of %v", SlotView, c.Window)
		for k := range h.Spans {
			h.Spans[k].To = min(h.Spans[k].To, SlotView.Seconds())
		}
		marked := curve
		marked.Series = curve.Series[:len(curve.Series):len(curve.Series)] // appends below copy
		var peaks []string
		for _, s := range curve.Series {
			marked.Series = append(marked.Series, figure.Series{Name: s.Name + " at " + w.String(), X: s.X[i : i+1], Y: s.Y[i : i+1]})
			peaks = append(peaks, fmt.Sprintf("%s %s/s", s.Name, rate(s.Y[i])))
		}
		e.Frames = append(e.Frames, figure.Frame{Panels: []figure.Figure{h, marked},
			Readout: fmt.Sprintf("slot %v: reported peak %s (%d attempts in the fullest slot at full width)", w, strings.Join(peaks, ", "), r.Peak().Count)})
	}
	return e, nil
}

// CapacityBases returns the base delays the capacity explorable spans:
// 0.5 s to 4 s in steps of 100 ms, fine enough to reach the 2.7 s base the
// Two Thousand Clients lesson finds.
func CapacityBases() []time.Duration {
	return waves.Steps(500*time.Millisecond, 4*time.Second, 100*time.Millisecond)
}

// Capacity returns the capacity explorable of the Two Thousand Clients
// lesson: waves.Exercise (full-width jitter, a 30 s outage) at every base of
// bases and every number of clients of clients, each frame the run's
// histogram against waves.ExerciseCapacity (Result.CapacityFigure), the
// readout its peak and the ratio to the capacity.
func Capacity(bases []time.Duration, clients []int) (figure.Explorable, error) {
	if len(bases) == 0 || len(clients) == 0 {
		return figure.Explorable{}, fmt.Errorf("explore: Capacity needs at least one base and one number of clients, got %d and %d", len(bases), len(clients))
	}
	counts := make([]string, len(clients))
	for i, n := range clients {
		counts[i] = strconv.Itoa(n)
	}
	e := figure.Explorable{Controls: []figure.Control{
		{Label: "base delay", Values: durations(bases), Start: index(bases, time.Second)},
		{Label: "clients", Values: counts, Start: len(clients) / 2},
	}}
	for _, b := range bases {
		for _, n := range clients {
			r, err := waves.Run(waves.Exercise().WithBase(b).WithClients(n))
			if err != nil {
				return figure.Explorable{}, err
			}
			h, err := r.CapacityFigure(waves.ExerciseCapacity)
			if err != nil {
				return figure.Explorable{}, err
			}
			peak := r.Peak().PerSecond()
			verdict := "over"
			if peak <= waves.ExerciseCapacity {
				verdict = "within"
			}
			e.Frames = append(e.Frames, figure.Frame{Panels: []figure.Figure{h},
				Readout: fmt.Sprintf("base %v, %d clients: peak %s/s, %.2f × the %v/s capacity (%s)", b, n, rate(peak), peak/waves.ExerciseCapacity, waves.ExerciseCapacity, verdict)})
		}
	}
	return e, nil
}

// index returns the index of v in vs, or 0 if it is not there.
func index[T comparable](vs []T, v T) int {
	for i, x := range vs {
		if x == v {
			return i
		}
	}
	return 0
}

// StrategyCaps returns the caps the strategies explorable spans.
func StrategyCaps() []time.Duration {
	return []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second}
}

// StrategySlot is the slot width of the strategies explorable's
// histograms; its readout gives the retry peak at synchrony.LessonSlot, as
// the lesson's table does.
const StrategySlot = 100 * time.Millisecond

// StrategyView is the time the strategies explorable draws: the first 40 s.
const StrategyView = 40 * time.Second

// Strategies returns the strategies explorable of the Strategies lesson:
// synchrony.Lesson's thousand clients under each policy of the lesson's
// synchrony.Lineup (buttons, which show each name's schedule.Label) and
// each cap of caps (a slider),
// base synchrony.LessonBase. Each frame shows the retries per
// [StrategySlot] over [StrategyView], the outage shaded, and the readout the
// row of the lesson's table for that policy and cap.
func Strategies(caps []time.Duration) (figure.Explorable, error) {
	if len(caps) == 0 {
		return figure.Explorable{}, fmt.Errorf("explore: Strategies needs at least one cap")
	}
	lineup := synchrony.Lineup()
	var labels []string
	for _, p := range lineup {
		labels = append(labels, schedule.Label(p.Name))
	}
	e := figure.Explorable{Controls: []figure.Control{
		{Label: "policy", Values: labels, Start: 1, Buttons: true},
		{Label: "cap", Values: durations(caps), Start: index(caps, synchrony.LessonCap)},
	}}
	outage := figure.Span{From: 0, To: synchrony.LessonOutage.Seconds(), Label: "outage"}
	for i := range lineup {
		for _, cp := range caps {
			policies, err := synchrony.NewLineup(synchrony.LessonBase, cp)
			if err != nil {
				return figure.Explorable{}, err
			}
			p := policies[i : i+1]
			c := synchrony.Lesson()
			rows, err := synchrony.Table(c, p, synchrony.LessonSlot)
			if err != nil {
				return figure.Explorable{}, err
			}
			stack, err := metrics.Panels(synchrony.RetriesOf(c, p), StrategySlot, StrategyView, outage)
			if err != nil {
				return figure.Explorable{}, err
			}
			h := stack.Panels[0].(figure.Histogram)
			label := schedule.Label(p[0].Name)
			h.Title = fmt.Sprintf("%s, cap %v: retries per %v", label, cp, StrategySlot)
			r := rows.Of(p[0].Name)
			e.Frames = append(e.Frames, figure.Frame{Panels: []figure.Figure{h},
				Readout: fmt.Sprintf("%s, cap %v: %d attempts, retry peak %d per %v, CV %.2f, %d recovered, last success at %v",
					label, cp, r.Attempts, r.Peak.Count, r.Peak.Width, r.CV, r.Recovered, r.Last.Round(time.Millisecond))})
		}
	}
	return e, nil
}
