// Command nbbuild turns lesson sources (notebooks/src/NN-slug.txt) into notebooks
// (notebooks/NN-slug.ipynb), executes them on the Backoff Lab kernel so that they are saved with
// their outputs, and reports any cell that failed. Run it through scripts/build-notebooks.
//
//	nbbuild [-no-exec | -resave] [notebooks/src/01-waves.txt ...]
//
// With no arguments it builds every source. -no-exec writes the notebooks without outputs;
// -resave executes nothing either: it re-saves each source's notebook with the outputs it has,
// through the same writer as a build (which saves each run of a cell's text on one stream as one
// output, see notebook.JoinStreams), after checking that its cells still match the source. It
// exits 1 when a notebook has a problem.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/internal/notebook"
)

func main() {
	noExec := flag.Bool("no-exec", false, "write the notebooks without executing them")
	resave := flag.Bool("resave", false, "re-save the notebooks with the outputs they have, without executing them")
	flag.Parse()
	if *noExec && *resave {
		fmt.Fprintln(os.Stderr, "nbbuild: -no-exec and -resave exclude each other: -no-exec drops the outputs, -resave keeps them")
		os.Exit(2)
	}
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
		run := func() error { return build(src, *noExec) }
		if *resave {
			run = func() error { return resaveNotebook(src) }
		}
		if err := run(); err != nil {
			fmt.Fprintf(os.Stderr, "nbbuild: %v\n", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// notebookOf returns the notebook a source builds: notebooks/src/NN-slug.txt → notebooks/NN-slug.ipynb.
func notebookOf(src string) string {
	name := strings.TrimSuffix(filepath.Base(src), ".txt") + ".ipynb"
	return filepath.Join(filepath.Dir(filepath.Dir(src)), name)
}

// resaveNotebook re-saves src's notebook as it is, outputs included, through the writer, once its
// cells are checked against the source: a notebook whose cells differ needs a build, not a re-save.
func resaveNotebook(src string) error {
	text, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	want, err := notebook.Parse(text)
	if err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	out := notebookOf(src)
	saved, err := notebook.Read(out)
	if err != nil {
		return err
	}
	if !slices.Equal(saved.Sources(), want.Sources()) {
		return fmt.Errorf("%s does not match %s: build it (scripts/build-notebooks %s), a re-save keeps its old cells", out, src, src)
	}
	if err := saved.Write(out); err != nil {
		return err
	}
	fmt.Printf("re-saved %s\n", out)
	return nil
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
	out := notebookOf(src)
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
