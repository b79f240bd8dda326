package main

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/figure"
)

func runFiguresCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = dispatch(append([]string{"figures"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// The Waves lesson's figures, named after the notebook sections that show them.
var wavesFigures = []string{
	"01-waves-histograms",
	"02-bucket-width-peaks",
	"03-jitter-width-all",
	"03-jitter-width-half",
	"03-jitter-width-peaks",
	"04-two-thousand-clients-base",
	"04-two-thousand-clients-capacity",
}

// writeFigures runs `figures --out DIR --only pattern` and checks that it wrote exactly names, each
// as a PNG that decodes to at least minW×minH pixels and an SVG, and reported each file it wrote.
// It returns the decoded PNGs by name.
func writeFigures(t *testing.T, pattern string, names []string, minW, minH int) map[string]image.Image {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "new", "dir")
	code, out, errs := runFiguresCLI("--out", dir, "--only", pattern)
	if code != 0 {
		t.Fatalf("figures --only %s: exit %d, stderr %q", pattern, code, errs)
	}
	images := map[string]image.Image{}
	for _, name := range names {
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
		images[name] = img
		if r := img.Bounds(); r.Dx() < minW || r.Dy() < minH {
			t.Errorf("%s.png is %d×%d pixels, want at least %d×%d", name, r.Dx(), r.Dy(), minW, minH)
		}
		if svg, err := os.ReadFile(filepath.Join(dir, name+".svg")); err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s.svg: %v, or no <svg> element", name, err)
		}
		if !strings.Contains(out, filepath.Join(dir, name+".png")) {
			t.Errorf("output does not report %s.png:\n%s", name, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2*len(names) {
		t.Errorf("--only %s wrote %d files, want %d:\n%s", pattern, len(entries), 2*len(names), out)
	}
	return images
}

func TestFiguresWritesEveryWavesFigureAsPNGAndSVG(t *testing.T) {
	writeFigures(t, "0[1-4]-*", wavesFigures, 500, 300)
}

func TestFiguresAreTheSameOnEveryRun(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if code, _, errs := runFiguresCLI("--out", dir, "--only", "0[1-4]-*"); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
	}
	for _, name := range wavesFigures {
		for _, ext := range []string{".png", ".svg"} {
			x, errA := os.ReadFile(filepath.Join(a, name+ext))
			y, errB := os.ReadFile(filepath.Join(b, name+ext))
			if errA != nil || errB != nil || !bytes.Equal(x, y) {
				t.Errorf("%s%s differs between two runs (%v, %v)", name, ext, errA, errB)
			}
		}
	}
}

func TestFiguresListAndOnly(t *testing.T) {
	code, out, _ := runFiguresCLI("--list")
	names := strings.Fields(out)
	if code != 0 || !slices.IsSorted(names) {
		t.Fatalf("--list: exit %d, names %v (want sorted)", code, names)
	}
	for _, want := range wavesFigures {
		if !slices.Contains(names, want) {
			t.Errorf("--list lacks %s", want)
		}
	}
	code, out, _ = runFiguresCLI("--list", "--only", "03-*")
	if want := "03-jitter-width-all\n03-jitter-width-half\n03-jitter-width-peaks\n"; code != 0 || out != want {
		t.Errorf("--list --only 03-*: exit %d, %q; want %q", code, out, want)
	}
	dir := t.TempDir()
	if code, _, errs := runFiguresCLI("--out", dir, "--only", "01-waves-histograms"); code != 0 {
		t.Fatalf("exit %d, %s", code, errs)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("--only one figure wrote %d files, want 2", len(entries))
	}
}

func TestFiguresBadUsageExits2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--out is required"},
		{[]string{"somewhere"}, "unexpected argument"},
		{[]string{"--out", t.TempDir(), "--only", "[x"}, "not a valid pattern"},
		{[]string{"--out", t.TempDir(), "--only", "99-*"}, "no figure matches"},
		{[]string{"--nope"}, "flag provided but not defined"},
	} {
		code, _, errs := runFiguresCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("figures %q: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runFiguresCLI("--help"); code != 0 || !strings.Contains(out, "--out DIR") {
		t.Errorf("--help: exit %d, %q", code, out)
	}
}

func TestFiguresReportsAFigureThatFails(t *testing.T) {
	saved := figures
	defer func() { figures = saved }()
	registerFigure("99-test-broken", func() (figure.Figure, error) { return nil, errors.New("no data") })
	code, _, errs := runFiguresCLI("--out", t.TempDir(), "--only", "99-*")
	if code != 1 || !strings.Contains(errs, "99-test-broken: no data") {
		t.Errorf("exit %d, stderr %q; want 1 naming the figure and its error", code, errs)
	}
}

func TestRegisterFigureRejectsBadNames(t *testing.T) {
	saved := figures
	defer func() { figures = saved }()
	build := func() (figure.Figure, error) { return nil, nil }
	for _, name := range []string{"waves", "1-waves-x", "01-Waves-x", "01-waves", "01-waves-histograms"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registerFigure(%q) did not panic", name)
				}
			}()
			registerFigure(name, build)
		}()
	}
}
