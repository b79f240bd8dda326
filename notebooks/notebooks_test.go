// Package notebooks holds the lessons. Its test executes every notebook once on the Backoff Lab
// kernel (nbclient), as a learner would, every cell included, and fails on any cell error or
// panic, on a chart cell without a chart, on a run past its timeout, and on a notebook whose
// saved outputs differ from a fresh run: text exactly, images, interactive charts and
// explorables by a hash of their data (the lessons are seeded and render deterministically: the
// same code must show the same numbers and draw the same pixels; see notebook.Compare).
//
// It needs scripts/setup to have run (the test command does that first). With -short it only
// checks that every notebook matches its text source.
package notebooks

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/notebook"
)

func lessons(t *testing.T) []string {
	t.Helper()
	nbs, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if len(nbs) == 0 {
		t.Fatal("no notebooks found in notebooks/")
	}
	return nbs
}

// Every notebook is built from notebooks/src/NN-slug.txt; the two must not drift apart.
func TestNotebooksMatchTheirSources(t *testing.T) {
	srcs, _ := filepath.Glob("src/*.txt")
	if len(srcs) != len(lessons(t)) {
		t.Errorf("%d sources in notebooks/src but %d notebooks: run scripts/build-notebooks", len(srcs), len(lessons(t)))
	}
	for _, nbPath := range lessons(t) {
		src := filepath.Join("src", strings.TrimSuffix(nbPath, ".ipynb")+".txt")
		text, err := os.ReadFile(src)
		if err != nil {
			t.Errorf("%s has no source %s", nbPath, src)
			continue
		}
		want, err := notebook.Parse(text)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := notebook.Read(nbPath)
		if err != nil {
			t.Error(err)
			continue
		}
		g, w := got.Sources(), want.Sources()
		if len(g) != len(w) {
			t.Errorf("%s has %d cells, its source %d: run scripts/build-notebooks %s", nbPath, len(g), len(w), src)
			continue
		}
		for i := range g {
			if g[i] != w[i] {
				t.Errorf("%s cell %d differs from %s: run scripts/build-notebooks %s\nnotebook:\n%s\nsource:\n%s", nbPath, i+1, src, src, g[i], w[i])
				break
			}
		}
		if ks, _ := got.Metadata["kernelspec"].(map[string]any); ks["name"] != notebook.KernelName {
			t.Errorf("%s: kernel %v, want %s", nbPath, ks["name"], notebook.KernelName)
		}
	}
}

// Saved notebooks must show a reader on a code host what a run shows: no errors, every chart.
func TestSavedNotebooksHaveCleanOutputs(t *testing.T) {
	for _, nbPath := range lessons(t) {
		nb, err := notebook.Read(nbPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range notebook.Check(nb) {
			t.Errorf("%s (saved): %s", nbPath, p)
		}
	}
}

// realTime lists the lessons that spend most of their run waiting on real time (lesson 13's
// loopback HTTP run, lesson 11's storms), last first.
var realTime = []string{"11-storm.ipynb", "13-whose-defaults.ipynb"}

// parallelNotebooks is how many notebooks TestNotebooksExecute runs at once.
const parallelNotebooks = 3

func TestNotebooksExecute(t *testing.T) {
	if testing.Short() {
		t.Skip("executing notebooks takes minutes; run without -short")
	}
	// The kernel in its class mode (scripts/kernel): no gopls, which executing a cell never
	// asks, and cell programs linked without a symbol table, under the class's CPU and memory
	// limits. The cells print the same; the builds, most of the suite's time, take less.
	t.Setenv("BACKOFFLAB_CLASS", "1")
	// Notebooks run side by side, a few at a time: a cell's build is mostly one process (the
	// linker) and some lessons mostly wait on real time, so one notebook at a time leaves cores
	// idle. The lessons that wait longest start first.
	nbs := lessons(t)
	slices.SortStableFunc(nbs, func(a, b string) int {
		return cmp.Compare(slices.Index(realTime, b), slices.Index(realTime, a))
	})
	// One executor for every notebook: one Python process, not one `jupyter nbconvert` each.
	// Cells tagged skip-execution (saved without outputs) run too: each cell runs once a run.
	ex, err := notebook.StartExecutor(notebook.ExecOptions{CellTimeout: 3 * time.Minute, Timeout: 10 * time.Minute, RunSkipped: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ex.Close(); err != nil {
			t.Error(err)
		}
	}()
	sem := make(chan struct{}, parallelNotebooks)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, nbPath := range nbs {
		sem <- struct{}{} // in order: the first listed start first
		wg.Go(func() {
			defer func() { <-sem }()
			t.Run(strings.TrimSuffix(nbPath, ".ipynb"), func(t *testing.T) { executeAndCompare(t, ex, nbPath) })
		})
	}
}

// executeAndCompare runs the notebook at nbPath and compares what it shows with its saved
// outputs: text exactly, images, interactive charts and explorables by a hash of their data
// (notebook.Compare). A run that differs is kept in .cache/executed/ for a person to look at.
func executeAndCompare(t *testing.T, ex *notebook.Executor, nbPath string) {
	saved, err := notebook.Read(nbPath)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), nbPath)
	start := time.Now()
	if err := ex.Execute(context.Background(), nbPath, out); err != nil {
		t.Fatal(err)
	}
	t.Logf("executed in %v", time.Since(start).Round(100*time.Millisecond))
	run, err := notebook.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range notebook.Check(run) {
		t.Errorf("%s", p)
	}
	diffs := notebook.Compare(saved, run)
	for _, p := range diffs {
		t.Errorf("%s", p)
	}
	if len(diffs) > 0 {
		keep := filepath.Join("..", ".cache", "executed", nbPath)
		if err := os.MkdirAll(filepath.Dir(keep), 0o755); err == nil && run.Write(keep) == nil {
			t.Logf("the fresh run is kept in %s", keep)
		}
	}
}
