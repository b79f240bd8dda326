// Package browsercheck drives headless Chromium (Debian's /usr/bin/chromium; no browser is
// downloaded) through real JupyterLab 4 and Notebook 7 servers, with every host but 127.0.0.1
// unresolvable, as a learner would use them, and tests what only a browser can: the URL the
// start command prints logs in; every saved lesson and exercise opens with every chart drawn and
// no error from this project's code; its explorables show the lab's numbers and redraw; its
// links open with one click; completion and hover help answer; Restart and Run All through the
// toolbar runs lesson 00 and lesson 03 in full; the static site works from a plain file server.
// (What a cell computes is the notebooks' own test: every cell runs there once a test run.) Its
// tests keep a screenshot of every notebook in each app under .cache/screenshots/.
//
// It needs scripts/setup to have run and Chromium installed (the test command does both).
package browsercheck

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/chromium"
	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// Chromium returns the browser binary, or fails the test saying how to install one.
func Chromium(t testing.TB) string {
	t.Helper()
	p, err := chromium.Path()
	if err != nil {
		t.Fatalf("%v; the test command installs it when run as root", err)
	}
	return p
}

// Browser is one headless Chromium with a record of what its pages did wrong.
type Browser struct {
	// Ctx is the current tab: chromedp actions run in it.
	Ctx      context.Context
	root     context.Context
	closeTab context.CancelFunc

	mu           sync.Mutex
	exceptions   []string
	consoleErrs  []string
	offHost      []string
	failedLoads  []string
	requestsByID map[network.RequestID]string
}

// NewBrowser starts Chromium for the test; it is closed when the test ends.
func NewBrowser(t testing.TB) *Browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-sync", true),
		// The network is off: every name but the loopback address fails to resolve.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &Browser{requestsByID: map[network.RequestID]string{}}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	t.Cleanup(func() {
		if b.closeTab != nil {
			b.closeTab()
		}
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	b.root, b.Ctx = ctx, ctx
	return b
}

// NewTab closes the current tab (without asking the page, so no "leave this page?" dialog can
// stand in the way) and makes a new one current.
func (b *Browser) NewTab(t testing.TB) {
	t.Helper()
	if b.closeTab != nil {
		b.closeTab()
	}
	ctx, cancel := chromedp.NewContext(b.root, chromedp.WithListener(b.listen))
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		cancel()
		t.Fatalf("opening a tab: %v", err)
	}
	b.Ctx, b.closeTab = ctx, cancel
}

// Do runs actions in the current tab, giving up after d.
func (b *Browser) Do(d time.Duration, actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.Ctx, d)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// Eval evaluates a JavaScript expression in the current tab, giving up after 30 s.
func Eval[T any](b *Browser, js string) (T, error) {
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js))
}

func (b *Browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.exceptions = append(b.exceptions, fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			var parts []string
			for _, a := range ev.Args {
				if a.Value != nil {
					parts = append(parts, string(a.Value))
				} else if a.Description != "" {
					parts = append(parts, a.Description)
				}
			}
			b.consoleErrs = append(b.consoleErrs, strings.Join(parts, " "))
		}
	case *network.EventRequestWillBeSent:
		b.requestsByID[ev.RequestID] = ev.Request.URL
		u, err := url.Parse(ev.Request.URL)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ws" || u.Scheme == "wss") && u.Hostname() != "127.0.0.1" {
			b.offHost = append(b.offHost, ev.Request.URL)
		}
	case *network.EventResponseReceived:
		if ev.Response.Status == 404 && strings.Contains(ev.Response.URL, "/files/") {
			b.failedLoads = append(b.failedLoads, ev.Response.URL)
		}
	}
}

// Problems returns, and forgets, what went wrong on the pages since the last call: script
// exceptions, console errors that come from this project's charts, requests for anything off
// this machine, project files the server did not find.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var p []string
	for _, e := range b.exceptions {
		// The apps' own bundles (served under /static/) are not this project's code: a known
		// JupyterLab 4.6 / Notebook 7.6 settings exception is thrown there on every page.
		ours := strings.Contains(e, "backofflab") || strings.Contains(e, "echarts") || !strings.Contains(e, "/static/")
		if ours {
			p = append(p, "script exception: "+e)
		}
	}
	for _, e := range b.consoleErrs {
		if strings.Contains(e, "backofflab") || strings.Contains(e, "echarts") {
			p = append(p, "console error: "+e)
		}
	}
	for _, u := range b.offHost {
		p = append(p, "request off this machine: "+u)
	}
	for _, u := range b.failedLoads {
		p = append(p, "not found: "+u)
	}
	b.exceptions, b.consoleErrs, b.offHost, b.failedLoads = nil, nil, nil, nil
	return p
}

// ScreenshotDir is where the tests keep their screenshots: .cache/screenshots/ in the repository.
func ScreenshotDir(t testing.TB) string {
	dir := filepath.Join(jupytertest.Repo(), ".cache", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Screenshot saves the whole of the scrolling element sel (the notebook), not only what the
// window shows, as name.png under ScreenshotDir.
func (b *Browser) Screenshot(t testing.TB, sel, name string) {
	t.Helper()
	h, err := Eval[int](b, fmt.Sprintf(`(() => { let h = 900; for (const e of document.querySelectorAll(%q)) h = Math.max(h, Math.ceil(e.scrollHeight)); return h; })()`, sel+", .jp-WindowedPanel-outer, .jp-NotebookPanel, body"))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	h = min(max(h+200, 900), 16000)
	shotStart := time.Now()
	defer func() { t.Logf("screenshot %s: %d px, %v", name, h, time.Since(shotStart)) }()
	err = b.Do(60*time.Second,
		chromedp.EmulateViewport(1280, int64(h)),
		chromedp.Sleep(700*time.Millisecond), // charts resize to the new window
	)
	var png []byte
	if err == nil {
		png, err = chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	}
	_ = b.Do(60*time.Second, chromedp.EmulateViewport(1280, 900))
	savePNG(t, name, png, err)
}

// savePNG keeps a screenshot taken as name (png, or the error that kept it from being taken) as
// name.png under ScreenshotDir.
func savePNG(t testing.TB, name string, png []byte, err error) {
	t.Helper()
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

// PageState is a JavaScript expression that reads what the open notebook shows, as JSON: its
// code cells' prompts, images, charts drawn, error outputs, the kernel's state. It is the same in JupyterLab and Notebook 7,
// which share the notebook widgets.
const PageState = `(() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook') || document.querySelector('.jp-Notebook');
  if (!nb) return JSON.stringify({ready: false});
  const prompts = Array.from(nb.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')).map(e => e.innerText.trim());
  const imgs = Array.from(nb.querySelectorAll('.jp-OutputArea-output img'));
  // A chart (or an explorable's panels) has drawn when one of its canvases holds pixels.
  const painted = Array.from(nb.querySelectorAll('.backofflab-chart')).filter(el =>
    Array.from(el.querySelectorAll('canvas')).some(c => {
      if (!c.width || !c.height) return false;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]) n++;
      return n > 1000;
    })).length;
  const errors = Array.from(nb.querySelectorAll('.jp-OutputArea-output')).map(e => e.innerText).filter(t => /panic:|exit status \d|^ERROR\b|undefined: /m.test(t)).map(t => t.slice(0, 300));
  const status = (document.querySelector('.jp-Notebook-ExecutionIndicator') || {}).dataset;
  const markdown = nb.querySelectorAll('.jp-MarkdownCell').length;
  const rendered = nb.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown').length;
  return JSON.stringify({
    ready: markdown === rendered,
    prompts,
    running: prompts.filter(p => p.includes('*')).length,
    images: imgs.length,
    imagesLoaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
    interactive: nb.querySelectorAll('.backofflab-chart').length,
    painted,
    doneButtons: Array.from(nb.querySelectorAll('.jp-OutputArea-output button')).filter(b => b.innerText.trim() === 'Done').length,
    errors,
    kernel: status ? status.status : '',
  });
})()`

// SavedCharts counts the charts the saved outputs of a notebook of the repository (path relative
// to it) hold: static images and interactive (echarts) fragments.
func SavedCharts(t testing.TB, path string) (images, interactive int) {
	nb, err := notebook.Read(filepath.Join(jupytertest.Repo(), path))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if _, ok := o.Data["image/png"]; ok {
				images++
			}
			if html := string(o.Data["text/html"]); strings.Contains(html, "backofflab-chart") {
				// One display may hold several charts (lesson 11's storm.Figure
				// draws four), each a div of class backofflab-chart; an
				// explorable holds none of those divs and counts as one.
				interactive += max(1, strings.Count(html, `class="backofflab-chart"`))
			}
		}
	}
	return images, interactive
}

// EveryCellRan reports whether the prompts PageState read (one per code cell,
// such as "[3]:") all show an execution count: no cell is waiting ("[*]:")
// or unrun ("[ ]:").
func EveryCellRan(prompts []string) bool {
	for _, p := range prompts {
		if !strings.HasPrefix(p, "[") || p == "[ ]:" || p == "[*]:" {
			return false
		}
	}
	return true
}

// RestartAndRunAll presses the notebook's Restart and Run All (⏩) and answers its dialog. The
// button does nothing while JupyterLab has not yet connected the notebook to its kernel, although
// the kernel indicator shows idle by then (a click then opened no dialog, and a test once waited
// minutes for one): so it presses again every 10 s until the dialog shows, for three
// minutes at most (a loaded machine may be slow to draw the toolbar). On failure it keeps a
// screenshot named shot and says which of the toolbar's commands were disabled.
func (b *Browser) RestartAndRunAll(t testing.TB, shot string) {
	t.Helper()
	const button = `.jp-NotebookPanel:not(.lm-mod-hidden) [data-command="notebook:restart-run-all"]`
	deadline := time.Now().Add(3 * time.Minute)
	for presses := 1; ; presses++ {
		// A dialog that was slow to show is answered, not pressed behind.
		var err error
		if open, _ := Eval[bool](b, `!!document.querySelector('.jp-Dialog .jp-mod-accept')`); !open {
			err = b.Do(time.Until(deadline), chromedp.Click(button))
		}
		if err == nil {
			err = b.Do(10*time.Second, chromedp.WaitVisible(`.jp-Dialog .jp-mod-accept`))
		}
		if err == nil {
			if err = b.Do(time.Minute, chromedp.Click(`.jp-Dialog .jp-mod-accept`)); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Screenshot(t, "body", shot)
			html, _ := Eval[string](b, `(() => { const tb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar');
				return tb ? [...tb.querySelectorAll('[data-command], .jp-Toolbar-item')].map(e => (e.dataset.command || e.className) + (e.disabled || e.getAttribute('aria-disabled') === 'true' ? ' (disabled)' : '')).join(', ') : 'no toolbar'; })()`)
			t.Fatalf("Restart and Run All: no restart dialog after %d presses in 3 minutes: %v; the notebook's toolbar: %s", presses, err, html)
		}
	}
}
