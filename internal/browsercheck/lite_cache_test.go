//go:build litebrowser

package browsercheck

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// liteTiming is one cell's record in the kernel's window.backofflabGoTimings
// (ms): Cached is set when its program came from the browser's cache,
// Compile and Link when it was built.
type liteTiming struct {
	Count                  int
	Status                 string
	Merge, Cached, Compile *float64
	Link, Run              *float64
}

// lastLiteTiming is the kernel's record of the cell that ran last.
func lastLiteTiming(t *testing.T, b *Browser) liteTiming {
	t.Helper()
	raw, err := Eval[string](b, `JSON.stringify((window.backofflabGoTimings || []).filter(e => e.count).slice(-1)[0] || null)`)
	if err != nil {
		t.Fatalf("reading the kernel's timings: %v", err)
	}
	var e *liteTiming
	if err := json.Unmarshal([]byte(raw), &e); err != nil || e == nil {
		t.Fatalf("the kernel recorded no cell (%v): %s", err, raw)
	}
	return *e
}

func (e liteTiming) String() string {
	ms := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.0f ms", *p)
	}
	return fmt.Sprintf("cell %d %s: merge %s, from the cache %s, compile %s, link %s, run %s", e.Count, e.Status, ms(e.Merge), ms(e.Cached), ms(e.Compile), ms(e.Link), ms(e.Run))
}

// The cells of lesson 00 that the browser tests run and edit: the import
// cell, the first table and the seed cell (the generator's first state by
// hand).
const lite00Import, lite00Table, lite00Seed = 1, 3, 5

// liteLesson00 reads lesson 00 as saved, and checks that its cells are
// still the ones lite00Import, lite00Table and lite00Seed name.
func liteLesson00(t *testing.T) *notebook.Notebook {
	t.Helper()
	saved, err := notebook.Read(filepath.Join(jupytertest.Repo(), "notebooks/00-start-here.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(saved.Cells[lite00Import].Source), "import") || !strings.Contains(string(saved.Cells[lite00Table].Source), "show.Table") || !strings.Contains(string(saved.Cells[lite00Seed].Source), "lcg.DefaultSeed") {
		t.Fatalf("lesson 00's cells %d, %d and %d are no longer the import cell, a table and the seed cell", lite00Import, lite00Table, lite00Seed)
	}
	return saved
}

// The browser keeps the programs it built (web/src/programs.js): lesson 00's
// seed cell, built on a first visit, runs from the cache after a reload,
// with the same output, compiling and linking nothing; the same cell edited
// (another seed) is built anew and prints what the edit prints natively,
// never the cached program's output. Then, on the same page, the site
// with its server stopped (liteOffline).
func TestLiteProgramCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs cells in Chromium; run without -short")
	}
	srv := serveLite(t)
	b := NewBrowser(t)
	saved := liteLesson00(t)
	const importCell, seedCell = lite00Import, lite00Seed
	want := savedStdout(saved.Cells[seedCell])

	visit := func(what string) (liteCell, liteTiming) {
		t.Helper()
		// Not dirty: a notebook with unsaved outputs asks before the page unloads.
		if _, err := Eval[bool](b, `(() => { for (const w of (window.jupyterapp ? window.jupyterapp.shell.widgets('main') : [])) if (w.context) w.context.model.dirty = false; return true; })()`); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		openLite(t, b, srv.URL+litePrefix)
		liteFocus(t, b)
		if c := liteRunCell(t, b, importCell, 3*time.Minute); len(c.errors()) > 0 {
			t.Fatalf("%s: the import cell: %v", what, c.errors())
		}
		c := liteRunCell(t, b, seedCell, 3*time.Minute)
		e := lastLiteTiming(t, b)
		t.Logf("%s: %v", what, e)
		if errs := c.errors(); len(errs) > 0 {
			t.Fatalf("%s: the seed cell: %v", what, errs)
		}
		return c, e
	}

	c, e := visit("first visit")
	if e.Compile == nil || e.Link == nil || e.Cached != nil {
		t.Errorf("first visit: the seed cell was not compiled and linked: %v", e)
	}
	if got := c.stream("stdout"); got != want {
		t.Errorf("first visit: the seed cell printed %q, the saved notebook %q", got, want)
	}

	c, e = visit("after a reload")
	if e.Cached == nil || e.Compile != nil || e.Link != nil {
		t.Errorf("after a reload: the seed cell's program did not come from the cache: %v", e)
	}
	if got := c.stream("stdout"); got != want {
		t.Errorf("after a reload: the cached program printed %q, the saved notebook %q", got, want)
	}

	edited := strings.ReplaceAll(string(saved.Cells[seedCell].Source), "lcg.DefaultSeed", "20260401")
	if _, err := Eval[bool](b, fmt.Sprintf(`((%s).content.model.cells.get(%d).sharedModel.setSource(%q), true)`, liteNotebookJS, seedCell, edited)); err != nil {
		t.Fatalf("editing cell %d: %v", seedCell, err)
	}
	c = liteRunCell(t, b, seedCell, 3*time.Minute)
	e = lastLiteTiming(t, b)
	t.Logf("edited: %v", e)
	if e.Compile == nil || e.Cached != nil {
		t.Errorf("the edited cell did not build anew: %v", e)
	}
	got := c.stream("stdout")
	if native := nativeCellOutput(t, string(saved.Cells[importCell].Source), edited); got != native {
		t.Errorf("the edited cell printed %q in the browser, %q natively", got, native)
	}
	if got == want {
		t.Errorf("the edited cell printed the saved cell's output %q", got)
	}
	for _, p := range b.Problems() {
		t.Errorf("page problem: %s", p)
	}
	t.Run("Offline", func(t *testing.T) { liteOffline(t, b, srv) })
}
