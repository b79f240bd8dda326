package overload

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// QueueAt returns the queue length at the end of the timeline sample that
// ends at t, or 0 if no sample ends at t.
func (r Result) QueueAt(t time.Duration) int {
	s := r.Config.Sample
	if s <= 0 || t%s != 0 {
		return 0
	}
	i := int(t/s) - 1
	if i < 0 || i >= len(r.Timeline) {
		return 0
	}
	return r.Timeline[i].Queue
}

// PeakQueue returns the longest queue at the end of any timeline sample.
func (r Result) PeakQueue() int {
	peak := 0
	for _, p := range r.Timeline {
		peak = max(peak, p.Queue)
	}
	return peak
}

// AfterDip sums, over the timeline samples from the end of the dip on, the
// entries served to clients still waiting (good) and those served for
// nobody (wasted).
func (r Result) AfterDip() (good, wasted float64) {
	sec := r.Config.Sample.Seconds()
	for _, p := range r.Timeline {
		if p.Start >= r.Config.DipEnd {
			good += p.Goodput * sec
			wasted += p.Wasted * sec
		}
	}
	return good, wasted
}

// GoodputBack says whether and when goodput came back after the dip:
// "never", or "after" and the time from the end of the dip.
func (r Result) GoodputBack() string { return after(r.Recovered, r.RecoveredAfter) }

// QueueDrained says whether and when the queue drained after the dip, as
// GoodputBack does.
func (r Result) QueueDrained() string { return after(r.Drained, r.DrainedAfter) }

// after is "after d", or "never" if not ok.
func after(ok bool, d time.Duration) string {
	if !ok {
		return "never"
	}
	return "after " + since(ok, d)
}

// WriteTable writes one row per run of b: the amplification over the run,
// how long after the dip goodput came back and the queue drained ("never"
// if they did not), the peak and final queue, and the requests failed,
// entries served for nobody, attempts refused and attempts paced.
func (b *Board) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tamplif.\tgoodput back\tdrained\tpeak q\tfinal q\tfailed\twasted\trefused\tpaced\t")
	for i, r := range b.Results {
		fmt.Fprintf(tw, "%s\t%.2f×\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", b.Names[i], r.Amplification,
			since(r.Recovered, r.RecoveredAfter), since(r.Drained, r.DrainedAfter), r.PeakQueue(), r.FinalQueue, r.Failed, r.Wasted, r.Refused, r.Paced)
	}
	return tw.Flush()
}

// since is d, or "never" if not ok.
func since(ok bool, d time.Duration) string {
	if !ok {
		return "never"
	}
	return d.String()
}

// WriteBudgetTable runs every named setting without a limit on retries and
// with the retry budget (Config.WithBudget) and writes one row per setting:
// the amplification over the run and after the dip, and when goodput came
// back, for each.
func WriteBudgetTable(w io.Writer, settings []Named) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tno limit\tafter the dip\tgoodput back\tbudget\tgoodput back\t")
	for _, s := range settings {
		r, err := Run(s.Config)
		if err != nil {
			return fmt.Errorf("overload: setting %q: %w", s.Name, err)
		}
		rb, err := Run(s.Config.WithBudget())
		if err != nil {
			return fmt.Errorf("overload: setting %q with the budget: %w", s.Name, err)
		}
		fmt.Fprintf(tw, "%s\t%.2f×\t%.2f×\t%s\t%.2f×\t%s\t\n", s.Name, r.Amplification, r.AmplificationAfterDip, r.GoodputBack(), rb.Amplification, rb.GoodputBack())
	}
	return tw.Flush()
}
