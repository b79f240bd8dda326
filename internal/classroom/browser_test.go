//go:build classroom

package classroom

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/browsercheck"
)

// pageState is the part of browsercheck.PageState these tests read.
type pageState struct {
	Ready        bool
	Prompts      []string
	Running      int
	ImagesLoaded int
	Painted      int
	Errors       []string
	Kernel       string
}

func waitPage(t *testing.T, b *browsercheck.Browser, d time.Duration, what string, ok func(pageState) bool) pageState {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var s pageState
		js, err := browsercheck.Eval[string](b, browsercheck.PageState)
		if err == nil {
			err = json.Unmarshal([]byte(js), &s)
		}
		if err == nil && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; the page shows %+v (%v)", what, d, s, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// learnerInBrowser: a learner logs in at the hub's page in Chromium; their server starts (forked
// by the class's zygote); in JupyterLab, Restart and Run All of lesson 01 runs every cell in the
// Go kernel and draws every chart; in Notebook 7, lesson 03's saved explorables draw. Screenshots:
// .cache/screenshots/class-lab-01-waves.png, class-notebook7-03-jitter-width.png.
func learnerInBrowser(t *testing.T, c *class, u string) {
	// The learner's own JupyterLab settings (read from their home, which the forked server must
	// know as theirs): render every cell, on screen or not, so that the page can be read whole.
	settings := filepath.Join("/home", u, ".jupyter", "lab", "user-settings", "@jupyterlab", "notebook-extension")
	must(t, os.MkdirAll(settings, 0o755))
	must(t, os.WriteFile(filepath.Join(settings, "tracker.jupyterlab-settings"), []byte(`{"windowingMode": "none"}`), 0o644))
	if out, err := exec.Command("chown", "-R", u+":", filepath.Join("/home", u, ".jupyter")).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	b := browsercheck.NewBrowser(t)
	b.NewTab(t)
	err := b.Do(60*time.Second, chromedp.Navigate(c.url+"/hub/login"), chromedp.WaitVisible(`#username_input`))
	if err != nil {
		t.Fatalf("the hub's login page: %v", err)
	}
	if _, err := browsercheck.Eval[bool](b, fmt.Sprintf(`(() => {
		document.querySelector('#username_input').value = %q;
		document.querySelector('#password_input').value = %q;
		document.querySelector('#username_input').form.submit();
		return true; })()`, u, c.passwords[u])); err != nil {
		t.Fatalf("logging in: %v", err)
	}
	time.Sleep(2 * time.Second)

	lesson := "notebooks/01-waves.ipynb"
	if err := b.Do(60*time.Second, chromedp.Navigate(c.url+"/user/"+u+"/lab/tree/"+lesson)); err != nil {
		t.Fatalf("opening %s in JupyterLab: %v", lesson, err)
	}
	waitPage(t, b, 3*time.Minute, "JupyterLab showing lesson 01 (the server starts first)", func(s pageState) bool { return s.Ready && len(s.Prompts) > 0 })
	waitPage(t, b, 2*time.Minute, "the Go kernel to be idle", func(s pageState) bool { return s.Kernel == "idle" })
	b.RestartAndRunAll(t, "class-lab-restart-failed")
	// (The restart first: under load the server takes a while to end the kernel and start another.)
	waitPage(t, b, 3*time.Minute, "the run to start", func(s pageState) bool { return s.Running > 0 })
	st := waitPage(t, b, 5*time.Minute, "every cell of lesson 01 to finish", func(s pageState) bool {
		return s.Running == 0 && s.Kernel == "idle" && browsercheck.EveryCellRan(s.Prompts)
	})
	images, interactive := browsercheck.SavedCharts(t, lesson)
	st = waitPage(t, b, 30*time.Second, "every chart of lesson 01 drawn", func(s pageState) bool {
		return s.ImagesLoaded >= images && s.Painted >= interactive
	})
	for _, e := range st.Errors {
		t.Errorf("lesson 01 in JupyterLab: error output: %s", e)
	}
	b.Screenshot(t, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer", "class-lab-01-waves")

	lesson = "notebooks/03-jitter-width.ipynb"
	b.NewTab(t)
	if err := b.Do(60*time.Second, chromedp.Navigate(c.url+"/user/"+u+"/notebooks/"+lesson)); err != nil {
		t.Fatalf("opening %s in Notebook 7: %v", lesson, err)
	}
	images, interactive = browsercheck.SavedCharts(t, lesson)
	if interactive == 0 {
		t.Fatalf("%s holds no interactive chart: the test would show nothing", lesson)
	}
	waitPage(t, b, time.Minute, "Notebook 7 drawing lesson 03's saved charts and explorables", func(s pageState) bool {
		return s.Ready && s.ImagesLoaded >= images && s.Painted >= interactive
	})
	b.Screenshot(t, ".jp-WindowedPanel-outer", "class-notebook7-03-jitter-width")
	for _, p := range b.Problems() {
		t.Errorf("%s", p)
	}
}
