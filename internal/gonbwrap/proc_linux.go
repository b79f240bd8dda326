package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// adoptOrphans makes this program the parent of the processes its children leave behind when they
// end (Linux's child subreaper), instead of init: GoNB starts gopls in a process group of its
// own and leaves it running when it shuts down (about 290 MB a kernel, one more after each
// restart), and stopOrphans can then stop it.
func adoptOrphans() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// stopWithParent asks the kernel to send GoNB SIGTERM should this program end first (killed).
func stopWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }

// stopOrphans stops this program's remaining children (what GoNB left behind): SIGTERM, then,
// after grace, SIGKILL; and reaps them.
func stopOrphans(grace time.Duration) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		children := childPIDs()
		if len(children) == 0 {
			return
		}
		for _, pid := range children {
			_ = syscall.Kill(pid, sig)
		}
		for deadline := time.Now().Add(grace); time.Now().Before(deadline) && len(childPIDs()) > 0; time.Sleep(50 * time.Millisecond) {
			reap()
		}
	}
	reap()
}

// reap collects the exit status of every child that has ended.
func reap() {
	for {
		var status syscall.WaitStatus
		if pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil); pid <= 0 || err != nil {
			return
		}
	}
}

// childPIDs returns the processes whose parent is this program, ended ones (zombies) left out.
func childPIDs() []int {
	me := os.Getpid()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil && ppid == me {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path))); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
