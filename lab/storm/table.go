package storm

import (
	"context"
	"encoding/gob"
	"fmt"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab"
	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/metrics"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/show"
	"github.com/backofflab/backofflab/lab/table"
	"github.com/backofflab/backofflab/retry"
	"github.com/backofflab/backofflab/retry/breaker"
)

// DefaultsTable returns package retry's defaults, the ones the lesson's
// "package defaults" run keeps: the attempts per call, the backoff, the
// retry budget and the breaker.
func DefaultsTable() table.Table {
	var r retry.Retrier // the zero Retrier has every default
	b, br := r.Budget().Config(), r.Breaker().Config()
	t := table.New("package retry's defaults", "")
	t.Add("attempts per call", retry.DefaultMaxAttempts)
	t.Add("backoff", fmt.Sprint(retry.DefaultPolicy))
	t.Add("retry budget", table.Text("retries up to %g %% of requests over %d buckets of %v, plus %d per window", 100*b.Ratio, b.Buckets, b.Width, b.MinRetries))
	t.Add("breaker", table.Text("opens after %d failures in a row, for %v to %v", br.Failures, br.OpenTimeout, br.MaxOpenTimeout))
	return t
}

// Named is a storm's configuration with the name a lesson gives it.
type Named struct {
	Name   string
	Config Config
}

// LessonRuns returns the lesson's four storms on Lesson's setting:
// exponential backoff without jitter, full jitter alone, the package's
// defaults, and the defaults tuned (a 1 s backoff cap and a breaker that
// opens for 1 s to 1.25 s).
func LessonRuns() []Named {
	return []Named{
		{"exponential, no jitter", Lesson().WithPolicy(schedule.NameExponential)},
		{"full jitter alone", Lesson().WithPolicy(schedule.NameFull)},
		{"package defaults", Lesson()},
		{"tuned", Lesson().WithBackoff(retry.FullJitter{Base: 100 * time.Millisecond, Cap: time.Second}).
			WithBreaker(breaker.Config{OpenTimeout: time.Second, MaxOpenTimeout: 1250 * time.Millisecond})},
	}
}

// LessonStorms runs LessonRuns in real time, in order, at most once per
// notebook kernel (lab.Remember keeps the results for later cells), on a
// progress bar that names the storm running.
func LessonStorms(ctx context.Context) (Results, error) {
	gob.Register(retry.FullJitter{}) // the tuned run's Backoff, kept with its Result
	return lab.Remember("storm-lesson-runs", func() (Results, error) {
		runs := LessonRuns()
		bar, err := show.NewProgress("storms in real time", len(runs), "storms")
		if err != nil {
			return nil, err
		}
		var rs Results
		for _, n := range runs {
			bar.Doing(fmt.Sprintf("running %q", n.Name))
			r, err := Run(ctx, n.Config)
			if err != nil {
				return nil, fmt.Errorf("storm %q: %w", n.Name, err)
			}
			rs = append(rs, r)
			if err := bar.Add(1); err != nil {
				return nil, err
			}
		}
		return rs, nil
	})
}

// wavesWhileDown classifies the outage's slots that received retries: a
// cohort in step fills a few, with silence between; a spread one keeps most
// busy. Noise smears a wave over a slot or two, not over a fifth of the
// outage.
func wavesWhileDown(r Result) string {
	busy, n := map[time.Duration]bool{}, int(r.Config.Outage/r.Config.Slot)
	for _, t := range r.Retries {
		if t < r.Config.Outage {
			busy[t/r.Config.Slot] = true
		}
	}
	if len(busy) < n/5 {
		return fmt.Sprintf("under %d of %d: in step", n/5, n)
	}
	return fmt.Sprintf("%d or more of %d: spread", n/5, n)
}

// Table returns one line per storm (runs and their results, in the same
// order), in the figures that real time does not move: the requests to the
// nearest 300 (the jittered runs' totals move by a few tens around 1480,
// too near 1450 to round to the hundred), the clients answered, whether
// the retries while the server was down came in step, and how long after
// the outage the last client was served, in metrics.Recovery's bounds.
func Table(runs []Named, rs Results) (table.Table, error) {
	if len(runs) != len(rs) || len(rs) == 0 {
		return table.Table{}, fmt.Errorf("storm: %d runs and %d results: want one result per run, at least one", len(runs), len(rs))
	}
	t := table.New("run", "requests", "got answer", "10 ms slots with retries while down", "last client served, after the outage")
	for i, r := range rs {
		t.Add(runs[i].Name, (len(r.Arrivals)+150)/300*300, r.Succeeded, table.Num("%s", wavesWhileDown(r)), table.Num("%s", metrics.Recovery(r.RecoveredAt-r.Config.Outage)))
	}
	c := rs[0].Config
	t.Note("%d clients, server down for the first %v, up to %d attempts and %v each", c.Clients, c.Outage, c.Attempts, c.Deadline)
	t.Note("(requests to the nearest 300; the last client served under 2 s, 2 to 5 s or over 5 s after the outage)")
	return t, nil
}

// Figure returns each storm's arrivals per slot (the bar at 0 is the first
// requests) as one panel each, on one time ruler and one scale, the outage
// shaded and the last client served marked; each panel's title carries
// that run's exact figures.
func Figure(runs []Named, rs Results) (figure.Stack, error) {
	if len(runs) != len(rs) || len(rs) == 0 {
		return figure.Stack{}, fmt.Errorf("storm: %d runs and %d results: want one result per run, at least one", len(runs), len(rs))
	}
	slots := 0
	for _, r := range rs {
		slots = max(slots, len(r.Histogram().Counts))
	}
	st := figure.Stack{Title: "Arrivals at the server per 10 ms", Size: figure.Size{Width: figure.DefaultSize.Width * 9 / 8}}
	for i, r := range rs {
		counts := make([]float64, slots) // every run on the longest run's ruler
		copy(counts, figure.Float64s(r.Histogram().Counts))
		st.Panels = append(st.Panels, figure.Histogram{
			Title:  fmt.Sprintf("%s: %d requests, retry peak %d per 10 ms, last served at %.2f s", runs[i].Name, len(r.Arrivals), r.Peak.Count, r.RecoveredAt.Seconds()),
			YLabel: "requests per 10 ms", Slot: r.Config.Slot, Counts: counts,
			Spans:  []figure.Span{{From: 0, To: r.Config.Outage.Seconds(), Label: "server down"}},
			VLines: []figure.VLine{{X: r.RecoveredAt.Seconds(), Label: "last client served"}},
		})
	}
	return st, nil
}

// LatenessTable returns when policy p, without jitter, sends a client's
// attempts (the first at 0, then after each of its first attempts−1 waits)
// and, for each outage, the first attempt at or after the end of it and how
// late that comes.
func LatenessTable(p schedule.Policy, attempts int, outages ...time.Duration) (table.Table, error) {
	if attempts < 1 {
		return table.Table{}, fmt.Errorf("storm: attempts %d out of range: want attempts >= 1", attempts)
	}
	at := []time.Duration{0}
	for _, d := range schedule.Delays(p, attempts-1, nil) {
		at = append(at, at[len(at)-1]+d)
	}
	t := table.New("outage", "first attempt after it ends", "late by")
	for _, outage := range outages {
		i, _ := slices.BinarySearch(at, outage) // the first attempt at or after the end
		if i == len(at) {
			t.Add(outage, "none", "")
			continue
		}
		t.Add(outage, at[i], at[i]-outage)
	}
	t.Note("%v without jitter sends at %v", p, at)
	return t, nil
}

// WindowsTable returns, for each run with the package's defaults (possibly
// tuned), its backoff's longest window, when its fifth attempt comes at
// the latest (the first four waits at their longest), and for how long its
// breaker then opens.
func WindowsTable(runs ...Named) (table.Table, error) {
	t := table.New("run", "windows up to", "5th attempt by", "breaker opens for")
	for _, n := range runs {
		backoff, ok := n.Config.Backoff.(retry.FullJitter)
		if !ok {
			backoff = retry.DefaultPolicy.(retry.FullJitter)
		}
		fifth := backoff.Ceiling(0) + backoff.Ceiling(1) + backoff.Ceiling(2) + backoff.Ceiling(3)
		b, err := breaker.New(n.Config.Breaker)
		if err != nil {
			return table.Table{}, fmt.Errorf("storm %q: %w", n.Name, err)
		}
		t.Add(n.Name, backoff.Cap, fifth, table.Num("%v to %v", b.Config().OpenTimeout, b.Config().MaxOpenTimeout))
	}
	return t, nil
}
