package zoo

import (
	"bytes"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable writes results as an aligned table: library, version, settings,
// the fullest 10 ms of retries, when the last retry arrived, how many clients
// gave up, and whether the run repeats exactly.
func WriteTable(w io.Writer, results []Result) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "library\tversion\tsettings\tpeak/10ms\tlast retry\tgave up\tseeded")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%v\t%d\t%v\n", r.Name, r.Version, r.Settings, r.Peak, r.LastRetry.Round(time.Millisecond), r.GaveUp, r.Seeded)
	}
	return tw.Flush()
}

// table is a tabwriter that hands its whole table to the underlying writer
// in one Write when flushed, so that a notebook, which reads the output
// as it comes, receives it as one piece rather than one piece per cell.
type table struct {
	*tabwriter.Writer
	buf bytes.Buffer
	w   io.Writer
}

// newTable returns a table writing to w, columns two spaces apart.
func newTable(w io.Writer) *table {
	t := &table{w: w}
	t.Writer = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	return t
}

// Flush aligns the table and writes it to the underlying writer.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	_, err := t.w.Write(t.buf.Bytes())
	t.buf.Reset()
	return err
}
