package retry_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every Go block of README.md is code from readme_example_test.go, one
// tab less indented, so the README's examples compile and run (as the
// Examples Example_client, Example_transport and Example_fleet).
func TestREADMEExamplesAreExamples(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// The Examples' bodies, one tab less indented.
	dedented := regexp.MustCompile(`(?m)^\t`).ReplaceAllString(string(src), "")
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) != 3 {
		t.Fatalf("README.md has %d Go blocks, want the 3 examples", len(blocks))
	}
	for _, b := range blocks {
		if !strings.Contains(dedented, b[1]) {
			t.Errorf("README.md's block\n%s\nis not code from readme_example_test.go", b[1])
		}
	}
}
