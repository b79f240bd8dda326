package main

import (
	"sync"

	"github.com/backofflab/backofflab/lab/contention"
	"github.com/backofflab/backofflab/lab/figure"
)

// The Contention lesson's static figures (notebook 09): Brooker's whole
// sweep, 100 runs per point, as the notebook cells run it.
func init() {
	registerFigure("09-contention-calls", func() (figure.Figure, error) {
		ms, err := brookerSweep()
		if err != nil {
			return nil, err
		}
		return contention.CallsLines(ms), nil
	})
	registerFigure("09-contention-time", func() (figure.Figure, error) {
		ms, err := brookerSweep()
		if err != nil {
			return nil, err
		}
		return contention.TimeLines(ms), nil
	})
}

// brookerSweep runs Brooker's experiment as notebook 09 does: the five
// policies, 10 to 190 clients, 100 runs each. It runs once per program, the
// first time a figure asks for it; both figures draw from that one sweep.
var brookerSweep = sync.OnceValues(func() (contention.Means, error) {
	return contention.BrookerSweep(100)
})
