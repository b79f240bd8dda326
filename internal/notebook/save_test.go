package notebook

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// outputList lists outputs as type[/name]:text, for comparing what a notebook saves.
func outputList(outs []Output) string {
	var parts []string
	for _, o := range outs {
		s := o.OutputType
		if o.Name != "" {
			s += "/" + o.Name
		}
		if o.OutputType == "stream" {
			s += fmt.Sprintf(":%q", o.Text)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// A cell's text arrives one write at a time; the saved notebook keeps each run of one stream
// whole, and leaves the other outputs, and the text on either side of them, where they were.
func TestWriteSavesEachRunOfAStreamAsOneOutput(t *testing.T) {
	one := 1
	chart := Output{OutputType: "display_data", Data: map[string]Text{"image/png": "iVBOR"}}
	nb := &Notebook{NBFormat: 4, NBFormatMinor: 5, Cells: []Cell{{
		CellType: "code", ExecutionCount: &one,
		Outputs: []Output{
			{OutputType: "stream", Name: "stdout", Text: "policy"},
			{OutputType: "stream", Name: "stdout", Text: "  "},
			{OutputType: "stream", Name: "stdout", Text: "calls\nfull    12\n"},
			chart,
			{OutputType: "stream", Name: "stdout", Text: "after the chart\n"},
			{OutputType: "stream", Name: "stderr", Text: "warn"},
			{OutputType: "stream", Name: "stderr", Text: "ing\n"},
			{OutputType: "stream", Name: "stdout", Text: "last\n"},
		},
	}}}
	b, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var back Notebook
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := outputList(back.Cells[0].Outputs)
	want := `stream/stdout:"policy  calls\nfull    12\n" display_data stream/stdout:"after the chart\n" stream/stderr:"warning\n" stream/stdout:"last\n"`
	if got != want {
		t.Errorf("saved outputs\n  %s\nwant\n  %s", got, want)
	}
	// nbformat's own key order, so that a joined output reads like any other in a diff.
	if !strings.Contains(string(b), "\"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"policy  calls\\n\",") {
		t.Errorf("joined output not written as nbformat writes a stream:\n%s", b)
	}
	// The notebook itself is left as it was: joining happens as it is written.
	if n := len(nb.Cells[0].Outputs); n != 8 {
		t.Errorf("Marshal changed the notebook: %d outputs, want the 8 it had", n)
	}
}

// The saved lessons and exercises carry each run of a cell's text on one stream as one output, so
// that the static site and a code host draw a table as one block (run scripts/build-notebooks
// -resave after a build made by an older writer).
func TestSavedNotebooksKeepEachStreamWhole(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../../notebooks/*.ipynb", "../../exercises/notebooks/*.ipynb", "../../exercises/solutions/notebooks/*.ipynb"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 14 {
		t.Fatalf("found %d notebooks, want the lessons and the exercises", len(paths))
	}
	for _, path := range paths {
		nb, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range nb.Cells {
			for j := 1; j < len(c.Outputs); j++ {
				a, b := c.Outputs[j-1], c.Outputs[j]
				if a.OutputType == "stream" && b.OutputType == "stream" && a.Name == b.Name {
					t.Errorf("%s cell %d saves its %s in pieces (outputs %d and %d, %q then %q): run scripts/build-notebooks -resave",
						filepath.Base(path), i+1, a.Name, j, j+1, a.Text, b.Text)
					break
				}
			}
		}
	}
}
