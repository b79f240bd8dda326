// Package jupytertest starts a real Jupyter server (JupyterLab 4 or Notebook 7, from the
// environment scripts/setup made) for a test, rooted at the repository, on 127.0.0.1 with a
// token, and stops it and every process it started (kernels, their gopls) when the test ends,
// whether it passed, failed or timed out.
package jupytertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/proctag"
)

// App names a Jupyter front end.
type App string

const (
	Lab      App = "lab"      // JupyterLab 4
	Notebook App = "notebook" // Notebook 7
)

// Server is a running Jupyter server.
type Server struct {
	App   App
	Base  string // http://127.0.0.1:PORT/
	Token string
	Root  string // the folder it serves: the repository
	logs  *logBuffer
}

// Repo returns the repository's root folder.
func Repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Jupyter returns the jupyter command of the environment scripts/setup made.
func Jupyter(t testing.TB) string {
	t.Helper()
	j := filepath.Join(Repo(), ".cache", "venv", "bin", "jupyter")
	if _, err := os.Stat(j); err != nil {
		t.Fatalf("no Jupyter at %s: run scripts/setup first", j)
	}
	return j
}

// OpenURL returns the URL that logs in with the token and opens the file at path (relative to
// the repository), as the start command prints it.
func (s *Server) OpenURL(path string) string {
	if s.App == Lab {
		return s.Base + "lab/tree/" + path + "?token=" + s.Token
	}
	if strings.HasSuffix(path, ".ipynb") {
		return s.Base + "notebooks/" + path + "?token=" + s.Token
	}
	return s.Base + "tree/" + path + "?token=" + s.Token
}

// OpenFreshURL is OpenURL with JupyterLab's workspace reset, so that only that file is open
// (Notebook 7 opens one file a page anyway).
func (s *Server) OpenFreshURL(path string) string {
	if s.App == Lab {
		return s.Base + "lab/tree/" + path + "?reset&token=" + s.Token
	}
	return s.OpenURL(path)
}

// StopTree stops a command started with Setpgid and the tag proctag.Env gave it: SIGTERM first
// (a Jupyter server then shuts its kernels down), its process group killed after 10 s, then
// whatever still carries the tag.
func StopTree(t testing.TB, cmd *exec.Cmd, tag string) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	if killed := proctag.Stop(tag, 5*time.Second); len(killed) > 0 {
		t.Logf("killed processes left behind: %v", killed)
	}
}

// KernelsIdle reports whether the server runs at least one kernel and every kernel it runs is
// idle (connected, and not executing anything).
func (s *Server) KernelsIdle(t testing.TB) bool {
	t.Helper()
	var kernels []struct {
		State string `json:"execution_state"`
	}
	if err := s.listKernels(&kernels); err != nil {
		// A kernel that restarts or stops while the server lists them can make the listing fail
		// (the server answers with an error object); that is "not idle yet", and the caller's
		// deadline decides when waiting has lasted too long.
		t.Logf("listing kernels: %v (asking again)", err)
		return false
	}
	for _, k := range kernels {
		if k.State != "idle" {
			return false
		}
	}
	return len(kernels) > 0
}

// listKernels decodes the server's list of kernels into v, or says what the server answered
// instead.
func (s *Server) listKernels(v any) error {
	resp, err := http.Get(s.Base + "api/kernels?token=" + s.Token)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %.300s", resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%v: %.300s", err, body)
	}
	return nil
}

// ShutdownKernels stops every kernel the server runs (the browser opens one per notebook, and a
// closed tab does not stop it). A listing that fails while kernels come and go is asked again,
// for up to ten seconds.
func (s *Server) ShutdownKernels(t testing.TB) {
	t.Helper()
	var kernels []struct{ ID string }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		err := s.listKernels(&kernels)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("listing kernels: %v", err)
		}
	}
	for _, k := range kernels {
		req, _ := http.NewRequest(http.MethodDelete, s.Base+"api/kernels/"+k.ID+"?token="+s.Token, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
}

// Log returns what the server has printed so far.
func (s *Server) Log() string { return s.logs.String() }

// ClassKernels, given to Start, runs the server's kernels in the kernel's class mode (see
// scripts/kernel): no gopls, which only completion and hover help ask; a kernel that starts in
// a fraction of the CPU time. A test that opens many notebooks and completes none uses it.
const ClassKernels = "BACKOFFLAB_CLASS=1"

// Start starts app rooted at the repository on a free port and waits until it answers. env
// (NAME=value) is added to the environment of the server and its kernels.
func Start(t testing.TB, app App, env ...string) *Server {
	t.Helper()
	jupyter := Jupyter(t)
	token := proctag.New() + proctag.New()
	port := freePort(t)
	s := &Server{App: app, Base: fmt.Sprintf("http://127.0.0.1:%d/", port), Token: token, Root: Repo(), logs: &logBuffer{}}
	args := []string{string(app), "--no-browser", "--ip=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--ServerApp.port_retries=0", "--IdentityProvider.token=" + token, "--ServerApp.root_dir=" + s.Root,
		"--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
		// Reopen nothing from an earlier test: every test starts from a clean workspace.
		"--LabServerApp.workspaces_dir=" + t.TempDir(),
		// The app as window.jupyterapp, so that a test can run the app's own commands (the
		// document manager's open, as File, Open does) in a page it has loaded once.
		"--" + map[App]string{Lab: "LabApp", Notebook: "JupyterNotebookApp"}[app] + ".expose_app_in_browser=True"}
	if os.Getuid() == 0 {
		args = append(args, "--allow-root")
	}
	tag := proctag.New()
	cmd := exec.Command(jupyter, args...)
	cmd.Env = append(append(proctag.Env(os.Environ(), tag), Settings(t)), env...)
	cmd.Dir = s.Root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			s.logs.add(sc.Text())
		}
	}()
	t.Cleanup(func() {
		StopTree(t, cmd, tag)
		if t.Failed() {
			t.Logf("jupyter %s log (last lines):\n%s", app, s.logs.tail(60))
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(s.Base + "api/status?token=" + token)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("jupyter %s did not answer on %s within 90 s: %v\n%s", app, s.Base, err, s.logs.tail(40))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Settings returns JUPYTERLAB_SETTINGS_DIR=DIR, for the environment of a Jupyter server a test
// starts: user settings that render every cell, on screen or not, so that the page can be read
// and photographed whole, and save nothing back, so that a test's runs never change the
// repository's notebooks. The folder is removed when the test ends.
func Settings(t testing.TB) string {
	t.Helper()
	settings := t.TempDir()
	for file, json := range map[string]string{
		"@jupyterlab/notebook-extension/tracker.jupyterlab-settings":  `{"windowingMode": "none"}`,
		"@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": `{"autosave": false}`,
	} {
		f := filepath.Join(settings, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "JUPYTERLAB_SETTINGS_DIR=" + settings
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) add(l string) { b.mu.Lock(); b.lines = append(b.lines, l); b.mu.Unlock() }
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}
func (b *logBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.lines
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
