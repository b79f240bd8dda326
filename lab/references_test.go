package lab_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/contention"
	"github.com/backofflab/backofflab/lab/crashloop"
	"github.com/backofflab/backofflab/lab/deadline"
	"github.com/backofflab/backofflab/lab/layered"
	"github.com/backofflab/backofflab/lab/overload"
	"github.com/backofflab/backofflab/lab/synchronisers"
	"github.com/backofflab/backofflab/lab/synchrony"
	"github.com/backofflab/backofflab/lab/waves"
)

// references are the reference models' sources, as the lessons print them.
var references = []lab.Source{
	waves.Reference(),
	cohort.Reference(),
	contention.Reference(),
	overload.Reference(),
	deadline.Reference(),
	synchrony.Reference(),
	layered.Reference(),
	crashloop.Reference(),
	synchronisers.Reference(),
}

// TestEveryModelsReferenceIsItsFileAndFitsOneSitting: the source a lesson
// prints is the file its package compiles (named by its path from the
// repository's root), every reference*.go file of the lab is printable, and
// each stays short enough to read in one sitting.
func TestEveryModelsReferenceIsItsFileAndFitsOneSitting(t *testing.T) {
	var paths []string
	for _, src := range references {
		paths = append(paths, src.Path)
		disk, err := os.ReadFile(filepath.Join("..", src.Path))
		if err != nil {
			t.Errorf("%s: %v", src.Path, err)
			continue
		}
		pkg := filepath.Base(filepath.Dir(src.Path))
		if src.Text != string(disk) || !strings.HasPrefix(src.Text, "package "+pkg+"\n") {
			t.Errorf("the source named %s is not that file", src.Path)
		}
		if n := src.Lines(); n > 200 {
			t.Errorf("%s is %d lines, want at most 200", src.Path, n)
		}
	}
	files, err := filepath.Glob("*/reference*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if p := filepath.ToSlash(filepath.Join("lab", f)); !strings.HasSuffix(p, "_test.go") && !slices.Contains(paths, p) {
			t.Errorf("%s is a reference model that no Reference function returns (add it to references)", p)
		}
	}
}
