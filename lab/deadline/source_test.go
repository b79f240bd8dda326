package deadline

import (
	"os"
	"strings"
	"testing"
)

// TestReferenceIsTheModelsFileAndFitsOneSitting: the source a lesson prints
// is the file the package compiles, and stays short enough to read at once.
func TestReferenceIsTheModelsFileAndFitsOneSitting(t *testing.T) {
	src := Reference()
	disk, err := os.ReadFile("../../" + src.Path) // from the repository's root
	if err != nil {
		t.Fatal(err)
	}
	if src.Text != string(disk) || !strings.HasPrefix(src.Text, "package deadline\n") {
		t.Fatalf("Reference() is not %s", src.Path)
	}
	if n := src.Lines(); n > 200 {
		t.Errorf("the model is %d lines, want at most 200", n)
	}
}
