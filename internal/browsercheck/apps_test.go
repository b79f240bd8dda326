package browsercheck

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// notebooks returns every lesson and exercise notebook, as paths relative to the repository.
func notebooks(t *testing.T) []string {
	return notebooksIn(t, "notebooks/*.ipynb", "exercises/notebooks/*.ipynb")
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

// waitFor polls the page until ok says yes, or fails the test after d.
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
		time.Sleep(500 * time.Millisecond)
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

func apps(t *testing.T, each func(t *testing.T, app jupytertest.App)) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	for _, app := range []jupytertest.App{jupytertest.Lab, jupytertest.Notebook} {
		t.Run(string(app), func(t *testing.T) { each(t, app) })
	}
}

// Opened without running anything, every saved notebook shows every chart it holds: the static
// ones as images, the interactive ones drawn by echarts from this server, with no script error
// and no request leaving the machine.
func TestSavedNotebooksShowTheirCharts(t *testing.T) {
	apps(t, func(t *testing.T, app jupytertest.App) {
		s := jupytertest.Start(t, app)
		b := NewBrowser(t)
		for _, path := range notebooks(t) {
			images, interactive := savedCharts(t, path)
			open(t, b, s, path)
			st := waitFor(t, b, 30*time.Second, path+": every saved chart drawn", func(st state) bool {
				return st.ImagesLoaded >= images && st.Painted >= interactive
			})
			if st.Images != images || st.Interactive != interactive {
				t.Errorf("%s: the page shows %d images and %d interactive charts; the file holds %d and %d", path, st.Images, st.Interactive, images, interactive)
			}
			for _, p := range b.Problems() {
				t.Errorf("%s: %s", path, p)
			}
		}
	})
}

// Restart and Run All through each app's toolbar: every cell finishes, none shows an error, every
// chart draws. A screenshot of each notebook afterwards is kept in .cache/screenshots/APP-NAME.png.
// The exercises run in their solved (instructor) versions: a learner's unsolved version fails its
// checks on purpose.
func TestRestartAndRunAll(t *testing.T) {
	apps(t, func(t *testing.T, app jupytertest.App) {
		s := jupytertest.Start(t, app)
		b := NewBrowser(t)
		for _, path := range notebooksIn(t, "notebooks/*.ipynb", "exercises/solutions/notebooks/*.ipynb") {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".ipynb"), func(t *testing.T) {
				start := time.Now()
				open(t, b, s, path)
				waitFor(t, b, 2*time.Minute, "the kernel to be ready", func(state) bool { return s.KernelsIdle(t) })
				err := b.Do(60*time.Second,
					chromedp.Click(`.jp-NotebookPanel:not(.lm-mod-hidden) [data-command="notebook:restart-run-all"]`),
					chromedp.Click(`.jp-Dialog .jp-mod-accept`),
				)
				if err != nil {
					t.Fatalf("Restart and Run All: %v", err)
				}
				// The run has started once a prompt shows '*'; it has ended when none does and every
				// code cell has its number.
				waitFor(t, b, 2*time.Minute, "the run to start", func(st state) bool { return st.Running > 0 })
				st := waitFor(t, b, 6*time.Minute, "every cell to finish", func(st state) bool {
					if st.DoneButtons > 0 { // a live control waiting for a person: press Done, as a learner does
						_ = b.Do(10*time.Second, chromedp.Click(`.jp-OutputArea-output button`))
					}
					return st.Running == 0 && s.KernelsIdle(t) && EveryCellRan(st.Prompts)
				})
				images, interactive := savedCharts(t, path)
				st = waitFor(t, b, 30*time.Second, "every chart drawn", func(st state) bool {
					return st.ImagesLoaded >= images && st.Painted >= interactive
				})
				for _, e := range st.Errors {
					t.Errorf("error output: %s", e)
				}
				for _, p := range b.Problems() {
					t.Errorf("%s", p)
				}
				b.Screenshot(t, scroller, fmt.Sprintf("%s-%s", app, strings.TrimSuffix(filepath.Base(path), ".ipynb")))
				t.Logf("ran all %d code cells in %v", len(st.Prompts), time.Since(start).Round(time.Second))
			})
		}
	})
}
