package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The In Phase lesson's figures: each policy's panels and the no-outage
// comparison of notebook 06.
var inPhaseFigures = []string{
	"06-in-phase-figures-decorrelated",
	"06-in-phase-figures-equal",
	"06-in-phase-figures-exponential",
	"06-in-phase-figures-flat",
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
	dir := t.TempDir()
	code, _, errs := runFiguresCLI("--out", dir, "--only", "06-*")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, name := range inPhaseFigures {
		b, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Error(err)
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s.png does not decode: %v", name, err)
			continue
		}
		// Three stacked panels per policy, two for the comparison.
		minHeight := 600
		if name == "06-in-phase-figures-no-outage" {
			minHeight = 400
		}
		if r := img.Bounds(); r.Dx() < 700 || r.Dy() < minHeight {
			t.Errorf("%s.png is %d×%d pixels, want at least 700×%d", name, r.Dx(), r.Dy(), minHeight)
		}
		if svg, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s.svg: %v, or no <svg> element", name, err)
		}
	}
}
