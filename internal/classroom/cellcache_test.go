package classroom

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// cellCache is the cell programs' daemon (class/backofflab_class/cells.py) serving a small
// checkout of its own, and the kernels' folders beside its build folders (GoNB's /tmp/gonb_ID,
// here under one temporary folder). fakeGo stands for the real go command: the client runs it
// when the daemon does not serve a build, and it says so and exits 3.
type cellCache struct {
	py, repo, tmp, socket, programs, fakeGo string
	env                                     []string
}

func startCellCache(t *testing.T, flags ...string) *cellCache {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("the cell cache is a Python program: python3 is needed")
	}
	root := t.TempDir()
	cc := &cellCache{
		py:       py,
		repo:     filepath.Join(root, "repo"),
		tmp:      filepath.Join(root, "tmp"),
		socket:   filepath.Join(root, "cells.sock"),
		programs: filepath.Join(root, "cache", "programs"),
		fakeGo:   filepath.Join(root, "fake-go"),
	}
	cc.env = append(os.Environ(), "TMPDIR="+cc.tmp, "GOFLAGS=-ldflags=-s", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=", "GOTELEMETRY=off",
		"CGO_ENABLED=0", "PYTHONPATH="+filepath.Join(jupytertest.Repo(), "class"), "PYTHONDONTWRITEBYTECODE=1")
	must(t, os.MkdirAll(cc.tmp, 0o755))
	must(t, os.WriteFile(cc.fakeGo, []byte("#!/bin/sh\necho \"the kernel's own build: $*\" >&2\nexit 3\n"), 0o755))
	cc.writeRepo(t, "42")
	cmd := exec.Command(py, append([]string{"-m", "backofflab_class.cells", "serve", "--socket", cc.socket, "--cache", filepath.Dir(cc.programs),
		"--repo", cc.repo, "--slots", "1"}, flags...)...)
	cmd.Env = cc.env
	startDaemon(t, cmd, cc.socket, "the cell cache")
	return cc
}

// startDaemon starts cmd, a daemon that listens on the Unix socket path, and waits up to 15 s for
// the socket; the daemon is killed when the test ends, and its log shown if the test failed.
func startDaemon(t *testing.T, cmd *exec.Cmd, path, what string) {
	t.Helper()
	var log bytes.Buffer
	cmd.Stderr = &log
	must(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s's log:\n%s", what, log.String())
		}
	})
	for i := 0; ; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if i == 300 {
			t.Fatalf("%s did not start:\n%s", what, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeRepo writes the checkout: a module with one package, whose Answer returns answer.
func (cc *cellCache) writeRepo(t *testing.T, answer string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(cc.repo, "p"), 0o755))
	must(t, os.WriteFile(filepath.Join(cc.repo, "go.mod"), []byte("module example.com/fakelab\n\ngo 1.26\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(cc.repo, "p", "p.go"), []byte("package p\n\n// Answer is the answer.\nfunc Answer() int { return "+answer+" }\n"), 0o644))
}

// kernel makes a kernel's folder as GoNB does (module gonb_ID, a go.work using the checkout) with
// the cell's main.go; it returns the folder.
func (cc *cellCache) kernel(t *testing.T, id, main string) string {
	t.Helper()
	d := filepath.Join(cc.tmp, "gonb_"+id)
	must(t, os.MkdirAll(d, 0o700))
	must(t, os.WriteFile(filepath.Join(d, "go.mod"), []byte("module gonb_"+id+"\n\ngo 1.26\n\nreplace example.com/fakelab => "+cc.repo+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "go.work"), []byte("go 1.26\n\nuse (\n\t.\n\t"+cc.repo+"\n)\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "main.go"), []byte(main), 0o644))
	return d
}

// build runs the client as class/bin/go does for GoNB's build in kernel folder d; it returns the
// client's exit code and what it said (exit 3: the fake go command ran, the daemon did not serve it).
func (cc *cellCache) build(t *testing.T, d string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(cc.py, "-m", "backofflab_class.cells", "go", cc.fakeGo, "build", "-o", filepath.Join(d, filepath.Base(d)))
	cmd.Dir = d
	cmd.Env = slices.Concat(cc.env, []string{"GONB_TMP_DIR=" + d, "BACKOFFLAB_CELLS_SOCKET=" + cc.socket, "BACKOFFLAB_CELLS_VERBOSE=1"}, env)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// run runs kernel folder d's program.
func run(t *testing.T, d string, args ...string) string {
	t.Helper()
	out, _ := exec.Command(filepath.Join(d, filepath.Base(d)), args...).CombinedOutput()
	return string(out)
}

const answerCell = `package main

import (
	"fmt"
	"os"

	"example.com/fakelab/p"
)

func main() {
	if len(os.Args) > 1 {
		panic("asked to panic")
	}
	fmt.Println(p.Answer())
}
`

func TestCellCacheKeying(t *testing.T) {
	cc := startCellCache(t)
	want := func(d, status, output string) {
		t.Helper()
		code, said := cc.build(t, d)
		if code != 0 || !strings.HasPrefix(said, "cellcache: "+status+" ") {
			t.Fatalf("build in %s: exit %d, said %q; want exit 0 and %q", filepath.Base(d), code, said, status)
		}
		if got := strings.TrimSpace(run(t, d)); got != output {
			t.Fatalf("the program of %s printed %q, want %q", filepath.Base(d), got, output)
		}
	}
	k1 := cc.kernel(t, "0000aaaa", answerCell)
	want(k1, "built", "42")
	// The same cell in another kernel (another module name): the program the first one built.
	k2 := cc.kernel(t, "1111bbbb", answerCell)
	want(k2, "hit", "42")
	// Its stack traces name the kernel's own main.go (GoNB maps those lines to the cell's).
	trace := run(t, k2, "panic")
	if !strings.Contains(trace, filepath.Join(k2, "main.go")+":") || strings.Contains(trace, filepath.Join(cc.tmp, "gcell")) {
		t.Errorf("a shared program's stack trace should name %s/main.go and no build folder of the cache:\n%s", k2, trace)
	}
	// Another cell: built.
	k3 := cc.kernel(t, "2222cccc", strings.Replace(answerCell, "p.Answer()", "p.Answer()+1", 1))
	want(k3, "built", "43")
	// A changed source of the checkout: every cell that imports it is built again.
	cc.writeRepo(t, "7")
	want(k1, "built", "7")
	want(k2, "hit", "7")
	// A new file in the checkout, too (the package's content changed, though no file we had did).
	must(t, os.WriteFile(filepath.Join(cc.repo, "p", "more.go"), []byte("package p\n\n// More is more.\nconst More = 1\n"), 0o644))
	want(k1, "built", "7")
	// A file a package may embed (a folder below the package's): built again.
	must(t, os.MkdirAll(filepath.Join(cc.repo, "p", "web"), 0o755))
	must(t, os.WriteFile(filepath.Join(cc.repo, "p", "web", "x.js"), []byte("1\n"), 0o644))
	want(k1, "built", "7")
	// Lessons and notes outside the packages: the program stays.
	must(t, os.MkdirAll(filepath.Join(cc.repo, "notebooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(cc.repo, "notebooks", "01.ipynb"), []byte("{}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(cc.repo, "README.md"), []byte("# fake lab\n"), 0o644))
	want(k2, "hit", "7")
}

func TestCellCacheConcurrent(t *testing.T) {
	// A class runs the same cell at the same moment: one build, every kernel served from it.
	// (Every kernel here is this test's account: it may have as many requests open as kernels.)
	cc := startCellCache(t, "--requests", "16")
	const kernels = 16
	type result struct {
		code int
		said string
	}
	results := make(chan result, kernels)
	var dirs []string
	for i := range kernels {
		dirs = append(dirs, cc.kernel(t, fmt.Sprintf("%08x", 0xc0de0000+i), answerCell))
	}
	for _, d := range dirs {
		go func() {
			code, said := cc.build(t, d)
			results <- result{code, said}
		}()
	}
	count := map[string]int{}
	for range kernels {
		r := <-results
		if r.code != 0 {
			t.Errorf("a kernel's build: exit %d, said %q; want 0", r.code, r.said)
			continue
		}
		count[strings.Fields(r.said)[1]]++
	}
	if count["built"] != 1 || count["hit"] != kernels-1 {
		t.Errorf("%d kernels building the same cell at once: %v, want 1 built and %d hits", kernels, count, kernels-1)
	}
	for _, d := range dirs {
		if got := strings.TrimSpace(run(t, d)); got != "42" {
			t.Errorf("the program of %s printed %q, want 42", filepath.Base(d), got)
		}
	}
}

func TestCellCacheSafety(t *testing.T) {
	cc := startCellCache(t)
	refused := func(name, d, reason string, env ...string) {
		t.Helper()
		code, said := cc.build(t, d, env...)
		if code != 3 || !strings.Contains(said, reason) || !strings.Contains(said, "the kernel's own build") {
			t.Errorf("%s: exit %d, said %q; want exit 3 (the kernel builds it), saying %q", name, code, said, reason)
		}
	}
	// Code from outside the checkout and the module cache: a folder a learner can write.
	elsewhere := filepath.Join(t.TempDir(), "evil")
	must(t, os.MkdirAll(filepath.Join(elsewhere, "p"), 0o755))
	must(t, os.WriteFile(filepath.Join(elsewhere, "go.mod"), []byte("module example.com/fakelab\n\ngo 1.26\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(elsewhere, "p", "p.go"), []byte("package p\n\nfunc Answer() int { return 666 }\n"), 0o644))
	d := cc.kernel(t, "3333dddd", answerCell)
	must(t, os.WriteFile(filepath.Join(d, "go.mod"), []byte("module gonb_3333dddd\n\ngo 1.26\n\nreplace (\n\texample.com/fakelab => "+elsewhere+"\n)\n"), 0o644))
	refused("a replace pointing outside the checkout", d, "must be inside the checkout")
	// The same, as the go command reads it and a line-by-line check did not: a quoted path, and
	// a block with no space before its parenthesis.
	for i, gomod := range []string{
		"module gonb_38\n\ngo 1.26\n\nreplace example.com/fakelab => \"" + elsewhere + "\"\n",
		"module gonb_39\n\ngo 1.26\n\nreplace(\nexample.com/fakelab => " + elsewhere + "\n)\n",
	} {
		d = cc.kernel(t, fmt.Sprintf("3333ddd%d", i), answerCell)
		must(t, os.WriteFile(filepath.Join(d, "go.mod"), []byte(gomod), 0o644))
		refused(fmt.Sprintf("replace outside the checkout, spelled %q", strings.Split(gomod, "\n")[4]), d, "must be inside the checkout")
	}
	// cgo, in every spelling of its import: the daemon builds with CGO_ENABLED=0 and says why.
	for i, imp := range []string{`import "C"`, `import C "C"`, `import _ "\x43"`, "import (\n\t\"fmt\"\n\t`C`\n)"} {
		d = cc.kernel(t, fmt.Sprintf("4444cgo%d", i), "package main\n\n/*\nint x;\n*/\n"+imp+"\n\nfunc main() {}\n")
		refused("a cell with "+imp, d, `imports "C": cgo is off`)
	}
	d = cc.kernel(t, "4444eeee", answerCell)
	must(t, os.WriteFile(filepath.Join(d, "go.work"), []byte("go 1.26\n\nuse .\nuse "+elsewhere+"\n"), 0o644))
	refused("a go.work using a folder outside the checkout", d, "only the cell's folder and the checkout")
	d = cc.kernel(t, "5555ffff", answerCell)
	must(t, os.WriteFile(filepath.Join(d, "go.work"), []byte("go 1.26\n\nuse .\nuse "+filepath.Join(cc.repo, ".cache", "x")+"\n"), 0o644))
	refused("a go.work using the checkout's caches", d, "only the cell's folder and the checkout")
	// Build settings of the learner's own: GOFLAGS (e.g. -toolexec) is the class's, or no cache.
	d = cc.kernel(t, "6666aaaa", answerCell)
	refused("other GOFLAGS", d, "GOFLAGS differs", "GOFLAGS=-toolexec=/bin/true")
	refused("another C compiler", d, "CC differs", "CC=/tmp/mycc")
	// Sources a cell does not have.
	must(t, os.WriteFile(filepath.Join(d, "x.c"), []byte("int x;\n"), 0o644))
	refused("C files in the kernel's folder", d, "not a plain cell")
	// Requests made by hand: only plain files with plain names.
	for _, tc := range []struct {
		name string
		hdr  tar.Header
	}{
		{"a path out of the build folder", tar.Header{Name: "../main.go", Typeflag: tar.TypeReg, Size: 13, Mode: 0o644}},
		{"a symbolic link", tar.Header{Name: "main.go", Typeflag: tar.TypeSymlink, Linkname: "/etc/shadow", Mode: 0o777}},
		{"a file a cell does not have", tar.Header{Name: "evil.syso", Typeflag: tar.TypeReg, Size: 13, Mode: 0o644}},
	} {
		var b bytes.Buffer
		b.WriteString(`{"protocol": "backofflab-cells-2", "command": "build", "env": {"GOFLAGS": "-ldflags=-s", "CGO_ENABLED": "0"}}` + "\n")
		tw := tar.NewWriter(&b)
		must(t, tw.WriteHeader(&tc.hdr))
		if tc.hdr.Size > 0 {
			_, err := tw.Write([]byte("package main\n"))
			must(t, err)
		}
		must(t, tw.Close())
		if r := cc.ask(t, b.Bytes()); r["status"] != "refused" {
			t.Errorf("%s: the daemon answered %v, want refused", tc.name, r)
		}
	}
	// What the daemon keeps, nobody else can read or change: the programs' folder is the daemon's
	// alone (a program is handed out over the socket, to whoever sent its sources), and its own
	// folder only lets others reach the socket.
	d = cc.kernel(t, "7777bbbb", answerCell)
	if code, said := cc.build(t, d); code != 0 {
		t.Fatalf("a plain cell: exit %d, %s", code, said)
	}
	entries, err := os.ReadDir(cc.programs)
	must(t, err)
	for _, p := range append([]string{cc.programs, filepath.Dir(cc.programs)}, names(cc.programs, entries)...) {
		st, err := os.Stat(p)
		must(t, err)
		if mask := map[bool]os.FileMode{true: 0o066, false: 0o077}[p == filepath.Dir(cc.programs)]; st.Mode().Perm()&mask != 0 {
			t.Errorf("%s: mode %v, want no permission for group and others (but search on the socket's folder)", p, st.Mode().Perm())
		}
	}
	if len(entries) != 2 {
		t.Errorf("the cache holds %d files, want 2 (one program and its build folder's name): %v", len(entries), entries)
	}
}

func names(dir string, entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// ask sends a request to the daemon and decodes its answer.
func (cc *cellCache) ask(t *testing.T, req []byte) map[string]any {
	t.Helper()
	c := cc.send(t, req)
	defer c.Close()
	return answer(t, c, 30*time.Second)
}

// send opens a connection and sends a request (its length, then its bytes) without waiting.
// A daemon that refuses a connection at once (too many open requests) writes its answer and
// closes without reading, so the write may find the socket closed (EPIPE, ECONNRESET): the
// answer, already in the socket's buffer, is what the caller then checks.
func (cc *cellCache) send(t *testing.T, req []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", cc.socket)
	must(t, err)
	n := len(req)
	_, err = c.Write(append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, req...))
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		t.Logf("the daemon closed the connection before the request was sent (%v): reading its answer", err)
		return c
	}
	must(t, err)
	return c
}

// answer decodes the daemon's answer on c, or returns nil if none comes within d.
func answer(t *testing.T, c net.Conn, d time.Duration) map[string]any {
	t.Helper()
	must(t, c.SetReadDeadline(time.Now().Add(d)))
	var r map[string]any
	if err := json.NewDecoder(c).Decode(&r); err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return nil
		}
		t.Fatal(fmt.Errorf("the daemon's answer: %w", err))
	}
	return r
}

const slotRequest = `{"protocol": "backofflab-cells-2", "command": "slot"}`

// One account cannot take the daemon over: at most four requests open at once (the fifth is
// refused at once), one build slot at a time, each slot held at most --build-seconds, each request
// whole within --request-seconds and at most 1 MiB.
func TestCellCacheLimits(t *testing.T) {
	cc := startCellCache(t, "--slots", "2", "--build-seconds", "3", "--request-seconds", "2")
	first := cc.send(t, []byte(slotRequest))
	defer first.Close()
	if r := answer(t, first, 10*time.Second); r["status"] != "granted" {
		t.Fatalf("the first slot: %v, want granted", r)
	}
	// Two slots are free in all, but this account holds one: the next waits.
	second := cc.send(t, []byte(slotRequest))
	defer second.Close()
	if r := answer(t, second, time.Second); r != nil {
		t.Errorf("a second slot for the same account while it holds one: %v, want no answer yet", r)
	}
	// Two requests that never finish arriving: open, counted, cut after --request-seconds.
	var silent []net.Conn
	for range 2 {
		c, err := net.Dial("unix", cc.socket)
		must(t, err)
		defer c.Close()
		silent = append(silent, c)
	}
	time.Sleep(200 * time.Millisecond)
	if r := cc.ask(t, []byte(slotRequest)); r["status"] != "refused" || !strings.Contains(fmt.Sprint(r["reason"]), "at most 4 at once") {
		t.Errorf("a fifth request of one account: %v, want refused at once (at most 4 at once)", r)
	}
	for _, c := range silent {
		if r := answer(t, c, 5*time.Second); r["status"] != "refused" || !strings.Contains(fmt.Sprint(r["reason"]), "did not arrive within 2 s") {
			t.Errorf("a request that never arrives whole: %v, want refused after 2 s", r)
		}
	}
	// The first slot's holder never lets go: its slot ends after --build-seconds, and the waiting
	// request gets it.
	if r := answer(t, second, 10*time.Second); r["status"] != "granted" {
		t.Errorf("the waiting slot request, after the first slot's 3 s: %v, want granted", r)
	}
	buf := make([]byte, 1)
	must(t, first.SetReadDeadline(time.Now().Add(5*time.Second)))
	if n, err := first.Read(buf); n != 0 || err == nil {
		t.Errorf("the first slot's connection after its 3 s: read %d bytes, %v; want it closed by the daemon", n, err)
	}
	// A request of more than 1 MiB: refused before it is read.
	big := make([]byte, 4)
	big[1] = 0x20 // 2 MiB
	c, err := net.Dial("unix", cc.socket)
	must(t, err)
	defer c.Close()
	_, err = c.Write(big)
	must(t, err)
	if r := answer(t, c, 10*time.Second); r["status"] != "refused" || !strings.Contains(fmt.Sprint(r["reason"]), "at most 1048576") {
		t.Errorf("a 2 MiB request: %v, want refused (at most 1048576 bytes)", r)
	}
}
