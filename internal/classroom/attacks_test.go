//go:build classroom

package classroom

// The attacks of issue 21's review, each run from a learner's own account as a learner would
// run it (a cell in their kernel: any Go program), each with what must hold after it.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func (c *class) uid(t *testing.T, name string) int {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.Atoi(u.Uid)
	return id
}

// procsOf returns the pids whose real user is uid and whose name is name ("" for any).
func procsOf(uid int, name string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		st := status(pid)
		if st == nil || strings.HasPrefix(st["State"], "Z") {
			continue
		}
		if f := strings.Fields(st["Uid"]); len(f) > 0 && f[0] == strconv.Itoa(uid) && (name == "" || st["Name"] == name) {
			out = append(out, pid)
		}
	}
	return out
}

// cellsDaemon returns the pid of the class's cell programs' daemon (the Python under blc-).
func (c *class) cellsDaemon(t *testing.T) int {
	t.Helper()
	for _, pid := range procsOf(c.uid(t, "blc-"+c.instance), "") {
		if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), "backofflab_class.cells\x00serve") {
			return pid
		}
	}
	t.Fatal("the cell programs' daemon is not running")
	return 0
}

// listenPort returns the TCP port pid listens on (from its socket descriptors and /proc/net/tcp).
func listenPort(t *testing.T, pid int) int {
	t.Helper()
	inodes := map[string]bool{}
	for _, target := range fds(t, pid) {
		if strings.HasPrefix(target, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) > 9 && fl[3] == "0A" && inodes[fl[9]] { // 0A: LISTEN
			port, _ := strconv.ParseInt(fl[1][strings.LastIndex(fl[1], ":")+1:], 16, 32)
			return int(port)
		}
	}
	t.Fatalf("process %d listens on no TCP port", pid)
	return 0
}

// serverOf returns the pid of u's server.
func (c *class) serverOf(t *testing.T, u string) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		if pids := procsOf(c.uid(t, u), "jupyterhub-sing"); len(pids) == 1 {
			return pids[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s has no (single) server running", u)
	return 0
}

func (c *class) stopServer(t *testing.T, u string) {
	t.Helper()
	var r map[string]any
	c.client(t, &r, "stop", c.url, u, c.passwords[u])
}

// A learner cannot take the exchange's course folder before the instructor releases anything:
// it is the instructor's from the class's start. (Before, the first to create it owned it, and
// release_assignment failed: "You don't own the directory".)
func exchangeCourseFolder(t *testing.T, c *class, a string) {
	course := filepath.Join(c.repo, ".cache", "class", c.instance, "exchange", "backofflab")
	r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os"; "syscall")
func main() {
	fmt.Println("mkdir course:", os.Mkdir(%[1]q, 0o777))
	fmt.Println("mkdir outbound:", os.Mkdir(%[1]q+"/outbound", 0o777))
	fmt.Println("file:", os.WriteFile(%[1]q+"/inbound", []byte("x"), 0o666))
	if st, err := os.Stat(%[1]q); err == nil { fmt.Println("owner:", st.Sys().(*syscall.Stat_t).Uid) }
}`, course))
	want := fmt.Sprintf("owner: %d", c.uid(t, c.instructor))
	if r.Failed || !strings.Contains(r.Output, "mkdir course: mkdir "+course+": file exists") ||
		strings.Count(r.Output, "permission denied") != 2 || !strings.Contains(r.Output, want) {
		t.Errorf("A creating the exchange's course folder: want it there already, the instructor's (%s), and nothing of A's in it; got %+v", want, r)
	}
}

// The cell programs are served over the daemon's socket, not from a folder learners can read:
// a learner cannot list, read or run another learner's program (an exercise's solution, say).
func cellProgramsNotReadable(t *testing.T, c *class, a string) {
	cells := "/var/cache/backofflab/cells-" + c.instance
	programs := filepath.Join(cells, "programs")
	entries, err := os.ReadDir(programs)
	if err != nil || len(entries) == 0 {
		t.Fatalf("the daemon's programs folder: %v, %d entries (the cells before ran nothing?)", err, len(entries))
	}
	some := filepath.Join(programs, entries[0].Name())
	r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os")
func main() {
	_, err := os.ReadDir(%q)
	fmt.Println("list:", err)
	_, err = os.ReadFile(%q)
	fmt.Println("read:", err)
	fmt.Println("add:", os.WriteFile(%q, []byte("x"), 0o755))
}`, programs, some, filepath.Join(programs, "evil")))
	if r.Failed || strings.Count(r.Output, "permission denied") != 3 {
		t.Errorf("A's cell listing, reading and adding to the cell programs: want all three refused (permission denied), got %+v", r)
	}
	for _, p := range []string{cells, programs} {
		st, err := os.Stat(p)
		must(t, err)
		if st.Mode().Perm()&0o066 != 0 || (p == programs && st.Mode().Perm()&0o077 != 0) {
			t.Errorf("%s: mode %v; want no read or write for group and others (programs: nothing at all)", p, st.Mode().Perm())
		}
	}
}

// No inode is shared writable between accounts: every file in a class account's home is that
// account's, no file is in two accounts' homes, and every file of the shared caches (the module
// cache, the build cache every account builds against, its program) is root's and writable by
// root only. A learner's cell cannot open one file of the shared build cache for writing. (Before,
// each home's ~/.cache/go-build was hard links to the cache warmed as root, and the first login's
// chown -R $HOME gave them to the last learner to log in: rewriting a compiled package there
// changed what another learner's next cell printed.) What A compiles itself (a package of its own,
// built by the go command the kernel runs, not served by the cell daemon) goes into A's own cache.
func noWritableInodeShared(t *testing.T, c *class, learners ...string) {
	gocache := "/var/cache/backofflab/gocache" // scripts/class --gocache's default
	r := c.cell(t, learners[0], fmt.Sprintf(`import ("fmt"; "io/fs"; "os"; "os/exec"; "path/filepath")
func main() {
	dir, _ := os.MkdirTemp("", "own-build")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module ownbuild\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.go"), []byte(fmt.Sprintf("package ownbuild\n\nconst N = %%d\n", os.Getpid())), 0o644)
	build := exec.Command("go", "build", ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Printf("A's own build failed: %%v\n%%s", err, out)
		return
	}
	tried, opened := 0, 0
	filepath.WalkDir(%q, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || tried >= 3000 { return nil }
		tried++
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil { opened++; f.Close() }
		return nil
	})
	home, _ := os.UserHomeDir()
	own := 0
	filepath.WalkDir(filepath.Join(home, ".cache", "go-build"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() { own++ }
		return nil
	})
	fmt.Println("shared tried", tried, "opened for writing", opened, "own", own)
}`, gocache))
	var tried, opened, own int
	if _, err := fmt.Sscanf(strings.TrimSpace(r.Output), "shared tried %d opened for writing %d own %d", &tried, &opened, &own); err != nil || r.Failed {
		t.Fatalf("A's cell opening the shared build cache's files for writing: %+v (%v)", r, err)
	}
	if tried < 100 || opened != 0 {
		t.Errorf("A's cell opened %d of %d files of the shared build cache for writing, want 0 of at least 100", opened, tried)
	}
	if own == 0 {
		t.Errorf("A's own build cache is empty after A built a package of its own: A's builds did not use an own cache beside the shared one")
	}
	// The shared areas: root's, writable by root only.
	gomod := "/var/cache/backofflab/gomod"
	for _, top := range []string{gocache, gomod, filepath.Join(c.repo, ".cache", "class", "bin")} {
		bad := 0
		filepath.Walk(top, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			st := info.Sys().(*syscall.Stat_t)
			if info.Mode()&os.ModeSymlink == 0 && (st.Uid != 0 || info.Mode().Perm()&0o022 != 0) {
				if bad++; bad <= 3 {
					t.Errorf("%s: owner %d, mode %v; want root's, writable by root only", p, st.Uid, info.Mode().Perm())
				}
			}
			return nil
		})
	}
	// The homes: each file the account's own, none in two homes.
	type inode struct{ dev, ino uint64 }
	where := map[inode]string{}
	accounts := append(append([]string{}, c.learners...), c.instructor, "blc-"+c.instance)
	for _, u := range accounts {
		uid := uint32(c.uid(t, u))
		bad := 0
		filepath.Walk(filepath.Join("/home", u), func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			st := info.Sys().(*syscall.Stat_t)
			if st.Uid != uid {
				if bad++; bad <= 3 {
					t.Errorf("%s: owned by uid %d, in %s's home (uid %d)", p, st.Uid, u, uid)
				}
			}
			if info.Mode().IsRegular() {
				k := inode{uint64(st.Dev), st.Ino}
				if other, ok := where[k]; ok && other != u {
					if bad++; bad <= 3 {
						t.Errorf("%s is the same file (inode %d) as one in %s's home", p, st.Ino, other)
					}
				}
				where[k] = u
			}
			return nil
		})
	}
}

// cgo is off in the cell programs' daemon: a cgo preamble would compile as the daemon's account
// and could .incbin any file it reads (here its root-only log, through its own descriptor, and a
// FIFO #include held every build slot). The daemon refuses the cell, and the kernel's own build
// (also CGO_ENABLED=0) fails: no byte of the daemon's log reaches the learner.
func cgoRefused(t *testing.T, c *class, a string) {
	daemon := c.cellsDaemon(t)
	r := c.cell(t, a, fmt.Sprintf(`/*
__asm__(".section .rodata\n.global blt_stolen\nblt_stolen:\n.incbin \"/proc/%d/fd/2\"\n.byte 0\n.text\n");
extern char blt_stolen[];
*/
import "C"
import "fmt"
func main() { fmt.Println("stolen:", C.GoString(&C.blt_stolen[0])) }`, daemon))
	if !r.Failed || strings.Contains(r.Output, "stolen:") || strings.Contains(r.Output, "serving ") {
		t.Errorf("a cgo cell including the daemon's log: want it refused and not built, with nothing of the log shown; got %+v", r)
	}
	if log := c.log(t, "cells.log"); !strings.Contains(log, `imports "C": cgo is off`) {
		t.Errorf("the daemon did not refuse the cgo cell; its log:\n%s", log)
	}
}

// A kernel's output is not the class's log: it is a pipe (root's: a learner cannot even reopen it
// through /proc) into the learner's own log file, which the learner cannot read, so a learner's
// kernel reads nothing of another learner's (before, it was the root-only zygote.log, open in every
// kernel: /proc/<kernel>/fd/1 read and wrote it, and named other learners' submission folders), and
// whatever it writes there lands in its own log, marked as its own.
func kernelOutputIsNotTheLog(t *testing.T, c *class, a, b string) {
	if r := c.cell(t, b, `import "fmt"`+"\nfunc main() { fmt.Println(\"B was here\") }"); r.Failed {
		t.Fatalf("B's cell: %+v", r)
	}
	forged := "blt-forged-line-" + c.instance
	r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os"; "syscall")
func main() {
	kernel := os.Getppid()
	for _, fd := range []string{"1", "2"} {
		p := fmt.Sprintf("/proc/%%d/fd/%%s", kernel, fd)
		target, _ := os.Readlink(p)
		fmt.Println("fd", fd, "is", target)
		if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			buf := make([]byte, 1<<20)
			n, _ := f.Read(buf)
			fmt.Printf("read %%d bytes: %%q\n", n, buf[:n])
			f.Close()
		} else {
			fmt.Println("read:", err)
		}
	}
	f, err := os.OpenFile(fmt.Sprintf("/proc/%%d/fd/1", kernel), os.O_WRONLY, 0)
	if err == nil {
		_, err = fmt.Fprintln(f, %q)
		f.Close()
	}
	fmt.Println("write:", err)
}`, forged))
	if r.Failed {
		t.Fatalf("A's cell: %+v", r)
	}
	if !strings.Contains(r.Output, "fd 1 is pipe:[") || !strings.Contains(r.Output, "fd 2 is pipe:[") {
		t.Errorf("A's kernel's output and error: want pipes, got %s", r.Output)
	}
	for _, leak := range []string{b, "zygote:", c.instructor} {
		if strings.Contains(r.Output, leak) {
			t.Errorf("A's kernel read %q from its output descriptors:\n%s", leak, r.Output)
		}
	}
	time.Sleep(500 * time.Millisecond) // (the hub copies the pipe as it comes)
	logs, _ := filepath.Glob(filepath.Join(c.state, "logs", "*"))
	for _, l := range logs {
		st, err := os.Stat(l)
		must(t, err)
		if st.Mode().Perm() != 0o600 || st.Sys().(*syscall.Stat_t).Uid != 0 {
			t.Errorf("%s: mode %v, owner %d; want root's, 0600", l, st.Mode().Perm(), st.Sys().(*syscall.Stat_t).Uid)
		}
		text, _ := os.ReadFile(l)
		in := strings.Contains(string(text), forged)
		wrote := strings.Contains(r.Output, "write: <nil>")
		if own := filepath.Base(l) == a+".log"; (!own && in) || (own && wrote != strings.Contains(string(text), a+": "+forged)) {
			t.Errorf("the line A's kernel wrote to its output (%v): in %s: %v; want it in A's own log only (marked as A's), if anywhere", wrote, filepath.Base(l), in)
		}
	}
}

// One learner cannot hold every build slot: each account gets at most one at a time, and at
// most four requests open at once; another learner's build that needs a slot (a cell with a
// compile error: the cache does not serve it, the kernel builds it to show why) runs meanwhile.
// (Before, the slots were lock files every account could flock, and hold for ever.)
func slotsCannotBeHoarded(t *testing.T, c *class, a, b string) {
	sock := "/var/cache/backofflab/cells-" + c.instance + "/cells.sock"
	slots := filepath.Join(c.repo, ".cache", "class", "slots")
	// A's cell starts a hoarder of its own (the cell's program again, in a session of its own), which
	// asks for six slots at once, writes what it got, and holds it all for 40 s.
	r := c.cell(t, a, fmt.Sprintf(`import ("encoding/binary"; "fmt"; "net"; "os"; "os/exec"; "path/filepath"; "strings"; "sync"; "syscall"; "time")
func main() {
	out := filepath.Join(os.Getenv("HOME"), "hoard.txt")
	if os.Getenv("BLT_HOARD") == "" {
		os.Remove(out)
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "BLT_HOARD=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		fmt.Println("hoarder:", cmd.Start())
		for i := 0; i < 300; i++ {
			if b, err := os.ReadFile(out); err == nil { fmt.Print(string(b)); return }
			time.Sleep(100 * time.Millisecond)
		}
		fmt.Println("no result")
		return
	}
	files, _ := filepath.Glob(%q + "/slot-*")
	for _, f := range files { // the old way: flock every slot file
		if h, err := os.Open(f); err == nil { syscall.Flock(int(h.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
	}
	req := []byte(`+"`"+`{"protocol": "backofflab-cells-2", "command": "slot"}`+"`"+`)
	var mu sync.Mutex
	var wg sync.WaitGroup
	got := map[string]int{}
	var conns []net.Conn
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("unix", %q)
			if err != nil { mu.Lock(); got["error"]++; mu.Unlock(); return }
			binary.Write(conn, binary.BigEndian, uint32(len(req)))
			conn.Write(req)
			conn.SetReadDeadline(time.Now().Add(3 * time.Second))
			buf := make([]byte, 512)
			n, _ := conn.Read(buf)
			kind := "waiting"
			if n > 0 && strings.Contains(string(buf[:n]), "granted") { kind = "granted" } else if n > 0 { kind = "refused" }
			mu.Lock(); got[kind]++; conns = append(conns, conn); mu.Unlock()
		}()
	}
	wg.Wait()
	os.WriteFile(out+".new", []byte(fmt.Sprintf("granted %%d refused %%d waiting %%d errors %%d slot files %%d\n", got["granted"], got["refused"], got["waiting"], got["error"], len(files))), 0o600)
	os.Rename(out+".new", out)
	time.Sleep(40 * time.Second)
}`, slots, sock))
	if r.Failed || !strings.Contains(r.Output, "granted 1 refused 2 waiting 3 errors 0 slot files 0") {
		t.Errorf("A asking for six build slots at once: want one granted, three waiting (one slot a learner), two refused (four requests at once), "+
			"and no lock file to flock; got %+v", r)
	}
	var rb cellResult
	c.client(t, &rb, "cell", c.url, b, c.passwords[b], `import "fmt"`+"\nfunc main() { fmt.Println(undefinedThing) }", "60")
	if rb.Status == "timeout" || !strings.Contains(rb.Output, "undefined: undefinedThing") {
		t.Errorf("B's cell with a compile error while A hoards build slots: want the compiler's error within 60 s, got %+v", rb)
	}
}

// A learner's processes (server, terminals, kernels, builds, cell programs together) are at most
// the class's --processes: a fork bomb stops there, with "resource temporarily unavailable".
func processLimit(t *testing.T, c *class, a string) {
	server := c.serverOf(t, a)
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", server))
	must(t, err)
	for _, want := range []string{fmt.Sprintf("Max processes             %d                  %d", processes, processes), "Max address space         2147483648           2147483648"} {
		if !strings.Contains(string(limits), want) {
			t.Errorf("A's server's limits: want %q in\n%s", want, limits)
		}
	}
	r := c.cell(t, a, `import ("fmt"; "os/exec")
func main() {
	var started []*exec.Cmd
	var err error
	for len(started) < 600 {
		cmd := exec.Command("sleep", "60")
		if err = cmd.Start(); err != nil { break }
		started = append(started, cmd)
	}
	for _, cmd := range started { cmd.Process.Kill(); cmd.Wait() }
	fmt.Println("started", len(started), "then:", err)
}`)
	var n int
	fmt.Sscanf(r.Output, "started %d", &n)
	if r.Failed || n >= processes || !strings.Contains(r.Output, "resource temporarily unavailable") {
		t.Errorf("A's cell starting processes without end: want it stopped below %d with 'resource temporarily unavailable', got %+v", processes, r)
	}
}

// The port of a learner's server is one no learner can bind, and the hub keeps it until the proxy
// forgot the route: when B's server ends on its own, A cannot take its port and receive B's
// requests and cookies. (Before, any learner could bind a freed port the proxy still routed to.)
func serverPortCannotBeTaken(t *testing.T, c *class, a, b string) {
	c.cell(t, b, `import "fmt"`+"\nfunc main() { fmt.Println(1) }") // (B's server runs)
	server := c.serverOf(t, b)
	port := listenPort(t, server)
	must(t, syscall.Kill(server, syscall.SIGKILL)) // B's server ends on its own
	r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "net"; "time")
func main() {
	var err error
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		var l net.Listener
		if l, err = net.Listen("tcp", "127.0.0.1:%d"); err == nil { fmt.Println("listening"); l.Close(); return }
	}
	fmt.Println("bind:", err)
}`, port))
	if r.Failed || strings.Contains(r.Output, "listening") || !strings.Contains(r.Output, "bind:") {
		t.Errorf("A binding B's server port %d after B's server ended: want every try refused, got %+v", port, r)
	}
	c.stopServer(t, b) // the hub forgets the route, then lets the port go
	for i := 0; ; i++ {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			l.Close()
			break
		}
		if i == 100 {
			t.Errorf("the hub still holds port %d 10 s after B's server was stopped and its route removed: %v", port, err)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The lessons are copied into a learner's home as the learner: links a learner plants in place
// of a lesson or of the stamp file are never followed by root (before, root copied through a
// dangling link and created files under /etc and /root).
func lessonsCopiedAsTheLearner(t *testing.T, c *class, a string) {
	home := filepath.Join("/home", a)
	targets := []string{"/root/blt-" + c.instance + "-readme", "/etc/blt-" + c.instance + "-exercises", "/etc/blt-" + c.instance + "-stamp"}
	t.Cleanup(func() {
		for _, p := range targets {
			os.Remove(p)
		}
	})
	attack := func(stampLink bool) {
		t.Helper()
		stamp := `os.Remove(filepath.Join(home, ".backofflab-lessons"))`
		if stampLink {
			stamp += fmt.Sprintf("; fmt.Println(os.Symlink(%q, filepath.Join(home, \".backofflab-lessons\")))", targets[2])
		}
		r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os"; "path/filepath")
func main() {
	home, _ := os.UserHomeDir()
	os.Remove(filepath.Join(home, "README.md"))
	os.Remove(filepath.Join(home, "exercises", "README.md"))
	fmt.Println(os.Symlink(%q, filepath.Join(home, "README.md")))
	fmt.Println(os.Symlink(%q, filepath.Join(home, "exercises", "README.md")))
	os.RemoveAll(filepath.Join(home, "retry"))
	%s
}`, targets[0], targets[1], stamp))
		if r.Failed || strings.Count(r.Output, "<nil>") != map[bool]int{false: 2, true: 3}[stampLink] {
			t.Fatalf("A planting links: %+v", r)
		}
		c.stopServer(t, a)
		var codes map[string]int
		c.client(t, &codes, "get", c.url, a, c.passwords[a], "/user/"+a+"/api/status") // starts it: the lessons are copied
		for _, p := range targets {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("starting A's server created %s through a link A planted", p)
			}
		}
	}
	attack(false)
	// The copy ran, as A: what was missing is back, A's own.
	st, err := os.Stat(filepath.Join(home, "retry", "COMPARISON.md"))
	if err != nil || st.Sys().(*syscall.Stat_t).Uid != uint32(c.uid(t, a)) {
		t.Errorf("the lesson A removed was not copied back as A's: %v", err)
	}
	attack(true)
}

// Stopping a learner's server stops every process of theirs: kernels (in sessions of their own)
// and what they started, which before lived on under init.
func stopTakesTheKernels(t *testing.T, c *class, b string) {
	uid := c.uid(t, b)
	cmd := exec.Command(filepath.Join(c.repo, ".cache", "venv", "bin", "python"), filepath.Join(c.repo, "class", "client.py"), "cell", c.url, b, c.passwords[b],
		`import ("fmt"; "os/exec"; "syscall"; "time")
func main() {
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	fmt.Println(cmd.Start())
	time.Sleep(60 * time.Second)
}`, "90")
	cmd.Env = c.env(os.Environ())
	must(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for len(procsOf(uid, "sleep")) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("B's cell did not start its sleep within 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.stopServer(t, b)
	for i := 0; ; i++ {
		left := procsOf(uid, "")
		if len(left) == 0 {
			break
		}
		if i == 100 {
			t.Errorf("B's server stopped 10 s ago, and B still has processes: %v", left)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// --stop reads no sparse file in full (tar runs as the learner, keeping holes), and leaves no file
// of a learner's in the machine's shared temporary folders (before, the next class's account with
// the same uid owned them).
func stopLeavesNothing(t *testing.T, c *class, a, b string) {
	uid := c.uid(t, a)
	left := []string{"/tmp/blt-" + c.instance + "-left", "/var/tmp/blt-" + c.instance + "-left", "/dev/shm/blt-" + c.instance + "-left",
		"/tmp/blt-" + c.instance + "-dir"}
	r := c.cell(t, a, fmt.Sprintf(`import ("fmt"; "os")
func main() {
	f, _ := os.Create(os.Getenv("HOME") + "/sparse")
	fmt.Println(f.Truncate(8 << 30))
	f.Close()
	for _, p := range []string{%q, %q, %q} { fmt.Println(os.WriteFile(p, []byte("left"), 0o600)) }
	fmt.Println(os.Mkdir(%q, 0o700), os.WriteFile(%q+"/f", []byte("x"), 0o600))
}`, left[0], left[1], left[2], left[3], left[3]))
	if r.Failed || strings.Count(r.Output, "<nil>") != 6 {
		t.Fatalf("A's cell leaving files: %+v", r)
	}
	c.stop(t)
	archives, _ := filepath.Glob(filepath.Join(c.repo, ".cache", "class", c.instance, "archive", "*", "*.tar.gz"))
	size := map[string]int64{}
	for _, p := range archives {
		st, err := os.Stat(p)
		must(t, err)
		size[strings.TrimSuffix(filepath.Base(p), ".tar.gz")] = st.Size()
	}
	if size[a] == 0 || size[b] == 0 || size[a] > size[b]+512<<10 {
		t.Errorf("the archives: A's %d bytes (with an 8 GiB sparse file), B's %d; want A's no more than 512 KiB bigger than B's", size[a], size[b])
	}
	for _, p := range left {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("scripts/class --stop left A's %s", p)
			os.RemoveAll(p)
		}
	}
	for _, top := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		entries, _ := os.ReadDir(top)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Sys().(*syscall.Stat_t).Uid == uint32(uid) {
				t.Errorf("scripts/class --stop left %s, owned by A's uid %d", filepath.Join(top, e.Name()), uid)
			}
		}
	}
}
