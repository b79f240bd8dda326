package contention

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
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

// Table returns one row per mean of ms: the policy's label, the client
// count, the runs averaged, the mean calls (as the Config counts them) and
// the mean time until the last commit, in seconds.
func (ms Means) Table() table.Table {
	t := table.New("policy", "clients", "runs", "calls", "seconds", "counting")
	for _, m := range ms {
		t.Add(schedule.Label(m.Config.Policy), m.Config.Clients, m.Runs, table.Num("%.1f", m.Calls), table.Num("%.2f", m.TimeMS()/1000), m.Config.Count.String())
	}
	return t
}

// SweepTable returns a sweep as one row per client count and, for each
// policy, the mean calls per run and the mean seconds (s) until the last
// commit. Every policy of the sweep must cover the same client counts, as
// Sweep's do.
func (ms Means) SweepTable() (table.Table, error) {
	cs := ms.Curves()
	if len(cs) == 0 {
		return table.Table{}, fmt.Errorf("contention: SweepTable: the sweep is empty")
	}
	t := table.New("clients")
	for _, c := range cs {
		t.Head = append(t.Head, c.Policy+"\n"+ms[0].Config.Count.String(), "\ns")
	}
	for i, n := range cs[0].Clients {
		row := []any{table.Num("%.0f", n)}
		for _, c := range cs {
			if i >= len(c.Calls) {
				return table.Table{}, fmt.Errorf("contention: SweepTable: policy %s has %d client counts, %s has %d", c.Policy, len(c.Calls), cs[0].Policy, len(cs[0].Calls))
			}
			row = append(row, table.Num("%.0f", c.Calls[i]), table.Num("%.2f", c.TimeMS[i]/1000))
		}
		t.Add(row...)
	}
	return t, nil
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

// String describes the experiment's setting in one line: "20 clients, full,
// base 5ms, cap 2s, first window 10ms, hops |Normal(10ms, 2ms)|, calls =
// writes, seed 1513241".
func (c Config) String() string {
	return fmt.Sprintf("%d clients, %s, base %v, cap %v, first window %v, hops |Normal(%v, %v)|, calls = %s, seed %d",
		c.Clients, c.Policy, c.Base, c.Cap, c.Base<<c.FirstExponent, c.Net, c.NetSD, c.Count, c.Seed)
}

// Table returns what one run of c did: the writes (those that committed,
// one per client, and those that lost a race), the reads (one before every
// write) and when the last client learned of its commit.
func (r Result) Table(c Config) table.Table {
	t := table.New("", "")
	t.Add("writes", table.Text("%d = %d that committed + %d that lost a race", r.Writes, c.Clients, r.Writes-c.Clients))
	t.Add("reads", table.Text("%d (one before every write)", r.Reads))
	t.Add("the last client learned of its commit after", r.Time.Round(time.Millisecond))
	return t
}

// EndsTable returns, per policy of the sweep, the mean time until the last
// commit at the smallest and the largest client count of counts.
func (ms Means) EndsTable(counts ...int) table.Table {
	t := table.New("policy")
	for _, n := range counts {
		t.Head = append(t.Head, fmt.Sprintf("s at %d clients", n))
	}
	for _, c := range ms.Curves() {
		row := []any{schedule.Label(c.Policy)}
		for _, n := range counts {
			row = append(row, table.Num("%.2f", ms.At(n).Of(c.Policy).TimeMS()/1000))
		}
		t.Add(row...)
	}
	return t
}

// RatioTable returns, for each policy of names against exponential backoff
// and full jitter, the writes and times as ratios (Ratio): how much less
// work and how much less time each policy takes.
func (ms Means) RatioTable(names ...string) table.Table {
	t := table.New("policy", "writes/exponential's", "exponential's time/its", "writes/full's", "time/full's")
	for _, p := range names {
		toExp, expTime := ms.Ratio(p, schedule.NameExponential)
		toFull, fullTime := ms.Ratio(p, schedule.NameFull)
		t.Add(schedule.Label(p), table.Num("%.2f×", toExp), table.Num("%.1f×", 1/expTime), table.Num("%.2f×", toFull), table.Num("%.2f×", fullTime))
	}
	return t
}

// VersusTable returns policy a against policy b at every client count (see
// Curves.Versus): the work and time as ratios and which finishes first; a
// note gives the crossover.
func VersusTable(vs []Versus, a, b string) table.Table {
	t := table.New("clients", a+"/"+b+" work", a+"/"+b+" time", "finishes first")
	for _, v := range vs {
		first := a
		if v.Time >= 1 {
			first = b
		}
		t.Add(table.Num("%.0f", v.Clients), table.Num("%.2f×", v.Calls), table.Num("%.3f×", v.Time), table.Num("%s", first))
	}
	last, from := Crossover(vs)
	t.Note("%s finishes first up to %.0f clients; %s finishes first from %.0f clients on", a, last, b, from)
	return t
}

// Published is a pair of numbers an article reports for a policy: its
// calls and its seconds.
type Published struct {
	Policy         string
	Calls, Seconds float64
}

// PublishedTable returns, per published pair, the sweep's calls and
// seconds for that policy beside the published ones, and how far off each
// is.
func (ms Means) PublishedTable(published ...Published) table.Table {
	t := table.New("policy", "calls", "published", "off by", "seconds", "published", "off by")
	for _, p := range published {
		m := ms.Of(p.Policy)
		t.Add(schedule.Label(p.Policy), table.Num("%.0f", m.Calls), table.Num("%.0f", p.Calls), table.Num("%+.1f%%", 100*(m.Calls/p.Calls-1)),
			table.Num("%.2f", m.TimeMS()/1000), table.Num("%.1f", p.Seconds), table.Num("%+.1f%%", 100*(m.TimeMS()/1000/p.Seconds-1)))
	}
	return t
}

// CapTable sweeps c at each cap for the given client count and policies,
// runs runs each, and returns per cap each policy's mean calls and seconds.
func CapTable(c Config, caps []time.Duration, clients int, policies []string, runs int) (table.Table, error) {
	t := table.New("cap")
	for _, p := range policies {
		t.Head = append(t.Head, schedule.Label(p)+" calls", "seconds")
	}
	for _, cp := range caps {
		ms, err := Sweep(c.WithCap(cp), []int{clients}, policies, runs)
		if err != nil {
			return table.Table{}, err
		}
		row := []any{cp}
		for _, p := range policies {
			m := ms.Of(p)
			row = append(row, table.Num("%.0f", m.Calls), table.Num("%.2f", m.TimeMS()/1000))
		}
		t.Add(row...)
	}
	return t, nil
}

// SeedTable repeats c runs times from each seed and returns per seed the
// mean calls and seconds: how far another stream of draws moves the means.
func SeedTable(c Config, seeds []int64, runs int) (table.Table, error) {
	t := table.New("seed", "calls", "seconds")
	for _, s := range seeds {
		m, err := Repeat(c.WithSeed(s), runs)
		if err != nil {
			return table.Table{}, err
		}
		t.Add(s, table.Num("%.0f", m.Calls), table.Num("%.2f", m.TimeMS()/1000))
	}
	t.Note("%s, %d clients, means over %d runs", schedule.Label(c.Policy), c.Clients, runs)
	return t, nil
}
