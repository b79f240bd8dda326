package browsercheck

// What a self-paced learner meets in the real apps, outside the lessons' text: tables in the
// static site, the JupyterLab that scripts/start opens (its menus, its file browser, its kernel
// status), what a failing cell prints.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
	"github.com/backofflab/backofflab/internal/proctag"
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
	t.Parallel() // a file server and a browser of its own
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
	savePNG(t, name, png, err)
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

// The app scripts/start opens for a self-paced learner shows the kernel idle before anything
// runs, and after a restart (see checkKernelStateKnown); carries none of nbgrader (the class's
// grading extension: its menu, its "Create Assignment" panel, its Validate button, its server
// pages); and its lessons folder lists the lessons and their README, not the sources the
// notebooks are built from, their test or the charts' script folder, which still load.
func TestSelfPacedAppShowsTheLessonsOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	t.Parallel()
	for _, c := range []struct {
		app  string
		args []string
	}{{"lab", nil}, {"notebook", []string{"--classic"}}} {
		t.Run(c.app, func(t *testing.T) {
			t.Parallel() // each app with a start command and a browser of its own
			u := startCommand(t, c.args...)
			base, token := u[:strings.Index(u, "/"+map[string]string{"lab": "lab", "notebook": "notebooks"}[c.app]+"/")+1], u[strings.Index(u, "token=")+6:]
			b := NewBrowser(t)
			if err := b.Do(60*time.Second, chromedp.Navigate(u)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, b, 90*time.Second, "lesson 00 to open", func(st state) bool { return st.Ready && len(st.Prompts) > 0 })
			checkKernelStateKnown(t, b, jupytertest.App(c.app))
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

// scratchNotebook writes a notebook of the given Go cells into the repository's root, where the
// test servers are rooted, and removes it when the test ends; it returns its path from the root.
// (Its name is in .gitignore.)
func scratchNotebook(t *testing.T, cells ...string) string {
	t.Helper()
	var src strings.Builder
	for _, c := range cells {
		src.WriteString("//// go\n" + c + "\n")
	}
	nb, err := notebook.Parse([]byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	name := "learner-scratch-" + proctag.New() + ".ipynb"
	path := filepath.Join(jupytertest.Repo(), name)
	if err := nb.Write(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	return name
}

// kernelState reads the open notebook's kernel state as its toolbar shows it (the indicator's
// state, the kernel's name), and as JupyterLab's status bar does.
const kernelState = `JSON.stringify({
  indicator: ((document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator') || document.querySelector('.jp-Notebook-ExecutionIndicator') || {}).dataset || {}).status || '',
  name: Array.from(document.querySelectorAll('.jp-KernelName')).map(e => e.innerText.trim()).join(' '),
  bar: (document.querySelector('#jp-main-statusbar') || {innerText: ''}).innerText.split('\n').filter(l => l.includes('|')).join(' '),
})`

type kernelView struct{ Indicator, Name, Bar string }

// known reports whether the page shows the Backoff Lab kernel as idle: in the toolbar and, in
// JupyterLab, in the status bar.
func (v kernelView) known(app jupytertest.App) bool {
	ok := v.Indicator == "idle" && strings.Contains(v.Name, "Go (Backoff Lab)")
	if app == jupytertest.Lab {
		ok = ok && strings.Contains(v.Bar, "Go (Backoff Lab) | Idle")
	}
	return ok
}

// checkKernelStateKnown checks what a learner sees of the kernel in the lesson open in b: idle,
// not "Unknown", before running anything; and again after a restart from the toolbar. (GoNB does
// not answer the history request the apps send when they connect, and the apps ignore the state
// in its answer to their kernel_info request: the kernel's wrapper tells them.)
func checkKernelStateKnown(t *testing.T, b *Browser, app jupytertest.App) {
	t.Helper()
	// A click in the lesson makes it JupyterLab's current document, whose kernel the status bar
	// shows (the start command's URL leaves the file browser current). The cells are drawn again
	// as the lesson loads, and a click may miss: click until the status bar shows the kernel.
	var v kernelView
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if app == jupytertest.Lab && v.Bar == "" {
			_ = b.Do(5*time.Second, chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell`))
		}
		if v = evalJSON[kernelView](t, b, kernelState); v.known(app) {
			break
		}
		if time.Now().After(deadline) {
			windowShot(t, b, "learner-"+string(app)+"-kernel-state")
			t.Fatalf("the kernel's state is not shown within 90 s of opening the lesson (no cell run): the page shows %+v", v)
		}
	}
	if st := readState(t, b); st.Running > 0 {
		t.Fatalf("a cell is running (%v): the check is of a kernel no cell has run on", st.Prompts)
	}
	if err := b.Do(30*time.Second,
		chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) [data-command="notebook:restart-kernel"]`),
		chromedp.Click(`.jp-Dialog .jp-mod-accept`)); err != nil {
		t.Fatalf("restarting the kernel: %v", err)
	}
	left := false // the page showed the restart: a state other than idle
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		v = evalJSON[kernelView](t, b, kernelState)
		left = left || !v.known(app)
		if left && v.known(app) {
			return
		}
		if time.Now().After(deadline) {
			windowShot(t, b, "learner-"+string(app)+"-kernel-restarted")
			t.Fatalf("after a restart the kernel's state is not shown within 90 s (it left idle: %v); the page shows %+v", left, v)
		}
	}
}

// cellOutputs reads what each code cell of the open notebook shows under it: one entry per
// output block, its text.
const cellOutputs = `JSON.stringify(Array.from(document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell, .jp-Notebook .jp-CodeCell')).map(c =>
  Array.from(c.querySelectorAll('.jp-OutputArea-output')).map(o => o.innerText)))`

// startCell runs code cell i (from 0) of the open notebook as a learner does: it selects the
// cell with a click on its prompt and presses Shift-Enter, once the kernel is ready, and makes
// sure the cell is then running or has run (a key pressed while the page was busy is lost: it
// presses it again).
func startCell(t *testing.T, b *Browser, i int) {
	t.Helper()
	connected := func() bool { // idle, or unknown: what a kernel no cell has run on showed before
		v := evalJSON[kernelView](t, b, kernelState)
		return strings.Contains(v.Name, "Go (Backoff Lab)") && (v.Indicator == "idle" || v.Indicator == "unknown")
	}
	for deadline := time.Now().Add(2 * time.Minute); !connected(); time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the kernel is not ready within 2 minutes: %+v", evalJSON[kernelView](t, b, kernelState))
		}
	}
	// A click on the cell's prompt selects it (and gives the notebook the keyboard). The mark of
	// the active cell (jp-mod-active) can come after the click returns, so it is waited for,
	// clicking again each second: a click while the notebook is still laying out its cells can go
	// unseen.
	selectCell := fmt.Sprintf(`((click) => {
		const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell');
		const c = cells[%d];
		if (!c) return 'the notebook has ' + cells.length + ' code cells';
		if (click) {
			c.scrollIntoView({block: 'center'});
			const p = c.querySelector('.jp-InputPrompt');
			for (const type of ['mousedown', 'mouseup', 'click']) p.dispatchEvent(new MouseEvent(type, {bubbles: true, button: 0}));
		}
		return c.classList.contains('jp-mod-active') ? 'selected' : 'not selected';
	})`, i)
	selected := func() {
		deadline := time.Now().Add(20 * time.Second)
		for k := 0; ; k++ {
			msg, err := Eval[string](b, fmt.Sprintf("%s(%v)", selectCell, k%5 == 0))
			if err == nil && msg == "selected" {
				return
			}
			if err != nil || msg != "not selected" || time.Now().After(deadline) {
				t.Fatalf("selecting code cell %d: %v %s", i, err, msg)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for try := 1; ; try++ {
		selected()
		if err := b.Do(30*time.Second, chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift))); err != nil {
			t.Fatalf("running cell %d: %v", i, err)
		}
		for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait); time.Sleep(200 * time.Millisecond) {
			if st := readState(t, b); i < len(st.Prompts) && st.Prompts[i] != "[ ]:" {
				return
			}
		}
		if try == 3 {
			windowShot(t, b, "learner-cell-did-not-start")
			t.Fatalf("cell %d did not start after Shift-Enter, pressed %d times; the page shows %+v", i, try, readState(t, b))
		}
	}
}

// runCell runs code cell i (from 0) of the open notebook as a learner does, selecting it and
// pressing Shift-Enter, and waits until it has run.
func runCell(t *testing.T, b *Browser, i int, d time.Duration) {
	t.Helper()
	startCell(t, b, i)
	ran := func(st state) bool {
		return i < len(st.Prompts) && st.Prompts[i] != "[ ]:" && st.Prompts[i] != "[*]:" && st.Running == 0
	}
	for deadline := time.Now().Add(d); !ran(readState(t, b)); time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			windowShot(t, b, "learner-cell-did-not-run")
			t.Fatalf("cell %d did not run within %v; the page shows %+v", i, d, readState(t, b))
		}
	}
}

const (
	panicCell   = "import \"github.com/janpfeifer/must\"\nimport \"errors\"\n\n%%\nx := 1\nmust.M(errors.New(\"boom: the thing failed\"))\n_ = x"
	compileCell = "%%\ntotal := 1\nsum := undefinedThing + 2\n_ = total"
)

// A cell that panics shows one block: the panic's message and the cell and line it happened on,
// with that line's code; not the must package's log line and frames, the generated main.go or
// "exit status 2" twice. A cell that does not compile shows one block too: each message with its
// cell, line and code. Both in the kernel's default mode and in its class mode.
func TestFailingCellsSayWhatAndWhere(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	t.Parallel()
	for _, mode := range []string{"default", "class"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // each mode with a server and a browser of its own
			var env []string
			if mode == "class" {
				env = append(env, jupytertest.ClassKernels)
			}
			s := jupytertest.Start(t, jupytertest.Lab, env...)
			b := NewBrowser(t)
			open(t, b, s, scratchNotebook(t, panicCell, compileCell))
			runCell(t, b, 0, 3*time.Minute)
			runCell(t, b, 1, 3*time.Minute)
			windowShot(t, b, "learner-failing-cells-"+mode)
			outs := evalJSON[[][]string](t, b, cellOutputs)
			if len(outs) < 2 { // Shift-Enter in the last cell adds an empty one
				t.Fatalf("read %d cells' outputs, want 2: %q", len(outs), outs)
			}
			for i, c := range []struct {
				want, never []string
			}{
				{[]string{"panic: boom: the thing failed", "cell [1], line 6:", `must.M(errors.New("boom: the thing failed"))`},
					[]string{"goroutine", "must.go", "Must not error", "exit status", "main.go", "gonb_"}},
				{[]string{"cell [2], line 3: undefined: undefinedThing", "sum := undefinedThing + 2", "^", "declared and not used: sum"},
					[]string{"main.go", "gonb_", "failed to run", "exit status", "flag.Parse", "func main"}},
			} {
				if len(outs[i]) != 1 {
					t.Errorf("cell %d shows %d output blocks, want 1 (the error): %q", i+1, len(outs[i]), outs[i])
				}
				text := strings.Join(outs[i], "\n")
				for _, w := range c.want {
					if !strings.Contains(text, w) {
						t.Errorf("cell %d's output lacks %q; it shows:\n%s", i+1, w, text)
					}
				}
				for _, n := range c.never {
					if strings.Contains(text, n) {
						t.Errorf("cell %d's output shows %q; it shows:\n%s", i+1, n, text)
					}
				}
			}
		})
	}
}

// lastBar is the real-socket runs' bar once every run is done.
var lastBar = regexp.MustCompile(`^HTTP clients over real sockets: (\d+) of (\d+) runs done$`)

// complete reports whether bar is lastBar counting every run done.
func complete(bar string) bool {
	m := lastBar.FindStringSubmatch(bar)
	return m != nil && m[1] == m[2]
}

// Lesson 13's real-socket runs show a progress bar while they run, one for the whole loop over
// the HTTP clients, naming the library that runs; it ends counting every run. (The cell here is
// the lesson's with a few clients and a short outage.)
func TestRealSocketRunsShowProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	t.Parallel() // a server and a browser of its own
	s := jupytertest.Start(t, jupytertest.Lab)
	b := NewBrowser(t)
	open(t, b, s, scratchNotebook(t,
		`!*lab=$(go list -m -f '{{.Dir}}' github.com/backofflab/backofflab) && go work use "$lab/zoo" && go mod edit -replace github.com/backofflab/backofflab/zoo="$lab/zoo"`,
		"import (\n\t\"context\"\n\n\t\"github.com/backofflab/backofflab/zoo\"\n)\n\n%%\nfor _, c := range zoo.HTTPClients() {\n\t_, err := zoo.RunHTTP(context.Background(), c, 5, 300*time.Millisecond, 1)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n}\nfmt.Println(\"done\")"))
	runCell(t, b, 0, 2*time.Minute)
	const bar = `Array.from(document.querySelectorAll('.backofflab-progress')).map(e => e.innerText.trim())`
	startCell(t, b, 1)
	seen := map[string]bool{}
	var bars []string
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var err error
		if bars, err = Eval[[]string](b, bar); err != nil {
			t.Fatal(err)
		}
		for _, x := range bars {
			seen[x] = true
		}
		if st := readState(t, b); len(st.Prompts) > 1 && st.Prompts[1] != "[*]:" && st.Prompts[1] != "[ ]:" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cell did not end within 4 minutes; bars seen %q", bars)
		}
	}
	// The cell's prompt takes its number from the kernel's reply, which may come before the
	// bar's last update is drawn: give that update a moment (the bar must still end complete).
	for deadline := time.Now().Add(30 * time.Second); !(len(bars) == 1 && complete(bars[0])) && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var err error
		if bars, err = Eval[[]string](b, bar); err != nil {
			t.Fatal(err)
		}
	}
	windowShot(t, b, "learner-real-socket-progress")
	running := false
	for x := range seen {
		if strings.Contains(x, "HTTP clients over real sockets: ") && strings.Contains(x, "runs done; running ") {
			running = true
		}
	}
	if !running {
		t.Errorf("no bar naming the library running was seen while the cell ran (seen %v)", seen)
	}
	if len(bars) != 1 || !complete(bars[0]) {
		t.Errorf("after the run the cell shows the bars %q, want one that counts every run done", bars)
	}
	if outs := evalJSON[[][]string](t, b, cellOutputs); len(outs) < 2 || !strings.Contains(strings.Join(outs[1], "\n"), "done") {
		t.Errorf("the cell's outputs %q lack its \"done\"", outs)
	}
}
