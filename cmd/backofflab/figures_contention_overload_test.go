package main

import (
	"testing"
)

// The Contention and Overload lessons' figures are registered and written
// as a PNG that decodes and an SVG.
func TestFiguresContentionAndOverload(t *testing.T) {
	writeFigures(t, "10-*", []string{"10-overload-mechanism", "10-overload-mechanism-budget", "10-overload-remedies", "10-overload-timeline"}, 500, 300)
	if !testing.Short() { // Brooker's whole sweep takes seconds
		writeFigures(t, "09-*", []string{"09-contention-calls", "09-contention-time"}, 500, 300)
	}
}
