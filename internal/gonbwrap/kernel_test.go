package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/jupytertest"
	"github.com/backofflab/backofflab/internal/notebook"
)

// kernelSays runs one shell cell on the Backoff Lab kernel (GoNB's "!*" runs it in the kernel's
// own environment) and returns what it printed.
func kernelSays(t *testing.T, shell string) string {
	t.Helper()
	nb, err := notebook.Parse([]byte("//// go\n!*" + shell + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "kernel.ipynb")
	if err := nb.Write(in); err != nil {
		t.Fatal(err)
	}
	if err := notebook.Execute(context.Background(), in, in, notebook.ExecOptions{CellTimeout: 2 * time.Minute, Timeout: 4 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	ran, err := notebook.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, o := range ran.Cells[0].Outputs {
		out.WriteString(string(o.Text))
	}
	return out.String()
}

// The self-paced kernel's gopls uses the cache scripts/setup warmed with what cells import, so
// that the first completion in a fresh kernel does not wait for gopls to type-check the lab and
// its dependencies (with a cold cache, Tab after "waves." in a cell importing lab/waves and
// lab/chart showed nothing, and GoNB gave up after 8 s). A class's kernel leaves gopls's cache in
// the learner's home.
func TestKernelsGoplsUsesTheWarmedCache(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernel; run without -short")
	}
	cache := filepath.Join(jupytertest.Repo(), ".cache", "gopls")
	if _, err := os.Stat(filepath.Join(cache, ".warm")); err != nil {
		t.Fatalf("scripts/setup left no warmed gopls cache in %s: %v", cache, err)
	}
	t.Setenv("GOPLSCACHE", "")
	if got := strings.TrimSpace(kernelSays(t, `echo "cache=$GOPLSCACHE"`)); got != "cache="+cache {
		t.Errorf("the kernel's gopls cache: %q, want %q", got, "cache="+cache)
	}
	t.Setenv("BACKOFFLAB_CLASS", "1")
	if got := strings.TrimSpace(kernelSays(t, `echo "cache=$GOPLSCACHE"`)); got != "cache=" {
		t.Errorf("in class mode the kernel's gopls cache is %q, want the learner's own (GOPLSCACHE unset)", got)
	}
}
