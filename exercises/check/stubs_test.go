package check_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/internal/notebook"
)

var update = flag.Bool("update", false, "rewrite the exercise stubs from the solutions")

// stripSolutions returns src with each region from a line containing
// "BEGIN SOLUTION" to a line containing "END SOLUTION" replaced by
// nbgrader's code stub for Go, indented like the BEGIN line: what
// nbgrader's ClearSolutions does to a solution cell, and what the exercise
// notebooks' learner versions get (internal/notebook does it for both).
func stripSolutions(src []byte) ([]byte, error) {
	out, _, err := notebook.ClearSolutions(string(src), notebook.CodeStub)
	return []byte(out), err
}

// TestStubsAreSolutionsWithoutSolutions keeps every learner stub equal to
// its solution with the solution regions cleared, so the two never drift.
// Run with -update after editing a solution to regenerate the stubs.
func TestStubsAreSolutionsWithoutSolutions(t *testing.T) {
	solutions, err := filepath.Glob("../solutions/*/*/*.go")
	if err != nil || len(solutions) == 0 {
		t.Fatalf("no solutions found (%v)", err)
	}
	for _, sol := range solutions {
		if strings.HasSuffix(sol, "_test.go") {
			continue
		}
		src, err := os.ReadFile(sol)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte("BEGIN SOLUTION")) {
			t.Errorf("%s has no solution region", sol)
		}
		want, err := stripSolutions(src)
		if err != nil {
			t.Errorf("%s: %v", sol, err)
			continue
		}
		rel, _ := filepath.Rel("../solutions", sol)
		stub := filepath.Join("..", rel)
		if *update {
			if err := os.MkdirAll(filepath.Dir(stub), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(stub, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(stub)
		if err != nil {
			t.Errorf("stub for %s: %v (run go test ./exercises/check -update)", sol, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not %s with its solutions cleared: run go test ./exercises/check -update", stub, sol)
		}
	}
}

func TestStripSolutions(t *testing.T) {
	got, err := stripSolutions([]byte("func f() int {\n\t// BEGIN SOLUTION\n\treturn 1\n\t// END SOLUTION\n}\n"))
	want := "func f() int {\n\t// YOUR CODE HERE\n\tpanic(\"not implemented\")\n}\n"
	if err != nil || string(got) != want {
		t.Fatalf("stripSolutions = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{
		"// BEGIN SOLUTION\n",
		"// END SOLUTION\n",
		"// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n",
	} {
		if _, err := stripSolutions([]byte(bad)); err == nil {
			t.Errorf("stripSolutions(%q) gave no error", bad)
		}
	}
}
