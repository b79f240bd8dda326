package proctag

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestStopFindsAnOrphanedGrandchild(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc on this system")
	}
	tag := New()
	// The shell starts a sleeper in the background and exits at once: the sleeper is re-parented,
	// as a kernel is when its Jupyter server dies.
	cmd := exec.Command("sh", "-c", "sleep 300 >/dev/null 2>&1 & echo started")
	cmd.Env = Env(os.Environ(), tag)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := Find(tag); len(got) != 1 {
		t.Fatalf("Find = %v, want the one orphaned sleeper", got)
	}
	if other := Find(New()); len(other) != 0 {
		t.Fatalf("another tag finds %v", other)
	}
	killed := Stop(tag, 2*time.Second)
	if len(killed) != 0 {
		t.Errorf("the sleeper needed SIGKILL: %v", killed)
	}
	if left := Find(tag); len(left) != 0 {
		t.Errorf("still running after Stop: %v", left)
	}
}

func TestEnvReplacesAnEarlierTag(t *testing.T) {
	env := Env([]string{"A=1", Var + "=old"}, "new")
	if len(env) != 2 || env[1] != Var+"=new" {
		t.Errorf("Env = %q", env)
	}
}
