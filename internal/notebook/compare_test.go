package notebook

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"
)

// pngData returns a w×h PNG, base64-encoded as a notebook saves it, all white but the pixel at
// (x, y), which is black.
func pngData(t *testing.T, w, h, x, y int) Text {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	img.SetGray(x, y, color.Gray{})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return Text(base64.StdEncoding.EncodeToString(b.Bytes()) + "\n")
}

func code(tags []any, outs ...Output) Cell {
	one := 1
	c := Cell{CellType: "code", Source: "f()", ExecutionCount: &one, Outputs: outs, Metadata: map[string]any{}}
	if tags != nil {
		c.Metadata["tags"] = tags
	}
	return c
}

func stdout(s string) Output { return Output{OutputType: "stream", Name: "stdout", Text: Text(s)} }

func display(mime string, data Text) Output {
	return Output{OutputType: "display_data", Data: map[string]Text{mime: data}}
}

const chartHTML = `<div id="backofflab-chart-1" class="backofflab-chart"></div><script>draw([1, 2, 3])</script>`

func TestCompareSameOutputs(t *testing.T) {
	saved := &Notebook{Cells: []Cell{
		{CellType: "markdown", Source: "# Title"},
		code(nil, stdout("peak 12/s\n"), stdout("done\n"), display("image/png", pngData(t, 8, 6, 1, 1)), display("text/html", chartHTML)),
	}}
	// The same outputs, the stream in one piece as a save may write it and the image's base64
	// in lines: the same for a reader.
	img := string(pngData(t, 8, 6, 1, 1))
	fresh := &Notebook{Cells: []Cell{
		{CellType: "markdown", Source: "# Title"},
		code(nil, stdout("peak 12/s\ndone\n"), display("image/png", Text(img[:10]+"\n"+img[10:])), display("text/html", chartHTML)),
	}}
	if probs := Compare(saved, fresh); len(probs) != 0 {
		t.Errorf("Compare of the same outputs = %v", probs)
	}
}

// A PNG that changes by one pixel fails the comparison, which names the cell, the display, the
// image's size and both hashes.
func TestCompareFindsAChangedPNG(t *testing.T) {
	saved := &Notebook{Cells: []Cell{code(nil, stdout("x\n"), display("image/png", pngData(t, 8, 6, 1, 1)))}}
	fresh := &Notebook{Cells: []Cell{code(nil, stdout("x\n"), display("image/png", pngData(t, 8, 6, 2, 1)))}}
	probs := Compare(saved, fresh)
	if len(probs) != 1 || probs[0].Cell != 1 {
		t.Fatalf("Compare = %v, want one problem in cell 1", probs)
	}
	msg := probs[0].String()
	for _, want := range []string{"cell 1:", "display 1 image/png differs", "saved: PNG 8×6", "fresh: PNG 8×6", "sha256 "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the problem does not say %q:\n%s", want, msg)
		}
	}
	t.Logf("a changed PNG:\n%s", msg)
}

// The same, on a lesson's own saved figure: one pixel of its first PNG changed.
func TestCompareFindsAChangedPixelInALessonFigure(t *testing.T) {
	paths, _ := filepath.Glob("../../notebooks/*.ipynb")
	for _, path := range paths {
		saved, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := Read(path)
		for i, c := range fresh.Cells {
			for j, o := range c.Outputs {
				data, ok := o.Data["image/png"]
				if !ok {
					continue
				}
				raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(data)), ""))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				rgba := image.NewRGBA(img.Bounds())
				for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
					for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
						rgba.Set(x, y, img.At(x, y))
					}
				}
				p := rgba.Bounds().Min
				r, g, b, _ := rgba.At(p.X, p.Y).RGBA()
				rgba.Set(p.X, p.Y, color.RGBA{uint8(255 - r>>8), uint8(255 - g>>8), uint8(255 - b>>8), 255})
				var buf bytes.Buffer
				if err := png.Encode(&buf, rgba); err != nil {
					t.Fatal(err)
				}
				out := Output{OutputType: o.OutputType, Data: map[string]Text{"image/png": Text(base64.StdEncoding.EncodeToString(buf.Bytes()))}}
				for m, d := range o.Data {
					if m != "image/png" {
						out.Data[m] = d
					}
				}
				fresh.Cells[i].Outputs[j] = out
				probs := Compare(saved, fresh)
				if len(probs) != 1 || probs[0].Cell != i+1 || !strings.Contains(probs[0].Message, "image/png differs") {
					t.Fatalf("%s: one pixel changed in cell %d: Compare = %v, want that cell's image/png to differ", path, i+1, probs)
				}
				t.Logf("%s, one pixel changed:\n%s", filepath.Base(path), probs[0])
				return
			}
		}
	}
	t.Fatal("no saved lesson holds a PNG")
}

func TestCompareFindsChangedTextAndCharts(t *testing.T) {
	for _, tc := range []struct {
		name         string
		saved, fresh Cell
		want         []string
	}{
		{"text", code(nil, stdout("peak 12/s\n")), code(nil, stdout("peak 13/s\n")), []string{"stdout differs", "fresh:\npeak 13/s", "saved:\npeak 12/s"}},
		{"stderr", code(nil, stdout("x\n")), code(nil, stdout("x\n"), Output{OutputType: "stream", Name: "stderr", Text: "warning\n"}),
			[]string{"shows what the saved notebook does not: stderr:\nwarning"}},
		{"chart", code(nil, display("text/html", chartHTML)), code(nil, display("text/html", Text(strings.Replace(chartHTML, "3", "4", 1)))),
			[]string{"display 1 text/html differs", "saved: interactive chart, 92 B, sha256"}},
		{"explorable", code(nil, display("text/html", `<div class="backofflab-explorable">a</div>`)), code(nil, display("text/html", `<div class="backofflab-explorable">b</div>`)),
			[]string{"saved: explorable, "}},
		{"missing image", code(nil, stdout("x\n"), display("image/png", pngData(t, 8, 6, 1, 1))), code(nil, stdout("x\n")),
			[]string{"lacks the saved display 1 image/png: PNG 8×6"}},
		{"HTML text", code(nil, display("text/html", "<b>3 of 4</b>")), code(nil, display("text/html", "<b>4 of 4</b>")),
			[]string{"display 1 text/html differs:\nfresh:\n<b>4 of 4</b>"}},
		{"error", code(nil), code(nil, Output{OutputType: "error", EName: "ERROR", EValue: "boom"}), []string{"error:\nERROR: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := Compare(&Notebook{Cells: []Cell{tc.saved}}, &Notebook{Cells: []Cell{tc.fresh}})
			if len(probs) != 1 {
				t.Fatalf("Compare = %v, want one problem", probs)
			}
			for _, w := range tc.want {
				if !strings.Contains(probs[0].Message, w) {
					t.Errorf("the problem does not say %q:\n%s", w, probs[0].Message)
				}
			}
		})
	}
}

// A measured cell's figures may differ in their data, not in their kind or pixel size; its text
// must still be the same. A skip-execution cell is left out.
func TestCompareMeasuredAndSkippedCells(t *testing.T) {
	measured := []any{TagMeasured}
	saved := &Notebook{Cells: []Cell{
		code(measured, stdout("8.5 to 9 s\n"), display("image/png", pngData(t, 8, 6, 1, 1)), display("text/html", chartHTML)),
		code([]any{TagSkipExecution}),
	}}
	saved.Cells[1].ExecutionCount = nil
	fresh := &Notebook{Cells: []Cell{
		code(measured, stdout("8.5 to 9 s\n"), display("image/png", pngData(t, 8, 6, 5, 5)), display("text/html", Text(strings.Replace(chartHTML, "3", "4", 1)))),
		code([]any{TagSkipExecution}, stdout("drawn\n")),
	}}
	if probs := Compare(saved, fresh); len(probs) != 0 {
		t.Errorf("Compare = %v, want none", probs)
	}
	for name, c := range map[string]Cell{
		"text":       code(measured, stdout("9 to 9.5 s\n"), display("image/png", pngData(t, 8, 6, 1, 1)), display("text/html", chartHTML)),
		"image size": code(measured, stdout("8.5 to 9 s\n"), display("image/png", pngData(t, 9, 6, 1, 1)), display("text/html", chartHTML)),
		"kind":       code(measured, stdout("8.5 to 9 s\n"), display("image/png", pngData(t, 8, 6, 1, 1)), display("text/html", `<p>no chart</p>`)),
	} {
		fresh.Cells[0] = c
		if probs := Compare(saved, fresh); len(probs) != 1 || probs[0].Cell != 1 {
			t.Errorf("a measured cell with another %s: Compare = %v, want one problem in cell 1", name, probs)
		}
	}
}

func TestCompareNeedsTheSameCells(t *testing.T) {
	saved := &Notebook{Cells: []Cell{code(nil), code(nil)}}
	if probs := Compare(saved, &Notebook{Cells: []Cell{code(nil)}}); len(probs) != 1 || !strings.Contains(probs[0].Message, "1 code cells, the saved notebook 2") {
		t.Errorf("Compare with a cell missing = %v", probs)
	}
	other := &Notebook{Cells: []Cell{code(nil), code(nil)}}
	other.Cells[1].Source = "g()"
	if probs := Compare(saved, other); len(probs) != 1 || probs[0].Cell != 2 || !strings.Contains(probs[0].Message, "different code") {
		t.Errorf("Compare with other code = %v", probs)
	}
}
