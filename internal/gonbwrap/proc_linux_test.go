package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The kernel ends with what GoNB leaves running: GoNB starts gopls in a process group of its
// own and leaves it running when it shuts down (one more for every restart, about 290 MB each).
// Here a stand-in for GoNB starts a sleeper the same way and exits; the kernel's wrapper must
// end it.
func TestKernelStopsWhatGoNBLeavesRunning(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "backofflab-kernel")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the wrapper: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	conn, _ := json.Marshal(map[string]any{"transport": "tcp", "ip": "127.0.0.1", "iopub_port": port, "shell_port": port + 1,
		"key": "k", "signature_scheme": "hmac-sha256"})
	connFile := filepath.Join(dir, "kernel.json")
	if err := os.WriteFile(connFile, conn, 0o600); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "sleeper.pid")
	gonb := filepath.Join(dir, "gonb")
	// setsid: the sleeper in a session and process group of its own, as GoNB starts gopls.
	script := fmt.Sprintf("#!/bin/sh\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\necho $! >%s\nexit 3\n", pidFile)
	if err := os.WriteFile(gonb, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, connFile, gonb, "--go_work=/nowhere")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("the wrapper ended with %v, want GoNB's exit status 3\n%s", err, out)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the stand-in for GoNB did not start its sleeper: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("sleeper pid %q", b)
	}
	alive := syscall.Kill(pid, 0) == nil && !isZombie(pid)
	if alive {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the process GoNB left running (pid %d) outlived the kernel", pid)
	}
}

// isZombie reports whether pid has ended and waits for its parent to collect it.
func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] == "Z"
}
