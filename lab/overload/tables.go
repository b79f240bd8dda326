package overload

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/table"
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

// Table returns one row per run of b: the amplification over the run, how
// long after the dip goodput came back and the queue drained ("never" if
// they did not), the peak and final queue, and the requests failed, entries
// served for nobody, attempts refused and attempts paced.
func (b *Board) Table() table.Table {
	t := table.New("run", "amplif.", "goodput back", "drained", "peak q", "final q", "failed", "wasted", "refused", "paced")
	for i, r := range b.Results {
		t.Add(b.Names[i], table.Num("%.2f×", r.Amplification), table.Num("%s", since(r.Recovered, r.RecoveredAfter)),
			table.Num("%s", since(r.Drained, r.DrainedAfter)), r.PeakQueue(), r.FinalQueue, r.Failed, r.Wasted, r.Refused, r.Paced)
	}
	return t
}

// since is d, or "never" if not ok.
func since(ok bool, d time.Duration) string {
	if !ok {
		return "never"
	}
	return d.String()
}

// BudgetTable runs every named setting without a limit on retries and
// with the retry budget (Config.WithBudget) and returns one row per
// setting: the amplification over the run and after the dip, and when
// goodput came back, for each.
func BudgetTable(settings []Named) (table.Table, error) {
	t := table.New("setting", "no limit", "after the dip", "goodput back", "budget", "goodput back")
	for _, s := range settings {
		r, err := Run(s.Config)
		if err != nil {
			return table.Table{}, fmt.Errorf("overload: setting %q: %w", s.Name, err)
		}
		rb, err := Run(s.Config.WithBudget())
		if err != nil {
			return table.Table{}, fmt.Errorf("overload: setting %q with the budget: %w", s.Name, err)
		}
		t.Add(s.Name, table.Num("%.2f×", r.Amplification), table.Num("%.2f×", r.AmplificationAfterDip), table.Num("%s", r.GoodputBack()),
			table.Num("%.2f×", rb.Amplification), table.Num("%s", rb.GoodputBack()))
	}
	return t, nil
}

// String describes the setting in two lines: the arrivals, the server and
// the clients, then the dip, the run and the timeline.
func (c Config) String() string {
	return fmt.Sprintf("tick %v, %g requests/s (Poisson), capacity %g/s, timeout %v, %d attempts per request\n"+
		"capacity ×%g from %v to %v, run of %v, timeline in %v samples, seed %d",
		c.Tick, c.Rate, c.Capacity, c.Timeout, c.MaxAttempts, c.DipCapacity, c.DipStart, c.DipEnd, c.Duration, c.Sample, c.Seed)
}

// Arithmetic returns the four products the lesson reads off the setting:
// the longest queue before everything in it is abandoned, the load of the
// failed state, the arrivals during the dip and the capacity to spare.
func (c Config) Arithmetic() table.Table {
	t := table.New("", "", "")
	t.Add("capacity × timeout", table.Num("%.0f entries", c.Capacity*c.Timeout.Seconds()), "a longer queue abandons everything it holds")
	t.Add("attempts × arrivals", table.Num("%.0f attempts/s", float64(c.MaxAttempts)*c.Rate), fmt.Sprintf("in that state, against a capacity of %g/s", c.Capacity))
	t.Add("arrivals × dip", table.Num("%.0f requests", c.Rate*(c.DipEnd-c.DipStart).Seconds()), "arrive while the server is down")
	t.Add("capacity − arrivals", table.Num("%.0f entries/s", c.Capacity-c.Rate), "to spare for working off a backlog")
	return t
}

// DipTable runs c with a dip of each length and returns per length the
// queue when the dip ends, when goodput came back and the final queue.
func DipTable(c Config, dips ...time.Duration) (table.Table, error) {
	t := table.New("dip", "queue when it ends", "goodput back", "final queue")
	for _, d := range dips {
		cd := c.WithDipLength(d)
		r, err := Run(cd)
		if err != nil {
			return table.Table{}, err
		}
		t.Add(d, r.QueueAt(cd.DipEnd), table.Num("%s", r.GoodputBack()), r.FinalQueue)
	}
	return t, nil
}

// AttemptsTable runs c with each attempt limit from 1 to most and returns
// per limit the failed state's load, the amplification over the run and
// after the dip, when goodput came back and the final queue.
func AttemptsTable(c Config, most int) (table.Table, error) {
	t := table.New("attempts", "failed-state load", "amplification", "after the dip", "goodput back", "final queue")
	for attempts := 1; attempts <= most; attempts++ {
		ca := c.WithAttempts(attempts)
		r, err := Run(ca)
		if err != nil {
			return table.Table{}, err
		}
		t.Add(attempts, table.Num("%.0f attempts/s", float64(attempts)*ca.Rate), table.Num("%.2f×", r.Amplification), table.Num("%.2f×", r.AmplificationAfterDip),
			table.Num("%s", r.GoodputBack()), r.FinalQueue)
	}
	return t, nil
}

// AfterDipTable returns, per run of b, what the server served after the
// dip: every entry, those served for nobody, and their share.
func (b *Board) AfterDipTable() table.Table {
	t := table.New("run", "served after the dip", "for nobody", "share")
	for _, name := range b.Names {
		good, wasted := b.Of(name).AfterDip()
		t.Add(name, table.Num("%.0f", good+wasted), table.Num("%.0f", wasted), table.Num("%.0f%%", 100*wasted/(good+wasted)))
	}
	return t
}

// TimelineTable returns the timeline samples from first to last (indexes,
// last excluded): each one's start, offered load, retries refused and
// queue.
func (r Result) TimelineTable(first, last int) (table.Table, error) {
	if first < 0 || last > len(r.Timeline) || first > last {
		return table.Table{}, fmt.Errorf("overload: timeline samples [%d, %d) out of range: want 0 <= first <= last <= %d", first, last, len(r.Timeline))
	}
	t := table.New("t", "offered load/s", "retries refused/s", "queue")
	for _, p := range r.Timeline[first:last] {
		t.Add(p.Start, table.Num("%.0f", p.Offered), table.Num("%.0f", p.Refused), p.Queue)
	}
	return t, nil
}
