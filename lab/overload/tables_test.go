package overload

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestResultHelpers(t *testing.T) {
	c := short()
	r, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Config != c {
		t.Errorf("Result.Config = %+v, want the run's %+v", r.Config, c)
	}
	for _, tc := range []struct {
		name string
		at   time.Duration
		want int
	}{
		{"end of the dip", c.DipEnd, r.Timeline[12].Queue},
		{"first sample", time.Second, r.Timeline[0].Queue},
		{"not a sample's end", 1500 * time.Millisecond, 0},
		{"before the run", 0, 0},
		{"after the run", time.Hour, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.QueueAt(tc.at); got != tc.want {
				t.Errorf("QueueAt(%v) = %d, want %d", tc.at, got, tc.want)
			}
		})
	}
	peak := 0
	for _, p := range r.Timeline {
		if p.Queue > peak {
			peak = p.Queue
		}
	}
	if got := r.PeakQueue(); got != peak || peak == 0 {
		t.Errorf("PeakQueue = %d, want %d (> 0)", got, peak)
	}
	good, wasted := r.AfterDip()
	if good != 0 || wasted < 6000 {
		t.Errorf("no limit after the dip: good %v, wasted %v; want 0 and thousands", good, wasted)
	}
	if r.GoodputBack() != "never" || r.QueueDrained() != "never" {
		t.Errorf("no limit: goodput back %q, drained %q; want never", r.GoodputBack(), r.QueueDrained())
	}
	rb, _ := Run(c.WithBreaker())
	if !rb.Recovered || rb.GoodputBack() != "after "+rb.RecoveredAfter.String() {
		t.Errorf("breaker: goodput back %q, recovered %v after %v", rb.GoodputBack(), rb.Recovered, rb.RecoveredAfter)
	}
}

func TestWriteTables(t *testing.T) {
	b, err := NewBoard(Remedies(short()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := b.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "no limit") || !strings.Contains(lines[1], "never") || !strings.Contains(lines[4], "pacing") {
		t.Errorf("Board.WriteTable: want a header and the four runs:\n%s", out.String())
	}
	out.Reset()
	settings := []Named{{"short", short()}, {"no dip", short().WithDipLength(0)}}
	if err := WriteBudgetTable(&out, settings); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "no dip") || !strings.Contains(lines[2], "1.00×") {
		t.Errorf("WriteBudgetTable: want a header and two settings:\n%s", out.String())
	}
	bad := short()
	bad.Rate = -1
	if err := WriteBudgetTable(&out, []Named{{"bad", bad}}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("WriteBudgetTable of a bad setting: %v, want an error naming it", err)
	}
}
