package overload

import (
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/lab/table/tabletest"
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

func TestTables(t *testing.T) {
	b, err := NewBoard(Remedies(short()))
	if err != nil {
		t.Fatal(err)
	}
	out := b.Table().String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "no limit") || !strings.Contains(lines[1], "never") || !strings.Contains(lines[4], "pacing") {
		t.Errorf("Board.Table: want a header and the four runs:\n%s", out)
	}
	settings := []Named{{"short", short()}, {"no dip", short().WithDipLength(0)}}
	bt, err := BudgetTable(settings)
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimRight(bt.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "no dip") || !strings.Contains(lines[2], "1.00×") {
		t.Errorf("BudgetTable: want a header and two settings:\n%s", bt)
	}
	bad := short()
	bad.Rate = -1
	if _, err := BudgetTable([]Named{{"bad", bad}}); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("BudgetTable of a bad setting: %v, want an error naming it", err)
	}
}

// The lesson's tables: lines of lesson 10.
func TestLessonTables(t *testing.T) {
	c := Lesson()
	tabletest.Has(t, "Arithmetic", c.Arithmetic(), "capacity × timeout      1000 entries  a longer queue abandons everything it holds",
		"capacity − arrivals    200 entries/s  to spare for working off a backlog")
	dips, err := DipTable(c, time.Second, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "DipTable", dips, " 1s                 790      after 0s            0", " 2s                2387         never        70040")
	attempts, err := AttemptsTable(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "AttemptsTable", attempts, "       1     800 attempts/s          1.00×          1.00×    after 7.4s            0",
		"       3    2400 attempts/s          2.62×          3.00×         never        71040")
	b, err := RemedyBoard(c, "no limit", "budget")
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "AfterDipTable", b.AfterDipTable(), "no limit                 47000       47000   100%", "budget                   41764       16196    39%")
	r, err := Run(c.WithBudget().WithSample(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	tl, err := r.TimelineTable(10, 24)
	if err != nil {
		t.Fatal(err)
	}
	tabletest.Has(t, "TimelineTable", tl, "12s             795               1586   3182", "23s             823                807   1777")
	if _, err := r.TimelineTable(24, 10); err == nil {
		t.Error("TimelineTable(24, 10): no error")
	}
}
