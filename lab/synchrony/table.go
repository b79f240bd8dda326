package synchrony

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/backofflab/backofflab/lab/cohort"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
)

// LessonPolicies are the policies the lesson compares, in its order: no
// jitter first, then the three jittered ones.
var LessonPolicies = []string{"none", "full", "equal", "decorrelated"}

// Lineup returns LessonPolicies built by schedule.New with the given base
// and cap (0 means uncapped), ready for Table.
func Lineup(base, cap time.Duration) ([]cohort.Named, error) {
	var out []cohort.Named
	for _, name := range LessonPolicies {
		p, err := schedule.New(schedule.Config{Name: name, Base: base, Cap: cap})
		if err != nil {
			return nil, err
		}
		out = append(out, cohort.Named{Name: name, Policy: p})
	}
	return out, nil
}

// A Row is one policy's cohort, measured as the lesson's main table reports
// it. The first attempts and the retries are measured apart: no policy can
// move the first attempts, so they would hide the difference the policies
// make.
type Row struct {
	// Policy is the policy's name.
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

// Table runs c under each policy (c.Policy is ignored) and measures each run
// at the given slot width.
func Table(c Cohort, policies []cohort.Named, slot time.Duration) ([]Row, error) {
	var rows []Row
	for _, p := range policies {
		c.Policy = p.Policy
		a, err := c.Arrivals()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		first, err := Measure(Times(a.First().Times()), slot)
		if err != nil {
			return nil, err
		}
		retries, err := Measure(Times(a.Retries().Times()), slot)
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
// Lineup of LessonBase and LessonCap, measured at LessonSlot.
func LessonTable() ([]Row, error) {
	policies, err := Lineup(LessonBase, LessonCap)
	if err != nil {
		return nil, err
	}
	return Table(Lesson(nil), policies, LessonSlot)
}

// WriteRows prints rows as an aligned table, each peak with its slot width.
func WriteRows(w io.Writer, rows []Row) error {
	if _, err := fmt.Fprintf(w, "%-13s %8s %8s  %-18s %-24s %8s %9s  %s\n",
		"policy", "attempts", "retries", "first attempts", "retry peak", "CV", "recovered", "last success"); err != nil {
		return err
	}
	for _, r := range rows {
		first := fmt.Sprintf("%d in %v", r.First.Count, r.First.Width)
		peak := fmt.Sprintf("%d in %v at %v", r.Peak.Count, r.Peak.Width, r.Peak.At())
		if _, err := fmt.Fprintf(w, "%-13s %8d %8d  %-18s %-24s %8s %9d  %v\n",
			r.Policy, r.Attempts, r.Retries, first, peak, formatCV(r.CV), r.Recovered, r.Last.Round(time.Millisecond)); err != nil {
			return err
		}
	}
	return nil
}

// formatCV prints a CV with two decimals, or "undefined" for NaN.
func formatCV(cv float64) string {
	if math.IsNaN(cv) {
		return "undefined"
	}
	return fmt.Sprintf("%.2f", cv)
}
