package notebook

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseBuildsCellsWithTags(t *testing.T) {
	src := "//// md\n# Title\n\nSome prose.\n//// go expect-chart\nx := 1\n%%\nfmt.Println(x)\n\n//// go skip-execution\nwidget()\n"
	nb, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 3 {
		t.Fatalf("got %d cells, want 3", len(nb.Cells))
	}
	if c := nb.Cells[0]; c.CellType != "markdown" || string(c.Source) != "# Title\n\nSome prose." {
		t.Errorf("cell 1 = %q %q", c.CellType, c.Source)
	}
	if c := nb.Cells[1]; c.CellType != "code" || !c.HasTag(TagExpectChart) || string(c.Source) != "x := 1\n%%\nfmt.Println(x)" {
		t.Errorf("cell 2 = %q %q tags %v", c.CellType, c.Source, c.Tags())
	}
	if !nb.Cells[2].HasTag(TagSkipExecution) {
		t.Errorf("cell 3 tags %v", nb.Cells[2].Tags())
	}
}

func TestParseRejectsBadSources(t *testing.T) {
	for name, src := range map[string]string{
		"text before a marker": "hello\n//// md\nx",
		"bad marker":           "//// python\nx",
		"empty cell":           "//// md\n\n//// go\nx",
		"no cells":             "",
		"tags on markdown":     "//// md note\nx",
	} {
		if _, err := Parse([]byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMarshalGivesValidNBFormatShapes(t *testing.T) {
	nb, err := Parse([]byte("//// md\nhi\n//// go\nfmt.Println(1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.Cells[0]["outputs"]; ok {
		t.Error("markdown cell has outputs")
	}
	code := raw.Cells[1]
	if _, ok := code["execution_count"]; !ok {
		t.Error("code cell lacks execution_count (nbformat requires it, null before execution)")
	}
	if outs, ok := code["outputs"].([]any); !ok || len(outs) != 0 {
		t.Errorf("code cell outputs = %v, want []", code["outputs"])
	}
}

func TestCheckFindsErrorsPanicsAndMissingCharts(t *testing.T) {
	one := 1
	nb := &Notebook{Cells: []Cell{
		{CellType: "code", ExecutionCount: &one, Outputs: []Output{{OutputType: "error", EName: "ERROR", EValue: "exit status 2"}}},
		{CellType: "code", ExecutionCount: &one, Outputs: []Output{{OutputType: "stream", Name: "stderr", Text: "panic: boom\n"}}},
		{CellType: "code", ExecutionCount: &one, Metadata: map[string]any{"tags": []any{TagExpectChart}}},
		{CellType: "code", ExecutionCount: &one, Metadata: map[string]any{"tags": []any{TagExpectChart}},
			Outputs: []Output{{OutputType: "display_data", Data: map[string]Text{"image/png": "iVBOR"}}}},
		{CellType: "code"},
		{CellType: "code", Metadata: map[string]any{"tags": []any{TagSkipExecution}}},
	}}
	probs := Check(nb)
	var cells []int
	for _, p := range probs {
		cells = append(cells, p.Cell)
	}
	want := []int{1, 2, 3, 5}
	if len(cells) != len(want) {
		t.Fatalf("problems in cells %v, want %v: %v", cells, want, probs)
	}
	for i := range want {
		if cells[i] != want[i] {
			t.Fatalf("problems in cells %v, want %v", cells, want)
		}
	}
	if !strings.Contains(probs[2].Message, "expect-chart") {
		t.Errorf("message %q does not name the tag", probs[2].Message)
	}
}

func TestTextRoundTrip(t *testing.T) {
	var x struct{ A, B Text }
	if err := json.Unmarshal([]byte(`{"A":"one\ntwo","B":["one\n","two"]}`), &x); err != nil {
		t.Fatal(err)
	}
	if x.A != x.B {
		t.Fatalf("%q != %q", x.A, x.B)
	}
	b, _ := json.Marshal(x.A)
	if string(b) != `["one\n","two"]` {
		t.Errorf("marshal = %s", b)
	}
}
