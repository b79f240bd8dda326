package main

import (
	"testing"
)

// The Contention and Overload lessons' figures are registered and written
// as a PNG that decodes and an SVG.
func TestFiguresContentionAndOverload(t *testing.T) {
	names := []string{"09-overload-mechanism", "09-overload-mechanism-budget", "09-overload-remedies", "09-overload-timeline"}
	pattern := "09-*"
	if !testing.Short() {
		names = append([]string{"08-contention-calls", "08-contention-time"}, names...)
		pattern = "0[89]-*"
	}
	writeFigures(t, pattern, names, 500, 300)
}
