// Package filelimit runs a test in a child process with a lowered
// open-file limit, for tests of what a program does when it cannot open
// enough files.
package filelimit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// Run runs the test named test of the current test binary in a child
// process whose open-file limit, soft and hard, is n, with env added to
// its environment, and returns the child's combined output and its exit
// error, if any. It skips t where the limit cannot be lowered (no sh, or a
// system without RLIMIT_NOFILE), and fails t if the child runs for more
// than a minute.
func Run(t testing.TB, n int, test string, env ...string) (string, error) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("needs RLIMIT_NOFILE")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to lower the open-file limit")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh, "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, n), os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s with an open-file limit of %d hung:\n%.2000s", test, n, out)
	}
	return string(out), err
}
