package contention

import (
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/show"
)

// Mean is the average of several runs of one Config.
type Mean struct {
	// Config is the experiment; its Seed seeded the first run, and later
	// runs continue the same stream of draws.
	Config Config
	// Runs is how many runs were averaged.
	Runs int
	// Time is the mean time until the last commit.
	Time time.Duration
	// Writes, Reads and Calls are the mean counts per run.
	Writes, Reads, Calls float64
	// Events is the total number of messages delivered over all runs.
	Events int
}

// TimeMS returns the mean time in milliseconds.
func (m Mean) TimeMS() float64 { return float64(m.Time) / float64(time.Millisecond) }

// Repeat runs c runs times, drawing every run from one generator seeded
// with c.Seed, and returns the means. runs must lie in [1, MaxRuns].
func Repeat(c Config, runs int) (Mean, error) {
	var s sim
	return s.repeat(c, runs)
}

func (s *sim) repeat(c Config, runs int) (Mean, error) {
	if runs < 1 || runs > MaxRuns {
		return Mean{}, fmt.Errorf("contention: runs %d out of range: want 1 <= runs <= %d", runs, MaxRuns)
	}
	p, err := c.policy()
	if err != nil {
		return Mean{}, err
	}
	g := lcg.MustNew(c.Seed)
	var sumT time.Duration
	var sumW, sumR, sumC int
	m := Mean{Config: c, Runs: runs}
	for range runs {
		r := s.run(c, p, g)
		sumT += r.Time
		sumW += r.Writes
		sumR += r.Reads
		sumC += r.Calls
		m.Events += r.Events
	}
	n := float64(runs)
	m.Time = time.Duration(float64(sumT) / n)
	m.Writes, m.Reads, m.Calls = float64(sumW)/n, float64(sumR)/n, float64(sumC)/n
	return m, nil
}

// SweepClients returns the client counts of Brooker's charts: 10, 20, …, 190.
func SweepClients() []int {
	out := make([]int, 0, 19)
	for n := 10; n <= 190; n += 10 {
		out = append(out, n)
	}
	return out
}

// Means are the averages of a sweep or a comparison, policy by policy.
type Means []Mean

// Of returns the first mean of the named policy (the only one in a
// comparison at one client count), or the zero Mean if there is none.
func (ms Means) Of(policy string) Mean {
	return lab.Of(ms, func(m Mean) string { return m.Config.Policy }, policy)
}

// Compare runs c under every policy of Policies, runs times each, at c's own
// client count: the lesson's comparison of the five policies. Address the
// means by name: ms.Of(schedule.NameFull).
func Compare(c Config, runs int) (Means, error) {
	return Sweep(c, []int{c.Clients}, Policies(), runs)
}

// Sweep repeats base for every policy and every client count, runs times
// each, and returns one Mean per pair, policy by policy in the order given
// and client counts in the order given. Every pair starts from base.Seed, so
// a pair's numbers do not depend on which other pairs the sweep contains,
// nor on the order in which the pairs run: Sweep spreads them over
// GOMAXPROCS goroutines and still returns the same numbers every time.
func Sweep(base Config, clients []int, policies []string, runs int) (Means, error) {
	return sweep(base, clients, policies, runs, nil)
}

// sweep is Sweep; progress, if not nil, is told the size of the sweep in
// runs once, then about every pair as it finishes (from any goroutine).
func sweep(base Config, clients []int, policies []string, runs int, progress func(total, done int)) (Means, error) {
	if len(clients) == 0 || len(policies) == 0 {
		return nil, fmt.Errorf("contention: sweep needs at least one client count and one policy, got %d and %d", len(clients), len(policies))
	}
	if runs < 1 || runs > MaxRuns {
		return nil, fmt.Errorf("contention: runs %d out of range: want 1 <= runs <= %d", runs, MaxRuns)
	}
	cfgs := make([]Config, 0, len(clients)*len(policies))
	for _, p := range policies {
		for _, n := range clients {
			c := base
			c.Policy, c.Clients = p, n
			if err := c.Validate(); err != nil {
				return nil, err
			}
			cfgs = append(cfgs, c)
		}
	}
	if progress != nil {
		progress(len(cfgs)*runs, 0)
	}
	out := make(Means, len(cfgs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cfgs)) {
		wg.Go(func() {
			var s sim
			for i := range next {
				out[i], _ = s.repeat(cfgs[i], runs) // validated above
				if progress != nil {
					progress(len(cfgs)*runs, runs)
				}
			}
		})
	}
	// Hand out the most expensive pairs (the most clients) first, so that
	// no worker is left with a big one at the end.
	order := make([]int, len(cfgs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cfgs[b].Clients - cfgs[a].Clients })
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, nil
}

// SweepOnce returns what Sweep returns for the same arguments, computed at
// most once per notebook kernel (see lab.Remember): cells that show one
// sweep share one computation. The remembered value is named after every
// argument, so a sweep with other arguments is computed afresh. While it
// computes, a notebook shows a progress bar (show.Progress) that counts
// the runs and ends as "sweep of 5 policies × 19 client counts × 100 runs:
// 9500 of 9500 runs done"; a remembered sweep shows none.
func SweepOnce(base Config, clients []int, policies []string, runs int) (Means, error) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v|%v|%q|%d", base, clients, policies, runs)
	name := fmt.Sprintf("contention-sweep-%d-runs-%x", runs, h.Sum64())
	return lab.Remember(name, func() (Means, error) {
		var (
			mu     sync.Mutex // workers report concurrently
			bar    *show.Progress
			barErr error
		)
		title := fmt.Sprintf("sweep of %s × %s × %s", count(len(policies), "policy", "policies"),
			count(len(clients), "client count", "client counts"), count(runs, "run", "runs"))
		ms, err := sweep(base, clients, policies, runs, func(total, done int) {
			mu.Lock()
			defer mu.Unlock()
			if bar == nil && barErr == nil {
				bar, barErr = show.NewProgress(title, total, "runs")
			}
			if barErr == nil {
				barErr = bar.Add(done) // Add(0) first: the bar appears before the first pair ends
			}
		})
		if err == nil && barErr != nil {
			err = fmt.Errorf("contention: sweep progress: %w", barErr)
		}
		return ms, err
	})
}

// BrookerSweep is Brooker's whole experiment, computed at most once per
// notebook kernel: the lesson's five policies (Policies) at 10 to 190 clients
// (SweepClients) on his parameters (Lesson), runs runs per point.
func BrookerSweep(runs int) (Means, error) {
	return SweepOnce(Lesson(), SweepClients(), Policies(), runs)
}

// count writes n and the noun, singular or plural: "1 policy", "5 policies".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Curve is one policy's line through a sweep, ready to plot against the
// client count.
type Curve struct {
	Policy  string    // the policy's name, one of schedule.Names
	Clients []float64 // x: client counts
	Calls   []float64 // mean calls per run
	TimeMS  []float64 // mean time until the last commit, in ms
}

// Curves are a sweep's lines, one per policy.
type Curves []Curve

// Of returns the named policy's curve, or the zero Curve if there is none.
func (cs Curves) Of(policy string) Curve {
	return lab.Of(cs, func(c Curve) string { return c.Policy }, policy)
}

// Curves splits a sweep's means into one Curve per policy, policies in the
// order they first appear and points in the order of ms.
func (ms Means) Curves() Curves {
	var out Curves
	index := map[string]int{}
	for _, m := range ms {
		i, ok := index[m.Config.Policy]
		if !ok {
			i = len(out)
			index[m.Config.Policy] = i
			out = append(out, Curve{Policy: m.Config.Policy})
		}
		c := &out[i]
		c.Clients = append(c.Clients, float64(m.Config.Clients))
		c.Calls = append(c.Calls, m.Calls)
		c.TimeMS = append(c.TimeMS, m.TimeMS())
	}
	return out
}
