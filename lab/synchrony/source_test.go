package synchrony

import (
	"os"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab"
)

// TestReferencesAreTheModelsFilesAndFitOneSitting: the sources a lesson
// prints are the files the package compiles, and each stays short enough
// to read at once.
func TestReferencesAreTheModelsFilesAndFitOneSitting(t *testing.T) {
	for _, src := range []lab.Source{Reference(), LayeredReference(), WarmupReference(), SynchronisersReference()} {
		disk, err := os.ReadFile("../../" + src.Path) // from the repository's root
		if err != nil {
			t.Fatal(err)
		}
		if src.Text != string(disk) || !strings.HasPrefix(src.Text, "package synchrony\n") {
			t.Errorf("the source named %s is not that file", src.Path)
		}
		if n := src.Lines(); n > 200 {
			t.Errorf("%s is %d lines, want at most 200", src.Path, n)
		}
	}
}
