package main

import (
	"slices"
	"strings"
	"testing"
)

// The In Phase lesson's figures: each policy's panels and the no-outage
// comparison of notebook 06.
var inPhaseFigures = []string{
	"06-in-phase-figures-constant",
	"06-in-phase-figures-decorrelated",
	"06-in-phase-figures-equal",
	"06-in-phase-figures-exponential",
	"06-in-phase-figures-full",
	"06-in-phase-figures-no-outage",
}

func TestFiguresListsTheInPhaseFigures(t *testing.T) {
	code, out, errs := runFiguresCLI("--list", "--only", "06-*")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if got := strings.Fields(out); !slices.Equal(got, inPhaseFigures) {
		t.Errorf("listed %q, want %q", got, inPhaseFigures)
	}
}

func TestFiguresWritesTheInPhaseFigures(t *testing.T) {
	images := writeFigures(t, "06-*", inPhaseFigures, 700, 400)
	// Three stacked panels per policy, two for the no-outage comparison.
	for name, img := range images {
		if name != "06-in-phase-figures-no-outage" && img.Bounds().Dy() < 600 {
			t.Errorf("%s.png is %d pixels high, want at least 600 for three panels", name, img.Bounds().Dy())
		}
	}
}
