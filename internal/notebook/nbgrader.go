package notebook

import (
	"fmt"
	"strings"
)

// Stubs that replace an answer in the learner's version: what nbgrader's ClearSolutions writes
// when configured with code_stub {"go": CodeStub} and its default text_stub.
const (
	// CodeStub replaces a Go solution region. Running it fails with "not implemented", which the
	// exercise checks report as "not written yet".
	CodeStub = "// YOUR CODE HERE\npanic(\"not implemented\")"
	// TextStub replaces a Markdown solution region.
	TextStub = "YOUR ANSWER HERE"
)

// nbgrader's default delimiters; a line containing one of them marks a region.
const (
	beginSolution    = "BEGIN SOLUTION"
	endSolution      = "END SOLUTION"
	beginHiddenTests = "BEGIN HIDDEN TESTS"
	endHiddenTests   = "END HIDDEN TESTS"
)

// ClearSolutions replaces every region from a line containing "BEGIN SOLUTION" to the next line
// containing "END SOLUTION" (both included) with stub, each stub line indented like the BEGIN
// line. It reports whether there was a region, and returns an error for a region that does not
// end, a nested BEGIN or an END without a BEGIN.
func ClearSolutions(src, stub string) (string, bool, error) {
	return clearRegions(src, beginSolution, endSolution, strings.Split(stub, "\n"))
}

// ClearHiddenTests removes every region from a line containing "BEGIN HIDDEN TESTS" to the next
// line containing "END HIDDEN TESTS" (both included). It reports whether there was a region, and
// returns an error for a region that does not end, a nested BEGIN or an END without a BEGIN.
func ClearHiddenTests(src string) (string, bool, error) {
	return clearRegions(src, beginHiddenTests, endHiddenTests, nil)
}

func clearRegions(src, begin, end string, stub []string) (string, bool, error) {
	lines := strings.Split(src, "\n")
	out := make([]string, 0, len(lines))
	inside, found := false, false
	for i, line := range lines {
		switch {
		case strings.Contains(line, begin):
			if inside {
				return "", false, fmt.Errorf("line %d: %s inside a region that has not ended", i+1, begin)
			}
			inside, found = true, true
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			for _, s := range stub {
				out = append(out, indent+s)
			}
		case strings.Contains(line, end):
			if !inside {
				return "", false, fmt.Errorf("line %d: %s without %s", i+1, end, begin)
			}
			inside = false
		case !inside:
			out = append(out, line)
		}
	}
	if inside {
		return "", false, fmt.Errorf("%s without %s", begin, end)
	}
	return strings.Join(out, "\n"), found, nil
}

// ForLearners returns the learner's version of an exercise notebook, as nbgrader's
// generate_assignment would make it: every solution region replaced by the stub (CodeStub in Go
// cells, TextStub in Markdown), a solution cell without regions replaced by the stub entirely,
// hidden test regions removed, outputs and execution counts cleared. Metadata is kept, so the
// learner's notebook still tells nbgrader which cells are graded. It is an error, as in nbgrader,
// for a solution region to sit outside a solution cell or a hidden test region outside a test
// cell. The receiver is not changed.
func (nb *Notebook) ForLearners() (*Notebook, error) {
	out := *nb
	out.Cells = make([]Cell, len(nb.Cells))
	for i, c := range nb.Cells {
		stub := CodeStub
		if c.CellType == "markdown" {
			stub = TextStub
		}
		src, hadSolution, err := ClearSolutions(string(c.Source), stub)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %v", i+1, err)
		}
		if hadSolution && !c.IsSolution() {
			return nil, fmt.Errorf("cell %d: a solution region in a cell that is not nbgrader=%s", i+1, GradeSolution)
		}
		if c.IsSolution() && !hadSolution {
			src = stub
		}
		src, hadHidden, err := ClearHiddenTests(src)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %v", i+1, err)
		}
		if hadHidden && !c.IsGraded() {
			return nil, fmt.Errorf("cell %d: a hidden test region in a cell that is not nbgrader=%s", i+1, GradeTests)
		}
		c.Source = Text(src)
		c.Outputs, c.ExecutionCount = nil, nil
		out.Cells[i] = c
	}
	return &out, nil
}
