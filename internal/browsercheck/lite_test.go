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
// cell, and the outputs equal the saved notebook's (notebook.Compare, as the
// notebooks test compares a fresh run). No request leaves 127.0.0.1, no file
// is missing, no script fails. Screenshot: .cache/screenshots/lite-00-start-here.png.
func TestLiteLessonRunsInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the browser edition and runs a lesson in Chromium; run without -short")
	}
	srv := serveLite(t)
	b := NewBrowser(t)
	openLite(t, b, srv.URL+litePrefix)
	for _, name := range []string{"00-start-here.ipynb"} {
		path := "notebooks/" + name
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
	var v T
	ctx, cancel := context.WithTimeout(b.Ctx, d)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf("(async () => JSON.stringify(await (%s)))()", js), chromedp.EvalAwaitPromise))
	if err != nil {
		return v, err
	}
	err = json.Unmarshal([]byte(raw), &v)
	return v, err
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
