package contention

import (
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/lab/figure"
	"github.com/backofflab/backofflab/lab/interactive"
	"github.com/backofflab/backofflab/lab/schedule"
	"github.com/backofflab/backofflab/lab/static"
)

func TestSweepFigures(t *testing.T) {
	clients := []int{10, 20, 30}
	policies := []string{schedule.NameImmediate, schedule.NameExponential, schedule.NameFull}
	ms, err := Sweep(Lesson().WithWideSet(), clients, policies, 3)
	if err != nil {
		t.Fatal(err)
	}
	calls, times := CallsLines(ms), TimeLines(ms)
	for _, l := range []figure.Lines{calls, times} {
		if len(l.Series) != len(policies) {
			t.Fatalf("%q: %d series, want %d", l.Title, len(l.Series), len(policies))
		}
		if !strings.Contains(l.Title, "mean of 3 runs") {
			t.Errorf("title %q does not say how many runs each point averages", l.Title)
		}
		for i, s := range l.Series {
			if s.Name != schedule.Label(policies[i]) {
				t.Errorf("series %d is %q, want %q", i, s.Name, schedule.Label(policies[i]))
			}
			if !slices.Equal(s.X, []float64{10, 20, 30}) {
				t.Errorf("%s: x = %v, want the client counts", s.Name, s.X)
			}
		}
		if _, err := static.PNG(l); err != nil {
			t.Errorf("%q: %v", l.Title, err)
		}
		if _, err := interactive.HTML(l); err != nil {
			t.Errorf("%q: %v", l.Title, err)
		}
	}
	if calls.YLabel != "reads+writes per run" {
		t.Errorf("calls y label %q does not say what was counted", calls.YLabel)
	}
	if !times.LogY || calls.LogY {
		t.Errorf("LogY: time %v, calls %v; want a log axis for time only", times.LogY, calls.LogY)
	}
	// The points are the sweep's means, time in seconds.
	for i, m := range ms {
		p, k := i/len(clients), i%len(clients)
		if got := calls.Series[p].Y[k]; got != m.Calls {
			t.Errorf("%s at %d clients: calls %v, want %v", m.Config.Policy, m.Config.Clients, got, m.Calls)
		}
		if got, want := times.Series[p].Y[k], m.TimeMS()/1000; got != want {
			t.Errorf("%s at %d clients: time %v s, want %v", m.Config.Policy, m.Config.Clients, got, want)
		}
	}
}

func TestSweepFiguresEmpty(t *testing.T) {
	l := CallsLines(nil)
	if len(l.Series) != 0 {
		t.Fatalf("empty sweep gave %d series", len(l.Series))
	}
	if _, err := static.PNG(l); err == nil {
		t.Error("rendering an empty sweep: no error, want one")
	}
}
