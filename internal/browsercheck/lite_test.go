//go:build litebrowser

// The tests of the browser edition (issue 24, web/lite/README.md): the
// JupyterLite site scripts/build-lite writes, served by a plain file server
// under a path prefix, driven in Chromium as a learner uses it. They build
// Go in the browser and run lessons in it, so they build only with -tags
// litebrowser, and scripts/test runs them beside the other suites.

package browsercheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/cells"
	"github.com/backofflab/backofflab/internal/chromium"
	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// litePrefix is the path the tests serve the site under, as a course site
// under /backoff-lab/ would be: nothing in it may assume the root.
const litePrefix = "/backoff-lab/"

var liteSite = struct {
	once sync.Once
	dir  string
	err  error
}{}

// serveLite builds the site (scripts/build-lite) once per test binary into
// .cache/lite-site and serves it on 127.0.0.1 under litePrefix.
func serveLite(t *testing.T) *httptest.Server {
	t.Helper()
	liteSite.once.Do(func() {
		dir := filepath.Join(jupytertest.Repo(), ".cache", "lite-site")
		start := time.Now()
		out, err := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "build-lite"), dir).CombinedOutput()
		if err != nil {
			liteSite.err = fmt.Errorf("scripts/build-lite: %v\n%s", err, out)
			return
		}
		t.Logf("scripts/build-lite took %v", time.Since(start).Round(time.Second))
		liteSite.dir = dir
	})
	if liteSite.err != nil {
		t.Fatal(liteSite.err)
	}
	mux := http.NewServeMux()
	mux.Handle(litePrefix, http.StripPrefix(strings.TrimSuffix(litePrefix, "/"), http.FileServer(http.Dir(liteSite.dir))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// openLite opens the site's front page, which opens lesson 00, and waits
// until the notebook shows its cells and its kernel is idle.
func openLite(t *testing.T, b *Browser, url string) state {
	t.Helper()
	if err := b.Do(2*time.Minute, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	return waitFor(t, b, 2*time.Minute, "the notebook to show its cells and its kernel to start", func(st state) bool {
		return st.Ready && len(st.Prompts) > 0 && st.Kernel == "idle"
	})
}

// liteRunAll clears the open notebook's outputs and runs Run All Cells, waits until every cell has run and the kernel is idle, and returns
// the notebook as the page holds it (nbformat, read from the model).
func liteRunAll(t *testing.T, b *Browser, name string) *notebook.Notebook {
	t.Helper()
	if _, err := Eval[bool](b, `(window.jupyterapp.shell.activateById(Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.content && w.content.model && w.sessionContext).id), true)`); err != nil {
		t.Fatalf("activating the notebook: %v", err)
	}
	// Clear the saved outputs first: a cell shows a prompt number again only once it has run.
	if _, err := liteAwait[bool](b, time.Minute, `window.jupyterapp.commands.execute("notebook:clear-all-cell-outputs").then(() => true)`); err != nil {
		t.Fatalf("clearing the outputs: %v", err)
	}
	start := time.Now()
	// Run, Run All Cells (the menu's command: in JupyterLite the toolbar's Restart and Run All
	// asks first, in a dialog, and was seen to run nothing after it).
	// The notebook's commands act on the notebook that has the focus: a click on its first cell.
	if err := b.Do(30*time.Second, chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .jp-InputPrompt`)); err != nil {
		t.Fatalf("clicking the first cell: %v", err)
	}
	if _, err := Eval[bool](b, `(window.jupyterapp.commands.execute("notebook:run-all-cells"), true)`); err != nil {
		t.Fatalf("Run All: %v", err)
	}
	limit := 10 * time.Minute
	deadline := time.Now().Add(limit)
	var ran string
	for {
		var err error
		ran, err = Eval[string](b, liteRunState)
		if err != nil {
			t.Fatalf("reading the notebook's model: %v", err)
		}
		if ran == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: Run All did not finish within %v: %s", name, limit, ran)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("%s: Run All ran in the browser in %v", name, time.Since(start).Round(time.Second))
	return pageNotebook(t, b)
}

// pageNotebook returns the open notebook as the page's model holds it.
func pageNotebook(t *testing.T, b *Browser) *notebook.Notebook {
	t.Helper()
	js, err := Eval[string](b, `JSON.stringify(Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.content && w.content.model && w.sessionContext).content.model.toJSON())`)
	if err != nil {
		t.Fatalf("reading the notebook's model: %v", err)
	}
	path := filepath.Join(t.TempDir(), "page.ipynb")
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	nb, err := notebook.Read(path)
	if err != nil {
		t.Fatalf("the page's notebook: %v", err)
	}
	return nb
}

// withoutBrowserNotes takes the lines the browser adds to stderr ("in the
// browser: …", golab.js's BrowserNote) out of every cell, and returns them.
func withoutBrowserNotes(nb *notebook.Notebook) []string {
	var notes []string
	for i, c := range nb.Cells {
		var outs []notebook.Output
		for _, o := range notebook.JoinStreams(c.Outputs) {
			if o.OutputType == "stream" && o.Name == "stderr" {
				var kept []string
				for _, l := range strings.SplitAfter(string(o.Text), "\n") {
					if strings.HasPrefix(l, liteBrowserNote) {
						notes = append(notes, strings.TrimSpace(l))
					} else if l != "" {
						kept = append(kept, l)
					}
				}
				if len(kept) == 0 {
					continue
				}
				o.Text = notebook.Text(strings.Join(kept, ""))
			}
			outs = append(outs, o)
		}
		c.Outputs = outs
		nb.Cells[i] = c
	}
	return notes
}

// The site's front page, under a path prefix, opens lesson 00 on the Go
// kernel in the browser; Run All Cells runs every
// cell, and the outputs equal the saved notebook's; then lesson 03, opened
// from the page, the same (notebook.Compare, as the
// notebooks test compares a fresh run). No request leaves 127.0.0.1, no file
// is missing, no script fails. Screenshots: .cache/screenshots/lite-00-start-here.png, lite-03-jitter-width.png.
func TestLiteLessonRunsInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs a lesson in Chromium; run without -short")
	}
	srv := serveLite(t)
	b := NewBrowser(t)
	openLite(t, b, srv.URL+litePrefix)
	for i, name := range []string{"00-start-here.ipynb", "03-jitter-width.ipynb"} {
		path := "notebooks/" + name
		if i > 0 {
			liteOpen(t, b, path)
		}
		saved, err := notebook.Read(filepath.Join(jupytertest.Repo(), path))
		if err != nil {
			t.Fatal(err)
		}
		fresh := liteRunAll(t, b, name)
		if notes := withoutBrowserNotes(fresh); len(notes) > 0 {
			t.Logf("%s: the browser's notes: %s", name, strings.Join(slices.Compact(notes), "; "))
		}
		for _, p := range notebook.Compare(saved, fresh) {
			t.Errorf("%s in the browser: %s", name, p)
		}
		b.Screenshot(t, scroller, "lite-"+strings.TrimSuffix(name, ".ipynb"))
		if raw, err := json.Marshal(fresh.Metadata["kernelspec"]); err == nil && !strings.Contains(string(raw), "backofflab-go") {
			t.Errorf("%s runs on kernel %s, not backofflab-go", name, raw)
		}
	}
	for _, p := range b.Problems() {
		t.Errorf("page problem: %s", p)
	}
}

// liteBrowserNote starts the lines the browser adds to a cell's stderr
// (golab.js's BrowserNote).
const liteBrowserNote = "in the browser: "

// liteAwait evaluates an expression that yields a promise, waiting up to d.
func liteAwait[T any](b *Browser, d time.Duration, js string) (T, error) {
	return chromium.Await[T](b.Ctx, d, js)
}

// liteRunState reads, from the open notebook's model, whether every code
// cell has run and the kernel is idle ("done"), or what it waits for.
const liteRunState = `(() => {
  const w = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.content && w.content.model && w.sessionContext);
  const code = Array.from(w.content.model.cells).filter(c => c.type === 'code');
  const ran = code.filter(c => c.executionCount != null && c.executionState !== 'running').length;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  const status = kernel ? kernel.status : 'none';
  return ran === code.length && status === 'idle' ? 'done' : ran + ' of ' + code.length + ' code cells ran, kernel ' + status;
})()`

// liteNotebookJS is the open notebook's panel, for the expressions below.
const liteNotebookJS = `Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.content && w.content.model && w.sessionContext)`

// liteFocus gives the open notebook the focus (a click on its first cell's
// prompt), so that the notebook commands act on it.
func liteFocus(t *testing.T, b *Browser) {
	t.Helper()
	if err := b.Do(30*time.Second, chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .jp-InputPrompt`)); err != nil {
		t.Fatalf("clicking the first cell: %v", err)
	}
}

// liteCell is one cell of the page's notebook as its model holds it.
type liteCell struct {
	Source  string
	Count   *int
	Running bool
	Outputs []struct {
		OutputType string          `json:"output_type"`
		Name       string          `json:"name"`
		Text       json.RawMessage `json:"text"`
		Ename      string          `json:"ename"`
		Evalue     string          `json:"evalue"`
	}
	Kernel string
}

// stream is the cell's stream name (stdout, stderr), joined.
func (c liteCell) stream(name string) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType != "stream" || o.Name != name {
			continue
		}
		var s string
		if json.Unmarshal(o.Text, &s) != nil {
			var lines []string
			json.Unmarshal(o.Text, &lines)
			s = strings.Join(lines, "")
		}
		b.WriteString(s)
	}
	return b.String()
}

func (c liteCell) errors() []string {
	var errs []string
	for _, o := range c.Outputs {
		if o.OutputType == "error" {
			errs = append(errs, o.Ename+": "+o.Evalue)
		}
	}
	return errs
}

// readLiteCell reads cell i of the open notebook.
func readLiteCell(t *testing.T, b *Browser, i int) liteCell {
	t.Helper()
	js, err := Eval[string](b, fmt.Sprintf(`(() => {
  const w = %s;
  const c = w.content.model.cells.get(%d);
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return JSON.stringify({Source: c.sharedModel.getSource(), Count: c.executionCount, Running: c.executionState === 'running',
    Outputs: c.toJSON().outputs || [], Kernel: k ? k.status : 'none'});
})()`, liteNotebookJS, i))
	if err != nil {
		t.Fatalf("reading cell %d: %v", i, err)
	}
	var c liteCell
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("reading cell %d: %v: %s", i, err, js)
	}
	return c
}

// liteStartCell makes cell i the active cell, alone, and runs it (Run, Run
// Selected Cell), without waiting.
func liteStartCell(t *testing.T, b *Browser, i int) {
	t.Helper()
	if _, err := Eval[bool](b, fmt.Sprintf(`(() => { const n = (%s).content; n.deselectAll(); n.activeCellIndex = %d;
  window.jupyterapp.commands.execute("notebook:run-cell"); return true; })()`, liteNotebookJS, i)); err != nil {
		t.Fatalf("running cell %d: %v", i, err)
	}
}

// liteRunCell clears cell i, runs it and waits until it has run (an
// execution count) and the kernel is idle.
func liteRunCell(t *testing.T, b *Browser, i int, limit time.Duration) liteCell {
	t.Helper()
	// Cleared first: its saved count may be the count it runs with.
	if _, err := Eval[bool](b, fmt.Sprintf(`(() => { const c = (%s).content.model.cells.get(%d); c.outputs.clear(); c.executionCount = null; return true; })()`, liteNotebookJS, i)); err != nil {
		t.Fatalf("clearing cell %d: %v", i, err)
	}
	liteStartCell(t, b, i)
	deadline := time.Now().Add(limit)
	for {
		c := readLiteCell(t, b, i)
		if c.Count != nil && !c.Running && c.Kernel == "idle" {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("cell %d did not finish within %v: %+v", i, limit, c)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// nativeCellOutput runs cells as one kernel session would, natively: each
// merged as GoNB merges them (internal/cells) and kept, the last one built
// and run with go run in the repository's module; it returns its standard
// output.
func nativeCellOutput(t *testing.T, sources ...string) string {
	t.Helper()
	s := new(cells.State)
	var p *cells.Program
	for i, src := range sources {
		var err error
		if p, err = s.Merge(i+1, src); err != nil {
			t.Fatalf("merging cell %d: %v", i+1, err)
		}
		s.Commit(p)
	}
	root := jupytertest.Repo()
	dir, err := os.MkdirTemp(filepath.Join(root, ".cache"), "lite-native-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(p.Source), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", filepath.Join(dir, "main.go"))
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run of the edited cell: %v\n%s\n%s", err, stderr.String(), p.Source)
	}
	return string(out)
}

// A learner's session in lesson 00: edit a cell (another seed) and run it
// again: its output changes, and is what the same edit prints natively;
// saved, the edit survives a reload (JupyterLite's browser storage); the
// stop button ends a `for {}` cell, and the next cell runs.
func TestLiteEditReloadStop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs cells in Chromium; run without -short")
	}
	srv := serveLite(t)
	b := NewBrowser(t)
	openLite(t, b, srv.URL+litePrefix)
	saved, err := notebook.Read(filepath.Join(jupytertest.Repo(), "notebooks/00-start-here.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	// The import cell, and the cell that draws the generator's first state by hand.
	const importCell, seedCell = 1, 5
	if !strings.Contains(string(saved.Cells[seedCell].Source), "lcg.DefaultSeed") || !strings.HasPrefix(string(saved.Cells[importCell].Source), "import") {
		t.Fatalf("lesson 00's cells %d and %d are no longer the import cell and the seed cell", importCell, seedCell)
	}
	savedOut := savedStdout(saved.Cells[seedCell])
	liteFocus(t, b)
	if c := liteRunCell(t, b, importCell, 3*time.Minute); len(c.errors()) > 0 {
		t.Fatalf("the import cell: %v", c.errors())
	}

	edited := strings.ReplaceAll(string(saved.Cells[seedCell].Source), "lcg.DefaultSeed", "20260401")
	if _, err := Eval[bool](b, fmt.Sprintf(`((%s).content.model.cells.get(%d).sharedModel.setSource(%q), true)`, liteNotebookJS, seedCell, edited)); err != nil {
		t.Fatalf("editing cell %d: %v", seedCell, err)
	}
	start := time.Now()
	c := liteRunCell(t, b, seedCell, 3*time.Minute)
	t.Logf("the edited cell ran in %v", time.Since(start).Round(100*time.Millisecond))
	if errs := c.errors(); len(errs) > 0 {
		t.Errorf("the edited cell: %v", errs)
	}
	got := c.stream("stdout")
	if got == savedOut || !strings.Contains(got, "seed 20260401") {
		t.Errorf("the edited cell printed %q; the saved cell %q: the edit did not change the output", got, savedOut)
	}
	if want := nativeCellOutput(t, string(saved.Cells[importCell].Source), edited); got != want {
		t.Errorf("the edited cell printed %q in the browser, %q natively", got, want)
	}
	b.Screenshot(t, scroller, "lite-00-edited")

	// Saved (File, Save), the edit is in the browser's storage: a reload shows it.
	if _, err := liteAwait[bool](b, time.Minute, `window.jupyterapp.commands.execute("docmanager:save").then(() => true)`); err != nil {
		t.Fatalf("saving: %v", err)
	}
	openLite(t, b, srv.URL+litePrefix)
	if c := readLiteCell(t, b, seedCell); c.Source != edited {
		t.Errorf("after a reload, cell %d holds %q, not the saved edit %q", seedCell, c.Source, edited)
	}

	// The stop button ends a cell that never ends, and the next cell runs.
	n := len(saved.Cells)
	if _, err := Eval[bool](b, fmt.Sprintf(`(() => { const m = (%s).content.model.sharedModel;
  m.insertCell(%d, {cell_type: 'code', source: '%%%%\nfor {\n}'});
  m.insertCell(%d, {cell_type: 'code', source: '%%%%\nfmt.Println("the cell after the stopped one ran")'});
  return true; })()`, liteNotebookJS, n, n+1)); err != nil {
		t.Fatalf("adding cells: %v", err)
	}
	liteFocus(t, b)
	liteStartCell(t, b, n)
	waitCell := func(what string, limit time.Duration, ok func(liteCell) bool) liteCell {
		t.Helper()
		deadline := time.Now().Add(limit)
		for {
			c := readLiteCell(t, b, n)
			if ok(c) {
				return c
			}
			if time.Now().After(deadline) {
				b.Screenshot(t, scroller, "lite-00-stop")
				t.Fatalf("the `for {}` cell: %s: not within %v: %+v", what, limit, c)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitCell("running", time.Minute, func(c liteCell) bool { return c.Running && c.Kernel == "busy" })
	// Long enough for the cell to be built and its loop to spin.
	time.Sleep(20 * time.Second)
	if c := readLiteCell(t, b, n); !c.Running || c.Kernel != "busy" {
		t.Fatalf("the `for {}` cell stopped by itself: %+v", c)
	}
	b.Screenshot(t, scroller, "lite-00-loop-running")
	if err := b.Do(30*time.Second, chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar [data-jp-item-name="interrupt"]`)); err != nil {
		html, _ := Eval[string](b, `(document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar') || {outerHTML: 'no toolbar'}).outerHTML.slice(0, 3000)`)
		t.Fatalf("clicking the stop button: %v; the toolbar: %s", err, html)
	}
	stopped := time.Now()
	waitCell("stopped by the stop button", time.Minute, func(c liteCell) bool { return !c.Running && c.Kernel == "idle" })
	t.Logf("the stop button ended the loop in %v", time.Since(stopped).Round(100*time.Millisecond))
	after := liteRunCell(t, b, n+1, 3*time.Minute)
	if got := after.stream("stdout"); got != "the cell after the stopped one ran\n" || len(after.errors()) > 0 {
		t.Errorf("the cell after the stopped one printed %q, errors %v", got, after.errors())
	}
	b.Screenshot(t, scroller, "lite-00-stopped")
	for _, p := range b.Problems() {
		t.Errorf("page problem: %s", p)
	}
}

// savedStdout is a saved cell's standard output.
func savedStdout(c notebook.Cell) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		if o.OutputType == "stream" && o.Name == "stdout" {
			b.WriteString(string(o.Text))
		}
	}
	return b.String()
}

// liteOpen shuts the open notebook's kernel down, closes it without saving,
// opens path (File, Open) on a kernel of its own, and waits until it shows its cells and its kernel is idle.
func liteOpen(t *testing.T, b *Browser, path string) {
	t.Helper()
	if _, err := liteAwait[bool](b, time.Minute, fmt.Sprintf(`(async () => { const w = %s; await w.sessionContext.shutdown(); w.context.model.dirty = false; w.close();
  await window.jupyterapp.commands.execute("docmanager:open", {path: %q}); return true; })()`, liteNotebookJS, path)); err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := Eval[string](b, fmt.Sprintf(`(() => { const w = %s; if (!w) return 'no notebook';
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return w.context.path + ' ' + w.content.widgets.length + ' cells, kernel ' + (k ? k.status : 'none'); })()`, liteNotebookJS))
		if err != nil {
			t.Fatalf("opening %s: %v", path, err)
		}
		if strings.HasPrefix(st, path+" ") && !strings.HasPrefix(st, path+" 0 ") && strings.HasSuffix(st, "kernel idle") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("opening %s: not ready within 2m: %s", path, st)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
