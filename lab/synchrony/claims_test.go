package synchrony

import (
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/schedule"
)

// The numbers lesson 07's third edition states where its earlier editions
// did not reconcile their output with what is often said (issue 27).
func TestCorrectedClaims(t *testing.T) {
	rows, err := LessonTable()
	if err != nil {
		t.Fatal(err)
	}
	full, dec := rows.Of(schedule.NameFull), rows.Of(schedule.NameDecorrelated)
	t.Run("decorrelated jitter is flatter than full jitter here: 14 against 21 per 10 ms, CV 1.90 against 2.29", func(t *testing.T) {
		if dec.Peak.Count != 14 || full.Peak.Count != 21 || dec.CV >= full.CV {
			t.Errorf("retry peaks %d and %d, CVs %.2f and %.2f: want decorrelated's 14 below full's 21 and its CV lower", dec.Peak.Count, full.Peak.Count, dec.CV, full.CV)
		}
		for _, r := range rows {
			if r.Policy != schedule.NameDecorrelated && r.Peak.Count <= dec.Peak.Count {
				t.Errorf("%s: retry peak %d, want above decorrelated's %d (the flattest)", r.Policy, r.Peak.Count, dec.Peak.Count)
			}
		}
	})
	t.Run("a request's wait for success: earlier on average under every jitter, and more spread", func(t *testing.T) {
		recovery := map[string]Recovery{}
		for _, p := range Lineup() {
			a, err := Run(Lesson().WithPolicy(p.Policy))
			if err != nil {
				t.Fatal(err)
			}
			recovery[p.Name] = a.Recovery()
		}
		exp := recovery[schedule.NameExponential]
		if exp.Mean != 31*time.Second || exp.Median != exp.Mean || exp.Last != exp.Mean {
			t.Fatalf("exponential: %+v, want every client at 31s", exp)
		}
		for name, want := range map[string][2]time.Duration{ // mean, last, to the millisecond
			schedule.NameFull:         {26158 * time.Millisecond, 39433 * time.Millisecond},
			schedule.NameEqual:        {25035 * time.Millisecond, 39347 * time.Millisecond},
			schedule.NameDecorrelated: {26505 * time.Millisecond, 39991 * time.Millisecond},
		} {
			r := recovery[name]
			mean, last := r.Mean.Round(time.Millisecond), r.Last.Round(time.Millisecond)
			if mean != want[0] || last != want[1] || r.Mean >= exp.Mean || r.Last <= exp.Last || r.P90 <= r.Median {
				t.Errorf("%s: %+v; want a mean of %v (before exponential's 31s) and the last at %v (after it)", name, r, want[0], want[1])
			}
		}
	})
	t.Run("decorrelated jitter collapses where the cap is the base: at 1 s it is exponential backoff, attempt for attempt", func(t *testing.T) {
		lineup, err := NewLineup(LessonBase, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var exp, dec Arrivals
		for _, p := range lineup {
			a, err := Run(Lesson().WithPolicy(p.Policy))
			if err != nil {
				t.Fatal(err)
			}
			switch p.Name {
			case schedule.NameExponential:
				exp = a
			case schedule.NameDecorrelated:
				dec = a
			}
		}
		if len(dec) != 21000 || !slices.Equal(dec, exp) {
			t.Errorf("cap 1s: decorrelated %d attempts, exponential %d; want the same 21000 arrivals", len(dec), len(exp))
		}
		rows, err := Table(Lesson(), lineup, LessonSlot)
		if err != nil {
			t.Fatal(err)
		}
		if r := rows.Of(schedule.NameDecorrelated); r.Peak.Count != 1000 || r.Peak.At() != time.Second {
			t.Errorf("cap 1s: decorrelated retry peak %d at %v, want the whole cohort, 1000, at 1s", r.Peak.Count, r.Peak.At())
		}
		// At a 2 s cap most of its draws still land above the cap: 481 retries share one slot.
		lineup2, err := NewLineup(LessonBase, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		rows2, err := Table(Lesson(), lineup2, LessonSlot)
		if err != nil {
			t.Fatal(err)
		}
		if r := rows2.Of(schedule.NameDecorrelated); r.Peak.Count != 481 || r.Peak.At() != 2*time.Second {
			t.Errorf("cap 2s: decorrelated retry peak %d at %v, want 481 at 2s", r.Peak.Count, r.Peak.At())
		}
	})
}
