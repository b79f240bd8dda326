package main

import (
	"sync"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/schedule"
)

// The In Phase lesson's static figures (notebook 06), built with the same
// lab/cohort calls as the notebook cells that show them: each policy's
// three panels on the main board, and the first burst without an outage.
func init() {
	for _, p := range cohort.Lineup() {
		name := p.Name
		registerFigure("06-in-phase-figures-"+name, func() (figure.Figure, error) {
			b, err := mainBoard()
			if err != nil {
				return nil, err
			}
			return b.Panels(name)
		})
	}
	registerFigure("06-in-phase-figures-no-outage", func() (figure.Figure, error) {
		b, err := cohort.NewBoard(cohort.Lesson().WithoutOutage(), cohort.Lineup())
		if err != nil {
			return nil, err
		}
		return b.CallsStack(schedule.NameExponential, schedule.NameFull)
	})
}

// mainBoard is the main setting's board, built once per program: each
// policy's figure draws its panels from it.
var mainBoard = sync.OnceValues(func() (*cohort.Board, error) {
	return cohort.NewBoard(cohort.Lesson(), cohort.Lineup())
})
