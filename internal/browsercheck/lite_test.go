//go:build litebrowser

// The tests of the browser edition (issue 24, web/lite/README.md): the
// JupyterLite site scripts/build-lite writes, served by a plain file server
// under a path prefix, driven in Chromium as a learner uses it. They build
// Go in the browser and run lessons in it, so they build only with -tags
// litebrowser, and scripts/test runs them beside the other suites.

package browsercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/exercises/check"
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

// serveLite serves the browser edition on 127.0.0.1 under litePrefix: the
// site in $BACKOFFLAB_LITE_SITE when set (one scripts/build-lite wrote:
// scripts/test builds it beside earlier suites; or kept for working on
// these tests without rebuilding), else the site scripts/build-lite builds,
// once per test binary, into .cache/lite-site.
func serveLite(t *testing.T) *httptest.Server {
	t.Helper()
	liteSite.once.Do(func() {
		if dir := os.Getenv("BACKOFFLAB_LITE_SITE"); dir != "" {
			if _, err := os.Stat(filepath.Join(dir, "go-web", "golab.js")); err != nil {
				liteSite.err = fmt.Errorf("BACKOFFLAB_LITE_SITE=%s: not a site scripts/build-lite wrote: %v", dir, err)
			}
			liteSite.dir = dir
			return
		}
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

// newLiteBrowser starts Chromium for a test of the browser edition, its page
// told it has the focus whether or not its window has it (Emulation's focus
// emulation): JupyterLab's current notebook and shell widget follow focus
// events, which a headless window need not send.
func newLiteBrowser(t *testing.T) *Browser {
	t.Helper()
	b := NewBrowser(t)
	if err := b.Do(30*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	})); err != nil {
		t.Fatalf("emulating the page's focus: %v", err)
	}
	return b
}

// openLite opens url (the site's front page, which opens lesson 00, or a
// notebook's page), and waits until the notebook shows its cells and its
// kernel is idle.
func openLite(t *testing.T, b *Browser, url string) state {
	t.Helper()
	if err := b.Do(2*time.Minute, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	st := waitFor(t, b, 2*time.Minute, "the notebook to show its cells", func(st state) bool {
		return st.Ready && len(st.Prompts) > 0
	})
	liteWaitKernel(t, b, "")
	return st
}

// liteKernelJS says, of the open notebook, its path, its cells and its
// kernel's state as its session holds it. The toolbar's kernel indicator is
// not enough: it shows "idle" before the session has a kernel, and a Run All
// then runs nothing ("Kernel … is still initializing").
const liteKernelJS = `(() => { const w = ` + liteNotebookJS + `; if (!w) return 'no notebook';
  const sc = w.sessionContext, k = sc.session && sc.session.kernel;
  return w.context.path + ' ' + w.content.widgets.length + ' cells, kernel ' + (k ? k.status : 'none') + ' (shown: ' + sc.kernelDisplayStatus + ')'; })()`

// liteWaitKernel waits until the open notebook (path, if given) shows its
// cells and its session's kernel is idle.
func liteWaitKernel(t *testing.T, b *Browser, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := Eval[string](b, liteKernelJS)
		if err != nil {
			t.Fatalf("reading the notebook's kernel: %v", err)
		}
		if (path == "" || strings.HasPrefix(st, path+" ")) && !strings.Contains(st, " 0 cells") && strings.HasSuffix(st, "kernel idle (shown: idle)") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the notebook %s: its kernel did not start within 2m: %s", path, st)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// liteStartBound is how long Run All may take to start its first cell. The
// restart and the first execute request take a second or two however slow
// the cells are: past it, the test stops and says what the page shows
// instead of waiting for the cells' limit.
const liteStartBound = 90 * time.Second

// liteStallBound is how long Run All may go without finishing a cell.
const liteStallBound = 4 * time.Minute

// liteRunAll runs the open notebook as a learner does with the toolbar's
// Restart and Run All (⏩), and returns it as the page's model holds it
// (nbformat), once every code cell has run and the kernel is idle. Its
// outputs are cleared first (a cell shows a count again only once it has
// run). The toolbar button's command, notebook:restart-run-all, is applied
// to the notebook by its id (JupyterLab's semanticWidget argument), so that
// it acts on this notebook whatever has the focus: no click on a cell, which
// in an earlier version of this test sometimes left Run All Cells acting on
// nothing and the test waiting ten minutes. Its dialog is answered Restart.
// If no cell has started within liteStartBound, or none finishes within
// liteStallBound, or the command ends with cells not run, it fails at once
// with what the page shows.
func liteRunAll(t *testing.T, b *Browser, name string) *notebook.Notebook {
	t.Helper()
	id, err := Eval[string](b, `(() => { const all = Array.from(window.jupyterapp.shell.widgets('main')).filter(w => w.content && w.content.model && w.sessionContext);
  return all.length === 1 ? all[0].id : all.length + ' notebooks open'; })()`)
	if err != nil || strings.HasSuffix(id, " notebooks open") {
		t.Fatalf("%s: finding the notebook: %v %s", name, err, id)
	}
	arg := fmt.Sprintf(`{semanticWidget: %q, activate: false}`, id)
	if _, err := liteAwait[bool](b, time.Minute, `window.jupyterapp.commands.execute("notebook:clear-all-cell-outputs", `+arg+`).then(() => true)`); err != nil {
		t.Fatalf("%s: clearing the outputs: %v", name, err)
	}
	if n, err := Eval[int](b, `Array.from((`+liteNotebookJS+`).content.model.cells).filter(c => c.type === 'code' && (c.executionCount != null || c.outputs.length)).length`); err != nil || n != 0 {
		t.Fatalf("%s: after Clear Outputs of All Cells, %d code cells still show a count or outputs (%v)", name, n, err)
	}
	start := time.Now()
	if _, err := Eval[bool](b, `(() => { window.backofflabRunAll = {state: 'asking'};
  window.jupyterapp.commands.execute("notebook:restart-run-all", {semanticWidget: `+fmt.Sprintf("%q", id)+`, activate: false, toolbar: true}).then(
    ok => { window.backofflabRunAll = {state: 'ended', ok: ok === true}; },
    err => { window.backofflabRunAll = {state: 'failed', error: String(err)}; });
  return true; })()`); err != nil {
		t.Fatalf("%s: Restart and Run All: %v", name, err)
	}
	// Restart Kernel? Restart.
	if err := b.Do(30*time.Second, chromedp.Click(`.jp-Dialog .jp-Dialog-button.jp-mod-accept`)); err != nil {
		b.Screenshot(t, scroller, "lite-"+name+"-no-dialog")
		t.Fatalf("%s: Restart and Run All asked nothing within 30s (%v): %s", name, err, liteRunAllState(b))
	}
	var (
		progress     = time.Now()
		ran, started = -1, false
	)
	for {
		st := readLiteRun(t, b)
		switch {
		case st.Done:
			t.Logf("%s: Restart and Run All ran in the browser in %v", name, time.Since(start).Round(time.Second))
			if st.First != 1 {
				t.Errorf("%s: its first code cell ran as execution %d, not 1: the kernel was not restarted", name, st.First)
			}
			return pageNotebook(t, b)
		case st.Ended && st.Ran < st.Code:
			b.Screenshot(t, scroller, "lite-"+name+"-stopped")
			t.Fatalf("%s: Restart and Run All ended with %d of %d code cells run: %s", name, st.Ran, st.Code, liteRunAllState(b))
		case !started && (st.Started || st.Ran > 0):
			started = true
			t.Logf("%s: the first cell started %v after Restart", name, time.Since(start).Round(100*time.Millisecond))
		case !started && time.Since(start) > liteStartBound:
			b.Screenshot(t, scroller, "lite-"+name+"-not-started")
			t.Fatalf("%s: Restart and Run All started no cell within %v: %s", name, liteStartBound, liteRunAllState(b))
		}
		if st.Ran != ran {
			ran, progress = st.Ran, time.Now()
		} else if time.Since(progress) > liteStallBound {
			b.Screenshot(t, scroller, "lite-"+name+"-stalled")
			t.Fatalf("%s: Run All finished no cell for %v: %s", name, liteStallBound, liteRunAllState(b))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// liteRun is how far Run All has got in the open notebook.
type liteRun struct {
	Code, Ran, First int  // code cells, code cells run, the first one's count
	Started          bool // a code cell runs or has run
	Ended            bool // the command's promise has settled
	Done             bool // every code cell has run and the kernel is idle
}

func readLiteRun(t *testing.T, b *Browser) liteRun {
	t.Helper()
	js, err := Eval[string](b, `(() => {
  const w = `+liteNotebookJS+`;
  const code = Array.from(w.content.model.cells).filter(c => c.type === 'code');
  const ran = code.filter(c => c.executionCount != null && c.executionState !== 'running').length;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  const run = window.backofflabRunAll || {};
  return JSON.stringify({Code: code.length, Ran: ran, First: code.length ? code[0].executionCount || 0 : 0,
    Started: code.some(c => c.executionState === 'running' || c.executionCount != null),
    Ended: run.state === 'ended' || run.state === 'failed',
    Done: ran === code.length && kernel && kernel.status === 'idle'});
})()`)
	if err != nil {
		t.Fatalf("reading the notebook's model: %v", err)
	}
	var r liteRun
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("reading the notebook's model: %v: %s", err, js)
	}
	return r
}

// liteRunAllState says, for a failure's message, what the page shows: the
// code cells run, the kernel's state, the Run All command's result, any
// dialog or notification.
func liteRunAllState(b *Browser) string {
	s, err := Eval[string](b, `(() => {
  const w = `+liteNotebookJS+`;
  if (!w) return 'no notebook is open';
  const code = Array.from(w.content.model.cells).filter(c => c.type === 'code');
  const states = code.map(c => c.executionState === 'running' ? '*' : c.executionCount == null ? '-' : String(c.executionCount)).join(' ');
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  const text = sel => Array.from(document.querySelectorAll(sel)).map(e => e.innerText.trim().replace(/\s+/g, ' ')).filter(Boolean).join(' | ');
  return 'code cells [' + states + '], kernel ' + (k ? k.status : 'none') + ' (shown: ' + w.sessionContext.kernelDisplayStatus + ')' +
    ', the command ' + JSON.stringify(window.backofflabRunAll || null) +
    ', dialog: ' + (text('.jp-Dialog') || 'none') + ', notifications: ' + (text('.jp-Notification-Toast, .Toastify__toast') || 'none');
})()`)
	if err != nil {
		return "the page did not answer: " + err.Error()
	}
	return s
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
// browser: …", golab.js's BrowserNote) out of every cell, and returns them by
// code cell (from 1).
func withoutBrowserNotes(nb *notebook.Notebook) map[int][]string {
	notes := map[int][]string{}
	k := 0
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		k++
		var outs []notebook.Output
		for _, o := range notebook.JoinStreams(c.Outputs) {
			if o.OutputType == "stream" && o.Name == "stderr" {
				var kept []string
				for _, l := range strings.SplitAfter(string(o.Text), "\n") {
					if strings.HasPrefix(l, browserNote) {
						notes[k] = append(notes[k], strings.TrimSpace(l))
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
// kernel in the browser; the toolbar's Restart and Run All runs every cell,
// and the outputs equal the saved notebook's (notebook.Compare, as the
// notebooks test compares a fresh run); then lessons 03, 05 and 11, each
// opened from the page (File, Open) after the one before has had its kernel
// shut down, the same. Lesson 11 runs clients and servers in real time: in
// the browser they talk over Go's in-memory network on the browser's timers
// (the cell says so on stderr), so from the first cell that says so its
// numbers are the browser's, compared by shape as the Go in the browser
// suite compares them (realTimeShape). In lesson 03, a cell edited to
// another jitter width and run again prints what the same edit prints
// natively (liteEditRun). After lesson 00, completion and hover
// (liteCompletion). No request leaves 127.0.0.1, no file
// is missing, no script fails. Screenshots: .cache/screenshots/lite-NN-*.png.
func TestLiteLessonRunsInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs lessons in Chromium; run without -short")
	}
	srv := serveLite(t)
	b := newLiteBrowser(t)
	start := time.Now()
	openLite(t, b, srv.URL+litePrefix)
	t.Logf("the front page showed lesson 00 with its kernel idle in %v", time.Since(start).Round(100*time.Millisecond))
	for i, name := range liteLessons {
		path := "notebooks/" + name + ".ipynb"
		if i > 0 {
			liteOpen(t, b, path)
		}
		saved, err := notebook.Read(filepath.Join(jupytertest.Repo(), path))
		if err != nil {
			t.Fatal(err)
		}
		tagMeasured(name+".ipynb", saved)
		fresh := liteRunAll(t, b, name)
		b.Screenshot(t, scroller, "lite-"+name)
		notes := withoutBrowserNotes(fresh)
		firstNote := -1 // the code cell that first ran clients and servers in real time
		for _, k := range slices.Sorted(maps.Keys(notes)) {
			t.Logf("%s: code cell %d: the browser's notes: %s", name, k, strings.Join(slices.Compact(notes[k]), "; "))
			if firstNote < 0 && strings.Contains(strings.Join(notes[k], " "), "in-memory network") {
				firstNote = k
			}
		}
		for _, p := range notebook.Compare(saved, fresh) {
			if why := realTimeShape(saved, fresh, p.Cell, firstNote); why != "" {
				t.Logf("%s: cell %d compared by shape: %s", name, p.Cell, why)
				continue
			}
			t.Errorf("%s in the browser: %s", name, p)
		}
		if raw, err := json.Marshal(fresh.Metadata["kernelspec"]); err == nil && !strings.Contains(string(raw), "backofflab-go") {
			t.Errorf("%s runs on kernel %s, not backofflab-go", name, raw)
		}
		if name == "00-start-here" {
			t.Run("Completion", func(t *testing.T) { liteCompletion(t, b) })
		}
		if name == "03-jitter-width" {
			// Another jitter width: the cell that counts the 50 % run's attempts inside a gap, at 75 %.
			const importCell, widthCell = 2, 10
			src := string(saved.Cells[widthCell].Source)
			if !strings.Contains(src, "WithJitter(0.5)") || !strings.HasPrefix(string(saved.Cells[importCell].Source), "import") {
				t.Fatalf("lesson 03's cells %d and %d are no longer the import cell and the gap-count cell", importCell, widthCell)
			}
			edited := strings.NewReplacer("WithJitter(0.5)", "WithJitter(0.75)", "50%", "75%").Replace(src)
			if got := liteEditRun(t, b, saved, importCell, widthCell, edited); !strings.Contains(got, "75% run") {
				t.Errorf("lesson 03's edited cell printed %q: not the 75 %% run", got)
			}
			b.Screenshot(t, scroller, "lite-03-edited")
		}
		for _, p := range b.Problems() {
			t.Errorf("%s: page problem: %s", name, p)
		}
	}
}

// liteAwait evaluates an expression that yields a promise, waiting up to d.
func liteAwait[T any](b *Browser, d time.Duration, js string) (T, error) {
	return chromium.Await[T](b.Ctx, d, js)
}

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
// Selected Cell, applied to the notebook by its id: no click, no dependence
// on focus), without waiting.
func liteStartCell(t *testing.T, b *Browser, i int) {
	t.Helper()
	if _, err := Eval[bool](b, fmt.Sprintf(`(() => { const w = %s, n = w.content; n.deselectAll(); n.activeCellIndex = %d;
  window.jupyterapp.commands.execute("notebook:run-cell", {semanticWidget: w.id, activate: false}); return true; })()`, liteNotebookJS, i)); err != nil {
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

// A learner's session in lesson 00, opened from the static site's link to
// it (scripts/build-site): edit a cell (another seed) and run it
// again: its output changes, and is what the same edit prints natively;
// saved, the edit survives a reload (JupyterLite's browser storage); the
// stop button ends a cell looping in `for {}`, and the next cell runs.
func TestLiteEditReloadStop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs cells in Chromium; run without -short")
	}
	srv := serveLite(t)
	b := newLiteBrowser(t)
	// The learner comes from the static site: lesson 00's page there links to the lesson here
	// (scripts/build-site --lite-url, the site on a server of its own).
	site := t.TempDir()
	build := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "build-site"), "--lite-url", srv.URL+litePrefix, site, filepath.Join(jupytertest.Repo(), "notebooks", "00-start-here.ipynb"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-site: %v\n%s", err, out)
	}
	siteSrv := httptest.NewServer(http.FileServer(http.Dir(site)))
	t.Cleanup(siteSrv.Close)
	if err := b.Do(time.Minute, chromedp.Navigate(siteSrv.URL+"/00-start-here.html"), chromedp.Click(`main a.backofflab-run`)); err != nil {
		t.Fatalf("following the static site's link to the browser edition: %v", err)
	}
	// The click starts the navigation; until the browser edition's page has
	// replaced the static one, the static page's own cells would satisfy the
	// wait below (on an idle machine they did, and the kernel's state was then
	// read from a page with no JupyterLite).
	liteURL, _ := json.Marshal(srv.URL + litePrefix)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		if there, err := Eval[bool](b, "location.href.startsWith("+string(liteURL)+") && !!window.jupyterapp"); err == nil && there {
			break
		}
		if time.Now().After(deadline) {
			where, _ := Eval[string](b, "location.href")
			t.Fatalf("the static site's link did not lead to the browser edition within 2m: the page is %s", where)
		}
	}
	waitFor(t, b, 2*time.Minute, "lesson 00, from the static site's link, to show its cells", func(st state) bool {
		return st.Ready && len(st.Prompts) > 0
	})
	liteWaitKernel(t, b, "notebooks/00-start-here.ipynb")
	saved, err := notebook.Read(filepath.Join(jupytertest.Repo(), "notebooks/00-start-here.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	// The import cell, and the cell that draws the generator's first state by hand.
	const importCell, seedCell = 1, 5
	if !strings.Contains(string(saved.Cells[seedCell].Source), "lcg.DefaultSeed") || !strings.HasPrefix(string(saved.Cells[importCell].Source), "import") {
		t.Fatalf("lesson 00's cells %d and %d are no longer the import cell and the seed cell", importCell, seedCell)
	}
	if c := liteRunCell(t, b, importCell, 3*time.Minute); len(c.errors()) > 0 {
		t.Fatalf("the import cell: %v", c.errors())
	}
	edited := strings.ReplaceAll(string(saved.Cells[seedCell].Source), "lcg.DefaultSeed", "20260401")
	if got := liteEditRun(t, b, saved, importCell, seedCell, edited); !strings.Contains(got, "seed 20260401") {
		t.Errorf("the edited cell printed %q: not the new seed", got)
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
  m.insertCell(%d, {cell_type: 'code', source: '%%%%\nfmt.Println("looping")\nfor {\n}'});
  m.insertCell(%d, {cell_type: 'code', source: '%%%%\nfmt.Println("the cell after the stopped one ran")'});
  return true; })()`, liteNotebookJS, n, n+1)); err != nil {
		t.Fatalf("adding cells: %v", err)
	}
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
	// Its line printed: the cell was built and its program is in the loop.
	waitCell("built and looping", 3*time.Minute, func(c liteCell) bool {
		return c.Running && c.Kernel == "busy" && c.stream("stdout") == "looping\n"
	})
	time.Sleep(3 * time.Second)
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

// liteEditRun replaces the source of cell (its index in saved, the open
// notebook) with edited, as a learner's edit, runs it and returns what it
// printed. The output must differ from the saved cell's, and be what the
// same cells print natively: the import cell and the edited one merged as
// the kernel merges them (internal/cells), built and run with go run.
func liteEditRun(t *testing.T, b *Browser, saved *notebook.Notebook, importCell, cell int, edited string) string {
	t.Helper()
	liteSetSource(t, b, cell, edited)
	start := time.Now()
	c := liteRunCell(t, b, cell, 3*time.Minute)
	t.Logf("the edited cell %d ran in %v", cell, time.Since(start).Round(100*time.Millisecond))
	if errs := c.errors(); len(errs) > 0 {
		t.Errorf("the edited cell %d: %v", cell, errs)
	}
	got := c.stream("stdout")
	if savedOut := savedStdout(saved.Cells[cell]); got == savedOut {
		t.Errorf("the edited cell %d printed %q, as the saved cell did: the edit did not change the output", cell, got)
	}
	if want := nativeCellOutput(t, string(saved.Cells[importCell].Source), edited); got != want {
		t.Errorf("the edited cell %d printed %q in the browser, %q natively", cell, got, want)
	}
	return got
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
	liteWaitKernel(t, b, path)
}

// liteExercise is the exercise the browser edition's test answers.
const liteExercise = "exercises/notebooks/waves-jitter.ipynb"

// liteWrongAnswer is a learner's first try at the exercise's answer cell:
// it leaves every attempt at its nominal time.
const liteWrongAnswer = "func Jittered(d time.Duration, w, u float64) time.Duration {\n\treturn d\n}"

// An exercise in the browser, as a learner does it: the set-up cell, a wrong
// answer and the check cell, then the right answer (the instructor's, from
// exercises/solutions) and the check cell again. The check's feedback, the ✗
// list and then "All checks pass.", is what the server edition prints for
// the same cells in the same order: the notebook the learner downloads
// (File, Download, after saving), with the wrong answer and a check cell
// put back before the right one, run on the server's kernel (GoNB, through
// nbconvert). The download is valid nbformat (nbformat's own validation, as
// the Jupyter server reads a notebook), on the kernel backofflab-go, and
// holds the learner's answer and its ✓.
func TestLiteExercise(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs an exercise in Chromium and on the kernel; run without -short")
	}
	root := jupytertest.Repo()
	learner, err := notebook.Read(filepath.Join(root, liteExercise))
	if err != nil {
		t.Fatal(err)
	}
	solution, err := notebook.Read(filepath.Join(root, "exercises", "solutions", "notebooks", filepath.Base(liteExercise)))
	if err != nil {
		t.Fatal(err)
	}
	setupCell, answerCell, checkCell := gradeCell(t, learner, "jitter-setup"), gradeCell(t, learner, "jitter-answer"), gradeCell(t, learner, "jitter-check")
	right := string(solution.Cells[gradeCell(t, solution, "jitter-answer")].Source)

	srv := serveLite(t)
	b := newLiteBrowser(t)
	openLite(t, b, srv.URL+litePrefix+"lab/index.html?path="+liteExercise)
	if p, err := Eval[string](b, `(`+liteNotebookJS+`).context.path`); err != nil || p != liteExercise {
		t.Fatalf("the page opened %q (%v), not %s", p, err, liteExercise)
	}
	if c := liteRunCell(t, b, setupCell, 3*time.Minute); len(c.errors()) > 0 || c.stream("stderr") != "" {
		t.Fatalf("the set-up cell: %v %s", c.errors(), c.stream("stderr"))
	}
	answer := func(src string) liteCell {
		t.Helper()
		liteSetSource(t, b, answerCell, src)
		if c := liteRunCell(t, b, answerCell, 3*time.Minute); len(c.errors()) > 0 || c.stream("stderr") != "" {
			t.Fatalf("the answer cell %q: %v %s", src, c.errors(), c.stream("stderr"))
		}
		return liteRunCell(t, b, checkCell, 3*time.Minute)
	}
	wrong := answer(liteWrongAnswer)
	b.Screenshot(t, scroller, "lite-exercise-wrong")
	if !strings.HasPrefix(wrong.stream("stderr"), "✗ ") || !strings.HasSuffix(wrong.stream("stderr"), "run this cell again.\n") || wrong.stream("stdout") != "" {
		t.Errorf("the check of the wrong answer printed stdout %q, stderr %q: not a ✗ list", wrong.stream("stdout"), wrong.stream("stderr"))
	}
	passed := answer(right)
	b.Screenshot(t, scroller, "lite-exercise-right")
	if passed.stream("stdout") != check.Passed+"\n" || passed.stream("stderr") != "" || len(passed.errors()) > 0 {
		t.Errorf("the check of the right answer printed stdout %q, stderr %q, errors %v: want %q alone", passed.stream("stdout"), passed.stream("stderr"), passed.errors(), check.Passed)
	}

	// Saved and downloaded, as a learner keeps their work.
	dir := t.TempDir()
	downloaded := liteDownload(t, b, dir)
	got, err := notebook.Read(downloaded)
	if err != nil {
		t.Fatalf("the downloaded notebook: %v", err)
	}
	py := filepath.Join(root, ".cache", "venv", "bin", "python")
	if out, err := exec.Command(py, "-c", "import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", downloaded).CombinedOutput(); err != nil {
		t.Errorf("the downloaded notebook is not valid nbformat 4: %v\n%s", err, out)
	}
	if raw, _ := json.Marshal(got.Metadata["kernelspec"]); !strings.Contains(string(raw), `"name":"`+notebook.KernelName+`"`) {
		t.Errorf("the downloaded notebook's kernelspec is %s, not %s", raw, notebook.KernelName)
	}
	if len(got.Cells) != len(learner.Cells) || string(got.Cells[answerCell].Source) != right {
		t.Fatalf("the downloaded notebook has %d cells (want %d), its answer cell %q (want the learner's answer)", len(got.Cells), len(learner.Cells), got.Cells[answerCell].Source)
	}
	if s := got.Cells[checkCell].Stream("stdout"); s != check.Passed+"\n" {
		t.Errorf("the downloaded notebook's check cell shows %q, not the ✓ it showed", s)
	}

	// The server edition: the downloaded notebook, with the learner's first
	// try and a check put back before their answer, run on the kernel.
	session := *got
	session.Cells = slices.Concat(got.Cells[:answerCell], []notebook.Cell{got.Cells[answerCell], got.Cells[checkCell]}, got.Cells[answerCell:])
	session.Cells[answerCell].Source = notebook.Text(liteWrongAnswer)
	runDir, err := os.MkdirTemp(filepath.Join(root, ".cache"), "lite-exercise-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runDir) })
	in, out := filepath.Join(runDir, "session.ipynb"), filepath.Join(runDir, "session-run.ipynb")
	if err := session.Write(in); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := notebook.Execute(context.Background(), in, out, notebook.ExecOptions{Timeout: 5 * time.Minute}); err != nil {
		t.Fatalf("the downloaded notebook on the server's kernel: %v", err)
	}
	t.Logf("the downloaded notebook ran on the server's kernel in %v", time.Since(start).Round(100*time.Millisecond))
	server, err := notebook.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		what    string
		browser liteCell
		server  notebook.Cell
	}{
		{"the wrong answer's check", wrong, server.Cells[answerCell+1]},
		{"the right answer's check", passed, server.Cells[checkCell+2]},
	} {
		if k.server.HasError() || len(k.browser.errors()) > 0 {
			t.Errorf("%s: an error, on the server %v, in the browser %v", k.what, k.server.HasError(), k.browser.errors())
		}
		for _, stream := range []string{"stdout", "stderr"} {
			if b, s := k.browser.stream(stream), k.server.Stream(stream); b != s {
				t.Errorf("%s: %s in the browser %q, on the server %q", k.what, stream, b, s)
			}
		}
	}
	for _, p := range b.Problems() {
		t.Errorf("page problem: %s", p)
	}
}

// gradeCell returns the index of nb's cell with nbgrader's grade_id id.
func gradeCell(t *testing.T, nb *notebook.Notebook, id string) int {
	t.Helper()
	for i, c := range nb.Cells {
		if c.Grading()["grade_id"] == id {
			return i
		}
	}
	t.Fatalf("no cell has the grade_id %s", id)
	return -1
}

// liteSetSource replaces the source of cell i of the open notebook, as typing does.
func liteSetSource(t *testing.T, b *Browser, i int, src string) {
	t.Helper()
	if _, err := Eval[bool](b, fmt.Sprintf(`((%s).content.model.cells.get(%d).sharedModel.setSource(%q), true)`, liteNotebookJS, i, src)); err != nil {
		t.Fatalf("editing cell %d: %v", i, err)
	}
}

// liteDownload saves the open notebook and downloads it (File, Download:
// JupyterLite's download of the copy in the browser's storage) into dir,
// and returns the downloaded file.
func liteDownload(t *testing.T, b *Browser, dir string) string {
	t.Helper()
	if err := b.Do(30*time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
		return err
	})); err != nil {
		t.Fatalf("allowing downloads: %v", err)
	}
	// The download command acts on the shell's current widget.
	if ok, err := Eval[bool](b, `(() => { const w = `+liteNotebookJS+`; window.jupyterapp.shell.activateById(w.id); return window.jupyterapp.shell.currentWidget === w; })()`); err != nil || !ok {
		t.Fatalf("the notebook is not the page's current widget (%v)", err)
	}
	if _, err := liteAwait[bool](b, time.Minute, `window.jupyterapp.commands.execute("docmanager:save").then(() => window.jupyterapp.commands.execute("docmanager:download")).then(() => true)`); err != nil {
		t.Fatalf("saving and downloading: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ipynb"))
		if len(files) == 1 {
			return files[0]
		}
		if time.Now().After(deadline) {
			all, _ := os.ReadDir(dir)
			t.Fatalf("no notebook downloaded within 30s: %s holds %v", dir, all)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
