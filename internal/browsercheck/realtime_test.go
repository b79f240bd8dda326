//go:build wasmbrowser || litebrowser

// What the tests of Go in the browser (wasm_test.go) and of the browser
// edition (lite_test.go) share: the browser's own notes on stderr, and how a
// real-time lesson's cells are compared with the saved notebook.

package browsercheck

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/internal/notebook"
)

// liteLessons are the lessons the browser edition's test runs in full, in
// one page, one after the other, each on a kernel of its own: 00, which
// the site opens; 03, whose cell is then edited; 05, the explorables; 11,
// clients and servers in real time. The Go in the browser suite runs every
// other lesson in its test page, so that each lesson runs in the browser
// once a test run (the two suites compare them alike: notebook.Compare,
// realTimeShape).
var liteLessons = []string{"00-start-here", "03-jitter-width", "05-in-phase", "11-storm"}

// browserNote starts the lines the browser adds to a cell's stderr
// (golab.js's BrowserNote): a skipped `!` line, the in-memory network.
const browserNote = "in the browser: "

// measuredCells names, by notebook, a piece of the code of the cells whose
// charts draw a run that varies from run to run, as the notebooks test
// does (notebooks/notebooks_test.go, untaggedMeasured) until the lesson
// sources tag them: their images are compared by kind and size.
var measuredCells = map[string]string{
	"11-storm.ipynb":          "stormPanel(name, r)",
	"12-apply-it.ipynb":       "flaky.CompareCohorts(",
	"13-whose-defaults.ipynb": "zoo.Chart(",
}

func tagMeasured(name string, nb *notebook.Notebook) {
	code, ok := measuredCells[name]
	if !ok {
		return
	}
	for i, c := range nb.Cells {
		if c.CellType != "code" || !strings.Contains(string(c.Source), code) || c.HasTag(notebook.TagMeasured) {
			continue
		}
		tags, _ := c.Metadata["tags"].([]any)
		c.Metadata = maps.Clone(c.Metadata)
		if c.Metadata == nil {
			c.Metadata = map[string]any{}
		}
		c.Metadata["tags"] = append(slices.Clone(tags), notebook.TagMeasured)
		nb.Cells[i] = c
	}
}

// digits matches a number, which a real-time run changes.
var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// shape is text with its numbers and runs of spaces made alike.
func shape(s string) string {
	return strings.Join(strings.Fields(digits.ReplaceAllString(s, "#")), " ")
}

// realTimeShape returns why notebook cell n (from 1) may differ from the
// saved one in its numbers, or "": lessons 11 and 12 run real clients and
// servers in real time, which in the browser talk over the in-memory
// network on the browser's timers and a single thread (the note the cell
// printed says so), so their counts and the times they report are the
// browser's. From the first cell that printed the note on, a cell that
// differs is compared with its numbers masked and its images by kind.
func realTimeShape(saved, fresh *notebook.Notebook, n, firstNote int) string {
	if firstNote < 0 || n < 1 || n > len(saved.Cells) {
		return ""
	}
	code := 0
	for i := range n {
		if saved.Cells[i].CellType == "code" {
			code++
		}
	}
	if code < firstNote {
		return ""
	}
	if problems := notebook.CompareCellShape(saved, fresh, n, shape); len(problems) > 0 {
		p := problems[0]
		// Under load the browser's single thread can change a run's
		// outcome, not only its numbers: then the rows are compared
		// (the same lines, each with its first word), the cell must
		// have run without error, and its images be of the same kind.
		sc, fc := saved.Cells[n-1], fresh.Cells[n-1]
		if fc.HasError() || sc.HasError() != fc.HasError() {
			return ""
		}
		sl, fl := strings.Split(saved.Cells[n-1].Stream("stdout"), "\n"), strings.Split(fresh.Cells[n-1].Stream("stdout"), "\n")
		if len(sl) != len(fl) {
			return ""
		}
		for i := range sl {
			a, b := strings.Fields(sl[i]), strings.Fields(fl[i])
			if len(a) != len(b) && (len(a) == 0 || len(b) == 0) || len(a) > 0 && a[0] != b[0] {
				return ""
			}
		}
		if pngs(sc) != pngs(fc) {
			return ""
		}
		return "it shows a real-time run whose outcome, in the browser's single thread, differs (the same rows, run without error; difference: " + p.Message + ")"
	}
	return "it shows a real-time run, whose numbers are the browser's (same text and charts but for the numbers)"
}

// pngs counts a cell's PNG images.
func pngs(c notebook.Cell) int {
	n := 0
	for _, o := range c.Outputs {
		if _, ok := o.Data["image/png"]; ok {
			n++
		}
	}
	return n
}
