package cohort

import (
	"math"

	"github.com/backofflab/backofflab/lab/table"
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
// read against. Print it with its Table method.
func (b *Board) Scoreboard() Rows {
	rows := make(Rows, len(b.Names))
	for i, n := range b.Names {
		rows[i] = Row{Policy: n, Summary: summarize([]Result{b.Results[i]})}
	}
	return rows
}

// Table returns rows as a table, one line per policy name: the mean
// finish in seconds, the calls (all, during the outage, after it), the
// idle time in seconds and its share of the recovery, the worst bursts per
// 100 ms and per millisecond, and the unfinished clients (the admitted
// calls are the clients less the unfinished ones). A note under it says
// over how many seeds the rows were averaged.
func (rs Rows) Table() table.Table {
	return summaryTable([]string{"policy"}, rs, func(i int) []any { return []any{rs[i].Policy} })
}

// CapRows is the cap table: one Row per cap and policy.
type CapRows []CapRow

// Table returns the cap table like [Rows.Table], each line labelled with
// its cap and policy.
func (rs CapRows) Table() table.Table {
	plain := make(Rows, len(rs))
	for i, r := range rs {
		plain[i] = r.Row
	}
	return summaryTable([]string{"cap", "policy"}, plain, func(i int) []any { return []any{rs[i].Cap, rs[i].Policy} })
}

// summaryTable returns rows under a two-line header, each line starting
// with the label cells given by label.
func summaryTable(head []string, rows Rows, label func(int) []any) table.Table {
	t := table.New(append(head, "finish\ns", "calls\nall", "calls in\noutage", "calls\nafter", "idle\ns", "idle\n%",
		"peak per\n100 ms", "peak\nper ms", "clients\nunfinished")...)
	count := "%.1f" // a mean of counts
	if len(rows) > 0 && rows[0].Seeds == 1 {
		count = "%.0f" // one run's counts
	}
	for i, r := range rows {
		t.Add(append(label(i), table.Num("%.2f", r.FinishMs/1000), table.Num(count, r.Calls), table.Num(count, r.CallsOutage),
			table.Num(count, r.CallsRecovery), table.Num("%.2f", r.IdleMs/1000), table.Num("%.1f", 100*r.IdleFraction),
			table.Num(count, r.PeakPer100ms), table.Num(count, r.PeakPerMs), table.Num(count, r.Unfinished))...)
	}
	switch {
	case len(rows) == 0:
	case rows[0].Seeds == 1:
		t.Note("(one run)")
	default:
		t.Note("(means over %d seeds)", rows[0].Seeds)
	}
	return t
}
