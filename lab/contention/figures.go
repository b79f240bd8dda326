package contention

import (
	"fmt"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/schedule"
)

// CallsLines returns a sweep's mean calls per run against the number of
// clients, one line per policy in the order of the sweep. The y label says
// what was counted (writes, or reads and writes) and the title how many runs
// each point averages. Show it with static.Show or interactive.Show; an
// empty sweep gives a figure that reports it has no series when rendered.
func CallsLines(ms Means) figure.Lines {
	l := sweepLines(ms, func(c Curve) []float64 { return c.Calls })
	l.Title = "Calls until every client has committed" + runsNote(ms)
	l.YLabel = "calls per run"
	if len(ms) > 0 {
		l.YLabel = ms[0].Config.Count.String() + " per run"
	}
	return l
}

// TimeLines returns a sweep's mean time until the last client has committed,
// in seconds, against the number of clients, one line per policy in the
// order of the sweep. The y axis is logarithmic because plain exponential
// backoff takes over ten times as long as the others; set LogY to false for
// a linear axis (needed if a run can take no time at all, with Net and NetSD
// both zero).
func TimeLines(ms Means) figure.Lines {
	l := sweepLines(ms, func(c Curve) []float64 {
		s := make([]float64, len(c.TimeMS))
		for i, v := range c.TimeMS {
			s[i] = v / 1000
		}
		return s
	})
	l.Title = "Time until every client has committed" + runsNote(ms)
	l.YLabel = "seconds (log scale)"
	l.LogY = true
	return l
}

// sweepLines draws y(curve) against the client count, one series per
// policy labelled by schedule.Label, with a mark on every point measured.
func sweepLines(ms Means, y func(Curve) []float64) figure.Lines {
	l := figure.Lines{XLabel: "clients", Points: true}
	for _, c := range ms.Curves() {
		l.Series = append(l.Series, figure.Series{Name: schedule.Label(c.Policy), X: c.Clients, Y: y(c)})
	}
	return l
}

// runsNote says how many runs each point of the sweep averages.
func runsNote(ms Means) string {
	if len(ms) == 0 {
		return ""
	}
	return fmt.Sprintf(" (mean of %d runs)", ms[0].Runs)
}
