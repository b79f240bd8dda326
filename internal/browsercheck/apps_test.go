package browsercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// notebooks returns every lesson and exercise notebook (the learner's version and the
// instructor's), as paths relative to the repository.
func notebooks(t *testing.T) []string {
	return notebooksIn(t, "notebooks/*.ipynb", "exercises/notebooks/*.ipynb", "exercises/solutions/notebooks/*.ipynb")
}

// shortName names a notebook in subtests and screenshots: its file name without .ipynb, after
// "solutions-" for an exercise's instructor version.
func shortName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".ipynb")
	if strings.Contains(path, "/solutions/") {
		name = "solutions-" + name
	}
	return name
}

// notebooksIn returns the notebooks that match the patterns, relative to the repository.
func notebooksIn(t *testing.T, patterns ...string) []string {
	t.Helper()
	repo := jupytertest.Repo()
	var out []string
	for _, pattern := range patterns {
		m, err := filepath.Glob(filepath.Join(repo, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(repo, p)
			out = append(out, rel)
		}
	}
	if len(out) < 12 {
		t.Fatalf("found only %d notebooks", len(out))
	}
	return out
}

// savedCharts counts the charts a notebook's saved outputs hold (see SavedCharts).
var savedCharts = SavedCharts

// pageState reads what the open notebook shows (see PageState).
const pageState = PageState

type state struct {
	Ready        bool
	Prompts      []string
	Running      int
	Images       int
	ImagesLoaded int
	Interactive  int
	Painted      int
	DoneButtons  int
	Errors       []string
	Kernel       string
}

func readState(t *testing.T, b *Browser) state {
	t.Helper()
	js, err := Eval[string](b, pageState)
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	var s state
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("reading the page: %v: %s", err, js)
	}
	return s
}

// waitFor polls the page until ok says yes, or fails the test after d. It polls five times a
// second: a page that is ready is seldom kept waiting for the next look.
func waitFor(t *testing.T, b *Browser, d time.Duration, what string, ok func(state) bool) state {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := readState(t, b)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; the page shows %+v", what, d, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// scroller is the element that scrolls a notebook, for full-length screenshots.
const scroller = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer"

// open opens path alone in a new tab; the kernels of earlier tabs are stopped.
func open(t *testing.T, b *Browser, s *jupytertest.Server, path string) {
	t.Helper()
	b.NewTab(t)
	s.ShutdownKernels(t)
	if err := b.Do(60*time.Second, chromedp.Navigate(s.OpenFreshURL(path))); err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	waitFor(t, b, 60*time.Second, "the notebook to show its cells", func(st state) bool { return st.Ready && len(st.Prompts) > 0 })
}

// openInApp opens path in the app page that open loaded in b, as the app's File, Open does: the
// document manager's open command, with no page load. Every document open before is closed first
// (without asking: nothing here is saved) and the kernels it started are stopped, so that the
// notebook is again the only one open, as after open.
func openInApp(t *testing.T, b *Browser, s *jupytertest.Server, path string) {
	t.Helper()
	// Notebook 7 opens a document in a new browser tab unless told to add it to this page ("_noref").
	options := "{}"
	if s.App == jupytertest.Notebook {
		options = "{ref: '_noref'}"
	}
	if msg, err := Eval[string](b, `(() => {
		const app = window.jupyterapp;
		if (!app) return 'no window.jupyterapp: the page is not an app started by jupytertest.Start';
		for (const w of Array.from(app.shell.widgets('main'))) w.dispose();
		return '';
	})()`); err != nil || msg != "" {
		t.Fatalf("closing the open documents: %v%s", err, msg)
	}
	s.ShutdownKernels(t)
	ctx, cancel := context.WithTimeout(b.Ctx, 60*time.Second)
	defer cancel()
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`window.jupyterapp.commands.execute('docmanager:open', {path: %q, factory: 'Notebook', options: %s}).then(w => w ? '' : 'the command opened nothing')`, path, options), chromedp.EvalAwaitPromise))
	if err != nil || msg != "" {
		t.Fatalf("opening %s in the app (docmanager:open): %v%s", path, err, msg)
	}
	waitFor(t, b, 60*time.Second, "the notebook to show its cells", func(st state) bool { return st.Ready && len(st.Prompts) > 0 })
}

// apps runs each for JupyterLab and for Notebook 7 at the same time, each app with a server
// and a browser of its own: most of a page's time is spent waiting on the other processes
// (the server, the kernel, the page's own frames), so two apps side by side keep two cores
// busier than one after the other.
func apps(t *testing.T, each func(t *testing.T, app jupytertest.App)) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	t.Parallel() // beside the suite's other tests with servers of their own (go test -parallel)
	for _, app := range []jupytertest.App{jupytertest.Lab, jupytertest.Notebook} {
		t.Run(string(app), func(t *testing.T) {
			t.Parallel()
			each(t, app)
		})
	}
}

// Every saved notebook, lessons and exercises (both versions), opened in JupyterLab 4 and in
// Notebook 7 without running anything: it shows every chart it holds, the static ones as images,
// the interactive ones drawn by echarts from this server, with no script error or console error
// from this project's code, no request leaving the machine and no file missing (a screenshot of
// each is kept: .cache/screenshots/APP-NAME.png); its explorables show the lab's numbers and
// redraw (see checkExplorables); every link it gives to another file of the course opens that
// file with one click. The app's page is loaded once, with the first notebook; the others are
// opened in it by the app's own File, Open command (see openInApp), as a learner moves from one
// lesson to the next, and not by loading the whole app again for each. Then lesson 03, which has
// images, an interactive chart and an explorable, runs in full through the toolbar's Restart and
// Run All in a freshly loaded page, with nobody pressing anything, and its explorable is checked
// again, live.
//
// The servers' kernels run in class mode (no gopls: nothing here completes); the start command's
// test runs lesson 00 in the kernel a self-paced learner gets, completion included. Every cell of
// every notebook runs once a test run, in the notebooks' own test (nbclient), which compares the
// outputs with the saved ones; what a browser adds is drawing them.
func TestNotebooksInBothApps(t *testing.T) {
	apps(t, func(t *testing.T, app jupytertest.App) {
		cli := labCLI(t)
		s := jupytertest.Start(t, app, jupytertest.ClassKernels)
		b := NewBrowser(t)
		cases := explorablesByPath()
		followed, checked := 0, 0
		all := notebooks(t)
		loaded := false // the app's page: loaded for the first notebook, which then opens the others
		for _, path := range all {
			name := shortName(path)
			t.Run(name, func(t *testing.T) {
				start := time.Now()
				if loaded {
					openInApp(t, b, s, path)
				} else {
					open(t, b, s, path)
					loaded = true
				}
				checkSavedCharts(t, b, path)
				for _, p := range b.Problems() {
					t.Errorf("%s", p)
				}
				b.Screenshot(t, scroller, fmt.Sprintf("%s-%s", app, name))
				if c := cases[path]; len(c) > 0 {
					checkExplorables(t, b, string(app)+" saved "+path, c, cli)
				}
				followed += checkLinks(t, b, s, path)
				for _, p := range b.Problems() {
					t.Errorf("%s", p)
				}
				t.Logf("checked in %v", time.Since(start).Round(100*time.Millisecond))
				checked++
			})
		}
		t.Logf("followed %d links", followed)
		if checked == len(all) && followed < 12 { // every notebook (not a -run of some)
			t.Errorf("followed only %d links; the lessons give at least 12", followed)
		}
		path := "notebooks/03-jitter-width.ipynb"
		t.Run("run-all-03-jitter-width", func(t *testing.T) {
			open(t, b, s, path)
			runAll(t, b, s, path, fmt.Sprintf("%s-run-all-03-jitter-width", app))
			checkExplorables(t, b, string(app)+" live "+path, cases[path], cli)
			for _, p := range b.Problems() {
				t.Errorf("%s", p)
			}
		})
	})
}

// checkSavedCharts waits until the open notebook, at path, shows every chart its saved outputs
// hold, and fails the test if it shows another number of them.
func checkSavedCharts(t *testing.T, b *Browser, path string) {
	t.Helper()
	images, interactive := savedCharts(t, path)
	st := waitFor(t, b, 30*time.Second, path+": every saved chart drawn", func(st state) bool {
		return st.ImagesLoaded >= images && st.Painted >= interactive
	})
	if st.Images != images || st.Interactive != interactive {
		t.Errorf("%s: the page shows %d images and %d interactive charts; the file holds %d and %d", path, st.Images, st.Interactive, images, interactive)
	}
}

// runAll runs the open notebook, at path, through the toolbar's Restart and Run All, as a learner
// does: every cell finishes with nobody pressing anything, none shows an error, the kernel ends
// idle, and the page shows as many charts as the saved notebook, each drawn; no script error
// from this project's code. The page is kept as .cache/screenshots/shot.png.
func runAll(t *testing.T, b *Browser, s *jupytertest.Server, path, shot string) {
	t.Helper()
	start := time.Now()
	waitFor(t, b, 2*time.Minute, "the kernel to be ready", func(state) bool { return s.KernelsIdle(t) })
	// A control may hold the keyboard focus; give it back to the notebook, as a click on a cell does.
	if _, err := Eval[bool](b, `(document.activeElement && document.activeElement.blur(), (document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook') || document.body).focus(), true)`); err != nil {
		t.Fatal(err)
	}
	b.RestartAndRunAll(t, shot+"-restart-failed")
	// The run has started once a prompt shows '*'; it has ended when none does and every code
	// cell has its number. A Done button is a control waiting for a person: no cell may need one.
	waitFor(t, b, 2*time.Minute, "the run to start", func(st state) bool { return st.Running > 0 })
	st := waitFor(t, b, 6*time.Minute, "every cell to finish, with nobody pressing anything", func(st state) bool {
		return st.DoneButtons > 0 || st.Running == 0 && s.KernelsIdle(t) && EveryCellRan(st.Prompts)
	})
	if st.DoneButtons > 0 {
		t.Fatalf("%s: %d cells wait for a person to press Done; the page shows %+v", path, st.DoneButtons, st)
	}
	images, interactive := savedCharts(t, path)
	st = waitFor(t, b, 30*time.Second, "every chart drawn", func(st state) bool {
		return st.ImagesLoaded >= images && st.Painted >= interactive
	})
	if st.Images != images || st.Interactive != interactive {
		t.Errorf("%s after Run All: %d images and %d interactive charts; the saved notebook holds %d and %d", path, st.Images, st.Interactive, images, interactive)
	}
	for _, e := range st.Errors {
		t.Errorf("%s after Run All: error output: %s", path, e)
	}
	for _, p := range b.Problems() {
		t.Errorf("%s after Run All: %s", path, p)
	}
	b.Screenshot(t, scroller, shot)
	t.Logf("%s: Restart and Run All ran its %d code cells in %v", path, len(st.Prompts), time.Since(start).Round(time.Second))
}
