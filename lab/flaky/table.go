package flaky

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// newTable returns a tabwriter over w with right-aligned columns, the
// header written.
func newTable(w io.Writer, header string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	return tw
}
