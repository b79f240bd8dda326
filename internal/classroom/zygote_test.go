//go:build classroom

package classroom

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/jupytertest"
)

// status reads /proc/PID/status into a map of its fields.
func status(pid int) map[string]string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return m
}

// fds returns what each open file descriptor of pid points at.
func fds(t *testing.T, pid int) map[string]string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			m[e.Name()] = l
		}
	}
	return m
}

// forkedServer: the learner's server was forked by the class's zygote and is the learner's
// through and through: user and group ids, supplementary groups, no capability; it holds none of
// the zygote's files or sockets, and writes to a pipe (into the learner's own log), never to a
// log file; and a learner's cell cannot reach the zygote.
func forkedServer(t *testing.T, c *class, u string) {
	acct, err := user.Lookup(u)
	if err != nil {
		t.Fatal(err)
	}
	// From a cell (which starts the server): the learner's home and name, no way to the zygote.
	state := c.state
	sock := filepath.Join(state, "zygote.sock")
	r := c.cell(t, u, fmt.Sprintf(`import ("fmt"; "net"; "os")
func main() {
	fmt.Println("home:", os.Getenv("HOME"), "user:", os.Getenv("USER"))
	_, err := net.Dial("unix", %q)
	fmt.Println("zygote:", err)
	for _, kv := range os.Environ() { if len(kv) > 22 && kv[:22] == "BACKOFFLAB_CLASS_ZYGOT" { fmt.Println("leaked:", kv) } }
}`, sock))
	if r.Failed || !strings.Contains(r.Output, "home: /home/"+u+" user: "+u) || !strings.Contains(r.Output, "permission denied") || strings.Contains(r.Output, "leaked:") {
		t.Errorf("%s's cell: want their own HOME and USER, the zygote's socket refused, nothing of the zygote's in the environment; got %+v", u, r)
	}
	var servers []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, _ := strconv.Atoi(filepath.Base(p))
		if st := status(pid); st["Name"] == "jupyterhub-sing" && strings.HasPrefix(st["Uid"], acct.Uid+" ") {
			servers = append(servers, pid)
		}
	}
	if len(servers) != 1 {
		t.Fatalf("want one server process of %s, found %v", u, servers)
	}
	pid := servers[0]
	st := status(pid)
	ppid, _ := strconv.Atoi(st["PPid"])
	if zst := status(ppid); zst["Name"] != "class-zygote" || !strings.HasPrefix(zst["Uid"], "0 ") {
		t.Fatalf("%s's server (pid %d) was not forked by the class's zygote: its parent is %d %q", u, pid, ppid, zst["Name"])
	}
	ids := strings.Repeat(acct.Uid+" ", 4)
	gids := strings.Repeat(acct.Gid+" ", 4)
	if st["Uid"]+" " != ids || st["Gid"]+" " != gids {
		t.Errorf("%s's server runs as uid %q gid %q, want %s's (%s, %s) four times", u, st["Uid"], st["Gid"], u, acct.Uid, acct.Gid)
	}
	want, err := acct.GroupIds()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(st["Groups"])
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s's server has the groups %v, want %s's own %v", u, got, u, want)
	}
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if st[k] != strings.Repeat("0", 16) {
			t.Errorf("%s's server holds capabilities: %s %s", u, k, st[k])
		}
	}
	// Its files: /dev/null, its output pipe, and what it opened itself; none of the zygote's sockets.
	zfd := fds(t, ppid)
	for fd, target := range fds(t, pid) {
		switch {
		case fd == "0" && target != "/dev/null":
			t.Errorf("%s's server reads standard input from %s, want /dev/null", u, target)
		case (fd == "1" || fd == "2") && !strings.HasPrefix(target, "pipe:["):
			t.Errorf("%s's server writes fd %s to %s, want a pipe (into their own log)", u, fd, target)
		case strings.HasPrefix(target, state):
			t.Errorf("%s's server holds fd %s on %s, a file of the class's root-only state", u, fd, target)
		case strings.HasPrefix(target, "socket:") && slices.Contains(slices.Collect(maps.Values(zfd)), target):
			t.Errorf("%s's server holds fd %s, the zygote's socket %s", u, fd, target)
		}
	}
}

// zygoteAsk sends one framed request to the zygote at sock and returns its answer.
func zygoteAsk(t *testing.T, sock string, length int, body []byte) map[string]any {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := []byte{byte(length >> 24), byte(length >> 16), byte(length >> 8), byte(length)}
	if _, err := conn.Write(append(head, body...)); err != nil {
		t.Fatal(err)
	}
	_ = conn.(*net.UnixConn).CloseWrite()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	out, _ := io.ReadAll(conn)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("the zygote answered %q: %v", out, err)
	}
	return m
}

// The zygote starts no server for a request it must refuse: a name not on its list, root, a
// malformed or oversized request, another protocol, a request without the listening socket and
// output pipe the hub sends; each answer says why, no forked process outlives its refusal, and
// only root may open its socket.
func TestZygoteRefuses(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("the zygote runs as root: run the class tests as root (CI does)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("the zygote is a Python program: python3 is needed")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "zygote.sock")
	preload := filepath.Join(dir, "preload.txt")
	must(t, os.WriteFile(preload, []byte("# a small list: json only\njson\n"), 0o644))
	cmd := exec.Command(py, "-m", "backofflab_class.zygote", "serve", "--socket", sock, "--preload", preload, "--users", "root,nobody,nobody-not-here")
	cmd.Env = []string{"HOME=/nonexistent/backofflab-zygote", "USER=backofflab-zygote", "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
		"PYTHONPATH=" + filepath.Join(jupytertest.Repo(), "class"), "PYTHONDONTWRITEBYTECODE=1"}
	startDaemon(t, cmd, sock, "the zygote")
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the zygote's socket: %v, mode %v; want 0600 (root only)", err, fi.Mode().Perm())
	}
	req := func(user string) []byte {
		b, _ := json.Marshal(map[string]any{"protocol": "backofflab-zygote-1", "user": user, "args": []string{}, "env": map[string]string{}})
		return b
	}
	for _, c := range []struct {
		name, want string
		length     int
		body       []byte
	}{
		{"a name not on the list", "not one of this class's accounts", -1, req("daemon")},
		{"root", "root's user or group", -1, req("root")},
		{"a name on the list with no account", "KeyError", -1, req("nobody-not-here")},
		{"not JSON", "JSONDecodeError", -1, []byte("{user: root")},
		{"another protocol", "protocol", -1, []byte(`{"protocol": "other", "user": "root", "args": [], "env": {}}`)},
		{"args not strings", "strings only", -1, []byte(`{"protocol": "backofflab-zygote-1", "user": "root", "args": [1], "env": {}}`)},
		{"too long", "at most", 64 << 20, nil},
		{"shorter than it says", "ended early", 100, []byte(`{}`)},
		{"no listening socket and output pipe with it", "two file descriptors", -1, req("nobody")},
	} {
		n := c.length
		if n < 0 {
			n = len(c.body)
		}
		m := zygoteAsk(t, sock, n, c.body)
		if _, ok := m["pid"]; ok || !strings.Contains(fmt.Sprint(m["error"]), c.want) {
			t.Errorf("%s: the zygote answered %v, want an error saying %q", c.name, m, c.want)
		}
	}
	// Every refused fork has ended and been collected: the zygote has no child left.
	time.Sleep(500 * time.Millisecond)
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
	if len(strings.Fields(string(children))) != 0 {
		t.Errorf("the zygote still has children after refusing every request: %s", children)
	}
}
