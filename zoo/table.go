package zoo

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable writes results as an aligned table: library, version, settings,
// the fullest 10 ms of retries, when the last retry arrived, how many clients
// gave up, and whether the run repeats exactly.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "library\tversion\tsettings\tpeak/10ms\tlast retry\tgave up\tseeded")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%v\t%d\t%v\n", r.Name, r.Version, r.Settings, r.Peak, r.LastRetry.Round(time.Millisecond), r.GaveUp, r.Seeded)
	}
	return tw.Flush()
}
