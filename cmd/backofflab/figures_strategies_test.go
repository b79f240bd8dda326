package main

import (
	"testing"
)

// The Strategies lesson's figures, named after the notebook sections that
// show them.
var strategiesFigures = []string{
	"07-strategies-cap",
	"07-strategies-caveat",
	"07-strategies-cohort",
	"07-strategies-ttl",
	"07-strategies-waits",
}

func TestFiguresWritesEveryStrategiesFigure(t *testing.T) {
	writeFigures(t, "07-*", strategiesFigures, 500, 300)
}
