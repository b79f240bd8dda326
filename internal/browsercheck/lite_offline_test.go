//go:build litebrowser

package browsercheck

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// liteOfflineReady is true once the page's service worker controls it and
// holds every site file (its marker), and Go in the browser holds its
// compiler, linker and package bundle (the manifest's assets, in its own
// cache): what a reload with the server gone needs.
const liteOfflineReady = `(async () => {
  if (!navigator.serviceWorker || !navigator.serviceWorker.controller) return 'no service worker controls the page';
  const site = (await caches.keys()).filter(k => k.startsWith('backofflab-site-'));
  let complete = false;
  for (const name of site) {
    const c = await caches.open(name);
    if (await c.match(new URL('../backofflab-precache-complete', location.href).href)) complete = true;
  }
  if (!complete) return 'the site is not cached yet (' + site.join(', ') + ')';
  const golab = await import(new URL('../go-web/golab.js', location.href).href);
  const manifest = await (await fetch(golab.manifestURL)).json();
  const go = await caches.open('backofflab-go-v1');
  const base = new URL('../', golab.manifestURL);
  for (const a of [manifest.tools.cells, manifest.tools.compile, manifest.tools.link, manifest.bundle]) {
    if (!(await go.match(new URL(a.url, base).href))) return 'Go in the browser has not cached ' + a.url;
  }
  return 'ready';
})()`

// liteOffline: offline after the first load. On the page b shows, lesson
// 00 open and the site served by srv, lesson 00's first cells run; then the
// server stops (its port closed), and a reload still opens lesson 00 from
// the browser's caches (our service worker, web/lite/service-worker.js),
// runs its table cell from the program cache and an edited seed cell with
// the cached compiler and linker (printing what the same edit prints
// natively), and lesson 03 opens and runs its first program.
//
// TestLiteProgramCache runs it on its page, after its own reloads: as a
// test of its own, with a Chromium, a JupyterLite load and a first build
// of lesson 00's import cell for it, it took 59 s.
func liteOffline(t *testing.T, b *Browser, srv *httptest.Server) {
	saved := liteLesson00(t)
	const importCell, tableCell, seedCell = lite00Import, lite00Table, lite00Seed
	liteFocus(t, b)
	for _, i := range []int{importCell, tableCell} {
		if c := liteRunCell(t, b, i, 3*time.Minute); len(c.errors()) > 0 {
			t.Fatalf("online: cell %d: %v", i, c.errors())
		}
	}
	var st string
	var err error
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		if st, err = liteAwait[string](b, time.Minute, liteOfflineReady); err == nil && st == "ready" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page was not ready to go offline within 3 minutes: %s %v", st, err)
		}
	}

	srv.Close()
	if resp, err := http.Get(srv.URL + litePrefix); err == nil {
		resp.Body.Close()
		t.Fatalf("the server still answers after it was stopped: %s", resp.Status)
	}
	if _, err := Eval[bool](b, `(() => { for (const w of window.jupyterapp.shell.widgets('main')) if (w.context) w.context.model.dirty = false; return true; })()`); err != nil {
		t.Fatal(err)
	}
	openLite(t, b, srv.URL+litePrefix)
	b.Screenshot(t, scroller, "lite-offline-00")
	liteFocus(t, b)
	if c := liteRunCell(t, b, importCell, 3*time.Minute); len(c.errors()) > 0 {
		t.Fatalf("offline: the import cell: %v", c.errors())
	}
	c := liteRunCell(t, b, tableCell, 3*time.Minute)
	if errs := c.errors(); len(errs) > 0 || len(c.Outputs) == 0 {
		t.Fatalf("offline: the table cell: errors %v, %d outputs", errs, len(c.Outputs))
	}
	edited := strings.ReplaceAll(string(saved.Cells[seedCell].Source), "lcg.DefaultSeed", "20260402")
	if _, err := Eval[bool](b, fmt.Sprintf(`((%s).content.model.cells.get(%d).sharedModel.setSource(%q), true)`, liteNotebookJS, seedCell, edited)); err != nil {
		t.Fatalf("editing cell %d: %v", seedCell, err)
	}
	c = liteRunCell(t, b, seedCell, 3*time.Minute)
	t.Logf("offline, the edited cell: %v", lastLiteTiming(t, b))
	if errs := c.errors(); len(errs) > 0 {
		t.Fatalf("offline: the edited cell: %v (stderr %q)", errs, c.stream("stderr"))
	}
	if got, want := c.stream("stdout"), nativeCellOutput(t, string(saved.Cells[importCell].Source), edited); got != want {
		t.Errorf("offline, the edited cell printed %q, natively %q", got, want)
	}
	b.Screenshot(t, scroller, "lite-offline-00-ran")

	liteOpen(t, b, "notebooks/03-jitter-width.ipynb")
	three, err := notebook.Read(filepath.Join(jupytertest.Repo(), "notebooks/03-jitter-width.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	liteFocus(t, b)
	for i, cell := range three.Cells {
		if cell.CellType != "code" {
			continue
		}
		c := liteRunCell(t, b, i, 3*time.Minute)
		if errs := c.errors(); len(errs) > 0 {
			t.Fatalf("offline, lesson 03's cell %d: %v", i, errs)
		}
		if len(c.Outputs) > 0 {
			break // its first output
		}
	}
	b.Screenshot(t, scroller, "lite-offline-03")
	for _, p := range b.Problems() {
		t.Errorf("page problem: %s", p)
	}
}
