// Package tabletest checks tables in the tests of the packages that make
// them: Has fails a test unless a table's aligned text holds each line
// (or part of a line) the test names.
package tabletest

import (
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/table"
)

// Has fails t unless the text of tb, as String prints it, contains every
// one of want; name says which table it is in the failure.
func Has(t testing.TB, name string, tb table.Table, want ...string) {
	t.Helper()
	s := tb.String()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", name, w, s)
		}
	}
}
