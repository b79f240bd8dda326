// Package notebooks holds the instructor's versions of the exercise notebooks and builds both
// versions from one source each.
//
// src/NAME.txt is the single source, in the lessons' notebook text format with graded-cell
// markers (see internal/notebook). It is built into
//
//	exercises/solutions/notebooks/NAME.ipynb   the instructor's version: answers and hidden tests
//	exercises/notebooks/NAME.ipynb             the learner's version: stubs, no hidden tests
//
// both saved without outputs. After editing a source, rebuild both with
//
//	go test ./exercises/solutions/notebooks -update
//
// The tests check that the saved notebooks match their sources, then execute both versions on the
// Backoff Lab kernel, each once, side by side (skipped with -short; needs scripts/setup): every instructor notebook must
// pass its checks, and every learner notebook must run, with its test cells failing and saying in
// plain words which functions are not written yet.
package notebooks_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/exercises/check"
	"github.com/backofflab/backofflab/internal/notebook"
)

var update = flag.Bool("update", false, "rewrite the exercise notebooks from their sources")

// learnerDir is where the learners' versions live, relative to this package.
const learnerDir = "../../notebooks"

// exercise is one exercise notebook: its source and the paths of its two versions.
type exercise struct {
	name, src, instructor, learner string
}

func exercises(t *testing.T) []exercise {
	t.Helper()
	srcs, err := filepath.Glob("src/*.txt")
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no exercise notebook sources in src/ (%v)", err)
	}
	var es []exercise
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".txt")
		es = append(es, exercise{name, src, name + ".ipynb", filepath.Join(learnerDir, name+".ipynb")})
	}
	return es
}

// build returns the two versions of an exercise notebook, as saved.
func build(t *testing.T, e exercise) (instructor, learner []byte) {
	t.Helper()
	text, err := os.ReadFile(e.src)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := notebook.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", e.src, err)
	}
	solutions, tests := 0, 0
	for _, c := range nb.Cells {
		if c.IsSolution() {
			solutions++
		}
		if c.IsGraded() {
			tests++
		}
	}
	if solutions == 0 || tests == 0 {
		t.Errorf("%s has %d answer cells and %d test cells: an exercise needs at least one of each", e.src, solutions, tests)
	}
	l, err := nb.ForLearners()
	if err != nil {
		t.Fatalf("%s: %v", e.src, err)
	}
	if instructor, err = nb.Marshal(); err != nil {
		t.Fatal(err)
	}
	if learner, err = l.Marshal(); err != nil {
		t.Fatal(err)
	}
	return instructor, learner
}

func TestNotebooksAreBuiltFromTheirSources(t *testing.T) {
	for _, e := range exercises(t) {
		instructor, learner := build(t, e)
		for _, v := range []struct {
			path string
			want []byte
		}{{e.instructor, instructor}, {e.learner, learner}} {
			if *update {
				if err := os.WriteFile(v.path, v.want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(v.path)
			if err != nil || !bytes.Equal(got, v.want) {
				t.Errorf("%s is not built from %s (%v): run go test ./exercises/solutions/notebooks -update", v.path, e.src, err)
			}
		}
		for _, leak := range []string{"BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "Hidden("} {
			if bytes.Contains(learner, []byte(leak)) {
				t.Errorf("the learner's %s contains %q", e.learner, leak)
			}
		}
	}
	// Every learner notebook has a source.
	saved, _ := filepath.Glob(filepath.Join(learnerDir, "*.ipynb"))
	if len(saved) != len(exercises(t)) {
		t.Errorf("%d learner notebooks in %s, %d sources in src/: remove stale notebooks or add their sources", len(saved), learnerDir, len(exercises(t)))
	}
}

// The exercise notebooks run side by side (the tests that execute them are parallel) through
// one notebook.Executor, started by the first of them and closed by TestMain: one Python process
// running nbclient, as for the lessons, with the kernel in class mode (no gopls, which executing
// a cell never asks; cell programs linked without a symbol table), as a class's learners run them.
var (
	executorOnce sync.Once
	executor     *notebook.Executor
	executorErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if executor != nil {
		if err := executor.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// execute runs the notebook at path on the Backoff Lab kernel and returns the executed notebook.
func execute(t *testing.T, path string) *notebook.Notebook {
	t.Helper()
	executorOnce.Do(func() {
		if executorErr = os.Setenv("BACKOFFLAB_CLASS", "1"); executorErr == nil {
			executor, executorErr = notebook.StartExecutor(notebook.ExecOptions{CellTimeout: 2 * time.Minute, Timeout: 5 * time.Minute})
		}
	})
	if executorErr != nil {
		t.Fatal(executorErr)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	start := time.Now()
	if err := executor.Execute(context.Background(), path, out); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s executed in %v", path, time.Since(start).Round(100*time.Millisecond))
	nb, err := notebook.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

// stdout returns what the cell printed on standard output.
func stdout(c notebook.Cell) string { return c.Stream("stdout") }

// failsForNbgrader reports whether nbgrader scores the cell as failed (zero
// points): it has an error output or printed anything on standard error.
func failsForNbgrader(c notebook.Cell) bool {
	for _, o := range c.Outputs {
		if o.OutputType == "error" || o.OutputType == "stream" && o.Name == "stderr" {
			return true
		}
	}
	return false
}

func TestInstructorNotebooksPassTheirChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("executing notebooks takes a while; run without -short")
	}
	t.Parallel()
	for _, e := range exercises(t) {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			nb := execute(t, e.instructor)
			for _, p := range notebook.Check(nb) {
				t.Errorf("%s", p)
			}
			for i, c := range nb.Cells {
				if c.IsGraded() && (!strings.Contains(stdout(c), check.Passed) || failsForNbgrader(c)) {
					t.Errorf("test cell %d does not pass cleanly with %q; it printed:\n%s%s", i+1, check.Passed, stdout(c), c.Stream("stderr"))
				}
			}
		})
	}
}

func TestLearnerNotebooksSayWhatIsNotWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("executing notebooks takes a while; run without -short")
	}
	t.Parallel()
	for _, e := range exercises(t) {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			nb := execute(t, e.learner)
			for _, p := range notebook.Check(nb) {
				t.Errorf("cell %d fails with the stubs (only the test cells may, and only on standard error): %s", p.Cell, p)
			}
			for i, c := range nb.Cells {
				if !c.IsGraded() {
					continue
				}
				out := c.Stream("stderr")
				if !failsForNbgrader(c) {
					t.Errorf("test cell %d passes with the stubs; it printed:\n%s", i+1, stdout(c))
				}
				// A plain checklist: ✗ items and the closing line, no exit status.
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					if !strings.HasPrefix(line, "✗ ") && !strings.HasSuffix(line, "run this cell again.") {
						t.Errorf("test cell %d: %q is neither a ✗ item nor the closing line", i+1, line)
					}
				}
				if !strings.Contains(out, "not written yet") || strings.Contains(out, "goroutine") {
					t.Errorf("test cell %d should say in plain words what is not written yet; it printed:\n%s", i+1, out)
				}
			}
		})
	}
}

// An answer that does not compile leaves the setup cell's placeholder in
// place, so the check cell still runs and names the answer's cell, instead
// of failing with "undefined: Peak" on a line of GoNB's generated main.go.
func TestCheckNamesTheCellOfAnAnswerThatDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("executing notebooks takes a while; run without -short")
	}
	t.Parallel()
	nb, err := notebook.Read(filepath.Join(learnerDir, "waves-overload.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	broken := false
	for i, c := range nb.Cells {
		if id, _ := c.Grading()["grade_id"].(string); id == "overload-peak" {
			// waves.Run returns two values: a compile error on the cell's line 4.
			nb.Cells[i].Source = notebook.Text(strings.Replace(string(c.Source), `panic("not implemented")`, "r := waves.Run(c)\n\treturn r.Peak(), nil", 1))
			broken = nb.Cells[i].Source != c.Source
		}
	}
	if !broken {
		t.Fatal("no answer cell overload-peak with a stub to break")
	}
	path := filepath.Join(t.TempDir(), "waves-overload.ipynb")
	if err := nb.Write(path); err != nil {
		t.Fatal(err)
	}
	out := execute(t, path)
	for _, c := range out.Cells {
		if !c.IsGraded() {
			continue
		}
		msg := c.Stream("stderr")
		if !strings.Contains(msg, `Peak has not run yet, or its cell ("2. Its peak") has an error`) ||
			strings.Contains(msg, "undefined") || strings.Contains(msg, "main.go") || strings.Contains(msg, "exit status") {
			t.Errorf("the check cell should name the broken answer's cell; it printed:\n%s%s", stdout(c), msg)
		}
		for _, o := range c.Outputs {
			if o.OutputType == "error" {
				t.Errorf("the check cell failed to run (%s: %s): it should compile with the placeholder", o.EName, o.EValue)
			}
		}
	}
}
