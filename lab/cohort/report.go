package cohort

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// MeanSE returns the mean of measure over s.Runs and the standard error of
// that mean (the sample standard deviation over √runs; 0 with fewer than
// two runs). A lesson states a jittered claim as mean ± a few standard
// errors: another set of seeds gives another mean, typically within
// √2·SE of this one.
func (s Summary) MeanSE(measure func(Result) float64) (mean, se float64) {
	xs := make([]float64, len(s.Runs))
	for i, r := range s.Runs {
		xs[i] = measure(r)
	}
	return meanSE(xs)
}

// meanSE returns the mean of xs and the standard error of that mean: 0, 0
// for no values and an SE of 0 for one.
func meanSE(xs []float64) (mean, se float64) {
	n := float64(len(xs))
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// Scoreboard returns each policy's run on the board as a Row (the Summary
// of that one run), in the board's order: the scoreboard the figures are
// read against. Print it with WriteRows.
func (b *Board) Scoreboard() Rows {
	rows := make(Rows, len(b.Names))
	for i, n := range b.Names {
		rows[i] = Row{Policy: n, Summary: summarize([]Result{b.Results[i]})}
	}
	return rows
}

// WriteRows writes rows as an aligned text table, one line per policy
// name: the mean finish in seconds, the calls (all, during the outage,
// after it), the idle time in seconds and its share of the recovery, the
// worst bursts per 100 ms and per millisecond, and the unfinished clients
// (the admitted calls are the clients less the unfinished ones). A last
// line says over how many seeds the rows were averaged.
func WriteRows(w io.Writer, rows Rows) error {
	return writeTable(w, []string{"policy"}, rows, func(i int) []string { return []string{rows[i].Policy} })
}

// WriteCapRows writes the cap table like WriteRows, each line labelled with
// its cap and policy.
func WriteCapRows(w io.Writer, rows []CapRow) error {
	plain := make(Rows, len(rows))
	for i, r := range rows {
		plain[i] = r.Row
	}
	return writeTable(w, []string{"cap", "policy"}, plain, func(i int) []string {
		return []string{rows[i].Cap.String(), rows[i].Policy}
	})
}

// writeTable writes rows under a two-line header, each line starting with
// the label cells given by label, which are left-aligned; the numbers are
// right-aligned.
func writeTable(w io.Writer, head []string, rows Rows, label func(int) []string) error {
	labels := make([][]string, len(rows))
	width := make([]int, len(head))
	for k, h := range head {
		width[k] = len(h)
	}
	for i := range rows {
		labels[i] = label(i)
		for k, l := range labels[i] {
			width[k] = max(width[k], len(l))
		}
	}
	left := func(cells []string) string { // pads the label cells so that they read left-aligned
		var b strings.Builder
		for k, c := range cells {
			fmt.Fprintf(&b, "%-*s\t", width[k], c)
		}
		return b.String()
	}
	blank := make([]string, len(head))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, left(blank)+"finish\tcalls\tcalls in\tcalls\tidle\tidle\tpeak per\tpeak\tclients\t")
	fmt.Fprintln(tw, left(head)+"s\tall\toutage\tafter\ts\t%\t100 ms\tper ms\tunfinished\t")
	count := "%.1f\t" // a mean of counts
	if len(rows) > 0 && rows[0].Seeds == 1 {
		count = "%.0f\t" // one run's counts
	}
	line := "%s%.2f\t" + strings.Repeat(count, 3) + "%.2f\t%.1f\t" + strings.Repeat(count, 3) + "\n"
	for i, r := range rows {
		fmt.Fprintf(tw, line, left(labels[i]), r.FinishMs/1000, r.Calls, r.CallsOutage, r.CallsRecovery,
			r.IdleMs/1000, 100*r.IdleFraction, r.PeakPer100ms, r.PeakPerMs, r.Unfinished)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case len(rows) == 0:
		return nil
	case rows[0].Seeds == 1:
		_, err := fmt.Fprintln(w, "(one run)")
		return err
	}
	_, err := fmt.Fprintf(w, "(means over %d seeds)\n", rows[0].Seeds)
	return err
}
