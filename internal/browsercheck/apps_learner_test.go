package browsercheck

// What a self-paced learner meets in the real apps, outside the lessons' text: tables in the
// static site, the JupyterLab that scripts/start opens (its menus, its file browser, its kernel
// status), what a failing cell prints.

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// tableBlock reads, from a page drawn by nbconvert, the output block that holds the text want:
// how many output blocks its cell has, and the line of the block that holds want.
const tableBlock = `((want) => {
  for (const out of document.querySelectorAll('.jp-OutputArea-output')) {
    const text = out.innerText;
    if (!text.includes(want)) continue;
    const area = out.closest('.jp-OutputArea');
    return JSON.stringify({blocks: area.querySelectorAll('.jp-OutputArea-output').length,
      line: text.split('\n').find(l => l.includes(want))});
  }
  return JSON.stringify({blocks: 0, line: ''});
})`

// A table a cell prints reaches the static site as one block, its header on one line: lesson 05
// prints its In Phase control table with text/tabwriter, one write a cell of the table, and a
// notebook that saved each write as its own output drew the header one word a line.
func TestStaticSiteDrawsATableWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a lesson's page and starts Chromium; run without -short")
	}
	dir := t.TempDir()
	build := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "build-site"), dir, filepath.Join(jupytertest.Repo(), "notebooks", "05-in-phase.ipynb"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-site: %v\n%s", err, out)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	b := NewBrowser(t)
	if err := b.Do(60*time.Second, chromedp.Navigate(srv.URL+"/05-in-phase.html")); err != nil {
		t.Fatal(err)
	}
	got := evalJSON[struct {
		Blocks int
		Line   string
	}](t, b, tableBlock+`("full jitter, cap")`)
	if got.Blocks == 0 {
		t.Fatal("lesson 05's page has no output holding the In Phase control table (\"full jitter, cap\")")
	}
	for _, column := range []string{"finish s", "vs constant", "calls", "share of constant's"} {
		if !strings.Contains(got.Line, column) {
			t.Errorf("the table's header line is %q: column %q is not on it (the header fell apart)", got.Line, column)
		}
	}
	if got.Blocks != 1 {
		t.Errorf("the table's cell draws %d output blocks, want 1: its printed text is one block", got.Blocks)
	}
	if _, err := Eval[bool](b, `(Array.from(document.querySelectorAll('.jp-OutputArea-output')).find(o => o.innerText.includes('full jitter, cap')).scrollIntoView({block: 'center'}), true)`); err != nil {
		t.Fatal(err)
	}
	windowShot(t, b, "learner-site-table")
	for _, p := range b.Problems() {
		t.Errorf("lesson 05's page: %s", p)
	}
}

// windowShot saves what the window shows now as name.png under ScreenshotDir.
func windowShot(t *testing.T, b *Browser, name string) {
	t.Helper()
	png, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(ScreenshotDir(t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
