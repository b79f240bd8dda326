package browsercheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// scratch is a one-cell notebook on the Go (Backoff Lab) kernel that stops after "lcg.".
const scratch = `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": ["import \"github.com/backofflab/backofflab/lab/lcg\"\n", "\n", "%%\n", "g := lcg."]}],
 "metadata": {"kernelspec": {"display_name": "Go (Backoff Lab)", "language": "go", "name": "backofflab-go"}},
 "nbformat": 4, "nbformat_minor": 5}`

// In a JupyterLab cell, Tab after "lcg." offers the package's names (GoNB asks gopls): MustNew
// among them.
func TestCompletionInJupyterLab(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	// Jupyter serves no hidden folder, so the scratch notebook sits in the repository's root
	// (ignored by git) for the length of the test.
	f, err := os.CreateTemp(jupytertest.Repo(), "completion-scratch-*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.WriteString(scratch); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s := jupytertest.Start(t, jupytertest.Lab)
	b := NewBrowser(t)
	open(t, b, s, filepath.Base(f.Name()))
	// The kernel starts as the notebook opens; completion needs it connected.
	if _, err := chromedp.Run(b.Ctx, chromedp.Poll[bool](`document.body.innerText.includes('Go (Backoff Lab) | Idle')`, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
		b.Screenshot(t, scroller, "lab-completion")
		t.Fatalf("the kernel did not become idle: %v", err)
	}
	const items = `Array.from(document.querySelectorAll('.jp-Completer-item')).map(e => e.innerText.trim().split(/\s+/)[0])`
	var offered []string
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); {
		err := chromedp.Do(b.Ctx,
			chromedp.Click(`.jp-Cell .cm-content`),
			chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(chromedp.ModifierCtrl)), // the cursor after "lcg."
			chromedp.KeyEvent(kb.Tab),
			chromedp.Sleep(3*time.Second),
		)
		if err != nil {
			t.Fatal(err)
		}
		offered, err = chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](items))
		if err != nil {
			t.Fatal(err)
		}
		if len(offered) > 0 {
			break
		}
		_ = chromedp.Do(b.Ctx, chromedp.KeyEvent(kb.Escape))
	}
	b.Screenshot(t, scroller, "lab-completion")
	if !strings.Contains(strings.Join(offered, " "), "MustNew") {
		t.Fatalf("Tab after lcg. offered %q, want MustNew among them", offered)
	}
	t.Logf("Tab after lcg. offered %d names", len(offered))
}
