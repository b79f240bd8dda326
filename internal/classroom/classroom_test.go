//go:build classroom

// Run with: go test -tags classroom ./internal/classroom (as root; scripts/test does).

package classroom

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/proctag"
)

// class is a running class of three learners (A, B, C) and an instructor.
type class struct {
	repo, instance, url, tag string
	learners                 []string
	instructor               string
	passwords                map[string]string
	config                   string // the class's configuration folder (learner/, instructor/)
	state                    string // its root-only state (logs/, class.json, ...)
}

// processes is the learners' process limit in the tests' class (scripts/class --processes).
const processes = 256

func (c *class) venv() string { return filepath.Join(c.repo, ".cache", "class", "venv") }

// startClass starts a class with a fresh roster of three and registers its stop, which also
// checks that nothing is left behind.
func startClass(t *testing.T) *class {
	t.Helper()
	if testing.Short() {
		t.Skip("starts JupyterHub and creates system accounts; run without -short")
	}
	if os.Getuid() != 0 {
		t.Fatal("the class tests create system accounts and need root (CI runs as root): run them as root, or run go test -short")
	}
	repo := jupytertest.Repo()
	id := proctag.New()[:6]
	c := &class{repo: repo, instance: "t" + id, tag: proctag.New(), instructor: "blt" + id + "-i"}
	for _, s := range []string{"a", "b", "c"} {
		c.learners = append(c.learners, "blt"+id+"-"+s)
	}
	roster := filepath.Join(t.TempDir(), "roster.csv")
	var b strings.Builder
	b.WriteString("username,display name\n")
	for i, u := range c.learners {
		fmt.Fprintf(&b, "%s,Learner %c\n", u, 'A'+i)
	}
	if err := os.WriteFile(roster, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	c.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	c.config = filepath.Join(repo, ".cache", "class", c.instance, "config")
	c.state = filepath.Join(repo, ".cache", "class", c.instance, "state")
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() { // the class's logs, for the one who reads the failure (root only, like the class's own)
			kept := filepath.Join(repo, ".cache", "class-test-logs", c.instance)
			if err := os.MkdirAll(filepath.Dir(kept), 0o700); err == nil && os.Rename(filepath.Join(c.state, "logs"), kept) == nil {
				t.Logf("the class's logs are kept in %s", kept)
			}
		}
		_ = os.RemoveAll(filepath.Join(repo, ".cache", "class", c.instance))
	})
	cmd := exec.Command(filepath.Join(repo, "scripts", "class"), "--roster", roster, "--port", strconv.Itoa(port), "--instructor", c.instructor,
		"--instance", c.instance, "--cpu-seconds", "10", "--processes", strconv.Itoa(processes))
	cmd.Env = c.env(os.Environ())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/class: %v\n%s", err, out)
	}
	t.Logf("class started in %v", time.Since(start).Round(time.Second))
	pw, err := os.ReadFile(filepath.Join(repo, ".cache", "class", c.instance, "state", "passwords.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(pw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	c.passwords = map[string]string{}
	for _, r := range recs {
		c.passwords[r[0]] = r[len(r)-1]
	}
	for _, u := range append(c.learners, c.instructor) {
		if c.passwords[u] == "" {
			t.Fatalf("scripts/class printed no password for %s", u)
		}
		if !strings.Contains(string(out), c.passwords[u]) {
			t.Errorf("scripts/class did not print %s's password for the instructor", u)
		}
	}
	return c
}

func (c *class) env(base []string, extra ...string) []string {
	return append(proctag.Env(base, c.tag), extra...)
}

// stop stops the class and checks that no process and no account of it is left.
func (c *class) stop(t *testing.T) {
	cmd := exec.Command(filepath.Join(c.repo, "scripts", "class"), "--stop", "--instance", c.instance)
	cmd.Env = c.env(os.Environ())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("scripts/class --stop: %v\n%s", err, out)
	}
	if left := proctag.Stop(c.tag, 5*time.Second); len(left) > 0 {
		t.Errorf("scripts/class --stop left processes running (now killed): %v", left)
	}
	for _, u := range append(c.learners, c.instructor, "blc-"+c.instance, "blg-"+c.instance) { // (the cell programs' and the grading sandbox's accounts)
		if _, err := user.Lookup(u); err == nil {
			t.Errorf("scripts/class --stop left the account %s (now removed)", u)
			_ = exec.Command("userdel", "-r", u).Run()
		}
	}
	for _, d := range []string{"/var/cache/backofflab/cells-" + c.instance, "/var/cache/backofflab/grader-" + c.instance} {
		if exists(d) {
			t.Errorf("scripts/class --stop left %s (now removed)", d)
			_ = os.RemoveAll(d)
		}
	}
}

// client runs class/client.py and decodes the JSON it prints into v.
func (c *class) client(t *testing.T, v any, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(c.repo, ".cache", "venv", "bin", "python"), append([]string{filepath.Join(c.repo, "class", "client.py")}, args...)...)
	cmd.Env = c.env(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.py %s: %v\n%s", args[0], err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("client.py %s printed %q: %v", args[0], out, err)
	}
}

// cellResult is what client.py's cell command reports.
type cellResult struct {
	Seconds float64
	Status  string
	Failed  bool
	Output  string
}

// cell runs code in a fresh kernel of the user's server.
func (c *class) cell(t *testing.T, u, code string) cellResult {
	t.Helper()
	var r cellResult
	c.client(t, &r, "cell", c.url, u, c.passwords[u], code)
	return r
}

// as runs a command as the account u, in dir, with the class's configuration for role, in the
// environment of a fresh login: nothing of the test's own leaks in (scripts/test exports
// JUPYTER_DATA_DIR, a root-owned folder, where "nbgrader submit" would keep its cache and fail).
func (c *class) as(t *testing.T, u, role, dir string, args ...string) string {
	t.Helper()
	home := filepath.Join("/home", u)
	full := []string{"-u", u, "--", "env", "-i", "HOME=" + home, "USER=" + u, "LOGNAME=" + u, "LANG=C.UTF-8",
		"PATH=" + filepath.Join(c.venv(), "bin") + ":" + os.Getenv("PATH"),
		"JUPYTER_CONFIG_PATH=" + filepath.Join(c.config, role),
		"JUPYTER_PATH=" + filepath.Join(c.config, role, "data"),
		"BACKOFFLAB_CLASS=1"}
	for _, kv := range c.env(os.Environ()) { // the marks that find what this test started
		if strings.HasPrefix(kv, proctag.Var+"=") || strings.HasPrefix(kv, "BACKOFFLAB_TEST_RUN=") {
			full = append(full, kv)
		}
	}
	full = append(full, args...)
	cmd := exec.Command("runuser", full...)
	cmd.Dir = dir
	cmd.Env = c.env(os.Environ())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as %s: %v\n%s", strings.Join(args, " "), u, err, out)
	}
	if d := time.Since(start); d > 10*time.Second { // (where the round trip's time goes)
		t.Logf("%s as %s: %v", strings.Join(args, " "), u, d.Round(time.Second))
	}
	return string(out)
}

// log returns the class's log file name (in its root-only state's logs/).
func (c *class) log(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.state, "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func freePort(t *testing.T) int {
	t.Helper()
	for p := 18200 + os.Getpid()%500; p < 19000; p++ {
		if exec.Command("sh", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", p)).Run() != nil {
			return p
		}
	}
	t.Fatal("no free port from 18200 to 19000")
	return 0
}

func TestClass(t *testing.T) {
	c := startClass(t)
	a, b, _ := c.learners[0], c.learners[1], c.learners[2]

	t.Run("ExchangeCourseFolderIsTheInstructors", func(t *testing.T) { exchangeCourseFolder(t, c, a) })

	t.Run("LearnersAreIsolated", func(t *testing.T) {
		// B's server runs (so that its URL routes to it), and A asks for B's things.
		if r := c.cell(t, b, `import "fmt"`+"\nfunc main() { fmt.Println(\"B here\") }"); r.Failed || !strings.Contains(r.Output, "B here") {
			t.Fatalf("B's first cell: %+v", r)
		}
		var codes map[string]int
		paths := []string{
			"/user/" + b + "/api/contents/notebooks",
			"/user/" + b + "/lab",
			"/hub/api/users/" + b,
			"/user/" + c.instructor + "/formgrader",
			"/user/" + c.instructor + "/api/contents/course",
		}
		c.client(t, &codes, append([]string{"get", c.url, a, c.passwords[a]}, paths...)...)
		for _, p := range paths {
			if codes[p] != 403 && codes[p] != 404 {
				t.Errorf("learner A got HTTP %d for %s, want 403 or 404", codes[p], p)
			}
		}
		// The instructor reaches the formgrader.
		fg := "/user/" + c.instructor + "/formgrader"
		c.client(t, &codes, "get", c.url, c.instructor, c.passwords[c.instructor], fg)
		if codes[fg] != 200 {
			t.Errorf("the instructor got HTTP %d for %s, want 200", codes[fg], fg)
		}
		// A's own notebooks: there, copied on first login.
		c.client(t, &codes, "get", c.url, a, c.passwords[a], "/user/"+a+"/api/contents/notebooks/01-waves.ipynb")
		if got := codes["/user/"+a+"/api/contents/notebooks/01-waves.ipynb"]; got != 200 {
			t.Errorf("A's own copy of lesson 01: HTTP %d, want 200", got)
		}
		r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os")
func main() {
	_, err := os.ReadFile("/home/%[1]s/notebooks/01-waves.ipynb")
	fmt.Println("read:", err)
	err = os.WriteFile("/home/%[1]s/notebooks/mine.txt", []byte("A was here"), 0o644)
	fmt.Println("write:", err)
}`, b))
		if r.Failed || strings.Count(r.Output, "permission denied") != 2 {
			t.Errorf("A's cell reading and writing B's notebooks: want both to fail with permission denied, got %+v", r)
		}
	})

	t.Run("RunawayCellsAreStopped", func(t *testing.T) {
		var wg sync.WaitGroup
		var loop, oom cellResult
		wg.Add(1)
		go func() {
			defer wg.Done()
			loop = c.cell(t, a, "func main() { n := 0; for { n++ } }")
		}()
		time.Sleep(2 * time.Second)
		// While A's cell spins, B's kernel answers and the hub serves.
		if r := c.cell(t, b, `import "fmt"`+"\nfunc main() { fmt.Println(6 * 7) }"); r.Failed || !strings.Contains(r.Output, "42") {
			t.Errorf("B's cell while A's loops: %+v", r)
		}
		wg.Wait()
		// (Go programs ignore SIGXCPU: the hard limit's SIGKILL stops the cell, and GoNB says so.)
		if !loop.Failed || !strings.Contains(loop.Output, "signal: killed") {
			t.Errorf("a cell that loops forever: want it killed by the CPU limit, saying so; got %+v", loop)
		}
		oom = c.cell(t, a, `func main() { var keep [][]byte; for { b := make([]byte, 64<<20); b[0] = 1; keep = append(keep, b) } }`)
		if !oom.Failed || !strings.Contains(oom.Output, "out of memory") {
			t.Errorf("a cell that allocates without end: want it stopped, saying out of memory; got %+v", oom)
		}
		if r := c.cell(t, a, `import "fmt"`+"\nfunc main() { fmt.Println(\"still here\") }"); r.Failed || !strings.Contains(r.Output, "still here") {
			t.Errorf("A's next cell after the runaways: %+v", r)
		}
	})

	t.Run("CellProgramsShared", func(t *testing.T) {
		// The same cell in A's kernel, then in B's: B gets the program the cache built for A.
		code := `import "fmt"` + "\nfunc main() { fmt.Println(\"shared\", 6*7) }"
		for _, u := range []string{a, b} {
			if r := c.cell(t, u, code); r.Failed || !strings.Contains(r.Output, "shared 42") {
				t.Fatalf("%s's cell: %+v", u, r)
			}
		}
		ub, err := user.Lookup(b)
		if err != nil {
			t.Fatal(err)
		}
		if log := c.log(t, "cells.log"); !strings.Contains(log, "uid="+ub.Uid+" build hit ") {
			t.Errorf("B's run of the cell A ran first was not served from the cache; the cache's log:\n%s", log)
		}
	})

	t.Run("CellProgramsNotReadable", func(t *testing.T) { cellProgramsNotReadable(t, c, a) })
	t.Run("NoWritableInodeShared", func(t *testing.T) { noWritableInodeShared(t, c, a, b) })
	t.Run("CgoRefused", func(t *testing.T) { cgoRefused(t, c, a) })
	t.Run("KernelOutputIsNotTheLog", func(t *testing.T) { kernelOutputIsNotTheLog(t, c, a, b) })
	t.Run("SlotsCannotBeHoarded", func(t *testing.T) { slotsCannotBeHoarded(t, c, a, b) })
	t.Run("ProcessLimit", func(t *testing.T) { processLimit(t, c, a) })
	t.Run("ServerPortCannotBeTaken", func(t *testing.T) { serverPortCannotBeTaken(t, c, a, b) })

	t.Run("ServersForkedAsTheLearner", func(t *testing.T) { forkedServer(t, c, a) })

	t.Run("LessonsCopiedAsTheLearner", func(t *testing.T) { lessonsCopiedAsTheLearner(t, c, a) })

	t.Run("StopTakesTheKernels", func(t *testing.T) { stopTakesTheKernels(t, c, b) })

	t.Run("LearnerInBrowser", func(t *testing.T) { learnerInBrowser(t, c, c.learners[2]) })

	t.Run("NbgraderRoundTrip", func(t *testing.T) { nbgraderRoundTrip(t, c) })

	// Stopping leaves nothing (checked by c.stop, which runs here, and again, harmlessly, at
	// cleanup), reads no sparse file in full and leaves no learner's file in /tmp.
	t.Run("StopLeavesNothing", func(t *testing.T) { stopLeavesNothing(t, c, a, b) })
}
