package browsercheck

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/proctag"
)

var urlLine = regexp.MustCompile(`^\s+(http://127\.0\.0\.1:\d+/\S+\?token=[0-9a-f]{48})\s*$`)

// startCommand runs scripts/start with args and returns the URL it prints. Whatever it started
// is stopped when the test ends.
func startCommand(t *testing.T, args ...string) string {
	t.Helper()
	return startCommandWith(t, nil, args...)
}

// startCommandWith is startCommand with env (NAME=value) added to the command's environment.
func startCommandWith(t *testing.T, env []string, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	tag := proctag.New()
	cmd := exec.Command(filepath.Join(jupytertest.Repo(), "scripts", "start"), append(args, "--LabServerApp.workspaces_dir="+t.TempDir())...)
	cmd.Env = append(append(proctag.Env(os.Environ(), tag), fmt.Sprintf("BACKOFFLAB_PORT=%d", port)), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { jupytertest.StopTree(t, cmd, tag) })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := urlLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		if !strings.Contains(u, fmt.Sprintf(":%d/", port)) {
			t.Fatalf("scripts/start printed %s, not the port %d it was given", u, port)
		}
		// The URL is printed as the server starts: wait until it answers.
		for deadline := time.Now().Add(90 * time.Second); ; {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/status", port))
			if err == nil {
				resp.Body.Close()
				return u
			}
			if time.Now().After(deadline) {
				t.Fatalf("nothing answers at %s: %v", u, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("scripts/start printed no URL with a full token within 3 minutes")
	}
	return ""
}

// The URL the start command prints logs in and opens lesson 00, in JupyterLab and (--classic)
// in Notebook 7; the file browser shows the lessons, the exercises and the documents they link
// to. Lesson 00 then runs in full through the toolbar's Restart and Run All, in the kernel a
// self-paced learner gets (see runAll), and in a cell of it Tab after "lcg." and Shift-Tab on
// MustNew answer (see checkCompletion). The only settings the test adds are the test servers'
// (see jupytertest.Settings): every cell rendered, nothing saved back.
func TestStartCommandInBothApps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Jupyter and Chromium; run without -short")
	}
	t.Parallel()
	for _, c := range []struct {
		app  jupytertest.App
		args []string
	}{{jupytertest.Lab, nil}, {jupytertest.Notebook, []string{"--classic"}}} {
		t.Run(string(c.app), func(t *testing.T) {
			t.Parallel() // each app with a start command and a browser of its own
			began := time.Now()
			u := startCommandWith(t, []string{jupytertest.Settings(t)}, c.args...)
			b := NewBrowser(t)
			if err := b.Do(60*time.Second, chromedp.Navigate(u)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, b, 90*time.Second, "lesson 00 to open", func(st state) bool { return st.Ready && len(st.Prompts) > 0 })
			// Logged in: no token form, and lesson 00's title is on the page.
			const shown = `document.querySelectorAll('input[type=password]').length === 0 &&
				Array.from(document.querySelectorAll('h1')).some(h => h.textContent.includes('Start here'))`
			if _, err := chromedp.Run(b.Ctx, chromedp.Poll[bool](shown, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
				body, _ := Eval[string](b, `document.body.innerText.slice(0, 500)`)
				t.Errorf("the URL did not show lesson 00 logged in (%v); the page shows: %q", err, body)
			}
			b.Screenshot(t, scroller, "start-"+string(c.app))
			// The server is rooted at the repository: the lessons' neighbours are reachable.
			base := u[:strings.Index(u, "/lab/")+1]
			if c.app == jupytertest.Notebook {
				base = u[:strings.Index(u, "/notebooks/")+1]
			}
			token := u[strings.Index(u, "token=")+6:]
			for _, path := range []string{"notebooks/00-start-here.ipynb", "exercises/README.md", "exercises/notebooks/waves-overload.ipynb", "retry/COMPARISON.md", "notebooks/README.md"} {
				resp, err := http.Get(base + "api/contents/" + path + "?content=0&token=" + token)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("%s: status %d through the contents API", path, resp.StatusCode)
				}
			}
			// What a learner waits for: from the start command to lesson 00 run in full.
			s := &jupytertest.Server{App: c.app, Base: base, Token: token, Root: jupytertest.Repo()}
			runAll(t, b, s, "notebooks/00-start-here.ipynb", fmt.Sprintf("start-%s-run-all-00-start-here", c.app))
			t.Logf("from scripts/start to lesson 00 run in full: %v", time.Since(began).Round(100*time.Millisecond))
			checkCompletion(t, b, string(c.app))
		})
	}
}
