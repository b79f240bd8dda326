// Package proctag marks the processes a test starts, with their children and grandchildren, by an
// environment variable that every descendant inherits, so that all of them can be found and
// stopped afterwards: also those re-parented to init after their parent died (a Jupyter kernel
// whose server was killed, the gopls of a GoNB kernel).
//
// It reads /proc; on a system without it, Find finds nothing.
package proctag

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Var is the environment variable that carries a tag.
const Var = "BACKOFFLAB_PROC_TAG"

// New returns a fresh tag, unique to this call.
func New() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Env returns env with Var set to tag (replacing any earlier value), for exec.Cmd.Env.
func Env(env []string, tag string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, Var+"=") {
			out = append(out, kv)
		}
	}
	return append(out, Var+"="+tag)
}

// Proc is a running process that carries a tag.
type Proc struct {
	PID     int
	Command string // its command line, spaces between the arguments
}

// Find returns the processes, other than this one, whose environment carries Var=tag.
func Find(tag string) []Proc { return FindVar(Var, tag) }

// FindVar returns the processes, other than this one, whose environment carries name=value.
func FindVar(name, value string) []Proc {
	want := []byte(name + "=" + value)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var found []Proc
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(d + "/environ")
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				cmd, _ := os.ReadFile(d + "/cmdline")
				found = append(found, Proc{pid, strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))})
				break
			}
		}
	}
	return found
}

// Stop asks every process carrying tag to end (SIGTERM), gives them grace to do so, then kills
// what is left (SIGKILL). It returns the processes that had to be killed.
func Stop(tag string, grace time.Duration) []Proc {
	procs := Find(tag)
	for _, p := range procs {
		_ = syscall.Kill(p.PID, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for len(procs) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		procs = Find(tag)
	}
	for _, p := range procs {
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
	return procs
}
