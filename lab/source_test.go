package lab

import (
	"fmt"
	"testing"
)

func TestSourceCountsLinesAndNamesItsFile(t *testing.T) {
	for _, tc := range []struct {
		text  string
		lines int
	}{{"", 0}, {"package a\n", 1}, {"package a\n\nfunc f() {}\n", 3}, {"package a\nfunc f() {}", 2}} {
		s := Source{Path: "lab/a/reference.go", Text: tc.text}
		if got := s.Lines(); got != tc.lines {
			t.Errorf("Lines of %q = %d, want %d", tc.text, got, tc.lines)
		}
		want := fmt.Sprintf("// lab/a/reference.go (%d lines)\n\n%s", tc.lines, tc.text)
		if got := s.String(); got != want {
			t.Errorf("String of %q = %q, want %q", tc.text, got, want)
		}
	}
}

// A model's Reference function returns its file as a Source; printing it
// shows the file's path and length, then the file.
func ExampleSource() {
	s := Source{Path: "lab/example/reference.go", Text: "package example\n\n// The rules, in the lesson's order.\n"}
	fmt.Print(s)
	// Output:
	// // lab/example/reference.go (3 lines)
	//
	// package example
	//
	// // The rules, in the lesson's order.
}
