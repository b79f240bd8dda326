package zoo

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/metrics"
)

// InStep reports whether the fullest Slot of retries holds at least half of
// the cohort, every client of the storm: the cohort came back together. The
// whole cohort is the measure, not the clients that retried: where a quota
// lets only a few retry (aws-sdk-go-v2's 35 of 1000), half of those few can
// share a slot by chance, and a figure that chance moves would not repeat.
func (r Result) InStep() bool {
	return len(r.Retries) > 0 && 2*r.Peak >= len(r.Attempts)
}

// WriteVersions writes one line per library module of entries: module,
// version, and whether its randomness can be seeded here.
func WriteVersions(w io.Writer, entries []Entry) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "library\tmodule\tversion")
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Module, Version(e.Module))
	}
	return tw.Flush()
}

// WriteSettings writes what each entry configures, in full.
func WriteSettings(w io.Writer, entries []Entry) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "library\tsettings\tin full")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Settings, e.Details)
	}
	return tw.Flush()
}

// WriteStable writes results as a table whose every figure repeats on every
// run: exact figures for the entries that are seeded (or draw nothing), and
// for the others only what their randomness cannot move: whether the cohort
// came back in step, and how many gave up.
func WriteStable(w io.Writer, results []Result) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "library\tsettings\tseeded\tcohort\tfullest 10 ms of retries\tlast retry\tgave up")
	for _, r := range results {
		cohort := "spread"
		if r.InStep() {
			cohort = "in step"
		}
		peak, last := fmt.Sprint(r.Peak), fmt.Sprint(r.LastRetry.Round(time.Millisecond))
		if !r.Seeded {
			peak, last = "varies", "varies"
		}
		if len(r.Retries) == 0 {
			cohort, peak, last = "no retries", "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\t%s\t%d\n", r.Name, r.Settings, r.Seeded, cohort, peak, last, r.GaveUp)
	}
	return tw.Flush()
}

// Chart draws one panel per result: its retries per Slot over the first
// window, with the outage shaded (no label: the lesson's text names it, and a
// label would sit on the bars at t = 0); each title gives this run's exact figures,
// including those past the window.
func Chart(title string, results []Result, outage, window time.Duration) figure.Stack {
	// 2.7 in per panel: a little more than a Stack's default, for the
	// two-line titles.
	st := figure.Stack{Title: title, Size: figure.Size{Height: len(results) * 259}}
	for _, r := range results {
		h, _ := r.Histogram()
		n := min(len(h.Counts), int(window/Slot))
		counts := make([]int, int(window/Slot))
		copy(counts, h.Counts[:n])
		st.Panels = append(st.Panels, figure.Histogram{
			Title: fmt.Sprintf("%s, %s\npeak %d per 10 ms, last retry %.1f s, %d gave up",
				r.Name, r.Settings, r.Peak, r.LastRetry.Seconds(), r.GaveUp),
			YLabel: "retries",
			Slot:   Slot,
			Counts: figure.Float64s(counts),
			Spans:  []figure.Span{{From: 0, To: outage.Seconds()}}, // unlabelled: a label would sit on the bars at t = 0
		})
	}
	return st
}

// Family returns the results of one family, in order.
func Family(results []Result, family string) []Result {
	var out []Result
	for _, r := range results {
		if r.Family == family {
			out = append(out, r)
		}
	}
	return out
}

// WriteRetryAfter writes what each library did when the server said
// "Retry-After: wait": waited exactly that (the whole cohort together), added
// jitter on top, or ignored it (a library that does not read the header,
// [Entry.IgnoresRetryAfter], is named so even where this run's unseeded draws
// all came out longer), with the spread of the waits where it repeats.
func WriteRetryAfter(w io.Writer, results []Result, wait time.Duration) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "library\tsettings\tretries\twhat it did\tshortest wait\tlongest wait\tfullest 10 ms")
	for _, r := range results {
		if len(r.Retries) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t0\tdid not retry\t-\t-\t-\n", r.Name, r.Settings)
			continue
		}
		lo, hi := slices.Min(r.Retries), slices.Max(r.Retries)
		what := "ignored it"
		switch {
		case r.IgnoresRetryAfter: // what it does, whatever this run's unseeded draws were
		case lo == wait && hi == wait:
			what = "waited exactly that"
		case lo >= wait:
			what = "that, plus jitter"
		}
		exact := r.Seeded || lo == hi
		los, his, peak := fmt.Sprint(lo.Round(time.Millisecond)), fmt.Sprint(hi.Round(time.Millisecond)), fmt.Sprint(r.Peak)
		if !exact {
			los, his, peak = "varies", "varies", "varies"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Name, r.Settings, len(r.Retries), what, los, his, peak)
	}
	return tw.Flush()
}

// WriteHTTP writes the loopback runs with figures that the network's few
// milliseconds of noise cannot move: the first wait each library chose (as
// the library reported it: exactly equal for every client, or spread, with
// the range where the draws are seeded), how many retries reached the server
// (for the settings that fix a library, only that it varies), how many
// clients got an answer, and how long after the outage the last one did, in
// metrics.Recovery's bounds (for the fixing settings, jittered, only that
// it varies).
func WriteHTTP(w io.Writer, results []HTTPResult) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "library\tsettings\tfirst waits\tretries\tgot an answer\tlast answer, after the outage")
	for _, r := range results {
		first := "-"
		if len(r.FirstWaits) > 0 {
			lo, hi := slices.Min(r.FirstWaits), slices.Max(r.FirstWaits)
			switch {
			case lo == hi:
				first = fmt.Sprintf("all exactly %v", lo)
			case r.Name == "backofflab retry": // seeded per client
				first = fmt.Sprintf("spread, %v to %v", lo.Round(time.Millisecond), hi.Round(time.Millisecond))
			default:
				first = "spread (varies)"
			}
		}
		retries := fmt.Sprint(len(r.Retries))
		last := "-"
		if r.Served > 0 {
			last = metrics.Recovery(r.LastServed - r.Outage)
		}
		if r.Fix {
			retries = "varies" // jittered: draws or the network's noise move it
			if r.Served > 0 {
				last = "varies"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.Name, r.Settings, first, retries, r.Served, last)
	}
	return tw.Flush()
}
