package main

import (
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/synchronisers"
	"github.com/backofflab/backofflab/lab/synchrony"
)

// The static figures of the Strategies lesson (notebook 07) and of Deadlines,
// the cap and other clocks (notebook 08), built with the same lab/synchrony
// calls as the notebook cells that show them.
func init() {
	registerFigure("07-strategies-waits", func() (figure.Figure, error) {
		return synchrony.SleepsFigure(synchrony.CapLineup(), 1000, 50*time.Millisecond, lcg.DefaultSeed)
	})
	registerFigure("07-strategies-cohort", func() (figure.Figure, error) {
		policies := synchrony.Lineup()
		outage := figure.Span{From: 0, To: synchrony.LessonOutage.Seconds(), Label: "outage"}
		return metrics.Panels(synchrony.RetriesOf(synchrony.Lesson(), policies), synchrony.LessonSlot, 40*time.Second, outage)
	})
	registerFigure("07-strategies-caveat", func() (figure.Figure, error) {
		return metrics.Panels(synchrony.LostJitter(), synchrony.LessonSlot, 5*time.Second)
	})
	registerFigure("08-deadlines-and-clocks-cap", func() (figure.Figure, error) {
		return synchrony.CapFigure(synchrony.CapLesson(), synchrony.CapLineup(), synchrony.LessonSlot, synchrony.CapWindow)
	})
	registerFigure("08-deadlines-and-clocks-ttl", func() (figure.Figure, error) {
		return synchronisers.Synchronisers()[1].Panels(0, 0.2)
	})
}
