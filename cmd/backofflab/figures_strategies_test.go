package main

import (
	"testing"
)

// The Strategies lesson's figures, named after the notebook sections that
// show them.
var strategiesFigures = []string{
	"07-strategies-caveat",
	"07-strategies-cohort",
	"07-strategies-waits",
}

// The figures of Deadlines, the cap and other clocks (notebook 08).
var clocksFigures = []string{
	"08-deadlines-and-clocks-cap",
	"08-deadlines-and-clocks-ttl",
}

func TestFiguresWritesEveryStrategiesFigure(t *testing.T) {
	writeFigures(t, "07-*", strategiesFigures, 500, 300)
}

func TestFiguresWritesEveryClocksFigure(t *testing.T) {
	writeFigures(t, "08-*", clocksFigures, 500, 300)
}
