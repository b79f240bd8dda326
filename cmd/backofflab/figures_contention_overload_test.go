package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
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
	dir := t.TempDir()
	if code, _, errs := runFiguresCLI("--out", dir, "--only", pattern); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Error(err)
			continue
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s.png does not decode: %v", name, err)
		}
		if svg, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s.svg: %v, want an <svg> element", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2*len(names) {
		t.Errorf("%d files written, want %d", len(entries), 2*len(names))
	}
}
