package contention

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/backofflab/backofflab/lab/schedule"
)

// At returns the means of ms at the given client count, in their order.
func (ms Means) At(clients int) Means {
	var out Means
	for _, m := range ms {
		if m.Config.Clients == clients {
			out = append(out, m)
		}
	}
	return out
}

// Ratio returns a's mean calls and mean time, each divided by b's: how much
// work and how much time policy a takes relative to policy b. It returns
// zeros if either policy is missing from ms.
func (ms Means) Ratio(a, b string) (calls, time float64) {
	ma, mb := ms.Of(a), ms.Of(b)
	if mb.Calls == 0 || mb.Time == 0 || ma.Runs == 0 {
		return 0, 0
	}
	return ma.Calls / mb.Calls, float64(ma.Time) / float64(mb.Time)
}

// WriteTable writes one row per mean of ms: the policy's label, the client
// count, the runs averaged, the mean calls (as the Config counts them) and
// the mean time until the last commit, in seconds.
func WriteTable(w io.Writer, ms Means) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tclients\truns\tcalls\tseconds\tcounting\t")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.2f\t%s\t\n",
			schedule.Label(m.Config.Policy), m.Config.Clients, m.Runs, m.Calls, m.TimeMS()/1000, m.Config.Count)
	}
	return tw.Flush()
}

// WriteSweepTable writes a sweep as one row per client count and, for each
// policy, the mean calls per run and the mean seconds (s) until the last
// commit. Every policy of the sweep must cover the same client counts, as
// Sweep's do.
func WriteSweepTable(w io.Writer, ms Means) error {
	cs := ms.Curves()
	if len(cs) == 0 {
		return fmt.Errorf("contention: WriteSweepTable: the sweep is empty")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	names, units := "\t", "clients\t"
	for _, c := range cs {
		names += c.Policy + "\t\t"
		units += ms[0].Config.Count.String() + "\ts\t"
	}
	fmt.Fprintln(tw, names)
	fmt.Fprintln(tw, units)
	for i, n := range cs[0].Clients {
		fmt.Fprintf(tw, "%.0f\t", n)
		for _, c := range cs {
			if i >= len(c.Calls) {
				return fmt.Errorf("contention: WriteSweepTable: policy %s has %d client counts, %s has %d", c.Policy, len(c.Calls), cs[0].Policy, len(cs[0].Calls))
			}
			fmt.Fprintf(tw, "%.0f\t%.2f\t", c.Calls[i], c.TimeMS[i]/1000)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// Versus is policy a against policy b at one client count.
type Versus struct {
	Clients float64 // the client count
	Calls   float64 // a's mean calls ÷ b's
	Time    float64 // a's mean time ÷ b's: below 1, a finishes first
}

// Versus compares policy a with policy b at every client count of their
// curves. It returns nil if either policy is missing.
func (cs Curves) Versus(a, b string) []Versus {
	ca, cb := cs.Of(a), cs.Of(b)
	n := min(len(ca.Clients), len(cb.Clients))
	var out []Versus
	for i := range n {
		out = append(out, Versus{Clients: ca.Clients[i], Calls: ca.Calls[i] / cb.Calls[i], Time: ca.TimeMS[i] / cb.TimeMS[i]})
	}
	return out
}

// Crossover returns the largest client count at which a finishes first
// (Time below 1) and the client count from which b finishes first at every
// larger count (0 if a finishes first at the largest count).
func Crossover(vs []Versus) (lastFaster, firstSlower float64) {
	for _, v := range vs {
		if v.Time < 1 {
			lastFaster, firstSlower = v.Clients, 0
		} else if firstSlower == 0 {
			firstSlower = v.Clients
		}
	}
	return lastFaster, firstSlower
}
