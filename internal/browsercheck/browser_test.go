// Package browsercheck opens a lesson in a real Jupyter server with headless Chromium, with every
// host but 127.0.0.1 unreachable, and checks that its interactive chart actually draws: a canvas
// with pixels in it, no script errors, no request leaving the machine.
//
// It needs scripts/setup to have run and Chromium installed (the test command does both).
package browsercheck

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// notebookWithInteractiveChart is the lesson whose saved output the check opens.
const notebookWithInteractiveChart = "00-start-here.ipynb"

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on PATH: the test command installs Debian's chromium; or run: apt-get install chromium")
	return ""
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startJupyter starts the classic Notebook server the start command uses, on a free port, and
// returns its base URL and token. The server is stopped when the test ends.
func startJupyter(t *testing.T) (base, token string) {
	t.Helper()
	if _, err := exec.LookPath("jupyter"); err != nil {
		t.Fatal("jupyter is not on PATH: run scripts/setup first")
	}
	b := make([]byte, 16)
	rand.Read(b)
	token = hex.EncodeToString(b)
	port := freePort(t)
	args := []string{"notebook", "--no-browser", "--ip=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--NotebookApp.token=" + token, "--notebook-dir=" + filepath.Join(repoRoot(t), "notebooks")}
	if os.Getuid() == 0 {
		args = append(args, "--allow-root")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "jupyter", args...)
	cmd.WaitDelay = 5 * time.Second
	logs, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logMu sync.Mutex
	var logLines []string
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			logMu.Lock()
			logLines = append(logLines, sc.Text())
			logMu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			logMu.Lock()
			defer logMu.Unlock()
			t.Logf("jupyter log:\n%s", strings.Join(logLines, "\n"))
		}
	})
	base = fmt.Sprintf("http://127.0.0.1:%d/", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "api/status?token=" + token)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base, token
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jupyter did not answer on %s within 60 s: %v", base, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func TestInteractiveChartDrawsOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	browser := chromium(t)
	// The saved outputs are this repository's own: trust them, as scripts/setup does, so the server
	// runs their scripts (the notebook may have been rebuilt since set-up ran).
	trust := exec.Command(filepath.Join(repoRoot(t), "scripts", "trust-notebooks"),
		filepath.Join(repoRoot(t), "notebooks", notebookWithInteractiveChart))
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("scripts/trust-notebooks: %v\n%s", err, out)
	}
	base, token := startJupyter(t)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		// The network is off: every name but the loopback address fails to resolve.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var scriptErrors, offHost []string
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			scriptErrors = append(scriptErrors, fmt.Sprintf("%s (%s:%d)", msg, d.URL, d.LineNumber))
		case *network.EventRequestWillBeSent:
			u, err := url.Parse(ev.Request.URL)
			if err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ws" || u.Scheme == "wss") && u.Hostname() != "127.0.0.1" {
				offHost = append(offHost, ev.Request.URL)
			}
		}
	}))
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	page := base + "notebooks/" + notebookWithInteractiveChart + "?token=" + token
	// A chart has drawn when its echarts canvas holds pixels that are not transparent.
	const drawnPixels = `(() => {
		const canvases = document.querySelectorAll('.output_area canvas');
		let best = 0;
		for (const c of canvases) {
			const ctx = c.getContext('2d');
			if (!ctx || c.width === 0 || c.height === 0) continue;
			const data = ctx.getImageData(0, 0, c.width, c.height).data;
			let n = 0;
			for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
			best = Math.max(best, n);
		}
		return best;
	})()`
	err := chromedp.Do(ctx,
		chromedp.Navigate(page),
		chromedp.WaitVisible(`#notebook-container`),
	)
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](drawnPixels+` > 1000`, chromedp.WithPollingTimeout(45*time.Second)))
	}
	var pixels int
	if err == nil {
		pixels, err = chromedp.Run(ctx, chromedp.Evaluate[int](drawnPixels))
	}
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('.output_area')).map(e => e.innerText).join('\n---\n')`))
		t.Fatalf("no interactive chart drew on %s: %v\nscript errors: %q\noutputs as shown:\n%s", notebookWithInteractiveChart, err, scriptErrors, text)
	}
	t.Logf("interactive chart drew %d non-transparent pixels", pixels)
	if len(scriptErrors) > 0 {
		t.Errorf("script errors on the page: %q", scriptErrors)
	}
	if len(offHost) > 0 {
		t.Errorf("the page asked for something off this machine (a CDN?): %q", offHost)
	}
}
