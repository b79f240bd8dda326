// Command nbbuild turns lesson sources (notebooks/src/NN-slug.txt) into notebooks
// (notebooks/NN-slug.ipynb), executes them on the Backoff Lab kernel so that they are saved with
// their outputs, and reports any cell that failed. Run it through scripts/build-notebooks.
//
//	nbbuild [-no-exec] [notebooks/src/01-waves.txt ...]
//
// With no arguments it builds every source. It exits 1 when a notebook has a problem.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/backofflab/backofflab/internal/notebook"
)

func main() {
	noExec := flag.Bool("no-exec", false, "write the notebooks without executing them")
	flag.Parse()
	srcs := flag.Args()
	if len(srcs) == 0 {
		var err error
		srcs, err = filepath.Glob("notebooks/src/*.txt")
		if err != nil || len(srcs) == 0 {
			fmt.Fprintln(os.Stderr, "nbbuild: no notebooks/src/*.txt here: run it from the repository root")
			os.Exit(2)
		}
	}
	failed := false
	for _, src := range srcs {
		if err := build(src, *noExec); err != nil {
			fmt.Fprintf(os.Stderr, "nbbuild: %v\n", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func build(src string, noExec bool) error {
	text, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	nb, err := notebook.Parse(text)
	if err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	name := strings.TrimSuffix(filepath.Base(src), ".txt") + ".ipynb"
	out := filepath.Join(filepath.Dir(filepath.Dir(src)), name)
	if err := nb.Write(out); err != nil {
		return err
	}
	if noExec {
		fmt.Printf("wrote %s (not executed)\n", out)
		return nil
	}
	start := time.Now()
	if err := notebook.Execute(context.Background(), out, out, notebook.ExecOptions{}); err != nil {
		return err
	}
	executed, err := notebook.Read(out)
	if err != nil {
		return err
	}
	// Re-save through our writer so every notebook has the same stable layout.
	if err := executed.Write(out); err != nil {
		return err
	}
	if probs := notebook.Check(executed); len(probs) > 0 {
		var b strings.Builder
		for _, p := range probs {
			fmt.Fprintf(&b, "\n  %s", p)
		}
		return fmt.Errorf("%s has problems:%s", out, b.String())
	}
	fmt.Printf("built %s in %v\n", out, time.Since(start).Round(100*time.Millisecond))
	return nil
}
