package lab

import (
	"fmt"
	"strings"
)

// Source is one file of the lab's own Go source, embedded in the package it
// belongs to when that package is compiled, so that a lesson can show a
// model exactly as it runs: a model's Reference function returns the file
// that holds its rules.
type Source struct {
	// Path is the file's path from the repository's root, such as
	// "lab/waves/reference.go".
	Path string
	// Text is the file's content.
	Text string
}

// Lines returns the number of lines in the file, a last line without its
// newline included.
func (s Source) Lines() int {
	n := strings.Count(s.Text, "\n")
	if s.Text != "" && !strings.HasSuffix(s.Text, "\n") {
		n++
	}
	return n
}

// String returns a comment line naming the file and its length, then the
// file itself: what fmt.Print(waves.Reference()) shows.
func (s Source) String() string {
	return fmt.Sprintf("// %s (%d lines)\n\n%s", s.Path, s.Lines(), s.Text)
}
