package check_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the exercise stubs from the solutions")

// stubBody replaces every solution region, nbgrader's code stub for Go.
var stubBody = []string{"// YOUR CODE HERE", `panic("not implemented")`}

// stripSolutions returns src with each region from a line containing
// "BEGIN SOLUTION" to a line containing "END SOLUTION" replaced by
// stubBody, indented like the BEGIN line: what nbgrader's ClearSolutions
// does to a solution cell.
func stripSolutions(src []byte) ([]byte, error) {
	var out bytes.Buffer
	inside := false
	for i, line := range strings.SplitAfter(string(src), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.Contains(trimmed, "BEGIN SOLUTION"):
			if inside {
				return nil, fmt.Errorf("line %d: BEGIN SOLUTION inside a solution region", i+1)
			}
			inside = true
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			for _, s := range stubBody {
				out.WriteString(indent + s + "\n")
			}
		case strings.Contains(trimmed, "END SOLUTION"):
			if !inside {
				return nil, fmt.Errorf("line %d: END SOLUTION without BEGIN SOLUTION", i+1)
			}
			inside = false
		case !inside:
			out.WriteString(line)
		}
	}
	if inside {
		return nil, fmt.Errorf("BEGIN SOLUTION without END SOLUTION")
	}
	return out.Bytes(), nil
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
