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

// liteRunAll runs the open notebook through the toolbar's Restart and Run
// All, waits until every cell has run and the kernel is idle, and returns
// the notebook as the page holds it (nbformat, read from the model).
func liteRunAll(t *testing.T, b *Browser, name string) *notebook.Notebook {
	t.Helper()
	start := time.Now()
	if _, err := Eval[bool](b, `(document.activeElement && document.activeElement.blur(), (document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook') || document.body).focus(), true)`); err != nil {
		t.Fatal(err)
	}
	err := b.Do(60*time.Second,
		chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) [data-command="notebook:restart-run-all"]`),
		chromedp.Click(`.jp-Dialog .jp-mod-accept`),
	)
	if err != nil {
		t.Fatalf("Restart and Run All: %v", err)
	}
	waitFor(t, b, 2*time.Minute, "the run to start", func(st state) bool { return st.Running > 0 })
	st := waitFor(t, b, 15*time.Minute, "every cell to finish", func(st state) bool {
		return st.Running == 0 && st.Kernel == "idle" && EveryCellRan(st.Prompts)
	})
	t.Logf("%s: Restart and Run All ran its %d code cells in the browser in %v", name, len(st.Prompts), time.Since(start).Round(time.Second))
	return pageNotebook(t, b)
}

// pageNotebook returns the open notebook as the page's model holds it.
func pageNotebook(t *testing.T, b *Browser) *notebook.Notebook {
	t.Helper()
	js, err := Eval[string](b, `JSON.stringify(window.jupyterapp.shell.currentWidget.content.model.toJSON())`)
	if err != nil {
		t.Fatalf("reading the notebook's model: %v", err)
	}
	nb, err := notebook.Parse([]byte(js))
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
// kernel in the browser; Restart and Run All through the toolbar runs every
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
