package synchrony

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/table"
)

// NewLineup returns the policies the lesson compares, in its order, built
// by schedule.New with the given base and cap (0 means uncapped), ready for
// Table: exponential backoff without jitter first, then full, equal and
// decorrelated jitter.
func NewLineup(base, cap time.Duration) ([]schedule.Named, error) {
	var out []schedule.Named
	for _, name := range []string{schedule.NameExponential, schedule.NameFull, schedule.NameEqual, schedule.NameDecorrelated} {
		p, err := schedule.New(schedule.Config{Name: name, Base: base, Cap: cap})
		if err != nil {
			return nil, err
		}
		out = append(out, schedule.Named{Name: name, Policy: p})
	}
	return out, nil
}

// Lineup returns lesson 07's lineup: NewLineup(LessonBase, LessonCap).
func Lineup() []schedule.Named { return mustLineup(LessonBase, LessonCap) }

// mustLineup is NewLineup for the package's own valid parameters.
func mustLineup(base, cap time.Duration) []schedule.Named {
	l, err := NewLineup(base, cap)
	if err != nil {
		panic(err) // unreachable: the lessons' parameters are valid
	}
	return l
}

// A Row is one policy's cohort, measured as the lesson's main table reports
// it. The first attempts and the retries are measured apart: no policy can
// move the first attempts, so they would hide the difference the policies
// make.
type Row struct {
	// Policy is the policy's name, one of schedule.Names for the lesson's
	// lineups; schedule.Label gives its display label.
	Policy string
	// Attempts counts every attempt, first attempts included; Retries
	// counts the rest.
	Attempts, Retries int
	// First is the fullest slot of the first attempts.
	First metrics.Peak
	// Peak is the fullest slot of the retries.
	Peak metrics.Peak
	// CV is the coefficient of variation of the gaps between retries
	// (NaN if undefined: fewer than two retries, or all at one instant).
	CV float64
	// Recovered is the number of clients that succeeded before the
	// horizon, and Last the time of the latest success (0 if none).
	Recovered int
	Last      time.Duration
}

// Rows is a policy table, one Row per policy in the lineup's order.
type Rows []Row

// Of returns the row of the named policy (schedule.NameFull, say), or the
// zero Row if no row has that name.
func (rs Rows) Of(name string) Row { return lab.Of(rs, func(r Row) string { return r.Policy }, name) }

// Table runs c under each policy (c.Policy is ignored) and measures each run
// at the given slot width.
func Table(c Cohort, policies []schedule.Named, slot time.Duration) (Rows, error) {
	var rows Rows
	for _, p := range policies {
		c.Policy = p.Policy
		a, err := c.Arrivals()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		first, err := metrics.Measure(metrics.Times(a.First().Times()), slot)
		if err != nil {
			return nil, err
		}
		retries, err := metrics.Measure(metrics.Times(a.Retries().Times()), slot)
		if err != nil {
			return nil, err
		}
		n, last := a.Recovered()
		rows = append(rows, Row{
			Policy: p.Name, Attempts: len(a), Retries: retries.Events,
			First: first.Peak, Peak: retries.Peak, CV: retries.CV,
			Recovered: n, Last: last,
		})
	}
	return rows, nil
}

// LessonTable returns the lesson's main table: the Lesson cohort under the
// Lineup, measured at LessonSlot.
func LessonTable() (Rows, error) { return Table(Lesson(), Lineup(), LessonSlot) }

// Table returns the rows as a table, one line per policy name, each peak
// with its slot width.
func (rs Rows) Table() table.Table {
	t := table.New("policy", "attempts", "retries", "first attempts", "retry peak", "CV", "recovered", "last success")
	for _, r := range rs {
		t.Add(r.Policy, r.Attempts, r.Retries, table.Num("%d in %v", r.First.Count, r.First.Width),
			table.Text("%d in %v at %v", r.Peak.Count, r.Peak.Width, r.Peak.At()), table.Num("%s", metrics.FormatCV(r.CV)), r.Recovered, r.Last.Round(time.Millisecond))
	}
	return t
}
