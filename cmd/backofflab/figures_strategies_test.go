package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
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
	dir := t.TempDir()
	code, out, errs := runFiguresCLI("--out", dir, "--only", "07-*")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, name := range strategiesFigures {
		b, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Error(err)
			continue
		}
		if img, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s.png does not decode: %v", name, err)
		} else if r := img.Bounds(); r.Dx() < 500 || r.Dy() < 300 {
			t.Errorf("%s.png is %d×%d pixels, too small for a figure", name, r.Dx(), r.Dy())
		}
		if svg, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2*len(strategiesFigures) {
		t.Errorf("%d files written, want %d:\n%s", len(entries), 2*len(strategiesFigures), out)
	}
}
