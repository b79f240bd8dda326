package main

import (
	"sync"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/waves"
)

// The Waves lesson's static figures (notebooks 01 to 04), built with the
// same lab/waves calls as the notebook cells that show them.
func init() {
	registerFigure("01-waves-histograms", func() (figure.Figure, error) {
		rs, err := waves.RunEach(waves.Lesson().EachJitter(0, 1))
		if err != nil {
			return nil, err
		}
		return waves.CompareFigure(rs...), nil
	})
	registerFigure("02-bucket-width-peaks", func() (figure.Figure, error) {
		sweeps, err := waves.SweepEach(waves.Lesson().EachJitter(0, 1), waves.SlotWidths())
		if err != nil {
			return nil, err
		}
		return waves.SlotFigure(sweeps...), nil
	})
	registerFigure("03-jitter-width-peaks", func() (figure.Figure, error) {
		rs, err := jitterWidthRuns()
		if err != nil {
			return nil, err
		}
		return waves.JitterFigure(rs), nil
	})
	registerFigure("03-jitter-width-half", func() (figure.Figure, error) {
		rs, err := jitterWidthRuns()
		if err != nil {
			return nil, err
		}
		return rs.Jitter(0.5).Figure(), nil
	})
	registerFigure("03-jitter-width-all", func() (figure.Figure, error) {
		rs, err := jitterWidthRuns()
		if err != nil {
			return nil, err
		}
		return waves.CompareFigure(rs...), nil
	})
	registerFigure("04-two-thousand-clients-capacity", func() (figure.Figure, error) {
		r, err := waves.Run(waves.Exercise())
		if err != nil {
			return nil, err
		}
		return r.CapacityFigure(waves.ExerciseCapacity)
	})
	registerFigure("04-two-thousand-clients-base", func() (figure.Figure, error) {
		rs, err := waves.RunEach(waves.Exercise().EachBase(waves.Steps(time.Second, 4*time.Second, 100*time.Millisecond)...))
		if err != nil {
			return nil, err
		}
		return waves.BaseFigure(rs, waves.ExerciseCapacity), nil
	})
}

// jitterWidthRuns runs the lesson at the jitter widths notebook 03
// compares, once per program: its three figures share the runs.
var jitterWidthRuns = sync.OnceValues(func() (waves.Results, error) {
	return waves.RunEach(waves.Lesson().EachJitter(waves.JitterWidths()...))
})
