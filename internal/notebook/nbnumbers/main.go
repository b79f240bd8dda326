// Command nbnumbers lists every number the Markdown cells of saved notebooks state beside the
// numbers their code cells print (see notebook.CheckNumbers), for a person checking a lesson's
// prose against its outputs:
//
//	go run ./internal/notebook/nbnumbers [-all] [NOTEBOOK.ipynb ...]
//
// Without arguments it reads the lessons (notebooks/*.ipynb) and the exercises
// (exercises/notebooks/*.ipynb). It prints each number found only elsewhere in its notebook, only
// in code, or nowhere, with the words around it and the output numbers beside it nearest in
// value (-all: every number, those found beside their output too), then one summary line per
// notebook and one for all. It exits with status 1 when a number is found nowhere.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/backofflab/backofflab/internal/notebook"
)

func main() {
	all := flag.Bool("all", false, "list every prose number, not only those missing from the outputs beside them")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: nbnumbers [-all] [NOTEBOOK.ipynb ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	paths := flag.Args()
	if len(paths) == 0 {
		for _, g := range []string{"notebooks/*.ipynb", "exercises/notebooks/*.ipynb"} {
			m, _ := filepath.Glob(g)
			paths = append(paths, m...)
		}
		if len(paths) == 0 {
			fmt.Fprintln(os.Stderr, "nbnumbers: no notebooks found: run it from the repository's root or name the notebooks")
			os.Exit(2)
		}
	}
	var total [4]int
	var summaries []string
	for _, p := range paths {
		nb, err := notebook.Read(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "nbnumbers:", err)
			os.Exit(2)
		}
		name := filepath.Base(p)
		count, err := notebook.WriteNumberReport(os.Stdout, name, notebook.CheckNumbers(nb), *all)
		if err != nil {
			fmt.Fprintln(os.Stderr, "nbnumbers:", err)
			os.Exit(2)
		}
		for i := range total {
			total[i] += count[i]
		}
		summaries = append(summaries, summary(name, count))
	}
	fmt.Println()
	for _, s := range summaries {
		fmt.Println(s)
	}
	fmt.Println(summary(fmt.Sprintf("all %d notebooks", len(paths)), total))
	if total[notebook.Nowhere] > 0 {
		os.Exit(1)
	}
}

func summary(name string, c [4]int) string {
	return fmt.Sprintf("%s: %d prose numbers: %d %s, %d %s, %d %s, %d %s", name, c[0]+c[1]+c[2]+c[3],
		c[notebook.Beside], notebook.Beside, c[notebook.Elsewhere], notebook.Elsewhere,
		c[notebook.InCode], notebook.InCode, c[notebook.Nowhere], notebook.Nowhere)
}
