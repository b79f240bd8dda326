package storm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/retry/storm"
)

// underLimit runs this test binary's test named run in a child process
// whose open-file limit (soft and hard) is n, with env set, and returns
// its combined output. It skips where there is no sh or no ulimit.
func underLimit(t *testing.T, n int, run string, env ...string) (string, error) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("needs RLIMIT_NOFILE")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to lower the open-file limit")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh, "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, n), os.Args[0], "-test.run=^"+run+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("child with an open-file limit of %d hung:\n%s", n, out)
	}
	return string(out), err
}

// A run needing more descriptors than the process may open fails at once,
// naming the clients and the limit, instead of hanging in the warm-up.
func TestRunChecksTheDescriptorLimit(t *testing.T) {
	if os.Getenv("STORM_LIMIT_CHILD") != "" {
		start := time.Now()
		_, err := storm.Run(context.Background(), storm.Config{Clients: 200, Outage: 10 * time.Millisecond, Deadline: time.Second})
		fmt.Printf("took %v\nerr: %v\n", time.Since(start), err)
		if !errors.Is(err, storm.ErrDescriptors) {
			os.Exit(3)
		}
		return
	}
	out, err := underLimit(t, 256, "TestRunChecksTheDescriptorLimit", "STORM_LIMIT_CHILD=1")
	if err != nil {
		t.Fatalf("Run with 200 clients under a limit of 256 open files: %v\n%s", err, out)
	}
	for _, want := range []string{"clients 200", "limit is 256", "want clients <= 96"} {
		if !strings.Contains(out, want) {
			t.Errorf("error does not say %q:\n%s", want, out)
		}
	}
}

func TestCheckDescriptors(t *testing.T) {
	if err := storm.CheckDescriptors(1); err != nil {
		t.Fatalf("CheckDescriptors(1) = %v", err)
	}
	if storm.Descriptors(200) < 400 {
		t.Fatalf("Descriptors(200) = %d, want at least two per client", storm.Descriptors(200))
	}
}
