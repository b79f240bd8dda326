package synchrony

import (
	"fmt"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/lcg"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

// The lesson's setting for jitter at the cap, used by CapLesson: a short
// base and a low cap, so that the cohort spends almost the whole run at the
// cap.
const (
	// CapBase is the first window of the cap section's policies.
	CapBase = 100 * time.Millisecond
	// CapCap is their cap, reached at the fifth retry.
	CapCap = time.Second
	// CapWindow is the width of the windows whose peaks the section follows.
	CapWindow = 2 * time.Second
)

// CapLesson returns the lesson's cohort for jitter at the cap: Lesson's
// thousand clients against a dependency that stays down for the whole
// minute, so that every client keeps retrying, at the cap from its fifth
// retry on, under plain exponential backoff from CapBase to CapCap. Choose
// another policy with WithPolicy (see CapLineup).
func CapLesson() Cohort {
	c := Lesson().WithPolicy(schedule.Exponential{Base: CapBase, Cap: CapCap})
	c.Outage = c.Horizon
	return c
}

// CapLineup returns NewLineup(CapBase, CapCap): the lesson's policies for the
// cap section.
func CapLineup() []schedule.Named { return mustLineup(CapBase, CapCap) }

// FixedFirst is a retry policy that waits exactly First before the first
// retry and lets Then choose every later wait (with n counted as usual, so
// Then's window for the second retry is its window for n = 1): jitter that
// starts one retry too late, as in a library that retries once after a fixed
// pause "to ride out blips" before backing off. A cohort under it returns in
// step at First. It draws from r only when Then does.
type FixedFirst struct {
	First time.Duration
	Then  schedule.Policy
}

// Delay returns First for n <= 0 and Then's wait otherwise; a nil Then
// waits First every time.
func (p FixedFirst) Delay(n int, prev time.Duration, r schedule.Uniform) time.Duration {
	if n <= 0 || p.Then == nil {
		return max(p.First, 0)
	}
	return p.Then.Delay(n, prev, r)
}

// LostJitter returns the retries of the lesson's cohort under full jitter
// (LessonBase, LessonCap) done right, and in the two ways of losing its
// effect after the first attempts: a plain first retry (FixedFirst after
// LessonBase) and one seed for every client (Cohort.SameSeed).
func LostJitter() []metrics.Stream {
	full := Lesson().WithPolicy(schedule.FullJitter{Base: LessonBase, Cap: LessonCap})
	return []metrics.Stream{
		{Name: "full jitter", Source: Retries{full}},
		{Name: "full jitter, plain first retry", Source: Retries{full.WithPolicy(FixedFirst{First: LessonBase, Then: full.Policy})}},
		{Name: "full jitter, one seed for all", Source: Retries{full.WithSameSeed()}},
	}
}

// FixedDraw is a schedule.Uniform that returns the same "random" draw every
// time, in [0, 1), so that a policy's wait can be checked by hand against
// its formula: FullJitter{Base: time.Second}.Delay(3, 0, FixedDraw(0.25))
// is 0.25 · 8 s = 2 s.
type FixedDraw float64

// Float64 returns d.
func (d FixedDraw) Float64() float64 { return float64(d) }

// ByHandTable returns, for each policy of a lineup, its wait before retry n
// after a previous wait prev with the draw u, worked out by hand (byHand,
// in the lineup's order) beside what the policy returns (FixedDraw(u)), and
// a note of the setting.
func ByHandTable(lineup []schedule.Named, byHand []time.Duration, n int, prev time.Duration, u float64) (table.Table, error) {
	if len(byHand) != len(lineup) {
		return table.Table{}, fmt.Errorf("synchrony: %d waits by hand for %d policies: want one per policy", len(byHand), len(lineup))
	}
	t := table.New("policy", "by hand", "lab/schedule")
	for i, p := range lineup {
		t.Add(p.Name, byHand[i], p.Policy.Delay(n, prev, FixedDraw(u)))
	}
	t.Note("retry n = %d, previous wait %v, u = %g", n, prev, u)
	return t, nil
}

// WaitTable returns what one client's first count waits under each policy
// of a lineup look like, drawn from an lcg.LCG seeded with seed: the
// shortest, the mean and the longest, and the share exactly at cap.
func WaitTable(lineup []schedule.Named, count int, cap time.Duration, seed int64) (table.Table, error) {
	if count < 1 || count > MaxEvents {
		return table.Table{}, fmt.Errorf("synchrony: count %d out of range: want 1 <= count <= %d", count, MaxEvents)
	}
	if err := checkSeed(seed); err != nil {
		return table.Table{}, err
	}
	t := table.New("policy", "shortest", "mean", "longest", "exactly the cap")
	for _, p := range lineup {
		waits := schedule.Delays(p.Policy, count, lcg.MustNew(seed))
		sum, atCap := time.Duration(0), 0
		for _, w := range waits {
			sum += w
			if w == cap {
				atCap++
			}
		}
		ms := time.Millisecond
		t.Add(p.Name, slices.Min(waits).Round(ms), (sum / time.Duration(count)).Round(ms), slices.Max(waits).Round(ms), table.Num("%.1f%%", 100*float64(atCap)/float64(count)))
	}
	t.Note("one client, %d waits, cap %v, seed %d", count, cap, seed)
	return t, nil
}

// VersusTable returns the jittered rows of a lesson table against its
// first row (exponential backoff, which comes first in Lineup): each
// one's retry peak and how many times lower, its attempts and how many more,
// its CV and its last success; a note gives the first row's peak, attempts
// and when every client succeeds.
func (rs Rows) VersusTable(outage time.Duration) table.Table {
	t := table.New("policy", "retry peak per 10 ms", "times lower", "attempts", "vs "+rs[0].Policy, "CV", "last success")
	exp := rs[0]
	for _, r := range rs[1:] {
		t.Add(r.Policy, r.Peak.Count, table.Num("%.0f", float64(exp.Peak.Count)/float64(r.Peak.Count)), r.Attempts,
			table.Num("%+.1f%%", 100*float64(r.Attempts-exp.Attempts)/float64(exp.Attempts)), table.Num("%s", metrics.FormatCV(r.CV)), r.Last.Round(time.Millisecond))
	}
	t.Note("%s: retry peak %d per 10 ms, %d attempts; every client succeeds at %v, %v after the outage ended",
		exp.Policy, exp.Peak.Count, exp.Attempts, exp.Last, exp.Last-outage)
	return t
}

// RecoveryTable runs c under each policy of a lineup and returns when its
// clients succeeded: the mean, median, 90th percentile and last success
// (to the millisecond), beside the attempts.
func RecoveryTable(c Cohort, lineup []schedule.Named) (table.Table, error) {
	t := table.New("policy", "attempts", "mean success", "median", "90th percentile", "last")
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	for _, p := range lineup {
		a, err := Run(c.WithPolicy(p.Policy))
		if err != nil {
			return table.Table{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		r := a.Recovery()
		t.Add(p.Name, len(a), ms(r.Mean), ms(r.Median), ms(r.P90), ms(r.Last))
	}
	return t, nil
}

// FirstTable returns each row's first attempts: how many share the fullest
// slot, its width and where it is.
func (rs Rows) FirstTable() table.Table {
	t := table.New("policy", "first attempts")
	for _, r := range rs {
		t.Add(r.Policy, table.Text("%d in %v at %v", r.First.Count, r.First.Width, r.First.At()))
	}
	return t
}

// CapPeakTable runs c under each policy of a lineup and returns, per
// policy, its attempts (and how many times exponential backoff's, the
// lineup's first), the peak of retries per slot in the first window and the
// range of the peaks of the later windows.
func CapPeakTable(c Cohort, lineup []schedule.Named, slot, window time.Duration) (table.Table, error) {
	if len(lineup) == 0 {
		return table.Table{}, fmt.Errorf("synchrony: CapPeakTable of no policies: want at least one")
	}
	t := table.New("policy", "attempts", "vs "+lineup[0].Name, fmt.Sprintf("peak per %v, first %v", slot, window), fmt.Sprintf("later %v windows", window))
	byCount := func(a, b metrics.Peak) int { return a.Count - b.Count }
	first := 0
	for i, p := range lineup {
		c.Policy = p.Policy
		a, err := Run(c)
		if err != nil {
			return table.Table{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		pk, err := c.RetryPeaks(slot, window) // one peak per window
		if err != nil {
			return table.Table{}, fmt.Errorf("%s: %w", p.Name, err)
		}
		if i == 0 {
			first = len(a)
		}
		later := "none"
		if len(pk) > 1 {
			later = fmt.Sprintf("%d to %d", slices.MinFunc(pk[1:], byCount).Count, slices.MaxFunc(pk[1:], byCount).Count)
		}
		t.Add(p.Name, len(a), table.Num("%.2f×", float64(len(a))/float64(first)), pk[0].Count, table.Num("%s", later))
	}
	return t, nil
}
