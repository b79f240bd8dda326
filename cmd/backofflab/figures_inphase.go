package main

import (
	"sync"

	"github.com/backofflab/backofflab/lab/chart"
	"github.com/backofflab/backofflab/lab/cohort"
)

// The In Phase lesson's static figures (notebook 06), built with the same
// lab/cohort calls as the notebook cells that show them: each policy's
// three panels on the main board, and the first burst without an outage.
func init() {
	for _, name := range cohort.PolicyNames {
		registerFigure("06-in-phase-figures-"+name, func() (chart.Figure, error) {
			b, err := mainBoard()
			if err != nil {
				return nil, err
			}
			return b.Panels(name)
		})
	}
	registerFigure("06-in-phase-figures-no-outage", func() (chart.Figure, error) {
		b, err := cohort.NewBoard(cohort.NoOutage(nil), cohort.DefaultLineup())
		if err != nil {
			return nil, err
		}
		return b.CallsStack("exponential", "full")
	})
}

// mainBoard is the main setting's board, built once per program: each
// policy's figure draws its panels from it.
var mainBoard = sync.OnceValues(func() (*cohort.Board, error) {
	return cohort.NewBoard(cohort.Main(nil), cohort.DefaultLineup())
})
