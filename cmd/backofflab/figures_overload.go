package main

import (
	"sync"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/overload"
)

// The Overload lesson's static figures (notebook 10), built from the same
// boards of the lesson's setting as the notebook cells that show them.
func init() {
	registerFigure("10-overload-timeline", func() (figure.Figure, error) {
		b, err := lessonBoard()
		if err != nil {
			return nil, err
		}
		return b.Timeline(), nil
	})
	registerFigure("10-overload-mechanism", func() (figure.Figure, error) {
		b, err := lessonBoard()
		if err != nil {
			return nil, err
		}
		return b.Work("no limit")
	})
	registerFigure("10-overload-mechanism-budget", func() (figure.Figure, error) {
		b, err := overload.RemedyBoard(overload.Lesson(), "budget")
		if err != nil {
			return nil, err
		}
		return b.Work("budget")
	})
	registerFigure("10-overload-remedies", func() (figure.Figure, error) {
		b, err := overload.RemedyBoard(overload.Lesson(), "budget", "breaker", "pacing")
		if err != nil {
			return nil, err
		}
		return b.Timeline(), nil
	})
}

// lessonBoard is the lesson's setting without a limit and with the budget,
// run once per program: the timeline and the mechanism figures share it.
var lessonBoard = sync.OnceValues(func() (*overload.Board, error) {
	return overload.RemedyBoard(overload.Lesson(), "no limit", "budget")
})
