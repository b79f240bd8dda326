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
	"slices"
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

// learnerApp reads what the app a learner sees offers that a learner does not use: nbgrader's
// menus, panels and buttons (the class's extension), and what its file browser lists.
const learnerApp = `JSON.stringify({
  menus: Array.from(document.querySelectorAll('.lm-MenuBar-itemLabel, .jp-MenuBar .lm-MenuBar-item')).map(e => e.innerText.trim()).filter(Boolean),
  tabs: Array.from(document.querySelectorAll('.lm-TabBar-tab')).map(e => (e.title || e.innerText || '').trim()).filter(Boolean),
  nbgrader: Array.from(document.querySelectorAll('[class*="nbgrader"], [id*="nbgrader"], [data-id*="nbgrader"], [data-command*="nbgrader"]')).map(e => e.className || e.id).slice(0, 10),
  buttons: Array.from(document.querySelectorAll('.jp-Toolbar button, .jp-Toolbar-item')).map(e => (e.title || e.innerText || '').trim()).filter(Boolean),
  files: Array.from(document.querySelectorAll('.jp-DirListing-itemName')).map(e => e.innerText.trim()),
})`

type learnerAppState struct {
	Menus, Tabs, Nbgrader, Buttons, Files []string
}

// The app scripts/start opens for a self-paced learner carries none of nbgrader (the class's
// grading extension: its menu, its "Create Assignment" panel, its Validate button, its server
// pages), and its lessons folder lists the lessons and their README, not the sources the
// notebooks are built from, their test or the charts' script folder, which still load.
func TestSelfPacedAppShowsTheLessonsOnly(t *testing.T) {
	for _, c := range []struct {
		app  string
		args []string
	}{{"lab", nil}, {"notebook", []string{"--classic"}}} {
		t.Run(c.app, func(t *testing.T) {
			if testing.Short() {
				t.Skip("starts Jupyter and Chromium; run without -short")
			}
			u := startCommand(t, c.args...)
			base, token := u[:strings.Index(u, "/"+map[string]string{"lab": "lab", "notebook": "notebooks"}[c.app]+"/")+1], u[strings.Index(u, "token=")+6:]
			b := NewBrowser(t)
			if err := b.Do(60*time.Second, chromedp.Navigate(u)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, b, 90*time.Second, "lesson 00 to open", func(st state) bool { return st.Ready && len(st.Prompts) > 0 })
			time.Sleep(2 * time.Second) // the extensions' menus and panels are added as their plugins start
			st := evalJSON[learnerAppState](t, b, learnerApp)
			windowShot(t, b, "learner-"+c.app+"-lesson")
			for _, list := range [][]string{st.Menus, st.Tabs, st.Buttons} {
				for _, item := range list {
					if l := strings.ToLower(item); strings.Contains(l, "nbgrader") || strings.Contains(l, "assignment") || strings.Contains(l, "formgrader") || l == "validate" {
						t.Errorf("the learner's %s shows nbgrader's %q (menus %q, tabs %q)", c.app, item, st.Menus, st.Tabs)
					}
				}
			}
			if len(st.Nbgrader) > 0 {
				t.Errorf("the learner's %s has nbgrader's elements on the page: %q", c.app, st.Nbgrader)
			}
			if len(st.Menus) == 0 {
				t.Errorf("read no menus from the page (the check itself is broken)")
			}
			// nbgrader's server side is off too: its pages are not served.
			for _, page := range []string{"formgrader", "assignments", "api/nbgrader_version"} {
				resp, err := http.Get(base + page + "?token=" + token)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s: status %d, want 404: nbgrader's server extension is on", page, resp.StatusCode)
				}
			}

			// The lessons folder in the app's file browser.
			folder := base + "lab/tree/notebooks?token=" + token
			if c.app == "notebook" {
				folder = base + "tree/notebooks?token=" + token
			}
			b.NewTab(t)
			if err := b.Do(60*time.Second, chromedp.Navigate(folder)); err != nil {
				t.Fatal(err)
			}
			var files []string
			for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
				if files = evalJSON[learnerAppState](t, b, learnerApp).Files; slices.Contains(files, "00-start-here.ipynb") {
					break
				}
			}
			windowShot(t, b, "learner-"+c.app+"-lessons-folder")
			if !slices.Contains(files, "00-start-here.ipynb") || !slices.Contains(files, "README.md") {
				t.Fatalf("the lessons folder lists %q: want the lessons and README.md", files)
			}
			for _, f := range files {
				if !strings.HasSuffix(f, ".ipynb") && f != "README.md" {
					t.Errorf("the lessons folder lists %q, which is not a lesson (it lists %q)", f, files)
				}
			}
			// Hidden from the listing only: the charts' scripts and the sources still load.
			for _, path := range []string{"files/notebooks/assets/echarts.min.js", "api/contents/notebooks/src/00-start-here.txt"} {
				resp, err := http.Get(base + path + "?token=" + token)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s: status %d, want 200: hiding a file from the listing must not stop it loading", path, resp.StatusCode)
				}
			}
		})
	}
}
