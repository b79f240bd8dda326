package notebook

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const exerciseSource = `//// md nbgrader=readonly id=intro
Write F.
//// go nbgrader=solution id=answer
func F() int {
	// BEGIN SOLUTION
	return 42
	// END SOLUTION
}
//// go nbgrader=solution id=whole
x := 1
//// go expect-chart nbgrader=tests id=check points=2.5
%%
check(F())
// BEGIN HIDDEN TESTS
checkMore(F())
// END HIDDEN TESTS
fmt.Println("done")
//// go
fmt.Println("free")
`

func TestParseGivesGradedCellsNbgraderMetadata(t *testing.T) {
	nb, err := Parse([]byte(exerciseSource))
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"schema_version": 3, "grade_id": "intro", "grade": false, "solution": false, "locked": true},
		{"schema_version": 3, "grade_id": "answer", "grade": false, "solution": true, "locked": false},
		{"schema_version": 3, "grade_id": "whole", "grade": false, "solution": true, "locked": false},
		{"schema_version": 3, "grade_id": "check", "grade": true, "solution": false, "locked": true, "points": 2.5},
		nil,
	}
	for i, w := range want {
		if got := nb.Cells[i].Grading(); !reflect.DeepEqual(got, w) {
			t.Errorf("cell %d nbgrader metadata = %v, want %v", i+1, got, w)
		}
	}
	if c := nb.Cells[3]; !c.HasTag(TagExpectChart) || len(c.Tags()) != 1 || !c.IsGraded() || c.IsSolution() {
		t.Errorf("test cell: tags %v, graded %v, solution %v", c.Tags(), c.IsGraded(), c.IsSolution())
	}
	if !nb.Cells[1].IsSolution() || nb.Cells[4].IsSolution() || nb.Cells[4].IsGraded() {
		t.Error("IsSolution/IsGraded disagree with the markers")
	}
	if _, ok := nb.Cells[4].Metadata["nbgrader"]; ok {
		t.Error("an ungraded cell has nbgrader metadata")
	}
	// The metadata survives a round trip through the .ipynb JSON, and Sources sees it.
	b, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var back Notebook
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Sources(), nb.Sources()) {
		t.Errorf("Sources differ after a round trip:\n%q\n%q", back.Sources(), nb.Sources())
	}
	if !strings.Contains(nb.Sources()[3], `"points":2.5`) {
		t.Errorf("Sources does not show the grading: %q", nb.Sources()[3])
	}
	plain, _ := Parse([]byte("//// go\nx\n"))
	if got := plain.Sources()[0]; got != "code[]\nx" {
		t.Errorf("Sources of an ungraded cell = %q, want it unchanged by grading support", got)
	}
}

func TestParseRejectsBadGrading(t *testing.T) {
	for name, src := range map[string]string{
		"unknown kind":         "//// go nbgrader=manual id=a\nx",
		"no id":                "//// go nbgrader=solution\nx",
		"bad id":               "//// go nbgrader=solution id=a.b\nx",
		"tests without points": "//// go nbgrader=tests id=a\nx",
		"points on solution":   "//// go nbgrader=solution id=a points=1\nx",
		"negative points":      "//// go nbgrader=tests id=a points=-1\nx",
		"points not a number":  "//// go nbgrader=tests id=a points=many\nx",
		"solution in markdown": "//// md nbgrader=solution id=a\nx",
		"tests in markdown":    "//// md nbgrader=tests id=a points=1\nx",
		"id without nbgrader":  "//// go id=a\nx",
		"unknown setting":      "//// go nbgrader=readonly id=a color=red\nx",
		"setting twice":        "//// go nbgrader=readonly nbgrader=readonly id=a\nx",
		"duplicate id":         "//// go nbgrader=readonly id=a\nx\n//// go nbgrader=solution id=a\ny",
		"tags on markdown":     "//// md nbgrader=readonly id=a note\nx",
		"upper-case tag":       "//// go Chart\nx",
		"no kind":              "////\nx",
		"no space":             "////go\nx",
	} {
		if _, err := Parse([]byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	_, err := Parse([]byte("//// md\nintro\n//// go nbgrader=tests id=a\nx"))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "points=") {
		t.Errorf("error %v, want one naming line 3 and points=", err)
	}
}

func TestForLearnersClearsSolutionsAndHiddenTests(t *testing.T) {
	nb, err := Parse([]byte(exerciseSource))
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	nb.Cells[3].ExecutionCount = &one
	nb.Cells[3].Outputs = []Output{{OutputType: "stream", Name: "stdout", Text: "done\n"}}
	before, _ := nb.Marshal()
	l, err := nb.ForLearners()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Write F.",
		"func F() int {\n\t// YOUR CODE HERE\n\tpanic(\"not implemented\")\n}",
		CodeStub,
		"%%\ncheck(F())\nfmt.Println(\"done\")",
		"fmt.Println(\"free\")",
	}
	for i, w := range want {
		if got := string(l.Cells[i].Source); got != w {
			t.Errorf("learner cell %d = %q, want %q", i+1, got, w)
		}
		if !reflect.DeepEqual(l.Cells[i].Metadata, nb.Cells[i].Metadata) {
			t.Errorf("learner cell %d lost its metadata", i+1)
		}
	}
	if l.Cells[3].ExecutionCount != nil || l.Cells[3].Outputs != nil {
		t.Error("learner version keeps outputs")
	}
	if after, _ := nb.Marshal(); string(after) != string(before) {
		t.Error("ForLearners changed the instructor's notebook")
	}
	for name, src := range map[string]string{
		"solution region outside a solution cell": "//// go\n// BEGIN SOLUTION\nx\n// END SOLUTION\n",
		"hidden tests outside a test cell":        "//// go nbgrader=readonly id=a\n// BEGIN HIDDEN TESTS\nx\n// END HIDDEN TESTS\n",
		"unclosed solution":                       "//// go nbgrader=solution id=a\n// BEGIN SOLUTION\nx\n",
	} {
		nb, err := Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := nb.ForLearners(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestClearSolutionsLikeNbgrader(t *testing.T) {
	got, found, err := ClearSolutions("func f() int {\n\t// BEGIN SOLUTION\n\treturn 1\n\t// END SOLUTION\n}\n", CodeStub)
	want := "func f() int {\n\t// YOUR CODE HERE\n\tpanic(\"not implemented\")\n}\n"
	if err != nil || !found || got != want {
		t.Errorf("ClearSolutions = %q, %v, %v; want %q", got, found, err, want)
	}
	got, found, err = ClearSolutions("a\n  ### BEGIN SOLUTION\nb\n### END SOLUTION\nc\n  # BEGIN SOLUTION\nd\n# END SOLUTION", "S")
	if err != nil || !found || got != "a\n  S\nc\n  S" {
		t.Errorf("two regions = %q, %v, %v", got, found, err)
	}
	if got, found, err := ClearSolutions("no regions\n", CodeStub); err != nil || found || got != "no regions\n" {
		t.Errorf("no regions = %q, %v, %v", got, found, err)
	}
	for _, bad := range []string{
		"// BEGIN SOLUTION\n",
		"// END SOLUTION\n",
		"// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n",
	} {
		if _, _, err := ClearSolutions(bad, CodeStub); err == nil {
			t.Errorf("ClearSolutions(%q): no error", bad)
		}
	}
	got, found, err = ClearHiddenTests("a\n\t// BEGIN HIDDEN TESTS\n\tb\n\t// END HIDDEN TESTS\nc")
	if err != nil || !found || got != "a\nc" {
		t.Errorf("ClearHiddenTests = %q, %v, %v", got, found, err)
	}
	if _, _, err := ClearHiddenTests("// BEGIN HIDDEN TESTS\n"); err == nil {
		t.Error("unclosed hidden tests: no error")
	}
}
