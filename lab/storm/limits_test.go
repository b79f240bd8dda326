package storm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/filelimit"
	"github.com/backofflab/backofflab/lab/storm"
)

// A run needing more descriptors than the process may open fails at once,
// naming the clients and the limit, instead of hanging in the warm-up.
func TestRunChecksTheDescriptorLimit(t *testing.T) {
	if os.Getenv("STORM_LIMIT_CHILD") != "" {
		start := time.Now()
		_, err := storm.Run(context.Background(), storm.Lesson().WithClients(200).WithOutage(10*time.Millisecond).WithDeadline(time.Second))
		fmt.Printf("took %v\nerr: %v\n", time.Since(start), err)
		if !errors.Is(err, storm.ErrDescriptors) {
			os.Exit(3)
		}
		return
	}
	out, err := filelimit.Run(t, 256, "TestRunChecksTheDescriptorLimit", "STORM_LIMIT_CHILD=1")
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
