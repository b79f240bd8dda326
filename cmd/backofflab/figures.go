package main

import (
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/static"
)

// The figures subcommand writes every registered static figure of the
// lessons as PNG and SVG.
//
// A lesson adds its figures from its own file, figures_<lesson>.go, in an
// init function:
//
//	func init() {
//		registerFigure("05-in-phase-lanes", func() (figure.Figure, error) {
//			… run the lab exactly as the notebook cell does …
//			return fig, nil
//		})
//	}
//
// The name is the file name without extension: the notebook's number and
// slug, then the section that shows the figure (01-waves-histograms). A
// figure's build function must call the same lab functions as the notebook
// cell that shows it, so that the files and the notebook show the same
// picture; it is called only when its figure is written.

// registered is one registered static figure.
type registered struct {
	name  string
	build func() (figure.Figure, error)
}

// figures holds every registered figure, in registration order.
var figures []registered

// figureName is what a figure's name must look like: NN-notebook-section.
var figureName = regexp.MustCompile(`^[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)+$`)

// registerFigure adds a figure to the figures command. It panics, when the
// program starts, on a malformed or duplicate name.
func registerFigure(name string, build func() (figure.Figure, error)) {
	if !figureName.MatchString(name) {
		panic(fmt.Sprintf("backofflab: figure name %q: want NN-notebook-section in lower case, e.g. 01-waves-histograms", name))
	}
	for _, f := range figures {
		if f.name == name {
			panic("backofflab: figure registered twice: " + name)
		}
	}
	figures = append(figures, registered{name: name, build: build})
}

func init() {
	register("figures", "write every lesson figure as PNG and SVG, named after its notebook section", runFigures)
}

func runFigures(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("figures", figuresHelp, stderr)
	out := fs.String("out", "", "directory to write the figures to (created if missing); required unless --list")
	only := fs.String("only", "*", "write only the figures whose name matches this pattern (path.Match syntax, e.g. '01-*')")
	list := fs.Bool("list", false, "list the figures' names instead of writing them")
	if status, ok := parseFlags(fs, args, stdout); !ok {
		return status
	}
	if _, err := path.Match(*only, ""); err != nil {
		fmt.Fprintf(stderr, "backofflab figures: --only %q is not a valid pattern: %v\n", *only, err)
		return 2
	}
	var chosen []registered
	for _, f := range figures {
		if ok, _ := path.Match(*only, f.name); ok {
			chosen = append(chosen, f)
		}
	}
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].name < chosen[j].name })
	if len(chosen) == 0 {
		fmt.Fprintf(stderr, "backofflab figures: no figure matches --only %q (see --list)\n", *only)
		return 2
	}
	if *list {
		for _, f := range chosen {
			fmt.Fprintln(stdout, f.name)
		}
		return 0
	}
	if *out == "" {
		fmt.Fprintln(stderr, "backofflab figures: --out is required: the directory to write the figures to")
		return 2
	}
	for _, f := range chosen {
		fig, err := f.build()
		if err != nil {
			fmt.Fprintf(stderr, "backofflab figures: %s: %v\n", f.name, err)
			return 1
		}
		pngPath, svgPath, err := static.Save(fig, *out, f.name)
		if err != nil {
			fmt.Fprintf(stderr, "backofflab figures: %s: %v\n", f.name, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s and %s\n", pngPath, svgPath)
	}
	return 0
}

const figuresHelp = `usage: backofflab figures --out DIR [--only PATTERN] | --list

Writes each lesson figure as DIR/NAME.png and DIR/NAME.svg. NAME is the notebook
and the section that shows the figure, e.g. 01-waves-histograms.
`
