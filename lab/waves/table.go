package waves

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes one line per run: its Label, the attempts counted, the
// planned attempts never made because the client had already succeeded
// ("done early"), those lost past the window, and the peak with its slot
// width. Together the three counts make up Clients × Attempts.
func WriteTable(w io.Writer, rs ...Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tplanned\tdone early\tpast window\tcounted\tpeak")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%v\n",
			r.Config.Label(), r.Planned(), r.SkippedAfterSuccess, r.SkippedPastWindow, r.Total, r.Peak())
	}
	return tw.Flush()
}

// WriteSlotTable writes the sweeps side by side: one line per slot width,
// one column per sweep holding the reported peak rate and, in brackets,
// the count in the fullest slot. The sweeps must have been measured at the
// same widths; if not, it writes nothing and returns an error.
func WriteSlotTable(w io.Writer, sweeps ...SlotSweep) error {
	if len(sweeps) == 0 {
		return nil
	}
	n := len(sweeps[0].Peaks)
	for _, s := range sweeps[1:] {
		if len(s.Peaks) != n {
			return fmt.Errorf("waves: sweeps of %d and %d widths: want the same widths in every sweep", n, len(s.Peaks))
		}
		for i, p := range s.Peaks {
			if w := sweeps[0].Peaks[i].Width; p.Width != w {
				return fmt.Errorf("waves: width %d is %v in one sweep and %v in another: want the same widths in every sweep", i, w, p.Width)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "slot\t")
	for _, s := range sweeps {
		fmt.Fprintf(tw, "%s\t", s.Config.Label())
	}
	fmt.Fprintln(tw)
	for i := range n {
		width := sweeps[0].Peaks[i].Width
		fmt.Fprintf(tw, "%v\t", width)
		for _, s := range sweeps {
			p := s.Peaks[i]
			fmt.Fprintf(tw, "%.0f/s (%d)\t", p.PerSecond(), p.Count)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
